import ExcelJS from 'exceljs'
import { defineEntity, type Paged, registerEntities } from '@velo/shared'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dynamicDb } from '../src/db/database'
import { registerEntityRoutes } from '../src/platform/crud/routes'
import { multipart, addRole, addUser, createTestApp, deptId, type ImportRefusal, readWorkbook, type Refusal, type TestApp } from './harness'

// One test entity with every field kind, on its own table, served by the engine alone: what a
// module gets from a definition without writing a route.
const gadget = defineEntity({
  key: 'testGadget',
  table: 'testGadget',
  path: '/test/gadget',
  permission: 'test:gadget',
  label: { en_US: 'Gadgets', zh_CN: '小工具' },
  idField: 'gadgetId',
  labelField: 'name',
  defaultSort: { field: 'gadgetId', order: 'asc' },
  scope: { none: { en_US: 'A test entity', zh_CN: '测试实体' } },
  fields: [
    { name: 'gadgetId', kind: 'number', int: true, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true, sort: true },
    { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, required: true, max: 50, search: 'like', sort: true },
    { name: 'code', kind: 'letterCode', label: { en_US: 'Code', zh_CN: '代码' }, required: true, unique: true, search: 'eq' },
    { name: 'version', kind: 'version', label: { en_US: 'Version', zh_CN: '版本' }, default: '0.0.1' },
    { name: 'price', kind: 'money', label: { en_US: 'Price', zh_CN: '价格' }, search: 'range', sort: true },
    { name: 'stock', kind: 'number', int: true, min: 0, max: 100000, label: { en_US: 'Stock', zh_CN: '库存' }, default: 0 },
    { name: 'active', kind: 'boolean', label: { en_US: 'Active', zh_CN: '启用' }, default: true, search: 'eq' },
    {
      name: 'colour',
      kind: 'enum',
      options: [
        { value: 'red', label: { en_US: 'Red', zh_CN: '红色' } },
        { value: 'blue', label: { en_US: 'Blue', zh_CN: '蓝色' } },
      ],
      label: { en_US: 'Colour', zh_CN: '颜色' },
      default: 'red',
      search: 'in',
    },
    { name: 'status', kind: 'dict', dict: 'sys_normal_disable', label: { en_US: 'Status', zh_CN: '状态' }, default: '0', search: 'eq' },
    { name: 'releaseDate', kind: 'date', label: { en_US: 'Release date', zh_CN: '发布日期' }, search: 'range' },
    { name: 'launchAt', kind: 'datetime', label: { en_US: 'Launch', zh_CN: '上市时间' } },
    { name: 'photo', kind: 'image', label: { en_US: 'Photo', zh_CN: '图片' } },
    { name: 'manual', kind: 'file', accept: ['pdf'], label: { en_US: 'Manual', zh_CN: '说明书' } },
    { name: 'ownerDept', kind: 'reference', entity: 'dept', label: { en_US: 'Department', zh_CN: '部门' }, search: 'subtree' },
    { name: 'roleIds', kind: 'referenceMany', entity: 'role', through: { table: 'testGadgetRole', from: 'gadgetId', to: 'roleId' }, label: { en_US: 'Roles', zh_CN: '角色' } },
    { name: 'zone', kind: 'timeZone', label: { en_US: 'Time zone', zh_CN: '时区' }, default: 'UTC' },
    { name: 'notes', kind: 'richText', label: { en_US: 'Notes', zh_CN: '说明' }, list: false },
    { name: 'secret', kind: 'password', label: { en_US: 'Secret', zh_CN: '密钥' } },
    { name: 'createTime', kind: 'datetime', label: { en_US: 'Created', zh_CN: '创建时间' }, readOnly: true, sort: true },
  ],
})

const part = defineEntity({
  key: 'testPart',
  // Its table (made by hand below) has no audit columns.
  storage: { audited: false },
  table: 'testPart',
  path: '/test/part',
  permission: 'test:part',
  label: { en_US: 'Parts', zh_CN: '部件' },
  idField: 'partId',
  defaultSort: { field: 'partId', order: 'asc' },
  scope: { none: { en_US: 'A test entity', zh_CN: '测试实体' } },
  fields: [
    { name: 'partId', kind: 'number', int: true, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
    { name: 'parentId', kind: 'treeParent', label: { en_US: 'Parent', zh_CN: '上级' } },
    { name: 'partName', kind: 'text', label: { en_US: 'Part', zh_CN: '部件' }, required: true, max: 50 },
  ],
})
// Its table is stricter than its definition (a weight NOT NULL, a name UNIQUE): what the database
// refuses during an import is answered as a row error, never as a 500.
const loose = defineEntity({
  key: 'testLoose',
  // Its table (made by hand below) has no audit columns.
  storage: { audited: false },
  table: 'testLoose',
  path: '/test/loose',
  permission: 'test:loose',
  label: { en_US: 'Loose things', zh_CN: '松散' },
  idField: 'looseId',
  defaultSort: { field: 'looseId', order: 'asc' },
  scope: { none: { en_US: 'A test entity', zh_CN: '测试实体' } },
  fields: [
    { name: 'looseId', kind: 'number', int: true, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
    { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, required: true, max: 50 },
    { name: 'weight', kind: 'number', int: true, label: { en_US: 'Weight', zh_CN: '重量' } },
  ],
})
registerEntities(gadget, part, loose)

let t: TestApp
let admin: string

beforeAll(async () => {
  t = await createTestApp({}, {
    modules: async (api, services) => {
      const db = services.db.withoutPlugins()
      const pk = services.dialect === 'postgres' ? 'bigserial primary key' : 'integer primary key autoincrement'
      const time = services.dialect === 'postgres' ? 'timestamptz' : 'text'
      const bool = services.dialect === 'postgres' ? 'boolean' : 'integer'
      await sql`create table test_gadget (
        gadget_id ${sql.raw(pk)}, name varchar(50) not null, code varchar(2) not null unique, version varchar(11) not null,
        price numeric(12,2), stock integer not null, active ${sql.raw(bool)} not null, colour varchar(10) not null,
        status varchar(1) not null, release_date ${sql.raw(services.dialect === 'postgres' ? 'date' : 'text')}, launch_at ${sql.raw(time)},
        photo varchar(255), manual varchar(255), owner_dept bigint, zone varchar(64) not null, notes text not null, secret varchar(255) not null,
        create_by varchar(64) not null default '', create_time ${sql.raw(time)} not null, update_by varchar(64) not null default '', update_time ${sql.raw(time)})`.execute(db)
      await sql`create table test_gadget_role (gadget_id bigint not null, role_id bigint not null, primary key (gadget_id, role_id))`.execute(db)
      await sql`create table test_part (part_id ${sql.raw(pk)}, parent_id bigint not null default 0, part_name varchar(50) not null)`.execute(db)
      await sql`create table test_loose (loose_id ${sql.raw(pk)}, name varchar(50) not null unique, weight integer not null)`.execute(db)
      registerEntityRoutes(api, services, gadget)
      registerEntityRoutes(api, services, part)
      registerEntityRoutes(api, services, loose)
    },
  })
  admin = await t.login()
  // full()'s manual stands for a file uploaded through the field's own route (platform/files), which a file field requires.
  await t.app.services.db
    .insertInto('sysFile')
    .values({ fileName: 'upload/2026/11/manual.pdf', originalName: 'manual.pdf', size: 1, contentType: 'application/pdf', sha256: '', md5: '', crc8: '00', crc8Variant: 'CRC-8/SMBUS', entity: 'testGadget', field: 'manual', createBy: 'test', createTime: new Date().toISOString() })
    .execute()
})
afterAll(() => t.close())

// The test's own tables (testGadget, testLoose) are named by its definitions only.
const db = () => dynamicDb(t.app.services.db)
const gadgets = () => db().selectFrom('testGadget').selectAll().orderBy('gadgetId').execute()
const add = <T = unknown>(body: object, lang?: 'en_US' | 'zh_CN') => t.call<T>({ method: 'POST', url: '/api/test/gadget', token: admin, lang, body })
const list = (body: object) => t.call<Paged<{ gadgetId: number; name: string; price: number; ownerDeptLabel: string }>>({ method: 'POST', url: '/api/test/gadget/list', token: admin, body })

const full = () => ({
  name: 'Cadence sensor',
  code: 'cs',
  version: '1.20.300',
  price: 49.9,
  stock: 12,
  active: false,
  colour: 'blue',
  status: '1',
  releaseDate: '2026-03-01',
  launchAt: '2026-03-01T10:00:00+02:00',
  photo: 'upload/2026/11/abc.png',
  manual: 'upload/2026/11/manual.pdf',
  zone: 'Europe/Amsterdam',
  notes: '<p>Fits <b>all</b> frames<script>alert(1)</script><img src="x.png" onerror="alert(2)"><img src="/api/common/download?fileName=upload/2026/01/02/0b8f3c2e-6a57-4a4e-9d1c-3f1e0c9a7b21.png" onerror="alert(3)"></p>',
  secret: 'hunter22!',
})

describe('a definition with every field kind', () => {
  it('adds a row and reads it back in the API forms of each kind', async () => {
    const hq = await deptId(t, 'Velo HQ')
    const roles = (await db().selectFrom('sysRole').select('roleId').orderBy('roleId').execute()).map((r) => Number(r.roleId))
    const res = await add<{ gadgetId: number }>({ ...full(), ownerDept: hq, roleIds: roles })
    expect(res.status, res.msg).toBe(200)
    const got = await t.call<{ notes: string }>({ url: `/api/test/gadget/${res.data.gadgetId}`, token: admin })
    expect(got.data).toMatchObject({
      name: 'Cadence sensor',
      code: 'CS',
      version: '1.20.300',
      price: 49.9,
      stock: 12,
      active: false,
      colour: 'blue',
      status: '1',
      releaseDate: '2026-03-01',
      launchAt: '2026-03-01T08:00:00.000Z',
      ownerDept: hq,
      ownerDeptLabel: 'Velo HQ',
      roleIds: roles,
      zone: 'Europe/Amsterdam',
    })
    // Scripts and handlers never reach storage; formatting does.
    // Scripts and handlers go; so does an image the console did not store (the app would load it from elsewhere).
    expect(got.data.notes).toBe('<p>Fits <b>all</b> frames<img src="/api/common/download?fileName=upload/2026/01/02/0b8f3c2e-6a57-4a4e-9d1c-3f1e0c9a7b21.png" /></p>')
    // A password is written, never read back.
    expect(got.data).not.toHaveProperty('secret')
    expect((await gadgets()).at(-1)!.secret).toBe('hunter22!')
  })

  it('gives missing values their defaults', async () => {
    const res = await add({ name: 'Bell', code: 'BL' })
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toMatchObject({ version: '0.0.1', stock: 0, active: true, colour: 'red', status: '0', zone: 'UTC', price: null, ownerDept: null })
  })

  it.each([
    ['version', { version: '1000.0.0' }],
    ['version', { version: '1.2' }],
    ['code', { code: 'ABC' }],
    ['code', { code: 'A1' }],
    ['price', { price: 1.234 }],
    ['price', { price: -1 }],
    ['stock', { stock: 2.5 }],
    ['active', { active: 'yes' }],
    ['colour', { colour: 'green' }],
    ['releaseDate', { releaseDate: '2026-02-30' }],
    ['zone', { zone: 'Mars/Olympus' }],
    ['photo', { photo: 'upload/x.gif' }],
    ['photo', { photo: '../../etc/passwd.png' }],
    ['manual', { manual: 'upload/x.exe' }],
    ['name', { name: '   ' }],
    ['ownerDept', { ownerDept: -3 }],
  ])('refuses a bad %s with a field error and stores nothing', async (field, bad) => {
    const before = await gadgets()
    const res = await add<Refusal>({ ...full(), code: 'ZZ', ...bad }, 'zh_CN')
    expect(res.status).toBe(400)
    expect(res.data.errors.map((e: { field: string }) => e.field)).toContain(field)
    expect(res.data.errors[0]!.message).toMatch(/[\u4e00-\u9fff]/)
    expect(await gadgets()).toEqual(before)
  })

  it('refuses values the database does not know: a dictionary value, a missing reference', async () => {
    const before = await gadgets()
    const dict = await add({ ...full(), code: 'ZY', status: '7' })
    expect(dict.status).toBe(400)
    const ref = await add({ ...full(), code: 'ZY', ownerDept: 999999 })
    expect(ref.status).toBe(400)
    expect(ref.msg).toBe('Department: no record with id 999999')
    const many = await add({ ...full(), code: 'ZY', roleIds: [1, 999999] })
    expect(many.status).toBe(400)
    expect(await gadgets()).toEqual(before)
  })

  it('refuses a unique value twice, naming the field (409)', async () => {
    const res = await add<Refusal>({ ...full(), code: 'cs' })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('Code "CS" already exists')
    expect(res.data.errors[0]!.field).toBe('code')
  })

  it('modifies only what is sent, and replaces links', async () => {
    const row = (await list({ code: 'BL' })).data.rows[0]!
    const res = await t.call({ method: 'PUT', url: '/api/test/gadget', token: admin, body: { gadgetId: row.gadgetId, price: 12, roleIds: [1], secret: 'changed!!' } })
    expect(res.status, res.msg).toBe(200)
    const got = (await t.call({ url: `/api/test/gadget/${row.gadgetId}`, token: admin })).data
    expect(got).toMatchObject({ name: 'Bell', price: 12, roleIds: [1] })
    // Passwords are not changed through modify (modules offer their own reset).
    expect((await db().selectFrom('testGadget').select('secret').where('gadgetId', '=', row.gadgetId).executeTakeFirstOrThrow()).secret).toBe('')
  })
})

describe('list: filters, paging and the sort whitelist', () => {
  beforeAll(async () => {
    const sales = await deptId(t, 'Sales Europe')
    const rd = await deptId(t, 'Research & Development')
    for (let i = 0; i < 25; i++) {
      const code = String.fromCharCode(65 + (i % 26)) + String.fromCharCode(65 + Math.floor(i / 26) + 10)
      const res = await add({ name: `Light ${i}`, code, price: i, active: i % 2 === 0, colour: i % 3 ? 'red' : 'blue', ownerDept: i < 5 ? sales : rd, releaseDate: `2026-01-${String(i + 1).padStart(2, '0')}` })
      expect(res.status, res.msg).toBe(200)
    }
  })

  it('pages 20 rows by default and honours pageNum and pageSize', async () => {
    const first = await list({})
    expect(first.data.total).toBe(27)
    expect(first.data.rows).toHaveLength(20)
    const third = await list({ pageNum: 3, pageSize: 10 })
    expect(third.data.rows).toHaveLength(7)
  })

  it('filters by like, range, in, eq (boolean) and date range together', async () => {
    const res = await list({ name: 'light 1', price: [10, 15], colour: ['red'], active: true })
    expect(res.data.rows.map((r: { name: string }) => r.name)).toEqual(['Light 10', 'Light 14'])
    const days = await list({ releaseDate: ['2026-01-03', '2026-01-04'] })
    expect(days.data.total).toBe(2)
  })

  it('filters a reference by a department and everything below it', async () => {
    const hq = await deptId(t, 'Velo HQ')
    const sales = await deptId(t, 'Sales')
    expect((await list({ ownerDept: sales })).data.total).toBe(5)
    expect((await list({ ownerDept: hq })).data.total).toBe(26)
    expect((await list({ ownerDept: sales })).data.rows[0]!.ownerDeptLabel).toBe('Sales Europe')
  })

  it('sorts by a whitelisted column and refuses any other, injected or not', async () => {
    const res = await list({ orderByColumn: 'price', isAsc: 'descending', price: [0, 100] })
    expect(res.data.rows[0]!.price).toBe(49.9)
    for (const column of ['secret', 'stock', 'price; drop table test_gadget', 'price desc']) {
      const bad = await list({ orderByColumn: column })
      expect(bad.status).toBe(400)
      expect(bad.msg).toContain('is not allowed')
    }
    expect(await gadgets()).toHaveLength(27)
  })

  it('refuses a filter on a field that is not searchable', async () => {
    expect((await list({ stock: 1 })).status).toBe(400)
  })
})

describe('export', () => {
  it('writes the filtered rows with labels in the caller language', async () => {
    const res = await t.call({ method: 'POST', url: '/api/test/gadget/export', token: admin, lang: 'zh_CN', body: { code: 'CS' } })
    expect(res.status).toBe(200)
    const sheet = await readWorkbook(res.raw)
    expect(sheet.name).toBe('小工具')
    expect(sheet.header).toContain('颜色')
    expect(sheet.header).not.toContain('密钥')
    const row = Object.fromEntries(sheet.header.map((h, i) => [h, sheet.rows[0]![i]]))
    expect(row).toMatchObject({ 名称: 'Cadence sensor', 颜色: '蓝色', 启用: '否', 状态: '停用', 部门: 'Velo HQ', 价格: 49.9 })
  })
})

/** A workbook as a user fills it in: a header row, then data rows. */
async function workbook(rows: unknown[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook()
  const ws = wb.addWorksheet('Sheet1')
  for (const r of rows) ws.addRow(r)
  return Buffer.from(await wb.xlsx.writeBuffer())
}

/** An import request's body: the form fields, then the file (`files` times: a second one is refused). */
const importBody = (file: Buffer, name: string, fields: Record<string, string> = {}, files = 1) =>
  multipart([...Object.entries(fields).map(([field, value]) => ({ field, value })), ...Array.from({ length: files }, () => ({ name, bytes: file }))])

const importFile = (file: Buffer, name = 'gadgets.xlsx', fields: Record<string, string> = {}, lang?: 'en_US' | 'zh_CN', files = 1) =>
  t.call<ImportRefusal>({ method: 'POST', url: '/api/test/gadget/import', token: admin, lang, ...importBody(file, name, fields, files) })

describe('import', () => {
  it('offers a template with the import columns in the caller language', async () => {
    const res = await t.call({ url: '/api/test/gadget/importTemplate', token: admin, lang: 'zh_CN' })
    expect(res.status).toBe(200)
    const sheet = await readWorkbook(res.raw)
    expect(sheet.header).toEqual(['名称', '代码', '版本', '价格', '库存', '启用', '颜色', '状态', '发布日期', '上市时间', '部门', '时区'])
    expect(sheet.rows).toHaveLength(0)
  })

  it('imports good rows, reading labels, Yes/No, dates and department names', async () => {
    const res = await importFile(
      await workbook([
        ['Name', 'Code', 'Price', 'Active', 'Colour', 'Status', 'Release date', 'Department'],
        ['Pump', 'pu', 19.5, 'No', 'Blue', 'Normal', new Date(Date.UTC(2026, 4, 2)), 'Research & Development'],
        ['Lock', 'LO', 35, '是', '红色', '停用', '2026-05-03', 'Sales Europe'],
      ]),
    )
    expect(res.status, JSON.stringify(res.data)).toBe(200)
    expect(res.data).toEqual({ inserted: 2, updated: 0 })
    expect(res.msg).toBe('Imported: 2 added, 0 updated')
    const pump = (await list({ code: 'PU' })).data.rows[0]
    expect(pump).toMatchObject({ price: 19.5, active: false, colour: 'blue', status: '0', releaseDate: '2026-05-02', ownerDeptLabel: 'Research & Development' })
    expect((await list({ code: 'LO' })).data.rows[0]).toMatchObject({ active: true, colour: 'red', status: '1', ownerDeptLabel: 'Sales Europe' })
  })

  it('reports every bad row by number and writes none of the good ones', async () => {
    const before = await gadgets()
    const res = await importFile(
      await workbook([
        ['Name', 'Code', 'Version', 'Department'],
        ['Good one', 'GA', '1.0.0', 'Research & Development'],
        ['', 'GB', '1.0.0', ''],
        ['Bad version', 'GC', '1.0', ''],
        ['Taken code', 'CS', '1.0.0', ''],
        ['No such dept', 'GD', '1.0.0', 'Nowhere'],
        ['Twice', 'GA', '1.0.0', ''],
      ]),
    )
    expect(res.status).toBe(400)
    expect(res.msg).toBe('Import failed: 5 rows have errors, nothing was imported')
    const rows = res.data.errors.map((e: { row: number; field: string }) => [e.row, e.field])
    expect(rows).toEqual(expect.arrayContaining([[3, 'name'], [4, 'version'], [5, 'code'], [6, 'ownerDept'], [7, 'code']]))
    expect(await gadgets()).toEqual(before)
  })

  it('updates rows matched by the unique key when asked, and refuses them when not', async () => {
    const file = await workbook([['Code', 'Name', 'Price'], ['PU', 'Pump v2', 21]])
    const refused = await importFile(file)
    expect(refused.status).toBe(400)
    expect(refused.data.errors[0]).toMatchObject({ row: 2, field: 'code' })
    const res = await importFile(file, 'gadgets.xlsx', { updateSupport: 'true' })
    expect(res.status, JSON.stringify(res.data)).toBe(200)
    expect(res.data).toEqual({ inserted: 0, updated: 1 })
    expect((await list({ code: 'PU' })).data.rows[0]).toMatchObject({ name: 'Pump v2', price: 21, colour: 'blue' })
  })

  it('refuses files that are not workbooks, the old .xls format, unknown columns and two files', async () => {
    const before = await gadgets()
    const good = await workbook([['Name', 'Code'], ['X', 'XX']])
    expect((await importFile(Buffer.from('name,code\nX,XX'), 'gadgets.csv')).msg).toBe('Only .xls and .xlsx files can be imported')
    const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(512)])
    expect((await importFile(ole, 'old.xls')).msg).toContain('save it as .xlsx')
    expect((await importFile(Buffer.from('not a zip at all'), 'fake.xlsx')).msg).toBe('The file could not be read as an Excel workbook')
    const unknown = await importFile(await workbook([['Name', 'Colour of sky'], ['X', 'blue']]), 'x.xlsx', {}, 'zh_CN')
    expect(unknown.msg).toBe('未知的列“Colour of sky”，请使用导入模板')
    expect((await importFile(await workbook([['Name', 'Code']]))).msg).toBe('The workbook has no data rows')
    const two = await importFile(good, 'a.xlsx', {}, undefined, 2)
    expect(two.status).toBe(400)
    expect(two.msg).toBe('Only one file can be uploaded at a time')
    expect(await gadgets()).toEqual(before)
  })
})

describe('import into a table stricter than its definition', () => {
  const importLoose = async (rows: unknown[][]) =>
    t.call<ImportRefusal>({ method: 'POST', url: '/api/test/loose/import', token: admin, ...importBody(await workbook(rows), 'loose.xlsx') })
  const looseRows = () => db().selectFrom('testLoose').selectAll().execute()

  it('answers a NOT NULL or UNIQUE refusal of the database as a row error (400) and writes nothing', async () => {
    const missing = await importLoose([['Name'], ['light']])
    expect(missing.status, missing.msg).toBe(400)
    expect(missing.data.errors).toEqual([{ row: 2, field: '', message: 'The database refused this row (a required value is missing or a unique value is taken); nothing was imported' }])
    const twice = await importLoose([['Name', 'Weight'], ['heavy', 9], ['Heavy', 3], ['heavy', 4]])
    expect(twice.status, twice.msg).toBe(400)
    expect(twice.data.errors[0]).toMatchObject({ row: 4, field: '' })
    expect(await looseRows()).toEqual([])
    const fine = await importLoose([['Name', 'Weight'], ['heavy', 9]])
    expect(fine.data).toEqual({ inserted: 1, updated: 0 })
  })
})

describe('trees', () => {
  const addPart = async (partName: string, parentId = 0) => {
    const res = await t.call<{ partId: number }>({ method: 'POST', url: '/api/test/part', token: admin, body: { partName, parentId } })
    expect(res.status, res.msg).toBe(200)
    return res.data.partId
  }

  it('lists the whole tree, refuses loops, and keeps nodes with children', async () => {
    const frame = await addPart('Frame')
    const fork = await addPart('Fork', frame)
    const crown = await addPart('Crown', fork)
    for (let i = 0; i < 30; i++) await addPart(`Spoke ${i}`, frame)
    const all = await t.call<Paged<unknown>>({ method: 'POST', url: '/api/test/part/list', token: admin, body: {} })
    expect(all.data.rows).toHaveLength(33)

    for (const parentId of [frame, crown]) {
      const loop = await t.call({ method: 'PUT', url: '/api/test/part', token: admin, body: { partId: frame, parentId } })
      expect(loop.status).toBe(400)
      expect(loop.msg).toBe('The parent cannot be the record itself or one of its descendants')
    }
    const missing = await t.call({ method: 'PUT', url: '/api/test/part', token: admin, body: { partId: fork, parentId: 999999 } })
    expect(missing.status).toBe(400)

    const refused = await t.call({ method: 'DELETE', url: `/api/test/part/${fork}`, token: admin })
    expect(refused.status).toBe(409)
    expect(refused.msg).toBe('Cannot delete node: Child nodes exist')
    // A node and its children together may go.
    expect((await t.call({ method: 'DELETE', url: `/api/test/part/${fork},${crown}`, token: admin })).status).toBe(200)
  })
})

describe('options for pickers', () => {
  it('offers id and name of rows in scope to whoever may use a page that refers to the entity', async () => {
    const sales = await deptId(t, 'Sales')
    await addRole(t, { roleKey: 'userClerk', dataScope: '4', perms: ['system:user:add'] })
    await addRole(t, { roleKey: 'dictClerk', dataScope: '1', perms: ['system:dict:list'] })
    await addUser(t, { userName: 'userclerk', deptId: sales, roleKeys: ['userClerk'] })
    await addUser(t, { userName: 'dictclerk', deptId: sales, roleKeys: ['dictClerk'] })
    const clerk = await t.login('userclerk', 'secret12')
    const depts = await t.call<{ label: string }[]>({ url: '/api/system/dept/options', token: clerk })
    expect(depts.status, depts.msg).toBe(200)
    expect(depts.data.map((o: { label: string }) => o.label).sort()).toEqual(['Sales', 'Sales China', 'Sales Europe'])
    expect(depts.data[0]).toHaveProperty('parentId')
    const roles = await t.call<{ label: string }[]>({ url: '/api/system/role/options?keyword=CLERK', token: clerk })
    expect(roles.data.map((o: { label: string }) => o.label).sort()).toEqual(['dictClerk', 'userClerk'])
    const other = await t.login('dictclerk', 'secret12')
    expect((await t.call({ url: '/api/system/dept/options', token: other })).status).toBe(403)
  })
})
