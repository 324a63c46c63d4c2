import ExcelJS from 'exceljs'
import { DASHBOARDS, type Paged } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import { dashboard } from './dashboard-fixtures'
import { limitedUser, multipart, readWorkbook, useTestApp } from './harness'

// The issue's walkthrough (issue 34 §1), on the engine's one rule for the five scopes
// (docs/entity-engine.md › Data scope): a service-desk lead whose department holds the Netherlands
// and Belgium, with "department and below", sees, exports, picks and counts only their members and
// service orders; what she adds, changes or imports stays inside; her home card counts what the list
// it opens shows. Every registered entity is held to the same in engine-contract.test.ts.
// Runs on SQLite, and on PostgreSQL with TEST_DATABASE_URL.

const t = useTestApp()
const homeDashboard = DASHBOARDS.home
const db = () => t.app.services.db
type Row = Record<string, unknown>

let NL = 0
let BE = 0
let DE = 0
let lead = { token: '', userId: 0 }
const MEMBERS = { NL: 3, BE: 2, DE: 4 }
const LEAD_PERMS = [
  'member:member:list',
  'member:member:query',
  'member:member:edit',
  'member:member:export',
  'service:repairOrder:list',
  'service:repairOrder:query',
  'service:repairOrder:export',
  ...['list', 'query', 'add', 'edit', 'remove', 'export', 'import'].map((a) => `content:serviceCentre:${a}`),
]

const countryId = async (code: string) => Number((await db().selectFrom('sysCountry').select('countryId').where('code', '=', code).executeTakeFirstOrThrow()).countryId)
const now = () => new Date().toISOString()

async function addDept(deptName: string, countryIds: number[]) {
  const res = await t.call({ method: 'POST', url: '/api/system/dept', token: t.admin, body: { deptName, parentId: 0, orderNum: 5, countryIds } })
  expect(res.status, res.msg).toBe(200)
}

async function member(country: number, n: number) {
  const row = await db()
    .insertInto('memMember')
    .values({ email: `scope${country}-${n}@example.com`, firstName: 'Scope', lastName: `M${n}`, countryId: country, createBy: 'app', createTime: now() })
    .returning('memberId')
    .executeTakeFirstOrThrow()
  return Number(row.memberId)
}

/** A service order as the app writes it, overdue (due yesterday, still pending) or not. */
async function serviceOrder(country: number, n: number, overdue: boolean, createBy = 'app') {
  const dueTime = new Date(Date.now() + (overdue ? -1 : 1) * 86_400_000).toISOString()
  await db()
    .insertInto('serviceRepairOrder')
    .values({ orderNo: `RS-SCOPE-${country}-${n}-${createBy}`, status: 'pending', serviceType: 'repair', contactEmail: 'rider@example.com', firstName: 'R', lastName: `${n}`, issueDescription: 'Brake', countryId: country, dueTime, createBy, createTime: now() })
    .execute()
}

const list = (url: string, token: string, body: Row = {}) => t.call<Paged<Row>>({ method: 'POST', url: `/api${url}/list`, token, body: { pageSize: 500, ...body } })

beforeAll(async () => {
  ;[NL, BE, DE] = [await countryId('NL'), await countryId('BE'), await countryId('DE')]
  await addDept('Benelux desk', [NL, BE])
  await addDept('Desk without a region', [])
  lead = await limitedUser(t, { userName: 'beneluxlead', perms: LEAD_PERMS, dataScope: '4', dept: 'Benelux desk' })
  for (const [code, n] of Object.entries(MEMBERS)) for (let i = 0; i < n; i++) await member({ NL, BE, DE }[code as 'NL']!, i)
  // Overdue: 2 in the Netherlands, 1 in Belgium, 3 in Germany; and one of each not yet due.
  for (const [country, overdue] of [[NL, 2], [BE, 1], [DE, 3]] as const) {
    for (let i = 0; i < overdue; i++) await serviceOrder(country, i, true)
    await serviceOrder(country, 99, false)
  }
})

describe('a department’s region limits the business pages (department and below)', () => {
  it('lists, exports and picks only the members of her countries', async () => {
    const res = await list('/member/member', lead.token)
    expect(res.status, res.msg).toBe(200)
    expect(res.data.total).toBe(MEMBERS.NL + MEMBERS.BE)
    expect(new Set(res.data.rows.map((r: Row) => r.countryId))).toEqual(new Set([NL, BE]))
    const file = await t.call({ method: 'POST', url: '/api/member/member/export', token: lead.token, body: {} })
    expect(file.status, file.msg).toBe(200)
    expect((await readWorkbook(file.raw)).rows).toHaveLength(MEMBERS.NL + MEMBERS.BE)
    // As a job (the page switches to it for large exports): the same rows.
    const job = await t.call<{ jobId: number }>({ method: 'POST', url: '/api/member/member/export/job', token: lead.token, body: {} })
    expect(job.status, job.msg).toBe(200)
    const { waitForJobEnd } = await import('./harness')
    const ended = await waitForJobEnd(t.app.services.db, job.data.jobId)
    expect(ended.state, ended.error ?? '').toBe('succeeded')
    expect(JSON.parse(ended.result ?? '{}')).toMatchObject({ rows: MEMBERS.NL + MEMBERS.BE })
    const options = await t.call({ url: '/api/member/member/options', token: lead.token })
    expect(options.data).toHaveLength(MEMBERS.NL + MEMBERS.BE)
  })

  it('answers a German member as if it did not exist: get, modify (nothing changed)', async () => {
    const german = await db().selectFrom('memMember').selectAll().where('countryId', '=', DE).executeTakeFirstOrThrow()
    expect((await t.call({ url: `/api/member/member/${german.memberId}`, token: lead.token })).status).toBe(404)
    const res = await t.call({ method: 'PUT', url: '/api/member/member', token: lead.token, body: { memberId: german.memberId, firstName: 'Changed' } })
    expect(res.status, res.msg).toBe(404)
    expect(await db().selectFrom('memMember').selectAll().where('memberId', '=', german.memberId).executeTakeFirstOrThrow()).toEqual(german)
  })

  it('may not move a member of hers to another country (403, nothing changed)', async () => {
    const dutch = await db().selectFrom('memMember').selectAll().where('countryId', '=', NL).executeTakeFirstOrThrow()
    const res = await t.call({ method: 'PUT', url: '/api/member/member', token: lead.token, body: { memberId: dutch.memberId, countryId: DE } })
    expect(res.status, res.msg).toBe(403)
    expect(res.msg).toMatch(/outside your data scope/)
    expect(await db().selectFrom('memMember').selectAll().where('memberId', '=', dutch.memberId).executeTakeFirstOrThrow()).toEqual(dutch)
    const moved = await t.call({ method: 'PUT', url: '/api/member/member', token: lead.token, body: { memberId: dutch.memberId, countryId: BE } })
    expect(moved.status, moved.msg).toBe(200)
    await db().updateTable('memMember').set({ countryId: NL }).where('memberId', '=', dutch.memberId).execute()
  })

  it('her home card of overdue service orders counts what the list it opens shows', async () => {
    const home = await dashboard(t, 'home', {}, lead.token)
    expect(home.status, home.msg).toBe(200)
    const columns = homeDashboard.figures.find((f) => f.key === 'cards')!.columns
    const overdue = home.figures.cards!.rows[0]![columns.findIndex((c) => c.key === 'serviceOverdue')]
    const opened = await list('/service/repairOrder', lead.token, { overdue: true })
    expect(opened.status, opened.msg).toBe(200)
    expect(overdue).toBe(3)
    expect(opened.data.total).toBe(overdue)
    const counts = await t.call({ method: 'POST', url: '/api/service/repairOrder/counts', token: lead.token, body: { overdue: true } })
    expect(Object.values(counts.data as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(3)
  })

  it('adds a service centre only in her countries (403 elsewhere, nothing written)', async () => {
    const centre = (country: number, name: string) => ({ name, address: 'Damrak 1', countryId: country, latitude: 52.37, longitude: 4.89 })
    const before = await db().selectFrom('cntServiceCentre').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()
    const refused = await t.call({ method: 'POST', url: '/api/content/serviceCentre', token: lead.token, body: centre(DE, 'Berlin Mitte') })
    expect(refused.status, refused.msg).toBe(403)
    expect(await db().selectFrom('cntServiceCentre').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).toEqual(before)
    const added = await t.call<{ centreId: number }>({ method: 'POST', url: '/api/content/serviceCentre', token: lead.token, body: centre(NL, 'Amsterdam Centrum') })
    expect(added.status, added.msg).toBe(200)
    const moved = await t.call({ method: 'PUT', url: '/api/content/serviceCentre', token: lead.token, body: { centreId: added.data.centreId, countryId: DE } })
    expect(moved.status, moved.msg).toBe(403)
    expect((await db().selectFrom('cntServiceCentre').select('countryId').where('centreId', '=', added.data.centreId).executeTakeFirstOrThrow()).countryId).toBe(NL)
  })

  it('imports no row outside her countries: the row is refused and nothing of the file is written', async () => {
    const template = await t.call({ url: '/api/content/serviceCentre/importTemplate', token: lead.token })
    expect(template.status, template.msg).toBe(200)
    const header = (await readWorkbook(template.raw)).header
    const wb = new ExcelJS.Workbook()
    const ws = wb.addWorksheet('Rows')
    ws.addRow(header)
    const named: Record<string, unknown>[] = [
      { Name: 'Utrecht', Address: 'Oudegracht 2', 'Country / region': 'Netherlands', Latitude: 52.09, Longitude: 5.12 },
      { Name: 'Hamburg', Address: 'Jungfernstieg 3', 'Country / region': 'Germany', Latitude: 53.55, Longitude: 9.99 },
    ]
    for (const r of named) ws.addRow(header.map((h) => r[h] ?? null))
    const before = await db().selectFrom('cntServiceCentre').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()
    const res = await t.call<{ errors: unknown[] }>({ method: 'POST', url: '/api/content/serviceCentre/import', token: lead.token, ...multipart([{ name: 'centres.xlsx', bytes: Buffer.from(await wb.xlsx.writeBuffer()) }, { field: 'updateSupport', value: 'false' }]) })
    expect(res.status, res.msg).toBe(400)
    expect(res.data.errors).toEqual([expect.objectContaining({ row: 3, message: expect.stringMatching(/outside your data scope/) })])
    expect(await db().selectFrom('cntServiceCentre').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).toEqual(before)
  })
})

describe('routes beside the engine keep to the same scope', () => {
  let serial = 0
  /** A device fitted to a bike bound to a member of the country. */
  async function fittedDevice(country: number): Promise<number> {
    const n = ++serial
    const device = await db()
      .insertInto('iotDevice')
      .values({ sn: `SCOPE${n}`, uuid: `00000000-0000-0000-0000-0000000010${String(n).padStart(2, '0')}`, modelId: 1, state: 'offline', createBy: 'test', createTime: now() })
      .returning('deviceId')
      .executeTakeFirstOrThrow()
    const memberId = await member(country, 100 + n)
    await db()
      .insertInto('bikeBike')
      .values({ frameNumber: `SCOPEBIKE${n}`, category: 'city', modelId: 1, colourId: 1, sizeId: 1, bindStatus: 'bound', memberId, iotDeviceId: device.deviceId, createBy: 'test', createTime: now() })
      .execute()
    return Number(device.deviceId)
  }

  it('commands, a new secret and the live stream of a device reach only devices in scope (404 otherwise, nothing queued)', async () => {
    const dutch = await fittedDevice(NL)
    const german = await fittedDevice(DE)
    const engineer = await limitedUser(t, { userName: 'iotregional', perms: ['iot:device:list', 'iot:device:query', 'iot:device:edit', 'iot:device:command', 'iot:commandTest:send'], dataScope: '4', dept: 'Benelux desk' })
    const commands = () => db().selectFrom('iotCommand').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()
    const before = await commands()
    for (const [url, body] of [
      ['/api/iot/device/reboot', { deviceIds: [dutch, german] }],
      ['/api/iot/device/command', { deviceIds: [german], command: 'reboot' }],
      ['/api/iot/commandTest/send', { deviceId: german, command: 'reboot' }],
    ] as const) {
      const res = await t.call({ method: 'POST', url, token: engineer.token, body })
      expect(res.status, `${url}: ${res.msg}`).toBe(404)
    }
    expect(await commands()).toEqual(before)
    expect((await t.call({ url: `/api/iot/device/${german}/commands`, token: engineer.token })).status).toBe(404)
    const secret = await db().selectFrom('iotDevice').select('secretHash').where('deviceId', '=', german).executeTakeFirstOrThrow()
    expect((await t.call({ method: 'PUT', url: `/api/iot/device/${german}/secret`, token: engineer.token })).status).toBe(404)
    expect(await db().selectFrom('iotDevice').select('secretHash').where('deviceId', '=', german).executeTakeFirstOrThrow()).toEqual(secret)
    expect((await t.call({ url: `/api/iot/stream?deviceId=${german}`, token: engineer.token })).status).toBe(404)
    const reboot = await t.call({ method: 'POST', url: '/api/iot/device/reboot', token: engineer.token, body: { deviceIds: [dutch] } })
    expect(reboot.status, reboot.msg).toBe(200)
    const listed = await list('/iot/device', engineer.token)
    expect(listed.data.rows.map((r: Row) => r.deviceId)).toContain(dutch)
    expect(listed.data.rows.map((r: Row) => r.deviceId)).not.toContain(german)
  })
})

describe('the other scopes', () => {
  it('personal only: her own service orders, and no member (members belong to no staff)', async () => {
    const own = await limitedUser(t, { userName: 'selfonly', perms: LEAD_PERMS, dataScope: '5' })
    await serviceOrder(DE, 1, true, 'selfonly')
    const orders = await list('/service/repairOrder', own.token)
    expect(orders.data.rows.map((r: Row) => r.orderNo)).toEqual([`RS-SCOPE-${DE}-1-selfonly`])
    expect((await list('/member/member', own.token)).data.total).toBe(0)
  })

  it('a department without countries adds none', async () => {
    const empty = await limitedUser(t, { userName: 'noregion', perms: LEAD_PERMS, dataScope: '3', dept: 'Desk without a region' })
    expect((await list('/member/member', empty.token)).data.total).toBe(0)
    expect((await list('/service/repairOrder', empty.token)).data.total).toBe(0)
  })

  it('custom departments: the countries of the departments the role names', async () => {
    const deptId = Number((await db().selectFrom('sysDept').select('deptId').where('deptName', '=', 'Benelux desk').executeTakeFirstOrThrow()).deptId)
    const custom = await limitedUser(t, { userName: 'customscope', perms: LEAD_PERMS, dataScope: '2', deptIds: [deptId] })
    const benelux = await db().selectFrom('memMember').select((eb) => eb.fn.countAll().as('n')).where('countryId', 'in', [NL, BE]).executeTakeFirstOrThrow()
    expect((await list('/member/member', custom.token)).data.total).toBe(Number(benelux.n))
  })

  it('all: every country, and the rows of none', async () => {
    const all = await limitedUser(t, { userName: 'allscope', perms: LEAD_PERMS, dataScope: '1' })
    const admin = await list('/member/member', t.admin)
    expect((await list('/member/member', all.token)).data.total).toBe(admin.data.total)
  })
})
