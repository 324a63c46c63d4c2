import {
  defineEntity,
  definedButtons,
  GEN_HEADER,
  GEN_NAME_PATTERN,
  GENERATED_MODULES,
  type EntityDef,
  type GenColumn,
  type GenFile,
  type GenTableConfig,
  type ResolvedEntity,
} from '@velo/shared'
import type { Options } from 'prettier'
import { generatedMigrations } from '../../../db/migrations/generated'
import { type ColumnShape, snakeCase, tableShapeOf } from '../../../db/schema-gen/shape'
import { AUDIT_COLUMN_NAMES, camelName, isIntegerType } from './config'

// The files of a generated module, as text. Every name, label and comment taken from the database or
// the settings is written as a string literal (JSON.stringify, which escapes quotes, backslashes and
// line breaks; prettier then picks the quotes), never as code and never inside a comment. The only
// identifiers written are the entity key and names derived from it, checked against GEN_NAME_PATTERN.

const PRETTIER: Options = { printWidth: 110, tabWidth: 2, semi: false, singleQuote: true, trailingComma: 'all' }

/** The menu icon of a generated page. */
const ICON = 'table'

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const MIGRATION_NAME = /^\d{4}-\d{2}-\d{2}T\d{2}-[a-z0-9]+(-[a-z0-9]+)*$/

/** A value as TypeScript source: strings as escaped literals, objects with their keys quoted unless plain. */
export function sourceOf(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v)
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error('not a finite number')
    return String(v)
  }
  if (typeof v === 'boolean') return String(v)
  if (v === null) return 'null'
  if (Array.isArray(v)) return `[${v.map(sourceOf).join(', ')}]`
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined)
    return `{ ${entries.map(([k, x]) => `${IDENTIFIER.test(k) ? k : JSON.stringify(k)}: ${sourceOf(x)}`).join(', ')} }`
  }
  throw new Error(`cannot write a ${typeof v}`)
}

const isAuditColumn = (c: GenColumn) => (AUDIT_COLUMN_NAMES as readonly string[]).includes(c.column)
const TEXT_LIKE = new Set(['text', 'longText', 'email', 'phone', 'dict'])

/** Whether the table has all five audit columns, so the definition says `audited: true`. */
export const auditedTable = (config: GenTableConfig) => AUDIT_COLUMN_NAMES.every((name) => config.columns.some((c) => c.column === name))

/** One column's field as the definition writes it. */
function fieldOf(c: GenColumn, audited: boolean): Record<string, unknown> {
  const label = { en_US: c.label.en_US, zh_CN: c.label.zh_CN }
  if (c.primaryKey) return { name: c.name, kind: 'number', int: true, label, readOnly: true, sort: true }
  const out: Record<string, unknown> = { name: c.name, kind: c.kind, label }
  if (c.kind === 'number' && isIntegerType(c.dbType)) out.int = true
  if (c.kind === 'dict') out.dict = c.dict
  if ((c.kind === 'text' || c.kind === 'longText' || c.kind === 'email' || c.kind === 'dict') && c.max) out.max = c.max
  // The audit columns the server fills in: shown, never written by a client.
  const serverSet = audited && isAuditColumn(c) && !c.form
  if (serverSet) {
    out.readOnly = true
    if (!c.nullable && !TEXT_LIKE.has(c.kind)) out.required = true
  } else if (c.required) out.required = true
  if (TEXT_LIKE.has(c.kind) && c.nullable && !c.required) out.nullable = true
  if (c.search) out.search = c.search
  if (c.kind === 'date' || c.kind === 'datetime' || c.kind === 'number' || c.kind === 'money') out.sort = true
  if (!c.list) out.list = false
  if (!c.form && !serverSet) out.form = false
  if (!c.export) out.export = false
  return out
}

/** The definition the settings describe, as data: what the entity file writes and the migration creates. */
export function definitionOf(tableName: string, config: GenTableConfig): EntityDef {
  const audited = auditedTable(config)
  // An audited table's audit columns come from `audited`; those the user shows become fields too.
  const columns = config.columns.filter((c) => !(audited && isAuditColumn(c) && !c.list && !c.form && !c.export && !c.search))
  const fields = columns.map((c) => fieldOf(c, audited))
  const id = config.columns.find((c) => c.primaryKey)!
  const labelField = columns.find((c) => !c.primaryKey && c.kind === 'text')?.name
  return {
    key: config.entityKey,
    table: camelName(tableName),
    path: config.path,
    permission: config.permission,
    label: { en_US: config.label.en_US, zh_CN: config.label.zh_CN },
    idField: id.name,
    ...(labelField ? { labelField } : {}),
    defaultSort: { field: id.name, order: 'desc' },
    // Whose rows these are cannot be read off a table: the developer who adds the module says it
    // (docs/entity-engine.md › Data scope); until then every holder of its rights sees every row.
    scope: {
      none: {
        en_US: 'Generated from a table: no owner declared yet (a scope would limit it)',
        zh_CN: '由数据表生成：尚未声明数据归属（声明 scope 即可限定）',
      },
    },
    storage: { audited },
    fields: fields as unknown as EntityDef['fields'],
  }
}

const header = (lang: 'en_US' | 'zh_CN') => `// ${GEN_HEADER[lang]}`

function entityFile(def: EntityDef, area: string): string {
  return [
    header('en_US'),
    "import { defineEntity } from '../../entity/define'",
    "import type { GeneratedModule } from '../../entity/generated'",
    '',
    `export const ${def.key}: GeneratedModule = {`,
    `  menu: ${sourceOf({ area, icon: ICON })},`,
    `  entity: defineEntity(${sourceOf(def)}),`,
    '}',
    '',
  ].join('\n')
}

/** The generated modules kept in the checkout (as the running server has them), with this one, sorted by key. */
function modulesIndex(key: string): string {
  const keys = [...new Set([...GENERATED_MODULES.map((m) => m.entity.key), key])].sort()
  for (const k of keys) if (!GEN_NAME_PATTERN.test(k)) throw new Error(`generated module ${k} has a key code generation cannot write`)
  return [
    header('en_US'),
    "import type { GeneratedModule } from '../../entity/generated'",
    ...keys.map((k) => `import { ${k} } from './${k}'`),
    '',
    '// Rewritten by Tool system › Code generation: each downloaded module adds its file beside this one',
    '// and its entry here, sorted by key.',
    `export const GENERATED_MODULES: readonly GeneratedModule[] = [${keys.join(', ')}]`,
    '',
  ].join('\n')
}

const aliasOf = (name: string) => `m_${name.replace(/[^A-Za-z0-9]/g, '_')}`

function migrationsIndex(name: string): string {
  const names = [...new Set([...Object.keys(generatedMigrations('sqlite')), name])].sort()
  for (const n of names) if (!MIGRATION_NAME.test(n)) throw new Error(`generated migration ${n} has a name code generation cannot write`)
  return [
    header('en_US'),
    "import type { Migration } from 'kysely'",
    "import type { Dialect } from '../../database'",
    ...names.map((n) => `import * as ${aliasOf(n)} from './${n}'`),
    '',
    '// Rewritten by Tool system › Code generation: each downloaded module adds its migration beside this',
    '// one and its entry here. migrate.ts runs them after the listed migrations.',
    'export function generatedMigrations(dialect: Dialect): Record<string, Migration> {',
    `  return { ${names.map((n) => `${JSON.stringify(n)}: ${aliasOf(n)}.migration(dialect)`).join(', ')} }`,
    '}',
    '',
  ].join('\n')
}

/** Types that differ by dialect, as local constants of the migration (as `npm run migration:new` writes them). */
const DIALECT_TYPES: Record<string, { pg: string; sqlite: string }> = {
  bigint: { pg: 'bigint', sqlite: 'integer' },
  real: { pg: 'double precision', sqlite: 'real' },
  date: { pg: 'date', sqlite: 'text' },
  datetime: { pg: 'timestamptz', sqlite: 'text' },
}

function migrationFile(entity: ResolvedEntity, table: string, area: string): string {
  const shape = tableShapeOf(entity)
  const used = new Set<string>()
  const typeOf = (type: string) => {
    if (!DIALECT_TYPES[type]) return JSON.stringify(type)
    used.add(type)
    return type
  }
  const idColumn = shape.columns.find((c) => c.type === 'id')!
  const addColumn = (c: ColumnShape) => {
    let chain = 'c'
    if (!c.nullable) chain += '.notNull()'
    if (c.default !== undefined) chain += `.defaultTo(${sourceOf(c.default)})`
    if (c.unique) chain += '.unique()'
    return `.addColumn(${JSON.stringify(c.name)}, ${typeOf(c.type)}${chain === 'c' ? '' : `, (c) => ${chain}`})`
  }
  const body: string[] = [
    `await id(db.schema.createTable(${JSON.stringify(table)}).ifNotExists(), dialect, ${JSON.stringify(idColumn.name)})`,
    ...shape.columns.filter((c) => c !== idColumn).map((c) => `  ${addColumn(c)}`),
    '  .execute()',
  ]
  for (const ix of shape.indexes) {
    body.push(
      `await db.schema.createIndex(${JSON.stringify(ix.name)}).ifNotExists().on(${JSON.stringify(table)}).columns(${sourceOf(ix.columns)})${ix.unique ? '.unique()' : ''}.execute()`,
    )
  }
  const component = `${area}/${entity.key}/index`
  const buttons = definedButtons(entity)
  const consts = [...used].map((t) => `  const ${t} = dialect === 'postgres' ? ${JSON.stringify(DIALECT_TYPES[t]!.pg)} : ${JSON.stringify(DIALECT_TYPES[t]!.sqlite)}`)
  return [
    header('en_US'),
    "import type { Generated, Kysely } from 'kysely'",
    "import type { Dialect } from '../../database'",
    "import { id } from '../2026-11-20T00-foundation'",
    '',
    '// Frozen in time: never edit a migration that has shipped; add a new one.',
    '',
    '/** The menu table as this migration writes it: a copy frozen with it, not a later schema. */',
    'interface MenuRow {',
    '  menu_id: Generated<number>',
    '  menu_name: string',
    '  parent_id: number',
    '  order_num: number',
    '  path: string',
    '  component: string | null',
    '  query: string | null',
    '  is_frame: string',
    '  is_cache: string',
    '  menu_type: string',
    '  visible: string',
    '  status: string',
    '  no_close: string',
    '  perms: string',
    '  icon: string',
    '  create_by: string',
    '  create_time: string',
    '  update_by: string',
    '  update_time: string | null',
    '  remark: string',
    '}',
    '',
    '/** The table, unless the database has it already; in a database seeded before it, its page in the menu. */',
    'export function migration(dialect: Dialect) {',
    ...consts,
    '  return {',
    '    async up(db: Kysely<unknown>): Promise<void> {',
    ...body.map((l) => `      ${l}`),
    '',
    '      // A fresh database gets the page from the menu catalogue when it is seeded, after the migrations.',
    '      const menus = db.withTables<{ sys_menu: MenuRow }>()',
    `      const area = await menus.selectFrom('sys_menu').select('menu_id').where('menu_name', '=', ${JSON.stringify(`menu.${area}`)}).where('menu_type', '=', 'M').where('parent_id', '=', 0).orderBy('menu_id').executeTakeFirst()`,
    `      const present = await menus.selectFrom('sys_menu').select('menu_id').where('menu_type', '=', 'C').where('component', '=', ${JSON.stringify(component)}).executeTakeFirst()`,
    '      if (!area || present) return',
    "      const last = await menus.selectFrom('sys_menu').select((eb) => eb.fn.max('order_num').as('n')).where('parent_id', '=', area.menu_id).executeTakeFirst()",
    "      const row = { create_by: 'system', create_time: new Date().toISOString(), update_by: '', update_time: null, remark: '', query: null, is_frame: '1', is_cache: '0', visible: '0', status: '0', no_close: '0' }",
    `      const page = await menus.insertInto('sys_menu').values({ ...row, menu_name: ${JSON.stringify(`menu.${area}.${entity.key}`)}, parent_id: area.menu_id, order_num: Number(last?.n ?? 0) + 1, path: ${JSON.stringify(entity.key)}, component: ${JSON.stringify(component)}, menu_type: 'C', perms: ${JSON.stringify(`${entity.permission}:list`)}, icon: ${JSON.stringify(ICON)} }).returning('menu_id').executeTakeFirstOrThrow()`,
    `      const buttons: [perms: string, name: string][] = ${sourceOf(buttons)}`,
    '      for (const [i, [perms, name]] of buttons.entries()) {',
    "        await menus.insertInto('sys_menu').values({ ...row, menu_name: name, parent_id: page.menu_id, order_num: i + 1, path: '', component: null, menu_type: 'F', perms, icon: '#' }).execute()",
    '      }',
    '    },',
    '  }',
    '}',
    '',
  ].join('\n')
}

function instructions(key: string, kebab: string, area: string, path: string, migration: string): string {
  return [
    `# ${GEN_HEADER.en_US}: \`${key}\``,
    '',
    `The module \`${key}\` (API path \`${path}\`, menu area \`${area}\`).`,
    '',
    '1. Unzip this archive at the root of a checkout. It adds',
    `   - \`packages/shared/src/entities/generated/${key}.ts\` (the definition),`,
    `   - \`packages/server/src/db/migrations/generated/${migration}.ts\` (its migration),`,
    '',
    '   and rewrites the two `index.ts` files beside them.',
    '',
    '2. Record the definition in the migration snapshot:',
    '',
    '   ```sh',
    `   npm run migration:new adopt-${kebab} -- --snapshot-only`,
    '   ```',
    '',
    '3. `npm run build`, then restart the server.',
    '',
    'The table is created if the database does not have it yet, and the page appears under its menu area.',
    '',
  ].join('\n')
}

const kebabOf = (key: string) => snakeCase(key).replace(/_/g, '-')

const hourStamp = (d: Date) => d.toISOString().slice(0, 13)

/**
 * The migration's date and hour (UTC), as `npm run migration:new` names them: now, or an hour after
 * the latest generated module's migration the database has run if that is later, so that the new one
 * sorts after it (Kysely refuses a migration that sorts before one already run in its table;
 * db/migrate.ts keeps generated modules' migrations in a table of their own).
 */
export function migrationStamp(now: Date, latestRun: string | undefined): string {
  const stamp = latestRun && /^\d{4}-\d{2}-\d{2}T\d{2}/.exec(latestRun)?.[0]
  if (!stamp) return hourStamp(now)
  const after = new Date(new Date(`${stamp}:00:00Z`).getTime() + 3_600_000)
  return hourStamp(after > now ? after : now)
}

/** The five files of the module, formatted. The definition is checked by defineEntity first, as the server would at start. */
export async function renderModule(tableName: string, config: GenTableConfig, stamp: string): Promise<{ entity: ResolvedEntity; files: GenFile[] }> {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}$/.test(stamp)) throw new Error(`bad migration stamp ${stamp}`)
  const def = definitionOf(tableName, config)
  const entity = defineEntity(def)
  const kebab = kebabOf(entity.key)
  const migration = `${stamp}-${kebab}`
  const table = snakeCase(def.table)
  const ts = (path: string, text: string) => ({ path, language: 'typescript' as const, text })
  const raw = [
    ts(`packages/shared/src/entities/generated/${entity.key}.ts`, entityFile(def, config.area)),
    ts('packages/shared/src/entities/generated/index.ts', modulesIndex(entity.key)),
    ts(`packages/server/src/db/migrations/generated/${migration}.ts`, migrationFile(entity, table, config.area)),
    ts('packages/server/src/db/migrations/generated/index.ts', migrationsIndex(migration)),
    { path: `GENERATED-${entity.key}.md`, language: 'markdown' as const, text: instructions(entity.key, kebab, config.area, config.path, migration) },
  ]
  // Imported at the first generation, not at start: prettier's core is not needed by a server that never generates (issue 43).
  const { format } = await import('prettier')
  const files: GenFile[] = []
  for (const f of raw) {
    const content = await format(f.text, { ...PRETTIER, parser: f.language === 'typescript' ? 'typescript' : 'markdown' })
    files.push({ path: f.path, language: f.language, content })
  }
  return { entity, files }
}

export { PRETTIER }
