import { randomBytes } from 'node:crypto'
import { allEntities, entityByKey, finalStates } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import { addDays, rowsDueForTimedStep } from '../src/platform/crud/workflow'
import { limitedUser, useTestApp } from './harness'

// Timed steps (TimedStep in shared/entity/types.ts): a definition line the engine runs as a sweep of
// the one scheduler. The rules over every registered entity, then the product's case: a service order
// whose customer never sent the bike closes after 30 days. The definition checks: shared/test/workflow.test.ts.
const t = useTestApp()

const timedEntities = () => allEntities().filter((e) => e.transitions?.timed?.length)
const DAY_MS = 86_400_000

describe('every timed step of every registered entity', () => {
  it('exists in the product (the service orders have one), so the rules below are tested on something', () => {
    expect(timedEntities().map((e) => e.key)).toContain('repairOrder')
  })

  it('has no route, button or permission: nobody may take it early, not even the admin', async () => {
    for (const e of timedEntities()) {
      const menus = await t.app.services.db.selectFrom('sysMenu').select('perms').execute()
      for (const step of e.transitions!.timed!) {
        const res = await t.call({ method: 'POST', url: `/api${e.path}/1/${step.name}`, token: t.admin, body: {} })
        expect(res.status, `${e.key}.${step.name}`).toBe(404)
        expect(menus.some((m) => m.perms === `${e.permission}:${step.name}`), `${e.key}.${step.name}`).toBe(false)
      }
    }
  })

  it('is a sweep of the scheduler, listed under Monitoring › Jobs with the step named in both languages', async () => {
    for (const e of timedEntities()) {
      for (const step of e.transitions!.timed!) {
        for (const lang of ['en_US', 'zh_CN'] as const) {
          const res = await t.call<{ key: string; title: string; runs: string; everyMs: number }[]>({ url: '/api/monitor/job/schedules', token: t.admin, lang })
          expect(res.status, res.msg).toBe(200)
          const work = res.data.find((w) => w.key === `${e.key}.${step.name}`)
          expect(work, `${e.key}.${step.name}`).toMatchObject({ runs: 'once', everyMs: 300_000 })
          expect(work!.title).toContain(step.label[lang])
        }
      }
    }
  })

  it('leaves a state it starts from: that state is not final, so the list can still count it overdue', () => {
    for (const e of timedEntities()) for (const step of e.transitions!.timed!) for (const s of step.from) expect(finalStates(e)).not.toContain(s)
  })
})

// The product's case: Service › Repair service orders, `closeUncollected` after 30 days in Bike collecting.
describe('a service order waiting for the customer to send the bike', () => {
  const code = () => randomBytes(3).toString('hex').toUpperCase()
  let bikeId = 0
  beforeAll(async () => {
    const post = async <T>(url: string, body: object) => {
      const res = await t.call<T>({ method: 'POST', url: `/api${url}`, token: t.admin, body })
      expect(res.status, res.msg).toBe(200)
      return res.data
    }
    const model = await post<{ modelId: number }>('/bike/modelSpec', { category: 'city', name: `Timed ${code()}`, code: `M${code()}` })
    const colour = await post<{ colourId: number }>('/bike/modelSpec/colour', { modelId: model.modelId, name: 'Black', code: `C${code()}` })
    const size = await post<{ sizeId: number }>('/bike/modelSpec/size', { modelId: model.modelId, name: 'M', code: `S${code()}` })
    bikeId = (await post<{ bikeId: number }>('/bike/bike', { category: 'city', frameNumber: `VL24A${code()}`, modelId: model.modelId, colourId: colour.colourId, sizeId: size.sizeId })).bikeId
  })

  type Order = { repairOrderId: number; status: string }
  type Step = { step: string; fromState: string; toState: string; userName: string }
  const step = (id: number, name: string, body: object = {}) => t.call<Order>({ method: 'POST', url: `/api/service/repairOrder/${id}/${name}`, token: t.admin, body })
  const statusOf = async (id: number) => (await t.call<Order>({ url: `/api/service/repairOrder/${id}`, token: t.admin })).data.status
  const history = async (id: number) => (await t.call<Step[]>({ url: `/api/service/repairOrder/${id}/history`, token: t.admin })).data

  /** An order reviewed into `to`, its history and creation moved `daysAgo` into the past. */
  async function orderWaiting(to: 'bikeCollecting' | 'arrangingCollection', daysAgo: number) {
    const body = { serviceType: 'repair', contactEmail: 'rider@example.com', bikeId, firstName: 'Ada', lastName: 'Rider', issueDescription: 'Never sent' }
    const made = await t.call<Order>({ method: 'POST', url: '/api/service/repairOrder', token: t.admin, body })
    expect(made.status, made.msg).toBe(200)
    const id = made.data.repairOrderId
    expect((await step(id, 'submit')).status).toBe(200)
    expect((await step(id, 'review', { to })).status).toBe(200)
    const then = new Date(Date.now() - daysAgo * DAY_MS).toISOString()
    const db = t.app.services.db
    await db.updateTable('sysTransitionLog').set({ operTime: then }).where('entity', '=', 'repairOrder').where('rowId', '=', id).execute()
    await db.updateTable('serviceRepairOrder').set({ createTime: then }).where('repairOrderId', '=', id).execute()
    return id
  }
  const sweep = () => t.app.services.jobs.scheduler.runNow('repairOrder.closeUncollected')

  it('closes after 30 days, by the system, in the history as the step of the definition; one of 29 days waits', async () => {
    const lapsed = await orderWaiting('bikeCollecting', 31)
    const recent = await orderWaiting('bikeCollecting', 29)
    await sweep()
    expect(await statusOf(lapsed)).toBe('closed')
    expect(await statusOf(recent)).toBe('bikeCollecting')
    expect((await history(lapsed)).at(-1)).toMatchObject({ step: 'closeUncollected', fromState: 'bikeCollecting', toState: 'closed', userName: 'system' })
    // Closed is final: the next tick leaves it, and the step's row is written once.
    await sweep()
    expect((await history(lapsed)).filter((h) => h.step === 'closeUncollected')).toHaveLength(1)
    const work = (await t.app.services.jobs.scheduler.list()).find((w) => w.key === 'repairOrder.closeUncollected')
    expect(work).toMatchObject({ lastError: null })
    expect(work!.lastRunTime).not.toBeNull()
  })

  it('counts from the step into the state: a remark since (a step that stays) does not restart the wait', async () => {
    const id = await orderWaiting('bikeCollecting', 40)
    expect((await step(id, 'addRemark', { remark: 'Customer says next week' })).status).toBe(200)
    await sweep()
    expect(await statusOf(id)).toBe('closed')
  })

  it('counts from the last time the row came into the state, not its first', async () => {
    // In Bike collecting 40 days ago, out and back in today: a fresh wait.
    const id = await orderWaiting('bikeCollecting', 40)
    const db = t.app.services.db
    await db
      .insertInto('sysTransitionLog')
      .values([
        { entity: 'repairOrder', rowId: id, step: 'receive', fromState: 'bikeCollecting', toState: 'processing', input: '{}', userId: 1, userName: 'admin', operTime: new Date(Date.now() - 2 * DAY_MS).toISOString() },
        { entity: 'repairOrder', rowId: id, step: 'review', fromState: 'processing', toState: 'bikeCollecting', input: '{}', userId: 1, userName: 'admin', operTime: new Date(Date.now() - DAY_MS).toISOString() },
      ])
      .execute()
    const orders = entityByKey('repairOrder')
    expect(await rowsDueForTimedStep(db, orders, orders.transitions!.timed![0]!, addDays(new Date(), -30, false))).not.toContain(id)
    await sweep()
    expect(await statusOf(id)).toBe('bikeCollecting')
  })

  it('leaves the states the step does not start from: a pickup staff arrange stays open', async () => {
    const id = await orderWaiting('arrangingCollection', 60)
    await sweep()
    expect(await statusOf(id)).toBe('arrangingCollection')
  })

  it('waits as long as the configuration says (service.repairOrder.collectionDays), read at each run', async () => {
    const id = await orderWaiting('bikeCollecting', 31)
    const db = t.app.services.db
    const key = 'service.repairOrder.collectionDays'
    expect((await db.selectFrom('sysConfig').select('configValue').where('configKey', '=', key).executeTakeFirstOrThrow()).configValue).toBe('30')
    await db.updateTable('sysConfig').set({ configValue: '45' }).where('configKey', '=', key).execute()
    try {
      await sweep()
      expect(await statusOf(id)).toBe('bikeCollecting')
    } finally {
      await db.updateTable('sysConfig').set({ configValue: '30' }).where('configKey', '=', key).execute()
    }
    await sweep()
    expect(await statusOf(id)).toBe('closed')
  })

  it('is not a step a user may take, even one granted every right of the page', async () => {
    const id = await orderWaiting('bikeCollecting', 31)
    const clerk = await limitedUser(t, { userName: `clerk${code().toLowerCase()}`, dataScope: '1', perms: ['service:repairOrder:list', 'service:repairOrder:query', 'service:repairOrder:closeUncollected'] })
    const res = await t.call({ method: 'POST', url: `/api/service/repairOrder/${id}/closeUncollected`, token: clerk.token, body: {} })
    expect(res.status).toBe(404)
    expect(await statusOf(id)).toBe('bikeCollecting')
  })
})
