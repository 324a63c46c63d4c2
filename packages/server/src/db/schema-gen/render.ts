import type { ColumnChange, TableChanges } from './diff'
import type { ColumnShape, IndexShape, TableShape } from './shape'

// Writes a migration, in the style of the hand-written ones, from the changes between the last
// snapshot and the definitions. The file is frozen once written: it names every column and type
// literally and imports nothing but the foundation migration's helpers.

export interface RenderedMigration {
  source: string
  /** Said to the developer: columns or tables dropped with their data, likely renames. */
  warnings: string[]
  /** Changes the migration cannot make by itself: it throws until a developer edits it. */
  todos: string[]
}

export interface RenderOptions {
  /** The migration's name, as migrate.ts lists it ('2026-11-24T03-service-orders'). */
  name: string
  /** The exported function (camelCase of the name's words). */
  functionName: string
  changes: readonly TableChanges[]
  /** Where the foundation's id() and audited() come from (another directory in tests). */
  foundationImport?: string
  /** Where the Dialect type comes from. */
  databaseImport?: string
}

/** A single-quoted TypeScript string. */
const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`
const lit = (v: string | number | boolean) => (typeof v === 'string' ? q(v) : String(v))

/** Types that differ by dialect, as local constants of the migration. */
const DIALECT_TYPES: Record<string, { name: string; pg: string; sqlite: string }> = {
  bigint: { name: 'bigint', pg: 'bigint', sqlite: 'integer' },
  real: { name: 'real', pg: 'double precision', sqlite: 'real' },
  date: { name: 'date', pg: 'date', sqlite: 'text' },
  datetime: { name: 'datetime', pg: 'timestamptz', sqlite: 'text' },
}

/** Kinds of values: a change between them converts data and is left to a developer. */
const familyOf = (type: string) =>
  /^(varchar\(\d+\)|text)$/.test(type) ? 'text' : /^(integer|bigint)$/.test(type) ? 'integer' : /^(real|decimal\(.*\))$/.test(type) ? 'real' : type

const uniqueName = (table: string, column: string) => `${table}_${column}_key`

class Writer {
  private readonly lines: string[] = []
  readonly dialectTypes = new Set<string>()
  usesSql = false
  usesId = false
  usesAudited = false
  usesDialect = false

  line(indent: number, text = '') {
    this.lines.push(text ? `${'  '.repeat(indent)}${text}` : '')
  }
  get text() {
    return this.lines.join('\n')
  }
  type(type: string): string {
    const d = DIALECT_TYPES[type]
    if (!d) return q(type)
    this.dialectTypes.add(type)
    this.usesDialect = true
    return d.name
  }
  /** The `(c) => c.notNull()…` argument of addColumn, or nothing. */
  columnOptions(c: ColumnShape, withUnique = true): string {
    let chain = 'c'
    if (!c.nullable) chain += '.notNull()'
    if (c.default !== undefined) chain += `.defaultTo(${lit(c.default)})`
    if (withUnique && c.unique) chain += '.unique()'
    return chain === 'c' ? '' : `, (c) => ${chain}`
  }
  addColumn(c: ColumnShape, withUnique = true): string {
    return `.addColumn(${q(c.name)}, ${this.type(c.type)}${this.columnOptions(c, withUnique)})`
  }
}

const AUDIT: readonly ColumnShape[] = [
  { name: 'create_by', type: 'varchar(64)', nullable: false, default: '' },
  { name: 'create_time', type: 'datetime', nullable: false },
  { name: 'update_by', type: 'varchar(64)', nullable: false, default: '' },
  { name: 'update_time', type: 'datetime', nullable: true },
  { name: 'remark', type: 'varchar(500)', nullable: false, default: '' },
]
const sameShape = (a: ColumnShape, b: ColumnShape) => a.type === b.type && a.nullable === b.nullable && a.default === b.default && !!a.unique === !!b.unique

/** True when the table has the audit columns exactly as the foundation's audited() makes them. */
function isAudited(t: TableShape) {
  return AUDIT.every((a) => t.columns.some((c) => c.name === a.name && sameShape(c, a)))
}

/** `await … createTable(name) … .execute()` for a table's shape, under another name when rebuilding. */
function createTable(w: Writer, indent: number, name: string, shape: TableShape) {
  const idColumn = shape.columns.find((c) => c.type === 'id')
  if (!idColumn) {
    // A join table: its two ids are its key.
    if (!shape.primaryKey) throw new Error(`${name}: a table has an id column or a primary key`)
    w.line(indent, `await db.schema`)
    w.line(indent + 1, `.createTable(${q(name)})`)
    for (const c of shape.columns) w.line(indent + 1, w.addColumn(c))
    w.line(indent + 1, `.addPrimaryKeyConstraint(${q(`${name.replace(/__new$/, '')}_pk`)}, [${shape.primaryKey.map(q).join(', ')}])`)
    w.line(indent + 1, '.execute()')
    return
  }
  const audited = isAudited(shape)
  const rest = shape.columns.filter((c) => c !== idColumn && !(audited && AUDIT.some((a) => a.name === c.name)))
  w.usesId = true
  w.usesDialect = true
  const start = `id(db.schema.createTable(${q(name)}), dialect, ${q(idColumn.name)})`
  if (audited) {
    w.usesAudited = true
    w.line(indent, 'await audited(')
    w.line(indent + 1, rest.length ? start : `${start},`)
    rest.forEach((c, i) => w.line(indent + 2, `${w.addColumn(c)}${i === rest.length - 1 ? ',' : ''}`))
    w.line(indent + 1, 'dialect,')
    w.line(indent, ').execute()')
  } else {
    w.line(indent, `await ${start}`)
    for (const c of rest) w.line(indent + 1, w.addColumn(c))
    w.line(indent + 1, '.execute()')
  }
}

function createIndex(w: Writer, indent: number, table: string, ix: IndexShape) {
  const cols = ix.columns.length === 1 ? `.column(${q(ix.columns[0]!)})` : `.columns([${ix.columns.map(q).join(', ')}])`
  w.line(indent, `await db.schema.createIndex(${q(ix.name)}).on(${q(table)})${cols}${ix.unique ? '.unique()' : ''}.execute()`)
}

function dropIndex(w: Writer, indent: number, table: string, ix: IndexShape) {
  if (!ix.unique) {
    w.line(indent, `await db.schema.dropIndex(${q(ix.name)}).execute()`)
    return
  }
  // (PostgreSQL only: SQLite rebuilds the table.) A unique index may be a table's unique constraint.
  w.usesSql = true
  w.line(indent, `await sql\`alter table \${sql.table(${q(table)})} drop constraint if exists \${sql.ref(${q(ix.name)})}\`.execute(db)`)
  w.line(indent, `await db.schema.dropIndex(${q(ix.name)}).ifExists().execute()`)
}

/** What SQLite cannot change in place: a new type family, nullability, default, or a uniqueness removed. */
function needsRebuild(a: ColumnChange) {
  return !a.lengthOnly && (a.from.type !== a.to.type || a.from.nullable !== a.to.nullable || a.from.default !== a.to.default || (a.from.unique && !a.to.unique))
}

/** The statements that change one column on PostgreSQL. */
function alterOnPostgres(w: Writer, indent: number, table: string, a: ColumnChange) {
  const { from, to } = a
  const t = q(table)
  const c = q(to.name)
  if (from.type !== to.type) {
    const pgType = DIALECT_TYPES[to.type]?.pg ?? to.type
    w.usesSql = true
    w.line(indent, `await sql\`alter table \${sql.table(${t})} alter column \${sql.ref(${c})} type ${pgType} using \${sql.ref(${c})}::${pgType}\`.execute(db)`)
  }
  if (from.default !== to.default) {
    w.line(indent, `await db.schema.alterTable(${t}).alterColumn(${c}, (col) => col.${to.default === undefined ? 'dropDefault()' : `setDefault(${lit(to.default)})`}).execute()`)
  }
  if (from.nullable && !to.nullable) {
    if (to.default !== undefined) {
      w.usesSql = true
      w.line(indent, `await sql\`update \${sql.table(${t})} set \${sql.ref(${c})} = \${sql.lit(${lit(to.default)})} where \${sql.ref(${c})} is null\`.execute(db)`)
    } else w.line(indent, `// Fails while a row holds null in ${to.name}: give those rows a value first.`)
    w.line(indent, `await db.schema.alterTable(${t}).alterColumn(${c}, (col) => col.setNotNull()).execute()`)
  }
  if (!from.nullable && to.nullable) w.line(indent, `await db.schema.alterTable(${t}).alterColumn(${c}, (col) => col.dropNotNull()).execute()`)
  if (!from.unique && to.unique) w.line(indent, `await db.schema.createIndex(${q(uniqueName(table, to.name))}).on(${t}).column(${c}).unique().execute()`)
  if (from.unique && !to.unique) {
    w.usesSql = true
    // A column made unique by its table's creation has a constraint; one made unique later, an index.
    w.line(indent, `await sql\`alter table \${sql.table(${t})} drop constraint if exists \${sql.ref(${q(uniqueName(table, to.name))})}\`.execute(db)`)
    w.line(indent, `await db.schema.dropIndex(${q(uniqueName(table, to.name))}).ifExists().execute()`)
  }
}

/** SQLite's way to change columns: a new table in the new shape, the rows copied over, the old one dropped. */
function rebuildOnSqlite(w: Writer, indent: number, change: TableChanges) {
  const before = change.before!
  const after = change.after!
  const table = change.table
  const temp = `${table}__new`
  w.usesSql = true
  w.line(indent, '// SQLite changes no column in place: the table is made anew in its new shape and its rows copied over.')
  w.line(indent, `await db.schema.dropTable(${q(temp)}).ifExists().execute()`)
  createTable(w, indent, temp, { ...after, indexes: [] })
  const old = new Map(before.columns.map((c) => [c.name, c]))
  const kept = after.columns.filter((c) => old.has(c.name))
  const filled = kept.filter((c) => old.get(c.name)!.nullable && !c.nullable && c.default !== undefined)
  w.line(indent, '// The columns both shapes have.')
  w.line(indent, `const copied = [${kept.map((c) => q(c.name)).join(', ')}]`)
  if (filled.length) {
    w.line(indent, '// Columns turning NOT NULL take their default where a row holds null.')
    w.line(indent, `const filled: Record<string, string | number | boolean> = { ${filled.map((c) => `${c.name}: ${lit(c.default!)}`).join(', ')} }`)
    w.line(indent, "const values = copied.map((c) => (c in filled ? sql`coalesce(${sql.ref(c)}, ${sql.lit(filled[c])})` : sql.ref(c)))")
  } else w.line(indent, 'const values = copied.map((c) => sql.ref(c))')
  w.line(indent, `await sql\`insert into \${sql.table(${q(temp)})} (\${sql.join(copied.map((c) => sql.ref(c)))}) select \${sql.join(values)} from \${sql.table(${q(table)})}\`.execute(db)`)
  w.line(indent, `await db.schema.dropTable(${q(table)}).execute()`)
  w.line(indent, `await db.schema.alterTable(${q(temp)}).renameTo(${q(table)}).execute()`)
  for (const ix of after.indexes) createIndex(w, indent, table, ix)
}

function addColumns(w: Writer, indent: number, change: TableChanges, todos: string[], name: string) {
  for (const c of change.added) {
    if (!c.nullable && c.default === undefined) {
      const todo = `${change.table}.${c.name} is NOT NULL without a default: the rows already there need a value. Give the field a default (or make it nullable), or add the column nullable here, fill it, then set it NOT NULL.`
      todos.push(todo)
      w.line(indent, `// TODO(${name}): ${todo}`)
    }
    // SQLite adds no UNIQUE column: a unique index keeps it unique on both dialects.
    w.line(indent, `await db.schema.alterTable(${q(change.table)})${w.addColumn(c, false)}.execute()`)
    if (c.unique) w.line(indent, `await db.schema.createIndex(${q(uniqueName(change.table, c.name))}).on(${q(change.table)}).column(${q(c.name)}).unique().execute()`)
  }
}

function dropColumns(w: Writer, indent: number, change: TableChanges) {
  for (const c of change.dropped) w.line(indent, `await db.schema.alterTable(${q(change.table)}).dropColumn(${q(c.name)}).execute()`)
}

function tableChanges(w: Writer, change: TableChanges, warnings: string[], todos: string[], name: string) {
  const ind = 3
  const { table, before, after } = change
  if (!before && after) {
    w.line(ind, `// ${table}: new (definition ${after.entity}).`)
    createTable(w, ind, table, after)
    for (const ix of after.indexes) createIndex(w, ind, table, ix)
    return
  }
  if (before && !after) {
    const warning = `${table} has no definition any more: the migration drops the table and every row in it.`
    warnings.push(warning)
    w.line(ind, `// WARNING: ${warning}`)
    w.line(ind, `await db.schema.dropTable(${q(table)}).execute()`)
    return
  }
  w.line(ind, `// ${table} (definition ${after!.entity}).`)
  if (change.primaryKeyChanged) {
    const todo = `${table}'s key changes from (${(before!.primaryKey ?? []).join(', ')}) to (${(after!.primaryKey ?? []).join(', ')}): write the change by hand.`
    todos.push(todo)
    w.line(ind, `// TODO(${name}): ${todo}`)
  }
  for (const c of change.dropped) {
    warnings.push(`${table}.${c.name} is no longer defined: the migration drops the column and its data.`)
    w.line(ind, `// WARNING: drops ${table}.${c.name} and its data.`)
  }
  const renamed = change.dropped.filter((d) => change.added.some((a) => a.type === d.type))
  if (renamed.length && change.added.length) {
    warnings.push(`${table}: ${renamed.map((d) => d.name).join(', ')} dropped and ${change.added.map((a) => a.name).join(', ')} added: if that is a rename, edit the migration to rename the column (alterTable().renameColumn()) and keep its data.`)
  }
  for (const a of change.altered) {
    if (familyOf(a.from.type) !== familyOf(a.to.type)) {
      const todo = `${table}.${a.to.name} changes from ${a.from.type} to ${a.to.type}: check how the values already stored convert (on PostgreSQL \`using ${a.to.name}::…\`), then delete the throw.`
      todos.push(todo)
      w.line(ind, `// TODO(${name}): ${todo}`)
    }
  }
  // SQLite drops no uniqueness a table was created with, so dropping one rebuilds the table too.
  const rebuild = change.altered.some(needsRebuild) || change.dropped.some((c) => c.unique) || change.droppedIndexes.some((i) => i.unique)
  if (rebuild) {
    // Both dialects' ways, kept apart.
    w.usesDialect = true
    w.line(ind, "if (dialect === 'sqlite') {")
    for (const c of change.added) {
      if (!c.nullable && c.default === undefined) {
        const todo = `${table}.${c.name} is NOT NULL without a default: the rows already there need a value.`
        todos.push(todo)
        w.line(ind + 1, `// TODO(${name}): ${todo}`)
      }
    }
    rebuildOnSqlite(w, ind + 1, change)
    w.line(ind, '} else {')
    for (const ix of change.droppedIndexes) dropIndex(w, ind + 1, table, ix)
    dropColumns(w, ind + 1, change)
    addColumns(w, ind + 1, change, [], name)
    for (const a of change.altered) alterOnPostgres(w, ind + 1, table, a)
    for (const ix of change.createdIndexes) createIndex(w, ind + 1, table, ix)
    w.line(ind, '}')
    return
  }
  for (const ix of change.droppedIndexes) dropIndex(w, ind, table, ix)
  dropColumns(w, ind, change)
  addColumns(w, ind, change, todos, name)
  for (const a of change.altered) {
    w.usesDialect = true
    if (a.lengthOnly) {
      w.line(ind, `// ${a.to.name}: ${a.from.type} → ${a.to.type}; SQLite keeps no length, so PostgreSQL alone changes.`)
      w.line(ind, "if (dialect === 'postgres') {")
      alterOnPostgres(w, ind + 1, table, a)
      w.line(ind, '}')
    } else {
      // Only a uniqueness added: a unique index on both dialects.
      w.line(ind, `await db.schema.createIndex(${q(uniqueName(table, a.to.name))}).on(${q(table)}).column(${q(a.to.name)}).unique().execute()`)
    }
  }
  for (const ix of change.createdIndexes) createIndex(w, ind, table, ix)
}

/** The migration's source for the changes (which must not be empty). */
export function renderMigration(o: RenderOptions): RenderedMigration {
  if (!o.changes.length) throw new Error('no changes to write a migration for')
  const warnings: string[] = []
  const todos: string[] = []
  const body = new Writer()
  o.changes.forEach((change, i) => {
    if (i) body.line(0)
    tableChanges(body, change, warnings, todos, o.name)
  })
  const head = new Writer()
  const imports = [`import ${body.usesSql ? '{ type Kysely, sql }' : 'type { Kysely }'} from 'kysely'`, `import type { Dialect } from '${o.databaseImport ?? '../database'}'`]
  const helpers = [...(body.usesAudited ? ['audited'] : []), ...(body.usesId ? ['id'] : [])]
  if (helpers.length) imports.push(`import { ${helpers.join(', ')} } from '${o.foundationImport ?? './2026-11-20T00-foundation'}'`)
  for (const i of imports) head.line(0, i)
  head.line(0)
  head.line(0, '// Frozen in time: never edit a migration that has shipped; add a new one.')
  head.line(0, '// Written by `npm run migration:new` from the entity definitions: review it before committing.')
  head.line(0)
  const tables = o.changes.map((c) => c.table).join(', ')
  head.line(0, `/** ${tables}. */`)
  head.line(0, `export function ${o.functionName}(${body.usesDialect ? 'dialect' : '_dialect'}: Dialect) {`)
  for (const t of body.dialectTypes) {
    const d = DIALECT_TYPES[t]!
    head.line(1, `const ${d.name} = dialect === 'postgres' ? ${q(d.pg)} : ${q(d.sqlite)}`)
  }
  head.line(1, 'return {')
  head.line(2, 'async up(db: Kysely<unknown>): Promise<void> {')
  if (todos.length) {
    head.line(3, `// TODO(${o.name}): this migration needs a developer before it runs; see the TODOs below, then delete this line.`)
    head.line(3, `throw new Error(${q(`${o.name}: edit the migration first (TODO: ${todos.length === 1 ? todos[0] : `${todos.length} changes need a decision`})`)})`)
  }
  const source = `${head.text}\n${body.text}\n    },\n  }\n}\n`
  return { source, warnings, todos }
}
