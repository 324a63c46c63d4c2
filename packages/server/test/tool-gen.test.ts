import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineEntity, type GenDbTable, type GenPreview, type GenTableConfig } from '@velo/shared'
import { strFromU8, unzipSync } from 'fflate'
import { type Kysely, sql } from 'kysely'
import { format } from 'prettier'
import ts from 'typescript'
import { beforeAll, describe, expect, it } from 'vitest'
import { checkAgreement } from '../src/db/schema-gen/agreement'
import { tableShapeOf } from '../src/db/schema-gen/shape'
import { defaultConfig } from '../src/modules/tool/gen/config'
import { definitionOf, migrationStamp } from '../src/modules/tool/gen/render'
import { limitedUser, type Refusal, snapshot, useTestApp, waitForOperLog } from './harness'

// Tool system › Code generation on a table made by SQL here, as a user's own table would be: it is
// offered, imported with settings read from its columns, edited (and refused when the settings make
// no working module), brought up to the table again, previewed and downloaded. Whatever the table's
// comments and the labels say comes out as text in the files.

const t = useTestApp()
const pg = () => t.app.services.dialect === 'postgres'
const db = () => t.app.services.db
const TABLE = 'service_gadget'
const HOSTILE_COMMENT = '*/ process.exit() /*'
const PRETTIER = { printWidth: 110, tabWidth: 2, semi: false, singleQuote: true, trailingComma: 'all' } as const

const exec = (text: string) => sql.raw(text).execute(db())

beforeAll(async () => {
  const id = pg() ? 'gadget_id bigserial primary key' : 'gadget_id integer primary key autoincrement'
  const time = pg() ? 'timestamptz' : 'text'
  await exec(`create table ${TABLE} (
    ${id},
    gadget_name varchar(64) not null,
    price decimal(12, 2),
    stock integer not null,
    active boolean,
    made_on date,
    note text,
    parent_code varchar(20),
    create_by varchar(64) not null default '',
    create_time ${time} not null,
    update_by varchar(64) not null default '',
    update_time ${time},
    remark varchar(500) not null default ''
  )`)
  if (pg()) {
    await exec(`comment on table ${TABLE} is 'Gadgets'`)
    await exec(`comment on column ${TABLE}.gadget_name is '${HOSTILE_COMMENT}'`)
  }
})

const call = <T = unknown>(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, token = t.admin) => t.call<T>({ method, url: `/api${url}`, token, body })

let tableId = 0
const config = async (): Promise<GenTableConfig> => {
  const res = await call<{ config: GenTableConfig }>('GET', `/tool/gen/${tableId}/config`)
  expect(res.code, res.msg).toBe(200)
  return res.data.config
}
const column = (c: GenTableConfig, name: string) => c.columns.find((x) => x.column === name)!

/** Every string literal of a TypeScript source, and whether `process` appears as code. */
function literalsOf(source: string) {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.ES2022, true)
  const strings: string[] = []
  let code = false
  const walk = (n: ts.Node) => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) strings.push(n.text)
    if (ts.isIdentifier(n) && n.text === 'process') code = true
    ts.forEachChild(n, walk)
  }
  walk(file)
  const syntax = ts.transpileModule(source, { reportDiagnostics: true, compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).diagnostics ?? []
  return { strings, processAsCode: code, syntaxErrors: syntax.length }
}

describe('the tables offered', () => {
  it('lists the table made by SQL, never a product table, and not once imported', async () => {
    const res = await call<GenDbTable[]>('GET', '/tool/gen/tables')
    expect(res.code, res.msg).toBe(200)
    const names = res.data.map((r) => r.tableName)
    expect(names).toContain(TABLE)
    for (const product of ['sys_user', 'sys_menu', 'sys_user_role', 'tool_gen_table', 'sys_session', 'kysely_migration', 'kysely_migration_lock']) expect(names).not.toContain(product)
    const mine = res.data.find((r: { tableName: string }) => r.tableName === TABLE)
    expect(mine!.columns).toBe(13)
    expect(mine!.comment).toBe(pg() ? 'Gadgets' : '')
  })

  it('refuses a table beyond what the settings hold (over 200 columns)', async () => {
    const wide = Array.from({ length: 201 }, (_, i) => `c${i} integer`).join(', ')
    await exec(`create table wide_table (${wide})`)
    const res = await call<Refusal>('POST', '/tool/gen/import', { tables: ['wide_table'] })
    expect(res.status).toBe(400)
    expect(res.data.errors[0]!.field).toBe('tables')
    await exec('drop table wide_table')
  })

  it('refuses to import anything else, and changes nothing', async () => {
    const before = await snapshot(t, 'toolGenTable' as never)
    for (const tables of [['sys_user'], [TABLE, 'tool_sql_history'], ['no_such_table'], ['kysely_migration']]) {
      const res = await call<Refusal>('POST', '/tool/gen/import', { tables })
      expect(res.status, JSON.stringify(tables)).toBe(400)
      expect(res.data.errors[0]!.field).toBe('tables')
    }
    expect((await call('POST', '/tool/gen/import', { tables: [] })).status).toBe(400)
    expect(await snapshot(t, 'toolGenTable' as never)).toEqual(before)
  })

  it('imports it with settings read from its columns', async () => {
    const res = await call('POST', '/tool/gen/import', { tables: [TABLE] })
    expect(res.code, res.msg).toBe(200)
    expect(res.data).toEqual({ imported: 1 })
    const log = await waitForOperLog(t, (r) => r.operUrl === '/api/tool/gen/import' && r.status === '0')
    expect(log.title).toBe('Code generation')
    const row = await db().selectFrom('toolGenTable').selectAll().where('tableName', '=', TABLE).executeTakeFirstOrThrow()
    tableId = Number(row.tableId)
    expect(row.entityKey).toBe('gadget')
    const offered = await call<GenDbTable[]>('GET', '/tool/gen/tables')
    expect(offered.data.map((r: { tableName: string }) => r.tableName)).not.toContain(TABLE)
    // Imported once: a second import of it is refused.
    expect((await call('POST', '/tool/gen/import', { tables: [TABLE] })).status).toBe(400)

    const c = await config()
    expect(c).toMatchObject({ entityKey: 'gadget', area: 'service', path: '/service/gadget', permission: 'service:gadget', template: 'plain', treeParent: null })
    expect(column(c, 'gadget_id')).toMatchObject({ primaryKey: true, kind: 'number', form: false, name: 'gadgetId' })
    expect(column(c, 'gadget_name')).toMatchObject({ kind: 'text', max: 64, required: true, search: 'like', form: true, name: 'gadgetName' })
    expect(column(c, 'price')).toMatchObject({ kind: 'money', required: false, search: 'eq' })
    expect(column(c, 'stock')).toMatchObject({ kind: 'number', required: true, search: 'eq' })
    expect(column(c, 'active')).toMatchObject({ kind: 'boolean' })
    expect(column(c, 'made_on')).toMatchObject({ kind: 'date', search: 'range' })
    expect(column(c, 'note')).toMatchObject({ kind: 'longText', search: '' })
    expect(column(c, 'create_time')).toMatchObject({ kind: 'datetime', form: false, list: true, search: 'range' })
    expect(column(c, 'create_by')).toMatchObject({ form: false, list: false })
    expect(column(c, 'gadget_name').label).toEqual(pg() ? { en_US: HOSTILE_COMMENT, zh_CN: HOSTILE_COMMENT } : { en_US: 'Gadget name', zh_CN: 'Gadget name' })
  })
})

describe('editing the settings', () => {
  const put = (body: unknown) => call('PUT', `/tool/gen/${tableId}/config`, body)

  it('refuses each setting that makes no working module, naming it, and keeps what was saved', async () => {
    const c = await config()
    const before = await snapshot(t, 'toolGenTable' as never)
    const cases: [string, GenTableConfig, string][] = [
      ['key taken', { ...c, entityKey: 'user' }, 'entityKey'],
      ['reserved word', { ...c, entityKey: 'class' }, 'entityKey'],
      ['path taken', { ...c, path: '/system/user' }, 'path'],
      ['permission taken', { ...c, permission: 'system:user' }, 'permission'],
      ['unknown area', { ...c, area: 'nowhere' }, 'area'],
      ['name twice', { ...c, columns: c.columns.map((x) => (x.column === 'stock' ? { ...x, name: 'price' } : x)) }, 'columns.3.name'],
      ['name not its column', { ...c, columns: c.columns.map((x) => (x.column === 'stock' ? { ...x, name: 'amount' } : x)) }, 'columns.3.name'],
      ['no primary key', { ...c, columns: c.columns.filter((x) => !x.primaryKey) }, 'columns'],
      ['tree without parent', { ...c, template: 'tree' }, 'treeParent'],
      ['unknown dictionary', { ...c, columns: c.columns.map((x) => (x.column === 'parent_code' ? { ...x, kind: 'dict' as const, dict: 'no_such_dict' } : x)) }, 'columns.7.dict'],
      ['like on a number', { ...c, columns: c.columns.map((x) => (x.column === 'stock' ? { ...x, search: 'like' as const } : x)) }, 'columns.3.search'],
      ['bad pattern', { ...c, entityKey: 'Bad-Key' }, 'entityKey'],
    ]
    for (const [what, body, field] of cases) {
      const res = await put(body)
      expect(res.status, what).toBe(400)
      expect(JSON.stringify(res.data), what).toContain(field)
    }
    // A column the table does not have cannot be slipped in.
    const foreign = await put({ ...c, columns: [...c.columns, { ...column(c, 'note'), column: 'secret', name: 'secret' }] })
    expect(foreign.status).toBe(400)
    expect(await snapshot(t, 'toolGenTable' as never)).toEqual(before)
  })

  it('saves valid settings; the database facts of a column come from the table, not the request', async () => {
    const c = await config()
    const body: GenTableConfig = {
      ...c,
      entityKey: 'gadgetItem',
      path: '/service/gadgetItem',
      permission: 'service:gadgetItem',
      label: { en_US: 'Gadgets', zh_CN: '小工具' },
      columns: c.columns.map((x) =>
        x.column === 'parent_code'
          ? { ...x, kind: 'dict', dict: 'sys_normal_disable', search: 'eq', label: { en_US: 'Status', zh_CN: '状态' } }
          : x.column === 'stock'
            ? { ...x, dbType: 'text', primaryKey: true, label: { en_US: 'In stock', zh_CN: '库存' } }
            : x,
      ),
    }
    const res = await put(body)
    expect(res.code, JSON.stringify(res.data)).toBe(200)
    const saved = await config()
    expect(saved.entityKey).toBe('gadgetItem')
    expect(column(saved, 'parent_code')).toMatchObject({ kind: 'dict', dict: 'sys_normal_disable' })
    expect(column(saved, 'stock')).toMatchObject({ primaryKey: false, label: { en_US: 'In stock', zh_CN: '库存' } })
    expect(column(saved, 'stock').dbType).not.toBe('text')
    const log = await waitForOperLog(t, (r) => r.operUrl === `/api/tool/gen/${tableId}/config` && r.status === '0')
    expect(log.title).toBe('Code generation')
  })

  it('syncs with the table after a column is added, keeping the edits', async () => {
    await exec(`alter table ${TABLE} add column colour varchar(20)`)
    const res = await call('POST', `/tool/gen/${tableId}/sync`)
    expect(res.code, res.msg).toBe(200)
    const c = await config()
    expect(column(c, 'colour')).toMatchObject({ kind: 'text', max: 20, name: 'colour' })
    expect(column(c, 'stock').label.en_US).toBe('In stock')
    expect(c.entityKey).toBe('gadgetItem')
    expect(c.columns).toHaveLength(14)
  })
})

describe('the files', () => {
  let files: { path: string; language: string; content: string }[] = []

  it('previews the five files, formatted', async () => {
    const res = await call<GenPreview>('GET', `/tool/gen/${tableId}/preview`)
    expect(res.code, JSON.stringify(res.data)).toBe(200)
    files = res.data.files
    const paths = files.map((f) => f.path)
    expect(paths[0]).toBe('packages/shared/src/entities/generated/gadgetItem.ts')
    expect(paths[1]).toBe('packages/shared/src/entities/generated/index.ts')
    expect(paths[2]).toMatch(/^packages\/server\/src\/db\/migrations\/generated\/\d{4}-\d{2}-\d{2}T\d{2}-gadget-item\.ts$/)
    expect(paths[3]).toBe('packages/server/src/db/migrations/generated/index.ts')
    expect(paths[4]).toBe('GENERATED-gadgetItem.md')
    for (const f of files) {
      expect(f.content.endsWith('\n'), f.path).toBe(true)
      const again = await format(f.content, { ...PRETTIER, parser: f.language === 'markdown' ? 'markdown' : 'typescript' })
      expect(again, f.path).toBe(f.content)
      for (const line of f.content.split('\n')) expect(line.length, `${f.path}: ${line}`).toBeLessThanOrEqual(110)
      if (f.language === 'typescript') expect(literalsOf(f.content).syntaxErrors, f.path).toBe(0)
    }
    const entity = files[0]!.content
    expect(entity).toContain("import { defineEntity } from '../../entity/define'")
    expect(entity).toContain('export const gadgetItem: GeneratedModule = {')
    expect(entity).toContain("menu: { area: 'service', icon: 'table' }")
    expect(entity).toContain("table: 'serviceGadget'")
    expect(entity).toContain('audited: true')
    expect(entity).toContain("dict: 'sys_normal_disable'")
    expect(files[1]!.content).toContain('export const GENERATED_MODULES: readonly GeneratedModule[] = [gadgetItem]')
    const migration = files[2]!.content
    expect(migration).toContain('export function migration(dialect: Dialect)')
    expect(migration).toContain(".createTable('service_gadget').ifNotExists()")
    expect(migration).toContain("'service:gadgetItem:export'")
    expect(migration).toContain("'menu.service.gadgetItem'")
    const name = paths[2]!.split('/').at(-1)!.replace(/\.ts$/, '')
    // Generated modules' migrations have a table of their own (db/migrate.ts): the new one sorts after those run there.
    const run = await db().withoutPlugins().selectFrom('kysely_migration_generated' as never).select('name' as never).execute()
    for (const r of run as { name: string }[]) expect(name > r.name, `${name} after ${r.name}`).toBe(true)
    expect(name.slice(0, 13)).toBe(new Date().toISOString().slice(0, 13))
    expect(files[3]!.content).toContain(`import * as m_${name.replace(/[^A-Za-z0-9]/g, '_')} from './${name}'`)
    expect(files[4]!.content).toContain('npm run migration:new adopt-gadget-item -- --snapshot-only')
    // The PostgreSQL column comment, a label now, is a string and nothing else.
    if (pg()) {
      const { strings, processAsCode } = literalsOf(entity)
      expect(strings).toContain(HOSTILE_COMMENT)
      expect(processAsCode).toBe(false)
    }
  })

  it('downloads the same files as a zip', async () => {
    const res = await call('GET', `/tool/gen/${tableId}/download`)
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/zip')
    expect(String(res.headers['content-disposition'])).toContain('gadgetItem.zip')
    const unzipped = unzipSync(new Uint8Array(res.raw))
    const got = Object.fromEntries(Object.entries(unzipped).map(([p, b]) => [p, strFromU8(b)]))
    // The migration's name carries the hour: compare with a preview of the same hour.
    const now = await call<GenPreview>('GET', `/tool/gen/${tableId}/preview`)
    expect(got).toEqual(Object.fromEntries(now.data.files.map((f: { path: string; content: string }) => [f.path, f.content])))
    const log = await waitForOperLog(t, (r) => r.operUrl === `/api/tool/gen/${tableId}/download`)
    expect(log.title).toBe('Code generation')
  })

  it('writes every label as text: quotes, template syntax, backslashes, line breaks and comment ends', async () => {
    const hostile = [HOSTILE_COMMENT, `it's`, 'say "hi"', 'back`tick`', '${process.exit()}', 'C:\\temp\\n', 'two\nlines', '</script><script>alert(1)</script>']
    const c = await config()
    let i = 0
    const body: GenTableConfig = {
      ...c,
      label: { en_US: hostile[0]!, zh_CN: hostile[1]! },
      columns: c.columns.map((x) => (x.primaryKey ? x : { ...x, label: { en_US: hostile[i++ % hostile.length]!, zh_CN: hostile[i++ % hostile.length]! } })),
    }
    expect((await call('PUT', `/tool/gen/${tableId}/config`, body)).code).toBe(200)
    const res = await call<GenPreview>('GET', `/tool/gen/${tableId}/preview`)
    expect(res.code, JSON.stringify(res.data)).toBe(200)
    const entity = res.data.files[0]!.content
    const { strings, processAsCode, syntaxErrors } = literalsOf(entity)
    expect(syntaxErrors).toBe(0)
    expect(processAsCode).toBe(false)
    for (const h of hostile) expect(strings, h).toContain(h.trim())
    // Prettier would not change it either.
    expect(await format(entity, { ...PRETTIER, parser: 'typescript' })).toBe(entity)
  })
})

describe('defaults and names', () => {
  const col = (column: string, dbType: string, nullable = false) => ({ column, dbType, nullable, primaryKey: column === 'id', comment: '', max: null })

  it('treats audit columns as ordinary ones unless the table has all five', () => {
    const partial = defaultConfig('shop_note', '', [col('id', 'integer'), col('create_time', 'timestamp'), col('parent_id', 'bigint')], new Set())
    expect(partial.columns[1]).toMatchObject({ kind: 'datetime', required: true, form: true })
    expect(partial).toMatchObject({ entityKey: 'shopNote', area: 'tool', template: 'tree', treeParent: 'parent_id' })
    expect(partial.columns[2]).toMatchObject({ kind: 'treeParent', search: '' })
    const full = defaultConfig('shop_note', '', ['create_by', 'create_time', 'update_by', 'update_time', 'remark'].map((c) => col(c, c.endsWith('time') ? 'timestamp' : 'varchar(64)')), new Set(['shopNote']))
    expect(full.columns[1]).toMatchObject({ kind: 'datetime', required: false, form: false })
    // A key some definition has already is not offered.
    expect(full.entityKey).not.toBe('shopNote')
  })

  it('names a migration after the latest generated one the database has run', () => {
    const now = new Date('2026-11-25T02:30:00Z')
    expect(migrationStamp(now, undefined)).toBe('2026-11-25T02')
    expect(migrationStamp(now, '2026-11-25T04-tool-sql')).toBe('2026-11-25T05')
    expect(migrationStamp(now, '2026-11-24T20-ota-upgrades')).toBe('2026-11-25T02')
  })
})

describe('a table whose name no definition can take', () => {
  it('is imported as data, and its files are refused rather than written', async () => {
    const evil = 'Evil */ name'
    await exec(`create table "${evil}" (id integer primary key, "Odd Column" integer)`)
    try {
      const res = await call('POST', '/tool/gen/import', { tables: [evil] })
      expect(res.code, res.msg).toBe(200)
      const row = await db().selectFrom('toolGenTable').select('tableId').where('tableName', '=', evil).executeTakeFirstOrThrow()
      for (const url of [`/tool/gen/${row.tableId}/preview`, `/tool/gen/${row.tableId}/download`]) {
        const refused = await call<Refusal>('GET', url)
        expect(refused.status, url).toBe(400)
        expect(refused.data.errors.map((e: { field: string }) => e.field)).toContain('tableName')
      }
      await db().deleteFrom('toolGenTable').where('tableId', '=', row.tableId).execute()
    } finally {
      await exec(`drop table "${evil}"`)
    }
  })
})

describe('the generated migration', () => {
  it('makes the table its definition describes and, in a seeded database, the page with its buttons', async () => {
    const c = await config()
    const res = await call<GenPreview>('GET', `/tool/gen/${tableId}/preview`)
    expect(res.code, JSON.stringify(res.data)).toBe(200)
    const file = res.data.files[2]!
    // Loaded from a scratch directory as a checkout would hold it, beside the foundation migration it imports.
    const dir = mkdtempSync(join(tmpdir(), 'velo-gen-'))
    try {
      mkdirSync(join(dir, 'generated'))
      const foundation = new URL('../src/db/migrations/2026-11-20T00-foundation.ts', import.meta.url)
      writeFileSync(join(dir, '2026-11-20T00-foundation.ts'), readFileSync(foundation, 'utf8'))
      const target = join(dir, 'generated', file.path.split('/').at(-1)!)
      writeFileSync(target, file.content)
      const { migration } = (await import(/* @vite-ignore */ target)) as { migration: (d: string) => { up: (db: Kysely<unknown>) => Promise<void> } }
      await exec(`drop table ${TABLE}`)
      const bare = db().withoutPlugins() as unknown as Kysely<unknown>
      await migration(t.app.services.dialect).up(bare)
      // Run again (a database that has the table and the page): nothing more is made.
      await migration(t.app.services.dialect).up(bare)
      const entity = defineEntity(definitionOf(TABLE, c))
      expect(await checkAgreement(db() as never, t.app.services.dialect, { [TABLE]: tableShapeOf(entity) })).toEqual([])
      const pages = await db().selectFrom('sysMenu').selectAll().where('component', '=', 'service/gadgetItem/index').execute()
      expect(pages).toHaveLength(1)
      expect(pages[0]).toMatchObject({ menuName: 'menu.service.gadgetItem', menuType: 'C', perms: 'service:gadgetItem:list', icon: 'table' })
      const area = await db().selectFrom('sysMenu').select('menuId').where('menuName', '=', 'menu.service').executeTakeFirstOrThrow()
      expect(pages[0]!.parentId).toBe(area.menuId)
      const buttons = await db().selectFrom('sysMenu').select('perms').where('parentId', '=', pages[0]!.menuId).orderBy('orderNum').execute()
      expect(buttons.map((b) => b.perms)).toEqual(['list', 'query', 'add', 'edit', 'remove', 'export', 'import'].map((a) => `service:gadgetItem:${a}`))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('rights', () => {
  it('refuses every route without its permission', async () => {
    const { token } = await limitedUser(t, { userName: 'genviewer', perms: ['tool:gen:list'], dataScope: '1' })
    const before = await snapshot(t, 'toolGenTable' as never)
    const c = await config()
    const attempts: [string, string, unknown?][] = [
      ['GET', '/tool/gen/tables'],
      ['POST', '/tool/gen/import', { tables: [TABLE] }],
      ['GET', `/tool/gen/${tableId}/config`],
      ['PUT', `/tool/gen/${tableId}/config`, c],
      ['POST', `/tool/gen/${tableId}/sync`],
      ['GET', `/tool/gen/${tableId}/preview`],
      ['GET', `/tool/gen/${tableId}/download`],
    ]
    for (const [method, url, body] of attempts) {
      const res = await call(method as 'GET', url, body, token)
      expect(res.status, `${method} ${url}`).toBe(403)
    }
    expect(await snapshot(t, 'toolGenTable' as never)).toEqual(before)
  })
})
