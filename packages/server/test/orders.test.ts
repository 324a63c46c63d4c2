import { randomInt } from 'node:crypto'
import type { JobInfo, Paged } from '@velo/shared'
import { afterAll, describe, expect, it } from 'vitest'
import ExcelJS from 'exceljs'
import { createTestApp, type ImportRefusal, limitedUser, multipart, readWorkbook, type Refusal, snapshot, type TestApp, useTestApp, waitForOperLog } from './harness'

// Orders › Bike orders and their frame numbers (modules/order, docs/frame-numbers.md): the template,
// the serial reservation under concurrency, the 5 % rule, binding to bikes, voiding, replacement,
// the label sheet and the export.
const t = useTestApp()
const db = () => t.app.services.db
type Row = Record<string, unknown>
type Order = Row & { orderId: number; orderNo: string; specCode: string }
type FrameNumber = Row & { numberId: number; frameNumber: string; serial: number; status: string }
/** What a preview of an action answers: its facts, a warning, and the second question when it asks one. */
type Preview = { facts: Row[]; warning?: string; secondConfirm?: string }

const FRAME = 'ABCDEFGHJKLMNPRSTUVWXYZ'
/** A model/colour/size code no other test uses: its series starts at serial 1. */
const specCode = () => Array.from({ length: 5 }, () => FRAME[randomInt(FRAME.length)]).join('')

async function call<T = unknown>(method: string, url: string, body?: object, token = t.admin, lang?: 'en_US' | 'zh_CN') {
  return t.call<T>({ method: method as 'POST', url: `/api${url}`, token, body, lang })
}

let modelId: number
async function model(): Promise<number> {
  if (modelId) return modelId
  const res = await call<{ modelId: number }>('POST', '/bike/modelSpec', { category: 'city', name: 'Order test model', code: `M${specCode()}` })
  expect(res.status, res.msg).toBe(200)
  return (modelId = res.data.modelId)
}

const orderValues = async (values: Row = {}) => ({
  orderNo: `PO-${specCode()}`,
  orderType: 'regular',
  modelId: await model(),
  quantity: 100,
  salesRegion: 'EU West',
  deliveryDate: '2026-12-15',
  purchasingEntity: 'Velo Europe B.V.',
  tpNumber: 'TP-2026-118',
  frameSupplier: 'Giant Frames Ltd',
  brandCode: 'VL',
  manufacturerCode: 'A',
  modelYear: 2026,
  specCode: specCode(),
  ...values,
})

async function addOrder(values: Row = {}, app: Pick<TestApp, 'call'> = t): Promise<Order> {
  const res = await app.call<Order>({ method: 'POST', url: '/api/order/deviceOrder', token: t.admin, body: await orderValues(values) })
  expect(res.status, `${res.msg} ${JSON.stringify(res.data)}`).toBe(200)
  return res.data
}

async function finished(jobId: number, app: Pick<TestApp, 'call'> = t, token = t.admin) {
  for (let i = 0; i < 1500; i++) {
    const job = (await app.call<JobInfo>({ url: `/api/monitor/job/${jobId}`, token })).data
    if (['succeeded', 'failed', 'cancelled'].includes(job.state)) return job
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`job ${jobId} did not finish`)
}

async function generate(orderId: number, count: number, extra: Row = {}) {
  const res = await call<{ jobId: number }>('POST', `/order/deviceOrder/${orderId}/action/generate`, { count, ...extra })
  expect(res.status, `${res.msg} ${JSON.stringify(res.data)}`).toBe(200)
  const job = await finished(res.data.jobId)
  expect(job.state, job.error ?? undefined).toBe('succeeded')
  return job.result as Row
}

async function numbers(orderId: number, filters: Row = {}): Promise<FrameNumber[]> {
  const res = await call<Paged<FrameNumber>>('POST', '/order/deviceOrder/number/list', { orderId, pageSize: 500, ...filters })
  expect(res.status, res.msg).toBe(200)
  return res.data.rows
}

/** A workbook of these columns and rows, as a user edits an export. */
async function workbookOf(header: string[], rows: unknown[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook()
  const ws = wb.addWorksheet('Sheet1')
  ws.addRow(header)
  for (const r of rows) ws.addRow(r)
  return Buffer.from(await wb.xlsx.writeBuffer())
}

const order = async (orderId: number) => (await call<Order>('GET', `/order/deviceOrder/${orderId}`)).data

async function addBike(frameNumber: string) {
  const m = await model()
  const colour = await call<{ colourId: number }>('POST', '/bike/modelSpec/colour', { modelId: m, name: `C ${specCode()}`, code: specCode() })
  const size = await call<{ sizeId: number }>('POST', '/bike/modelSpec/size', { modelId: m, name: 'M', code: specCode() })
  return call<{ bikeId: number }>('POST', '/bike/bike', { category: 'city', frameNumber, modelId: m, colourId: colour.data.colourId, sizeId: size.data.sizeId })
}

describe('generating frame numbers', () => {
  it('builds them from the order’s template with the check character, and shows format and example first', async () => {
    const o = await addOrder({ specCode: 'MET' + specCode().slice(0, 3) })
    const preview = await call<Preview>('POST', `/order/deviceOrder/${o.orderId}/action/generate/preview`, { count: 100 })
    expect(preview.status, preview.msg).toBe(200)
    const prefix = `VLAT${o.specCode}`
    const facts = Object.fromEntries(preview.data.facts.map((f: Row) => [f.label, f.value]))
    expect(facts).toMatchObject({ Format: `VL · A · T · ${o.specCode} · ###### · check`, Serials: '000001 – 000100', Numbers: '100 ordered · 0 generated · 100 after this' })
    expect(facts['Next number']).toMatch(new RegExp(`^${prefix}000001[0-9X]$`))
    expect(preview.data.secondConfirm).toBeUndefined()

    const result = await generate(o.orderId, 100)
    expect(result).toMatchObject({ count: 100, numbersGenerated: 100, overrun: false })
    const rows = await numbers(o.orderId)
    expect(rows).toHaveLength(100)
    expect(rows[0]).toMatchObject({ serial: 1, frameNumber: facts['Next number'], status: 'generated', numberType: 'regular' })
    for (const r of rows) expect(r.frameNumber).toMatch(new RegExp(`^${prefix}\\d{6}[0-9X]$`))
    expect(new Set(rows.map((r) => r.frameNumber)).size).toBe(100)
    expect(await order(o.orderId)).toMatchObject({ numbersGenerated: 100, countGenerated: 100, overrun: false })
  })

  it('writes the hand-computed numbers: weights 2…10 from the right, mod 11, X for 10', async () => {
    // VLATMET000001: 5·V5 + 4·L3 + 3·A1 + 2·T3 + 10·M4 + 9·E5 + 8·T3 + 2·1 = 157 ≡ 3 (mod 11).
    // VLATMET000013: … + 3·1 + 2·3 = 164 ≡ 10 → X.
    await db().deleteFrom('ordFrameSeries').where('prefix', '=', 'VLATMET').execute()
    const o = await addOrder({ specCode: 'MET', quantity: 20 })
    await generate(o.orderId, 13)
    const rows = await numbers(o.orderId)
    expect(rows[0]!.frameNumber).toBe('VLATMET0000013')
    expect(rows[12]!.frameNumber).toBe('VLATMET000013X')
    // Without the check character, and with a repair order's supplementary code before the serial.
    const plain = await addOrder({ specCode: 'MET', checkCharacter: false, orderType: 'repair', repairCode: 'R2', serialDigits: 5 })
    await generate(plain.orderId, 1)
    expect((await numbers(plain.orderId))[0]!.frameNumber).toBe('VLATMETR200001')
  })

  it('flags numbers beyond 5 % more than ordered, and wants a second confirmation, which is logged', async () => {
    const o = await addOrder({ quantity: 100 })
    await generate(o.orderId, 100)
    const preview = await call<Preview>('POST', `/order/deviceOrder/${o.orderId}/action/generate/preview`, { count: 6 })
    expect(preview.data.warning).toContain('106 numbers for 100 ordered (6 % over)')
    expect(preview.data.secondConfirm).toBe(preview.data.warning)
    // Up to 105 needs nothing more; 106 without the second confirmation is refused and makes nothing.
    const refused = await call('POST', `/order/deviceOrder/${o.orderId}/action/generate`, { count: 6 })
    expect(refused.status).toBe(409)
    expect(refused.msg).toContain('second confirmation')
    expect(await numbers(o.orderId)).toHaveLength(100)
    const result = await generate(o.orderId, 6, { confirmed: true })
    expect(result).toMatchObject({ numbersGenerated: 106, overrun: true, confirmedOverrun: true })
    expect(await order(o.orderId)).toMatchObject({ overrun: true, numbersGenerated: 106 })
    const flagged = await call<Paged<Order>>('POST', '/order/deviceOrder/list', { overrun: true, orderNo: o.orderNo })
    expect(flagged.data.rows.map((r: Row) => r.orderId)).toEqual([o.orderId])
    // The quantity moves the 5 % line: 106 of 110 is within it, 106 of 100 again is not.
    expect((await call('PUT', '/order/deviceOrder', { orderId: o.orderId, quantity: 110 })).status).toBe(200)
    expect(await order(o.orderId)).toMatchObject({ overrun: false, numbersGenerated: 106 })
    expect((await call('PUT', '/order/deviceOrder', { orderId: o.orderId, quantity: 100 })).status).toBe(200)
    expect(await order(o.orderId)).toMatchObject({ overrun: true })
    const log = await waitForOperLog(t, (r) => r.operUrl.includes(`/order/deviceOrder/${o.orderId}/action/generate`) && r.operParam.includes('"confirmed":true'))
    expect(log.status).toBe('0')
    // In Chinese too.
    const zh = await call<Preview>('POST', `/order/deviceOrder/${o.orderId}/action/generate/preview`, { count: 1 }, t.admin, 'zh_CN')
    expect(zh.data.warning).toContain('需要再次确认')
  })

  it('keeps to the order’s serial window and refuses what does not fit', async () => {
    const o = await addOrder({ serialStart: 500, serialEnd: 505 })
    await generate(o.orderId, 3)
    expect((await numbers(o.orderId)).map((r) => r.serial)).toEqual([500, 501, 502])
    const tooMany = await call('POST', `/order/deviceOrder/${o.orderId}/action/generate`, { count: 4 })
    expect(tooMany.status).toBe(409)
    expect(tooMany.msg).toBe('Only 3 serials are left for this order (up to 505); 4 asked')
    expect(await numbers(o.orderId)).toHaveLength(3)
  })

  it('answers bad input with 4xx and generates nothing', async () => {
    const before = await snapshot(t, 'ordFrameSeries')
    const count = async () => Number((await db().selectFrom('ordFrameNumber').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
    const numbersBefore = await count()
    const bad = async (values: Row, field: string, status = 400) => {
      const res = await call('POST', '/order/deviceOrder', await orderValues(values))
      expect(res.status, JSON.stringify(values)).toBe(status)
      expect(JSON.stringify(res.data)).toContain(field)
    }
    await bad({ quantity: 0 }, 'quantity')
    await bad({ serialStart: 10, serialEnd: 9 }, 'serialEnd')
    await bad({ modelId: 999_999 }, 'modelId')
    await bad({ orderType: 'repair' }, 'repairCode')
    await bad({ specCode: 'MOQ' }, 'specCode')
    await bad({ serialStart: 1_000_000 }, 'serialStart')
    await bad({ orderNo: '' }, 'orderNo')
    const o = await addOrder()
    for (const body of [{ count: 0 }, {}, { count: -3 }, { count: 1.5 }]) {
      const res = await call('POST', `/order/deviceOrder/${o.orderId}/action/generate`, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
    }
    expect(await count()).toBe(numbersBefore)
    expect(await snapshot(t, 'ordFrameSeries')).toEqual(before)
    // The required-field messages of SPEC §5.
    const missing = await call<Refusal>('POST', '/order/deviceOrder', {})
    expect(missing.status).toBe(400)
    const fields = missing.data.errors.map((e) => e.field)
    expect(fields).toEqual(expect.arrayContaining(['orderNo', 'modelId', 'quantity', 'deliveryDate', 'salesRegion', 'purchasingEntity', 'tpNumber', 'frameSupplier']))
  })

  it('keeps the template once numbers exist, and keeps an order that has numbers', async () => {
    const o = await addOrder()
    const without = await addOrder()
    await generate(o.orderId, 2)
    const before = await snapshot(t, 'ordDeviceOrder' as never, 'ordFrameNumber' as never)
    const changed = await call('PUT', '/order/deviceOrder', { orderId: o.orderId, brandCode: 'VX', specCode: 'ZZZ' })
    expect(changed.status).toBe(409)
    expect(changed.msg).toBe(`Cannot change Brand code, Model/colour/size code of bike order "${o.orderNo}": it has frame numbers`)
    expect(changed.data).toEqual({ errors: [{ field: 'brandCode' }] })
    expect((await call('PUT', '/order/deviceOrder', { orderId: o.orderId, brandCode: 'VX' }, t.admin, 'zh_CN')).msg).toBe(`不能修改车辆订单“${o.orderNo}”的品牌代码：已生成车架号`)
    const removed = await call('DELETE', `/order/deviceOrder/${o.orderId}`)
    expect(removed.status).toBe(409)
    expect(removed.msg).toBe(`Cannot delete bike order "${o.orderNo}": it has frame numbers`)
    // With an order that has none: all or nothing.
    expect((await call('DELETE', `/order/deviceOrder/${without.orderId},${o.orderId}`)).status).toBe(409)
    expect(await snapshot(t, 'ordDeviceOrder' as never, 'ordFrameNumber' as never)).toEqual(before)
    // What makes no number still changes; the template sent unchanged (a form, an import of an export) passes.
    const kept = await call('PUT', '/order/deviceOrder', { orderId: o.orderId, remark: 'rush', quantity: 150, brandCode: 'VL', modelYear: 2026 })
    expect(kept.status, kept.msg).toBe(200)
    expect(kept.data).toMatchObject({ remark: 'rush', quantity: 150, brandCode: 'VL' })
    expect((await call('DELETE', `/order/deviceOrder/${without.orderId}`)).status).toBe(200)
  })

  it('imports an export of orders with numbers back with updateSupport, and refuses a row that changes their template', async () => {
    const o = await addOrder()
    await generate(o.orderId, 1)
    const exported = await call('POST', '/order/deviceOrder/export', { orderNo: o.orderNo })
    expect(exported.status).toBe(200)
    const upload = (file: Buffer) => multipart([{ name: 'orders.xlsx', bytes: file }])
    const again = await t.call({ method: 'POST', url: '/api/order/deviceOrder/import?updateSupport=true', token: t.admin, ...upload(exported.raw) })
    expect(again.status, `${again.msg} ${JSON.stringify(again.data)}`).toBe(200)
    expect(again.data).toEqual({ inserted: 0, updated: 1 })
    // The same file with another brand code: refused, naming the row, and nothing changes.
    const sheet = await readWorkbook(exported.raw)
    const brand = sheet.header.indexOf('Brand code')
    const edited = await workbookOf(sheet.header, sheet.rows.map((r) => r.map((v, i) => (i === brand ? 'VX' : v))))
    const before = await snapshot(t, 'ordDeviceOrder' as never)
    const refused = await t.call<ImportRefusal>({ method: 'POST', url: '/api/order/deviceOrder/import?updateSupport=true', token: t.admin, ...upload(edited) })
    expect(refused.status).toBe(400)
    expect(refused.data.errors).toEqual([{ row: 2, field: 'brandCode', message: `Cannot change Brand code of bike order "${o.orderNo}": it has frame numbers` }])
    expect(await snapshot(t, 'ordDeviceOrder' as never)).toEqual(before)
  })

  it('seeds a button for every right the page offers, its numbers’ Void and Replace too, and each right is enforced', async () => {
    const page = await db().selectFrom('sysMenu').select('menuId').where('perms', '=', 'order:deviceOrder:list').where('menuType', '=', 'C').executeTakeFirstOrThrow()
    const buttons = (await db().selectFrom('sysMenu').select('perms').where('parentId', '=', page.menuId).execute()).map((b) => b.perms)
    expect(buttons).toEqual(expect.arrayContaining(['order:deviceOrder:generate', 'order:deviceOrder:printLabels', 'order:deviceOrder:void', 'order:deviceOrder:replace', 'order:deviceOrder:export']))
    const o = await addOrder()
    await generate(o.orderId, 2)
    const [n1, n2] = await numbers(o.orderId)
    await addBike(n1!.frameNumber)
    const clerk = await limitedUser(t, { userName: 'voidclerk', dataScope: '1', perms: ['order:deviceOrder:list', 'order:deviceOrder:query', 'order:deviceOrder:void'] })
    expect((await call('POST', `/order/deviceOrder/number/${n1!.numberId}/action/replace`, { cause: 'other' }, clerk.token)).status).toBe(403)
    expect((await call('POST', `/order/deviceOrder/${o.orderId}/action/printLabels`, { which: 'all' }, clerk.token)).status).toBe(403)
    expect((await call('POST', `/order/deviceOrder/number/${n2!.numberId}/void`, { reason: 'Misprint' }, clerk.token)).status).toBe(200)
  })

  it('refuses generation to a user without the right', async () => {
    const o = await addOrder()
    const viewer = await limitedUser(t, { userName: 'orderviewer', dataScope: '1', perms: ['order:deviceOrder:list', 'order:deviceOrder:query'] })
    expect((await call('POST', `/order/deviceOrder/${o.orderId}/action/generate`, { count: 1 }, viewer.token)).status).toBe(403)
    expect((await call('POST', `/order/deviceOrder/${o.orderId}/action/generate/preview`, { count: 1 }, viewer.token)).status).toBe(403)
    expect((await call('POST', '/order/deviceOrder/number/list', { orderId: o.orderId }, viewer.token)).status).toBe(200)
  })
})

describe('serials under concurrency', () => {
  const apps: TestApp[] = []
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close()
  })

  // Two instances share a PostgreSQL database; SQLite is one server's file, so there it is one instance.
  const instances = process.env.TEST_DATABASE_URL ? 'two server instances' : 'one server'
  it(`20 generations at once, by four staff members on ${instances}, for two orders of one series: no duplicate, no gap`, async () => {
    const a = await createTestApp({ JOB_CONCURRENCY: '4' })
    apps.push(a)
    const b = process.env.TEST_DATABASE_URL ? await createTestApp({ JOB_CONCURRENCY: '4' }, { databaseUrl: a.databaseUrl }) : a
    if (b !== a) apps.push(b)
    const adminToken = await a.login()
    const m = await a.call<{ modelId: number }>({ method: 'POST', url: '/api/bike/modelSpec', token: adminToken, body: { category: 'city', name: 'Race', code: 'RACE' } })
    const spec = specCode()
    const values = async () => ({ ...(await orderValues({ specCode: spec, quantity: 100_000 })), modelId: m.data.modelId })
    const first = await a.call<Order>({ method: 'POST', url: '/api/order/deviceOrder', token: adminToken, body: await values() })
    const second = await a.call<Order>({ method: 'POST', url: '/api/order/deviceOrder', token: adminToken, body: await values() })
    const perms = ['order:deviceOrder:list', 'order:deviceOrder:query', 'order:deviceOrder:generate']
    const staff = [adminToken]
    for (const name of ['genone', 'gentwo', 'genthree']) staff.push((await limitedUser(a, { userName: name, dataScope: '1', perms })).token)
    const per = 1200 // two batches each, so the batches of different jobs interleave
    const calls = Array.from({ length: 20 }, (_, i) => {
      const app = i % 2 ? b : a
      const orderId = i % 4 < 2 ? first.data.orderId : second.data.orderId
      const token = staff[i % 4]!
      return app.call<{ jobId: number }>({ method: 'POST', url: `/api/order/deviceOrder/${orderId}/action/generate`, token, body: { count: per } }).then((res) => ({ res, app, token }))
    })
    const started = await Promise.all(calls)
    for (const { res } of started) expect(res.status, res.msg).toBe(200)
    const jobs = await Promise.all(started.map(({ res, app, token }) => finished(res.data.jobId, app, token)))
    for (const job of jobs) expect(job.state, job.error ?? undefined).toBe('succeeded')

    const adb = a.app.services.db
    const rows = await adb.selectFrom('ordFrameNumber').select(['frameNumber', 'serial']).where('orderId', 'in', [first.data.orderId, second.data.orderId]).execute()
    expect(rows).toHaveLength(20 * per)
    expect(new Set(rows.map((r) => r.frameNumber)).size).toBe(20 * per)
    const serials = rows.map((r) => Number(r.serial)).sort((x, y) => x - y)
    expect(serials[0]).toBe(1)
    expect(serials[serials.length - 1]).toBe(20 * per)
    const series = await adb.selectFrom('ordFrameSeries').select('lastSerial').where('prefix', '=', `VLAT${spec}`).executeTakeFirstOrThrow()
    expect(Number(series.lastSerial)).toBe(20 * per)
    for (const id of [first.data.orderId, second.data.orderId]) {
      const o = (await a.call({ url: `/api/order/deviceOrder/${id}`, token: adminToken })).data
      expect(o).toMatchObject({ numbersGenerated: 10 * per, countGenerated: 10 * per })
    }
  }, 120_000)
})

describe('the life of a number', () => {
  it('is bound to the bike registered with it, which joins the order; freed again when that bike is deleted', async () => {
    const o = await addOrder()
    await generate(o.orderId, 3)
    const [n1] = await numbers(o.orderId)
    const bike = await addBike(n1!.frameNumber)
    expect(bike.status, bike.msg).toBe(200)
    expect(bike.data).toMatchObject({ orderId: o.orderId, orderIdLabel: o.orderNo })
    expect((await numbers(o.orderId))[0]).toMatchObject({ status: 'bound', bikeId: bike.data.bikeId })
    expect(await order(o.orderId)).toMatchObject({ countGenerated: 2, countBound: 1 })
    // The bikes of an order.
    const ofOrder = await call<Paged<Row>>('POST', '/bike/bike/list', { orderId: o.orderId })
    expect(ofOrder.data.rows.map((r: Row) => r.bikeId)).toEqual([bike.data.bikeId])
    // Renumbered by staff: the old number is free again, the new one bound.
    const n2 = (await numbers(o.orderId))[1]!
    const renumbered = await call('PUT', '/bike/bike', { bikeId: bike.data.bikeId, frameNumber: n2.frameNumber })
    expect(renumbered.status, renumbered.msg).toBe(200)
    expect((await numbers(o.orderId)).slice(0, 2)).toMatchObject([
      { status: 'generated', bikeId: null },
      { status: 'bound', bikeId: bike.data.bikeId },
    ])
    expect((await call('DELETE', `/bike/bike/${bike.data.bikeId}`)).status).toBe(200)
    expect((await numbers(o.orderId))[1]).toMatchObject({ status: 'generated', bikeId: null })
    expect(await order(o.orderId)).toMatchObject({ countGenerated: 3, countBound: 0 })
  })

  it('is voided with a reason, never issued again, and a bike cannot take it', async () => {
    const o = await addOrder()
    await generate(o.orderId, 2)
    const [n1, n2] = await numbers(o.orderId)
    expect((await call('POST', `/order/deviceOrder/number/${n2!.numberId}/void`, {})).status).toBe(400)
    const voided = await call('POST', `/order/deviceOrder/number/${n2!.numberId}/void`, { reason: 'Stamped twice on frame 17' })
    expect(voided.status, voided.msg).toBe(200)
    expect(voided.data).toMatchObject({ status: 'voided', reason: 'Stamped twice on frame 17' })
    // The reason is in the list and the export, beside the status.
    expect((await numbers(o.orderId, { status: 'voided' })).map((r) => [r.frameNumber, r.reason])).toEqual([[n2!.frameNumber, 'Stamped twice on frame 17']])
    const exported = await readWorkbook((await call('POST', '/order/deviceOrder/number/export', { orderId: o.orderId, status: 'voided' })).raw)
    expect(exported.rows.map((r) => [r[exported.header.indexOf('Frame number')], r[exported.header.indexOf('Status')], r[exported.header.indexOf('Reason')]])).toEqual([
      [n2!.frameNumber, 'Voided', 'Stamped twice on frame 17'],
    ])
    const counts = await call('POST', '/order/deviceOrder/number/counts', { orderId: o.orderId })
    expect(counts.data).toEqual({ generated: 1, printed: 0, bound: 0, voided: 1 })
    expect(await order(o.orderId)).toMatchObject({ countVoided: 1, countGenerated: 1, numbersGenerated: 2 })
    const taken = await addBike(n2!.frameNumber)
    expect(taken.status).toBe(409)
    expect(taken.msg).toBe(`Frame number ${n2!.frameNumber} is voided and can never be used`)
    await generate(o.orderId, 1)
    expect((await numbers(o.orderId)).map((r) => r.serial)).toEqual([n1!.serial, n2!.serial, n2!.serial + 1])
    // A bound number is not voided: it is replaced.
    const bike = await addBike(n1!.frameNumber)
    expect((await call('POST', `/order/deviceOrder/number/${n1!.numberId}/void`, { reason: 'x' })).status).toBe(409)
    expect(bike.status).toBe(200)
  })

  it('is replaced for one bike with a reason: a new number of type replacement, linked, the old one voided', async () => {
    const o = await addOrder()
    await generate(o.orderId, 2)
    const [n1] = await numbers(o.orderId)
    const bike = (await addBike(n1!.frameNumber)).data
    expect((await call('POST', `/order/deviceOrder/number/${n1!.numberId}/action/replace`, {})).status).toBe(400)
    const replaced = await call<FrameNumber>('POST', `/order/deviceOrder/number/${n1!.numberId}/action/replace`, { cause: 'damagedFrame', note: 'bent in transport' })
    expect(replaced.status, replaced.msg).toBe(200)
    const fresh = replaced.data.frameNumber as string
    const rows = await numbers(o.orderId)
    expect(rows.find((r) => r.numberId === n1!.numberId)).toMatchObject({ status: 'voided', reason: `Replaced by ${fresh}: Damaged frame: bent in transport` })
    expect(rows.find((r) => r.frameNumber === fresh)).toMatchObject({ numberType: 'replacement', status: 'bound', bikeId: bike.bikeId, replacesId: n1!.numberId, replacesIdLabel: n1!.frameNumber, serial: 3 })
    const after = (await call('GET', `/bike/bike/${bike.bikeId}`)).data
    expect(after).toMatchObject({ frameNumber: fresh, frameType: 'replacement', replacementReason: 'Damaged frame: bent in transport', orderId: o.orderId })
    const records = await call<Paged<Row>>('POST', '/bike/record/list', { bikeId: bike.bikeId, eventKind: 'frameReplaced' })
    expect(records.data.rows[0]!.detail).toBe(`Frame ${n1!.frameNumber} replaced by ${fresh}: Damaged frame: bent in transport`)
    const history = await call('GET', `/order/deviceOrder/number/${n1!.numberId}/history`)
    expect(history.data).toMatchObject([{ step: 'replace', fromState: 'bound', toState: 'voided', input: { cause: 'damagedFrame', replacement: fresh } }])
    // Replacements do not count toward the 5 % rule.
    expect(await order(o.orderId)).toMatchObject({ numbersGenerated: 2, countBound: 1, countVoided: 1, countGenerated: 1 })
    // Only a bound number is replaced.
    expect((await call('POST', `/order/deviceOrder/number/${rows[1]!.numberId}/action/replace`, { cause: 'other' })).status).toBe(409)
  })
})

describe('labels and export', () => {
  it('prints a PDF label sheet as a job (24 labels per A4 page) and marks the numbers printed', async () => {
    const o = await addOrder()
    await generate(o.orderId, 30)
    const started = await call<{ jobId: number }>('POST', `/order/deviceOrder/${o.orderId}/action/printLabels`, { which: 'unprinted' })
    expect(started.status, started.msg).toBe(200)
    const job = await finished(started.data.jobId)
    expect(job).toMatchObject({ state: 'succeeded', result: { labels: 30 }, fileName: `labels-${o.orderNo}.pdf`, done: 30, total: 30 })
    const file = await call('GET', `/monitor/job/${job.jobId}/file`)
    expect(file.status).toBe(200)
    const pdf = file.raw.toString('latin1')
    expect(pdf.startsWith('%PDF-')).toBe(true)
    expect(pdf.match(/\/Type \/Page\b/g)).toHaveLength(2)
    expect(await order(o.orderId)).toMatchObject({ countPrinted: 30, countGenerated: 0 })
    expect((await numbers(o.orderId))[0]).toMatchObject({ status: 'printed' })
    // Nothing left unprinted: refused, with no job file.
    const again = await call<{ jobId: number }>('POST', `/order/deviceOrder/${o.orderId}/action/printLabels`, { which: 'unprinted' })
    expect((await finished(again.data.jobId)).error).toBe(`Order ${o.orderNo} has no numbers to print`)
    // Printed numbers stay printed when a bike is deleted.
    const [n1] = await numbers(o.orderId)
    const bike = await addBike(n1!.frameNumber)
    await call('DELETE', `/bike/bike/${bike.data.bikeId}`)
    expect((await numbers(o.orderId))[0]).toMatchObject({ status: 'printed' })
  })

  it('exports an order’s numbers to Excel', async () => {
    const o = await addOrder()
    await generate(o.orderId, 12)
    const res = await call('POST', '/order/deviceOrder/number/export', { orderId: o.orderId })
    expect(res.status).toBe(200)
    const sheet = await readWorkbook(res.raw)
    expect(sheet.header).toEqual(expect.arrayContaining(['Frame number', 'Serial', 'Status', 'Order']))
    const col = sheet.header.indexOf('Frame number')
    expect(sheet.rows.map((r) => r[col])).toEqual((await numbers(o.orderId)).map((r) => r.frameNumber))
    expect(sheet.rows[0]![sheet.header.indexOf('Order')]).toBe(o.orderNo)
  })
})
