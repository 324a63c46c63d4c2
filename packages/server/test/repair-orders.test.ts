import { randomBytes } from 'node:crypto'
import type { Paged } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import { addDays } from '../src/platform/crud/workflow'
import { limitedUser, type Refusal, snapshot, useTestApp, waitForOperLog } from './harness'

// Service › Repair service orders: the first module on Engine 2's transitions and actions. Its rules
// are the definition's (shared/entities/service.ts): the steps, and what each state still allows;
// the module adds only the order number, the product filled from the bike and the evaluation's
// once-only rule.
const t = useTestApp()

const code = (prefix = '') => `${prefix}${randomBytes(3).toString('hex').toUpperCase()}`

async function added<T = Record<string, unknown>>(url: string, body: object) {
  const res = await t.call<T>({ method: 'POST', url: `/api${url}`, token: t.admin, body })
  expect(res.status, `${url}: ${res.msg} ${JSON.stringify(res.data)}`).toBe(200)
  return res.data
}

/** A registered bike of a new model, colour and size: a service order names one. */
async function addBike() {
  const model = await added<{ modelId: number; code: string; name: string }>('/bike/modelSpec', { category: 'city', name: `Metro ${code()}`, code: code('M') })
  const colour = await added<{ colourId: number; code: string }>('/bike/modelSpec/colour', { modelId: model.modelId, name: 'Black', code: code('C') })
  const size = await added<{ sizeId: number; code: string }>('/bike/modelSpec/size', { modelId: model.modelId, name: 'M', code: code('S') })
  const bike = await added('/bike/bike', { category: 'city', frameNumber: code('VL24A'), modelId: model.modelId, colourId: colour.colourId, sizeId: size.sizeId })
  return { ...bike, sku: `${model.code}-${colour.code}-${size.code}`, productName: model.name } as { bikeId: number; frameNumber: string; sku: string; productName: string }
}

let bike: Awaited<ReturnType<typeof addBike>>
beforeAll(async () => {
  bike = await addBike()
})

const orderValues = () => ({
  serviceType: 'repair',
  contactEmail: 'rider@example.com',
  bikeId: bike.bikeId,
  firstName: 'Ada',
  lastName: 'Rider',
  issueDescription: 'The motor cuts out on hills',
})

type Order = { repairOrderId: number; status: string; orderNo: string; dueTime: string | null; overdue: boolean }
/** One step of an order's history (GET …/history). */
type Step = { step: string; fromState: string; toState: string; userName: string; input: Record<string, unknown> }

async function newOrder(token = t.admin) {
  const res = await t.call<Order>({ method: 'POST', url: '/api/service/repairOrder', token, body: orderValues() })
  expect(res.status, res.msg).toBe(200)
  return res.data
}

const modify = <T = Order>(body: object, lang?: 'en_US' | 'zh_CN') => t.call<T>({ method: 'PUT', url: '/api/service/repairOrder', token: t.admin, body, lang })
const remove = <T = unknown>(ids: number[], lang?: 'en_US' | 'zh_CN') => t.call<T>({ method: 'DELETE', url: `/api/service/repairOrder/${ids.join(',')}`, token: t.admin, lang })
const history = async (id: number) => t.call<Step[]>({ url: `/api/service/repairOrder/${id}/history`, token: t.admin })

const step = <T = Order>(id: number, name: string, body: object = {}, token = t.admin, lang?: 'en_US' | 'zh_CN') =>
  t.call<T>({ method: 'POST', url: `/api/service/repairOrder/${id}/${name}`, token, body, lang })

/** Within a minute of the expected instant: the server stamped it a moment after the test computed it. */
const near = (iso: string | null, expected: Date) => expect(Math.abs(new Date(iso!).getTime() - expected.getTime())).toBeLessThan(60_000)

describe('repair service orders', () => {
  it('go from draft through review, mail return, a remark, receipt and finish, with history and due times', async () => {
    const order = await newOrder()
    expect(order.status).toBe('draft')
    expect(order.orderNo).toMatch(/^RS\d{8}-[2-9A-HJKMNP-Z]{6}$/)
    expect(order.dueTime).toBeNull()

    const submitted = await step(order.repairOrderId, 'submit')
    expect(submitted.status, submitted.msg).toBe(200)
    expect(submitted.data.status).toBe('pending')
    // Review within 2 working days (the configuration's default).
    near(submitted.data.dueTime, addDays(new Date(), 2, true))

    const reviewed = await step(order.repairOrderId, 'review', { to: 'bikeCollecting', remark: 'Please mail it with the charger' })
    expect(reviewed.status, reviewed.msg).toBe(200)
    expect(reviewed.data.status).toBe('bikeCollecting')
    expect(reviewed.msg).toBe('Review: now Bike collecting')
    expect(reviewed.data.dueTime).toBeNull()

    const remark = await step(order.repairOrderId, 'addRemark', { remark: 'Customer says it ships Monday' })
    expect(remark.data.status).toBe('bikeCollecting')

    const received = await step(order.repairOrderId, 'receive', { trackingNumber: 'DHL 1234' })
    expect(received.data.status).toBe('processing')
    near(received.data.dueTime, addDays(new Date(), 10, true))

    const finished = await step(order.repairOrderId, 'finish', {})
    expect(finished.data.status).toBe('finished')
    expect(finished.data.overdue).toBe(false)

    const history = await t.call<Step[]>({ url: `/api/service/repairOrder/${order.repairOrderId}/history`, token: t.admin })
    expect(history.data.map((h: { step: string; fromState: string; toState: string }) => [h.step, h.fromState, h.toState])).toEqual([
      ['submit', 'draft', 'pending'],
      ['review', 'pending', 'bikeCollecting'],
      ['addRemark', 'bikeCollecting', 'bikeCollecting'],
      ['receive', 'bikeCollecting', 'processing'],
      ['finish', 'processing', 'finished'],
    ])
    expect(history.data[1]).toMatchObject({ userName: 'admin', input: { remark: 'Please mail it with the charger' } })
    expect(history.data[3]!.input).toEqual({ trackingNumber: 'DHL 1234' })

    const log = await waitForOperLog(t, (r) => r.operUrl.endsWith(`/${order.repairOrderId}/finish`))
    expect(log.status).toBe('0')
  })

  it('refuses a step not valid from the current state, in the caller’s language, and changes nothing', async () => {
    const order = await newOrder()
    await step(order.repairOrderId, 'submit')
    const before = await snapshot(t, 'serviceRepairOrder', 'sysTransitionLog')
    const en = await step(order.repairOrderId, 'finish', {})
    expect(en.status).toBe(409)
    expect(en.msg).toBe('Cannot Finish: it is Pending review now')
    const zh = await step(order.repairOrderId, 'receive', {}, t.admin, 'zh_CN')
    expect(zh.msg).toBe('当前状态为“待审核”，不能确认收车')
    expect(await snapshot(t, 'serviceRepairOrder', 'sysTransitionLog')).toEqual(before)
    // Failed steps are logged too.
    const log = await waitForOperLog(t, (r) => r.operUrl.endsWith(`/${order.repairOrderId}/finish`))
    expect(log.status).toBe('1')
  })

  it('refuses a review without a valid return way, and a status written by modify', async () => {
    const order = await newOrder()
    await step(order.repairOrderId, 'submit')
    expect((await step(order.repairOrderId, 'review', {})).status).toBe(400)
    expect((await step(order.repairOrderId, 'review', { to: 'finished' })).status).toBe(400)
    const edit = await t.call({ method: 'PUT', url: '/api/service/repairOrder', token: t.admin, body: { repairOrderId: order.repairOrderId, status: 'finished' } })
    expect(edit.status).toBe(400)
    expect(edit.msg).toBe('Status changes only through its steps, not by modifying the record')
    const same = await t.call({ method: 'PUT', url: '/api/service/repairOrder', token: t.admin, body: { repairOrderId: order.repairOrderId, contactEmail: 'other@example.com' } })
    expect(same.status, same.msg).toBe(200)
    expect(same.data).toMatchObject({ status: 'pending', contactEmail: 'other@example.com' })
    // Add ignores a status too: every order starts as a draft.
    const draft = await t.call<Order>({ method: 'POST', url: '/api/service/repairOrder', token: t.admin, body: { ...orderValues(), status: 'finished' } })
    expect(draft.data.status).toBe('draft')
  })

  it('keeps review to holders of its permission', async () => {
    const order = await newOrder()
    await step(order.repairOrderId, 'submit')
    const clerk = await limitedUser(t, {
      userName: 'clerk',
      dataScope: '1',
      perms: ['service:repairOrder:list', 'service:repairOrder:query', 'service:repairOrder:add', 'service:repairOrder:submit', 'service:repairOrder:receive'],
    })
    expect((await step(order.repairOrderId, 'review', { to: 'processing' }, clerk.token)).status).toBe(403)
    expect((await step(order.repairOrderId, 'reject', { reason: 'no' }, clerk.token)).status).toBe(403)
    const reviewer = await limitedUser(t, { userName: 'reviewer', dataScope: '1', perms: ['service:repairOrder:list', 'service:repairOrder:review'] })
    const rejected = await step(order.repairOrderId, 'reject', { reason: 'Out of warranty' }, reviewer.token)
    expect(rejected.status, rejected.msg).toBe(200)
    expect(rejected.data.status).toBe('closed')
  })

  it('lets only one of two reviewers at once move an order', async () => {
    const order = await newOrder()
    await step(order.repairOrderId, 'submit')
    const answers = await Promise.all([step(order.repairOrderId, 'review', { to: 'processing' }), step(order.repairOrderId, 'review', { to: 'bikeCollecting' })])
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409])
    // The one refused is told the state the other moved it to, not the state both read.
    expect(answers.find((a) => a.status === 409)!.msg).toMatch(/^Cannot Review: it is (Processing|Bike collecting) now$/)
    const history = await t.call<Step[]>({ url: `/api/service/repairOrder/${order.repairOrderId}/history`, token: t.admin })
    expect(history.data.filter((h: { step: string }) => h.step === 'review')).toHaveLength(1)
  })

  it('takes an evaluation once, and only when finished', async () => {
    const order = await newOrder()
    const evaluate = (body: object) => t.call({ method: 'POST', url: `/api/service/repairOrder/${order.repairOrderId}/action/evaluate`, token: t.admin, body })
    const early = await evaluate({ stars: 5 })
    expect(early.status).toBe(409)
    expect(early.msg).toBe('Cannot Evaluate while it is Draft')
    for (const [name, body] of [['submit', {}], ['review', { to: 'processing' }], ['finish', {}]] as const) await step(order.repairOrderId, name, body)
    expect((await evaluate({ stars: 6 })).status).toBe(400)
    const done = await evaluate({ stars: 4, text: 'Fast and friendly' })
    expect(done.status, done.msg).toBe(200)
    expect(done.data).toMatchObject({ evaluationStars: 4, evaluationText: 'Fast and friendly' })
    // Evaluated once: the engine refuses it by the definition's whenEmpty, before the handler runs.
    const again = await evaluate({ stars: 1 })
    expect(again.status).toBe(409)
    expect(again.msg).toBe('Cannot Evaluate: Evaluation is already given')
    // The evaluation is not a form field: modify cannot write it.
    await t.call({ method: 'PUT', url: '/api/service/repairOrder', token: t.admin, body: { repairOrderId: order.repairOrderId, evaluationStars: 1 } })
    expect((await t.call<{ evaluationStars: number | null }>({ url: `/api/service/repairOrder/${order.repairOrderId}`, token: t.admin })).data.evaluationStars).toBe(4)
  })

  it('counts orders per state with the other filters, and flags overdue ones', async () => {
    const a = await newOrder()
    const b = await newOrder()
    await step(a.repairOrderId, 'submit')
    await step(b.repairOrderId, 'submit')
    await step(b.repairOrderId, 'withdraw', { reason: 'Fixed it myself' })
    const counts = await t.call<Record<string, number>>({ method: 'POST', url: '/api/service/repairOrder/counts', token: t.admin, body: { bikeId: bike.bikeId } })
    expect(counts.status, counts.msg).toBe(200)
    expect(counts.data.pending).toBeGreaterThanOrEqual(1)
    expect(counts.data.withdrawn).toBeGreaterThanOrEqual(1)
    expect(Object.keys(counts.data)).toHaveLength(8)
    const none = await t.call<Record<string, number>>({ method: 'POST', url: '/api/service/repairOrder/counts', token: t.admin, body: { bikeId: (await addBike()).bikeId } })
    expect(Object.values(none.data).every((n) => n === 0)).toBe(true)

    const past = new Date(Date.now() - 3600_000).toISOString()
    await t.app.services.db.updateTable('serviceRepairOrder').set({ dueTime: past }).where('repairOrderId', 'in', [a.repairOrderId, b.repairOrderId]).execute()
    const got = async (id: number) => (await t.call<Order>({ url: `/api/service/repairOrder/${id}`, token: t.admin })).data
    expect((await got(a.repairOrderId)).overdue).toBe(true)
    // A withdrawn order is over: never overdue.
    expect((await got(b.repairOrderId)).overdue).toBe(false)
  })

  it('takes the review time from the system configuration', async () => {
    await t.app.services.db.updateTable('sysConfig').set({ configValue: '5' }).where('configKey', '=', 'service.repairOrder.reviewDays').execute()
    const order = await newOrder()
    const submitted = await step(order.repairOrderId, 'submit')
    near(submitted.data.dueTime, addDays(new Date(), 5, true))
    await t.app.services.db.updateTable('sysConfig').set({ configValue: '2' }).where('configKey', '=', 'service.repairOrder.reviewDays').execute()
  })
})

describe('what a service order’s state allows', () => {
  /** An order taken through these steps. */
  async function orderIn(steps: [name: string, body?: object][]) {
    const order = await newOrder()
    for (const [name, body] of steps) {
      const res = await step(order.repairOrderId, name, body ?? {})
      expect(res.status, `${name}: ${res.msg}`).toBe(200)
    }
    return order
  }
  const FINISHED: [string, object?][] = [['submit'], ['review', { to: 'processing' }], ['finish']]

  it('keeps a finished, rated order: neither modified nor deleted, in either language, and its history stays', async () => {
    const order = await orderIn(FINISHED)
    const rated = await t.call({ method: 'POST', url: `/api/service/repairOrder/${order.repairOrderId}/action/evaluate`, token: t.admin, body: { stars: 5, text: 'Quick' } })
    expect(rated.status, rated.msg).toBe(200)
    const draft = await newOrder()
    const before = await snapshot(t, 'serviceRepairOrder', 'sysTransitionLog', 'bikeRecord' as never)

    const edit = await modify({ repairOrderId: order.repairOrderId, contactEmail: 'new@example.com' })
    expect(edit.status).toBe(409)
    expect(edit.msg).toBe(`Cannot modify service order "${order.orderNo}": it is Finished`)
    expect((await modify({ repairOrderId: order.repairOrderId, remark: 'late note' }, 'zh_CN')).msg).toBe(`不能修改服务单“${order.orderNo}”：当前状态为“已完成”`)
    const del = await remove([order.repairOrderId])
    expect(del.status).toBe(409)
    expect(del.msg).toBe(`Cannot delete service order "${order.orderNo}": it is Finished`)
    expect((await remove([order.repairOrderId], 'zh_CN')).msg).toBe(`不能删除服务单“${order.orderNo}”：当前状态为“已完成”`)
    // With a draft that may go: all or nothing, the draft stays too.
    const both = await remove([draft.repairOrderId, order.repairOrderId])
    expect(both.status).toBe(409)
    expect(both.msg).toBe(`Cannot delete service order "${order.orderNo}": it is Finished`)
    expect((await t.call({ url: `/api/service/repairOrder/${draft.repairOrderId}`, token: t.admin })).status).toBe(200)

    expect(await snapshot(t, 'serviceRepairOrder', 'sysTransitionLog', 'bikeRecord' as never)).toEqual(before)
    const steps = await history(order.repairOrderId)
    expect(steps.status, steps.msg).toBe(200)
    expect(steps.data.map((h: { step: string }) => h.step)).toEqual(['submit', 'review', 'finish'])
    // A modify that changes nothing (an old form sending the same values) writes nothing.
    const unchanged = await modify({ repairOrderId: order.repairOrderId, contactEmail: 'rider@example.com' })
    expect(unchanged.status, unchanged.msg).toBe(200)
    expect(await snapshot(t, 'serviceRepairOrder', 'sysTransitionLog', 'bikeRecord' as never)).toEqual(before)
  })

  it('keeps withdrawn and closed orders as they ended, and a submitted one (it is withdrawn instead); only a draft, with no history, is deleted', async () => {
    const withdrawn = await orderIn([['submit'], ['withdraw', { reason: 'Fixed it myself' }]])
    const closed = await orderIn([['submit'], ['reject', { reason: 'Out of warranty' }]])
    for (const [order, state] of [[withdrawn, 'Withdrawn'], [closed, 'Closed']] as const) {
      const edit = await modify({ repairOrderId: order.repairOrderId, issueDescription: 'Changed' })
      expect(edit.status).toBe(409)
      expect(edit.msg).toBe(`Cannot modify service order "${order.orderNo}": it is ${state}`)
      expect((await remove([order.repairOrderId])).msg).toBe(`Cannot delete service order "${order.orderNo}": it is ${state}`)
    }
    // Submitted: still corrected (a mistyped e-mail), never deleted.
    const pending = await orderIn([['submit']])
    expect((await modify({ repairOrderId: pending.repairOrderId, contactEmail: 'fixed@example.com' })).status).toBe(200)
    const refused = await remove([pending.repairOrderId])
    expect(refused.status).toBe(409)
    expect(refused.msg).toBe(`Cannot delete service order "${pending.orderNo}": it has been submitted: withdraw it instead`)
    expect((await remove([pending.repairOrderId], 'zh_CN')).msg).toBe(`不能删除服务单“${pending.orderNo}”：已提交，请撤回`)
    expect((await history(pending.repairOrderId)).data).toHaveLength(1)

    const draft = await newOrder()
    const logs = await snapshot(t, 'sysTransitionLog')
    const gone = await remove([draft.repairOrderId])
    expect(gone.status, gone.msg).toBe(200)
    expect((await t.call({ url: `/api/service/repairOrder/${draft.repairOrderId}`, token: t.admin })).status).toBe(404)
    expect(await snapshot(t, 'sysTransitionLog')).toEqual(logs)
  })

  it('refuses a save from a form opened before the order finished, and changes nothing', async () => {
    const order = await orderIn([['submit'], ['review', { to: 'processing' }]])
    // The form was read while Processing; the order finished before it was saved.
    await step(order.repairOrderId, 'finish', {})
    const before = await snapshot(t, 'serviceRepairOrder')
    const stale = await modify({ repairOrderId: order.repairOrderId, lastName: 'Lovelace', issueDescription: 'Also the light' })
    expect(stale.status).toBe(409)
    expect(stale.data).toEqual({ errors: [{ field: 'lastName' }] })
    expect(await snapshot(t, 'serviceRepairOrder')).toEqual(before)
  })
})

describe('a service order’s bike', () => {
  it('is a registered bike, picked by its frame number, with its product filled from it; a typed or unknown one is refused', async () => {
    const rows = async () => snapshot(t, 'serviceRepairOrder')
    const before = await rows()
    const typed = await t.call<Refusal>({ method: 'POST', url: '/api/service/repairOrder', token: t.admin, body: { ...orderValues(), bikeId: 'NOTAREALBIKE1' } })
    expect(typed.status).toBe(400)
    expect(typed.data.errors.map((e: { field: string }) => e.field)).toEqual(['bikeId'])
    const unknown = await t.call({ method: 'POST', url: '/api/service/repairOrder', token: t.admin, body: { ...orderValues(), bikeId: 999_999_999 } })
    expect(unknown.status).toBe(400)
    expect(unknown.msg).toBe('Bike ID: no record with id 999999999')
    const none = await t.call({ method: 'POST', url: '/api/service/repairOrder', token: t.admin, body: { ...orderValues(), bikeId: undefined } })
    expect(none.status).toBe(400)
    expect(await rows()).toEqual(before)

    // The form's picker: the bikes by frame number, for a clerk who may add orders but not list bikes.
    const clerk = await limitedUser(t, { userName: 'bikepicker', dataScope: '1', perms: ['service:repairOrder:list', 'service:repairOrder:add'] })
    const options = await t.call({ url: `/api/bike/bike/options?keyword=${bike.frameNumber.slice(-4)}`, token: clerk.token })
    expect(options.status, options.msg).toBe(200)
    expect(options.data).toContainEqual({ value: bike.bikeId, label: bike.frameNumber })

    // The product comes from the bike, whatever the request says; the list names the bike by its frame number.
    const res = await t.call<Order>({ method: 'POST', url: '/api/service/repairOrder', token: clerk.token, body: { ...orderValues(), sku: 'MADE-UP', productName: 'Other' } })
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toMatchObject({ bikeId: bike.bikeId, bikeIdLabel: bike.frameNumber, sku: bike.sku, productName: bike.productName })
    const listed = await t.call<Paged<Record<string, unknown>>>({ method: 'POST', url: '/api/service/repairOrder/list', token: t.admin, body: { bikeId: bike.bikeId, orderNo: res.data.orderNo } })
    expect(listed.data.rows).toEqual([expect.objectContaining({ bikeIdLabel: bike.frameNumber, sku: bike.sku })])
    // In the bike's vehicle records.
    const records = await t.call<Paged<{ eventKind: string; detail: string }>>({ method: 'POST', url: '/api/bike/record/list', token: t.admin, body: { bikeId: bike.bikeId } })
    expect(records.data.rows.map((r: { eventKind: string; detail: string }) => [r.eventKind, r.detail])).toContainEqual(['serviceOrder', res.data.orderNo])

    // Another bike: its product follows.
    const other = await addBike()
    const moved = await modify({ repairOrderId: res.data.repairOrderId, bikeId: other.bikeId })
    expect(moved.status, moved.msg).toBe(200)
    expect(moved.data).toMatchObject({ bikeId: other.bikeId, bikeIdLabel: other.frameNumber, sku: other.sku, productName: other.productName })
  })
})

describe('working days', () => {
  it('skip the weekend', () => {
    // Friday 2026-11-27 12:00 UTC + 2 working days = Tuesday.
    expect(addDays(new Date('2026-11-27T12:00:00Z'), 2, true).toISOString()).toBe('2026-12-01T12:00:00.000Z')
    expect(addDays(new Date('2026-11-27T12:00:00Z'), 2, false).toISOString()).toBe('2026-11-29T12:00:00.000Z')
  })
})
