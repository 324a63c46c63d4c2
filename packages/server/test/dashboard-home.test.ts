import type { Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { ago, at, dashboard, fixtures, today } from './dashboard-fixtures'
import { limitedUser, useTestApp } from './harness'

// The home page's cards and registrations over a small fleet in two countries: each card counts the
// caller's countries only, and is blank (null) for a caller without the right to the list it opens.
const t = useTestApp()
const f = fixtures(t)
const CARD_PERMS = ['bike:bike:list', 'member:member:list', 'iot:device:list', 'iot:warning:list', 'iot:upgrade:list', 'service:repairOrder:list']

let H = 0
let K = 0
let serial = 0
const setUp = (() => {
  let done: Promise<void> | null = null
  return () =>
    (done ??= (async () => {
      H = await f.country()
      K = await f.country()
      const h1 = await f.member({ countryId: H, createTime: at(2) })
      const h2 = await f.member({ countryId: H, createTime: at(1) })
      const k1 = await f.member({ countryId: K, createTime: at(1) })
      await f.member({ countryId: null, createTime: at(1) })
      const device = async (state: string) => {
        const row = await f
          .db()
          .insertInto('iotDevice')
          .values({ sn: `HOME${++serial}`, uuid: `00000000-0000-0000-0000-00000000000${serial}`, modelId: 1, state, createBy: 'test', createTime: at(30) })
          .returning('deviceId')
          .executeTakeFirstOrThrow()
        return Number(row.deviceId)
      }
      const bike = (memberId: number | null, boundDay: number | null, iotDeviceId: number | null) =>
        f
          .db()
          .insertInto('bikeBike')
          .values({
            frameNumber: `HOMEBIKE${++serial}`,
            category: 'city',
            modelId: 1,
            colourId: 1,
            sizeId: 1,
            bindStatus: memberId ? 'bound' : 'unbound',
            memberId,
            boundTime: boundDay === null ? null : at(boundDay),
            iotDeviceId,
            createBy: 'test',
            createTime: at(30),
          })
          .execute()
      const d1 = await device('online')
      const d2 = await device('online')
      const d3 = await device('online')
      const d4 = await device('offline')
      await bike(h1, 2, d1)
      await bike(k1, 1, d2)
      await bike(h2, 1, d4)
      await bike(null, null, null)
      const alarm = (deviceId: number, severity: string, state: string) =>
        f.db().insertInto('iotAlarm').values({ deviceId, type: 'fault', severity, state, startTime: at(1), lastTime: at(1) }).execute()
      await alarm(d1, 'critical', 'activeUnack')
      await alarm(d1, 'major', 'activeAck')
      await alarm(d1, 'minor', 'clearedUnack')
      await alarm(d2, 'critical', 'activeUnack')
      await alarm(d3, 'warning', 'activeUnack')
      // An order names a registered bike: one of these.
      const { bikeId } = await f.db().selectFrom('bikeBike').select('bikeId').orderBy('bikeId').limit(1).executeTakeFirstOrThrow()
      const order = async (countryId: number, status: string, dueDays: number) => {
        const res = await t.call<{ repairOrderId: number }>({
          method: 'POST',
          url: '/api/service/repairOrder',
          token: t.admin,
          body: { serviceType: 'repair', contactEmail: 'home@example.com', bikeId: Number(bikeId), firstName: 'Ho', lastName: 'Me', issueDescription: 'x' },
        })
        expect(res.status, res.msg).toBe(200)
        const dueTime = new Date(Date.now() + dueDays * 86_400_000).toISOString()
        await f.db().updateTable('serviceRepairOrder').set({ status, dueTime, countryId }).where('repairOrderId', '=', res.data.repairOrderId).execute()
      }
      await order(H, 'pending', -2)
      await order(K, 'processing', -1)
      await order(H, 'finished', -5)
      await order(H, 'pending', 2)
      await f.ride(h1, at(3))
      await f.ride(k1, at(1))
      await f.event(h2, { time: at(10) })
    })())
})()

const runningUpgrades = async () =>
  Number((await f.db().selectFrom('otaCampaign').select((eb) => eb.fn.countAll().as('n')).where('partKind', '=', 'iot').where('status', '=', 'running').executeTakeFirstOrThrow()).n)

describe('home dashboard', () => {
  it('counts every country for a caller who sees all', async () => {
    await setUp()
    const before = await runningUpgrades()
    const res = await dashboard(t, 'home', { from: ago(3), to: today }, t.admin)
    expect(res.status, res.msg).toBe(200)
    const [cards] = res.figures.cards!.rows
    // Bikes bound 3; active in 7 days h1, k1; online d1 d2 d3; open warnings critical 2, major 1, minor 0 (cleared), warning 1; overdue 2.
    expect(cards!.slice(0, 7)).toEqual([3, 2, 3, 2, 1, 0, 1])
    expect([before, await runningUpgrades()]).toContain(cards![7])
    expect(cards![8]).toBe(2)
    expect(res.figures.registrations!.rows).toEqual([
      [ago(3), 0, 0],
      [ago(2), 1, 1],
      [ago(1), 3, 2],
      [today, 0, 0],
    ])
    expect(res.data.refreshedAt).toBeTruthy()
  })

  it('counts only the countries of a department’s region', async () => {
    await setUp()
    const regional = await f.regional('homeregional', [H], CARD_PERMS)
    const res = await dashboard(t, 'home', { from: ago(3), to: today }, regional.token)
    expect(res.status, res.msg).toBe(200)
    const [cards] = res.figures.cards!.rows
    expect(cards!.slice(0, 7)).toEqual([2, 1, 1, 1, 1, 0, 0])
    expect(cards![8]).toBe(1)
    expect(res.figures.registrations!.rows).toEqual([
      [ago(3), 0, 0],
      [ago(2), 1, 1],
      [ago(1), 1, 1],
      [today, 0, 0],
    ])
  })

  it('blanks (null) each card and column whose list the caller may not open', async () => {
    await setUp()
    const members = await limitedUser(t, { userName: 'homemembers', perms: ['member:member:list'], dataScope: '1' })
    const res = await dashboard(t, 'home', { from: ago(3), to: today }, members.token)
    expect(res.status, res.msg).toBe(200)
    expect(res.figures.cards!.rows).toEqual([[null, 2, null, null, null, null, null, null, null]])
    expect(res.figures.registrations!.rows[2]).toEqual([ago(1), 3, null])
    const nobody = await limitedUser(t, { userName: 'homenobody', perms: [], dataScope: '1' })
    const blank = await dashboard(t, 'home', {}, nobody.token)
    expect(blank.status, blank.msg).toBe(200)
    expect(blank.figures.cards!.rows[0]!.every((v) => v === null)).toBe(true)
    expect(blank.figures.registrations!.rows).toHaveLength(90)
  })

  it('counts as many members active in 7 days as the members list shows with the card’s filter, in each scope', async () => {
    await setUp()
    const regional = await f.regional('homeactive', [H], CARD_PERMS)
    for (const token of [t.admin, regional.token]) {
      const res = await dashboard(t, 'home', {}, token)
      expect(res.status, res.msg).toBe(200)
      const active = res.figures.cards!.rows[0]![1]
      // The card's link: lastActiveDay from 6 days ago to today (definitions.ts).
      const list = await t.call<Paged<unknown>>({ method: 'POST', url: '/api/member/member/list', token, body: { pageNum: 1, pageSize: 1, lastActiveDay: [ago(6), today] } })
      expect(list.status, list.msg).toBe(200)
      expect(list.data.total).toBe(active)
    }
    // h2 was last active 10 days ago: a member, but not of these 7 days.
    const older = await t.call<Paged<unknown>>({ method: 'POST', url: '/api/member/member/list', token: t.admin, body: { pageNum: 1, pageSize: 10, lastActiveDay: [ago(10), ago(10)] } })
    expect(older.data.total).toBeGreaterThanOrEqual(1)
  })

  it('needs a sign-in', async () => {
    expect((await t.call({ url: '/api/analytics/home' })).status).toBe(401)
  })
})
