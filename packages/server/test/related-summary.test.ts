import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineEntity, definedButtons, entityByKey, type Paged, registerEntities, relatedListsOf } from '@velo/shared'
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Dialect, type DynamicDb, dynamicDb } from '../src/db/database'
import { generateMigration } from '../src/db/schema-gen/generate'
import { createTestApp, deptId, limitedUser, type Refusal, snapshot, type TestApp } from './harness'

// A related list with a chart (docs/entity-engine.md › Related lists): a rider's details list the
// rider's rides through the rides' own list, and chart the distance per week from POST
// {path}/summary, which takes the list's filters and data scope. Runs on SQLite, and on PostgreSQL
// with TEST_DATABASE_URL.

const label = (en: string, zh = en) => ({ en_US: en, zh_CN: zh })
const rider = defineEntity({
  key: 'testRider',
  table: 'testRider',
  path: '/test/rider',
  permission: 'test:rider',
  label: label('Riders', '骑手'),
  idField: 'riderId',
  defaultSort: { field: 'riderId', order: 'asc' },
  scope: { none: { en_US: 'A test entity', zh_CN: '测试实体' } },
  storage: { audited: false },
  fields: [
    { name: 'riderId', kind: 'number', int: true, label: label('ID'), readOnly: true },
    { name: 'name', kind: 'text', label: label('Name', '姓名'), required: true, max: 50 },
  ],
  related: [{ entity: 'testRide', by: 'riderId', pageSize: 2, chart: { time: 'startTime', value: 'distance', by: 'week' } }],
})
const ride = defineEntity({
  key: 'testRide',
  table: 'testRide',
  path: '/test/ride',
  permission: 'test:ride',
  label: label('Rides', '骑行'),
  idField: 'rideId',
  defaultSort: { field: 'startTime', order: 'desc' },
  scope: { dept: 'deptId' },
  storage: { audited: false, indexes: [{ columns: ['riderId', 'startTime'] }] },
  fields: [
    { name: 'rideId', kind: 'number', int: true, label: label('ID'), readOnly: true },
    { name: 'riderId', kind: 'reference', entity: 'testRider', label: label('Rider', '骑手'), required: true, search: 'eq' },
    { name: 'deptId', kind: 'reference', entity: 'dept', label: label('Department', '部门'), required: true },
    { name: 'terrain', kind: 'enum', label: label('Terrain'), search: 'eq', options: [{ value: 'road', label: label('Road') }, { value: 'trail', label: label('Trail') }] },
    { name: 'startTime', kind: 'datetime', label: label('Start', '开始'), required: true, search: 'range' },
    { name: 'rideDate', kind: 'date', label: label('Day', '日期') },
    { name: 'distance', kind: 'number', label: label('Distance', '距离'), summable: true },
    { name: 'fare', kind: 'money', label: label('Fare', '费用'), summable: true },
    { name: 'speed', kind: 'number', label: label('Top speed', '最高速度') },
  ],
})
registerEntities(rider, ride)

let t: TestApp
let admin: string
// The test's own tables, named by its definitions only.
let db: DynamicDb
const scratch: string[] = []
let alice: number
let bob: number

/** The migration `npm run migration:new` writes for the two definitions alone (a scratch directory without a snapshot). */
function generateTables() {
  const root = fileURLToPath(new URL('../../../node_modules/.cache/', import.meta.url))
  mkdirSync(root, { recursive: true })
  const dir = mkdtempSync(join(root, 'velo-related-'))
  scratch.push(dir)
  const migrations = fileURLToPath(new URL('../src/db/migrations/', import.meta.url))
  const result = generateMigration({
    name: 'test-rides',
    entities: [rider, ride],
    migrationsDir: dir,
    foundationImport: join(migrations, '2026-11-20T00-foundation'),
    databaseImport: fileURLToPath(new URL('../src/db/database', import.meta.url)),
  })
  return result.migration!
}

beforeAll(async () => {
  const migration = generateTables()
  const mod = (await import(migration.file)) as Record<string, (d: Dialect) => { up: (db: Kysely<unknown>) => Promise<void> }>
  t = await createTestApp({}, {
    modules: async (_api, services) => {
      await Object.values(mod)[0]!(services.dialect).up(services.db.withoutPlugins() as unknown as Kysely<unknown>)
    },
  })
  admin = await t.login()
  db = dynamicDb(t.app.services.db)
  // The pages' buttons, as the seed makes them for a catalogue page: from the definitions.
  const now = new Date().toISOString()
  for (const [perms, menuName] of [...definedButtons(rider), ...definedButtons(ride)]) {
    await t.app.services.db
      .insertInto('sysMenu')
      .values({ menuName, parentId: 0, orderNum: 1, path: '', component: null, query: null, isFrame: '1', isCache: '0', noClose: '0', menuType: 'F', visible: '0', status: '0', perms, icon: '#', createBy: 'test', createTime: now, updateBy: '', updateTime: null, remark: '' })
      .execute()
  }
  const rd = await deptId(t, 'Research & Development')
  const sales = await deptId(t, 'Sales')
  alice = (await db.insertInto('testRider').values({ name: 'Alice' }).returning('riderId').executeTakeFirstOrThrow()).riderId as number
  bob = (await db.insertInto('testRider').values({ name: 'Bob' }).returning('riderId').executeTakeFirstOrThrow()).riderId as number
  const rides = [
    // Alice: the week of Monday 23 February (a Friday), of 2 March (its Monday and the last second of its Sunday), of 9 March.
    { riderId: alice, deptId: rd, terrain: 'trail', startTime: '2026-02-27T12:00:00.000Z', rideDate: '2026-02-27', distance: 3, fare: 0.1, speed: 20 },
    { riderId: alice, deptId: rd, terrain: 'road', startTime: '2026-03-02T00:00:00.000Z', rideDate: '2026-03-02', distance: 10, fare: 1.1, speed: 30 },
    { riderId: alice, deptId: rd, terrain: 'road', startTime: '2026-03-08T23:59:59.000Z', rideDate: '2026-03-08', distance: 5.5, fare: 2.2, speed: 25 },
    { riderId: alice, deptId: sales, terrain: 'trail', startTime: '2026-03-09T07:30:00.000Z', rideDate: '2026-03-09', distance: 7, fare: 0.35, speed: 22 },
    // Outside the range asked for.
    { riderId: alice, deptId: rd, terrain: 'road', startTime: '2026-04-01T10:00:00.000Z', rideDate: '2026-04-01', distance: 50, fare: 9, speed: 40 },
    { riderId: bob, deptId: rd, terrain: 'road', startTime: '2026-03-03T09:00:00.000Z', rideDate: '2026-03-03', distance: 100, fare: 5, speed: 35 },
  ]
  await db.insertInto('testRide').values(rides).execute()
})

afterAll(async () => {
  await t?.close()
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true })
})

const summary = <T = unknown>(body: Record<string, unknown>, token = admin) => t.call<T>({ method: 'POST', url: '/api/test/ride/summary', token, body })
const march = { from: '2026-02-23', to: '2026-03-15' }

describe('a related list', () => {
  it('is checked against the related entity at start', () => {
    const [list] = relatedListsOf(rider, entityByKey)
    expect(list).toMatchObject({ key: 'testRide.riderId', entity: ride, by: 'riderId', pageSize: 2 })
  })

  it('reads its rows through the related entity’s list, newest first', async () => {
    const page = await t.call<Paged<{ startTime: string }>>({ method: 'POST', url: '/api/test/ride/list', token: admin, body: { riderId: alice, pageNum: 1, pageSize: 2 } })
    expect(page.status, page.msg).toBe(200)
    expect(page.data.total).toBe(5)
    expect(page.data.rows.map((r: { startTime: string }) => r.startTime)).toEqual(['2026-04-01T10:00:00.000Z', '2026-03-09T07:30:00.000Z'])
    expect(page.data.rows[0]).toMatchObject({ riderId: alice, riderIdLabel: 'Alice' })
  })
})

describe('POST {path}/summary', () => {
  it('adds the value up per week (Monday to Sunday, UTC) over the days asked for', async () => {
    const res = await summary({ riderId: alice, time: 'startTime', value: 'distance', bucket: 'week', ...march })
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toEqual([
      { bucket: '2026-02-23', value: 3, count: 1 },
      { bucket: '2026-03-02', value: 15.5, count: 2 },
      { bucket: '2026-03-09', value: 7, count: 1 },
    ])
  })

  it('buckets by day and month, sums money to the cent, and counts without a value', async () => {
    const days = await summary({ riderId: alice, time: 'startTime', bucket: 'day', from: '2026-03-02', to: '2026-03-09' })
    expect(days.data).toEqual([
      { bucket: '2026-03-02', value: 0, count: 1 },
      { bucket: '2026-03-08', value: 0, count: 1 },
      { bucket: '2026-03-09', value: 0, count: 1 },
    ])
    // A date field, by month; the last day of the range is included.
    const months = await summary({ riderId: alice, time: 'rideDate', value: 'fare', bucket: 'month', from: '2026-02-01', to: '2026-04-01' })
    expect(months.data).toEqual([
      { bucket: '2026-02-01', value: 0.1, count: 1 },
      { bucket: '2026-03-01', value: 3.65, count: 3 },
      { bucket: '2026-04-01', value: 9, count: 1 },
    ])
    expect((await summary({ riderId: alice, time: 'startTime', value: 'distance', bucket: 'week', from: '2025-01-01', to: '2025-02-01' })).data).toEqual([])
  })

  it('applies the list’s filters', async () => {
    const road = await summary({ riderId: alice, terrain: 'road', time: 'startTime', value: 'distance', bucket: 'week', ...march })
    expect(road.data).toEqual([{ bucket: '2026-03-02', value: 15.5, count: 2 }])
    const everyone = await summary({ time: 'startTime', value: 'distance', bucket: 'week', ...march })
    expect(everyone.data).toContainEqual({ bucket: '2026-03-02', value: 115.5, count: 3 })
    expect((await summary({ riderId: bob, time: 'startTime', value: 'distance', bucket: 'week', ...march })).data).toEqual([{ bucket: '2026-03-02', value: 100, count: 1 }])
    const ranged = await summary({ riderId: alice, startTime: ['2026-03-08', null], time: 'startTime', value: 'distance', bucket: 'week', ...march })
    expect(ranged.data).toEqual([
      { bucket: '2026-03-02', value: 5.5, count: 1 },
      { bucket: '2026-03-09', value: 7, count: 1 },
    ])
  })

  it('applies the data scope', async () => {
    const own = await limitedUser(t, { userName: 'rdrides', dataScope: '3', dept: 'Research & Development', perms: ['test:ride:list'] })
    const res = await summary({ riderId: alice, time: 'startTime', value: 'distance', bucket: 'week', ...march }, own.token)
    expect(res.status, res.msg).toBe(200)
    // The ride of 9 March belongs to Sales.
    expect(res.data).toEqual([
      { bucket: '2026-02-23', value: 3, count: 1 },
      { bucket: '2026-03-02', value: 15.5, count: 2 },
    ])
  })

  it('names only the fields the definition allows, and answers nothing else', async () => {
    const before = await snapshot(t, 'sysOperLog')
    const refused = async (body: Record<string, unknown>, field: string) => {
      const res = await summary<Refusal>({ riderId: alice, time: 'startTime', value: 'distance', bucket: 'week', ...march, ...body })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(Object.keys(res.data)).toEqual(['errors'])
      expect(res.data.errors.map((e: { field: string }) => e.field)).toEqual([field])
    }
    await refused({ value: 'speed' }, 'value')
    const speed = await summary({ riderId: alice, time: 'startTime', value: 'speed', bucket: 'week', ...march })
    expect(speed.msg).toContain('value (a summable field) must be one of distance, fare')
    await refused({ value: 'riderId' }, 'value')
    await refused({ value: 'distance) from sys_user; --' }, 'value')
    await refused({ time: 'distance' }, 'time')
    await refused({ time: "date('now')" }, 'time')
    await refused({ bucket: 'year' }, 'bucket')
    await refused({ bucket: "'week'" }, 'bucket')
    await refused({ from: '2026-3-1' }, 'from')
    await refused({ from: '2026-03-20' }, 'to')
    await refused({ bucket: 'day', from: '2020-01-01', to: '2026-01-01' }, 'from')
    await refused({ secret: 1 }, 'body')
    expect(await snapshot(t, 'sysOperLog')).toEqual(before)
  })

  it('needs the list permission', async () => {
    const reader = await limitedUser(t, { userName: 'ridequery', dataScope: '1', perms: ['test:ride:query', 'test:rider:list'] })
    const res = await summary({ riderId: alice, time: 'startTime', value: 'distance', bucket: 'week', ...march }, reader.token)
    expect(res.status).toBe(403)
    expect(res.data).toBeNull()
    expect((await t.call({ method: 'POST', url: '/api/test/ride/list', token: reader.token, body: { riderId: alice } })).status).toBe(403)
  })

  it('is documented with its answer', async () => {
    const doc = (await t.app.inject({ url: '/api/docs/json', headers: { authorization: admin } })).json() as { paths: Record<string, { post?: { responses: Record<string, unknown> } }> }
    expect(doc.paths['/api/test/ride/summary']?.post?.responses['200']).toBeTruthy()
  })
})
