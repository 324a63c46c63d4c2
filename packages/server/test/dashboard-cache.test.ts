import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { mondayOf } from '../src/modules/dashboard/engagement'
import { ago, at, dashboard, fixtures, today } from './dashboard-fixtures'
import { useTestApp } from './harness'

// The kept answers of the rollup dashboards (modules/dashboard/answer-cache.ts): served again only
// while the rollups and the live rows beside them are unchanged, and never to a caller of another scope.
const t = useTestApp()
const f = fixtures(t)

const summary = async (key: string, query: Record<string, string | number>, token = t.admin) => {
  const res = await dashboard(t, key, query, token)
  expect(res.status, res.msg).toBe(200)
  return res
}

describe('dashboard answers kept between requests', () => {
  it('serve a kept answer while nothing changed, and take a change in data once the rollups are refreshed', async () => {
    const C = await f.country()
    const m1 = await f.member({ countryId: C, createTime: at(10) })
    await f.ride(m1, at(2))
    await f.refresh()
    const query = { from: ago(5), to: today, countryId: C }
    const first = await summary('engagement', query)
    // Active 1 and 1 in the last 7 days, no sign-ups in the range, 1 ride per active member.
    expect(first.figures.summary!.rows[0]).toEqual([1, 1, 0, expect.any(Number), 1])

    // A row written into the rollups behind their back (no fact, so no watermark moves) is not seen:
    // the answer is the kept one.
    await sql`insert into dash_member_period (kind, period, platform, member_id, country_id) values ('w', ${mondayOf(today)}, '', ${m1 + 1_000_000}, ${C})`.execute(f.db())
    const kept = await summary('engagement', query)
    expect(kept.figures).toEqual(first.figures)

    // A new fact, refreshed: the answer is computed again (and now sees that row too).
    const m2 = await f.member({ countryId: C, createTime: at(20) })
    await f.ride(m2, at(1))
    await f.refresh()
    const after = await summary('engagement', query)
    expect(after.figures.summary!.rows[0]!.slice(0, 3)).toEqual([2, 2, 0])
    const weekly = after.figures.weekly!.rows.find((r) => r[0] === mondayOf(today))
    expect(Number(weekly![1])).toBeGreaterThan(Number(first.figures.weekly!.rows.find((r) => r[0] === mondayOf(today))![1]))

    // A sign-up (read live, no fact at all) reaches the next answer too.
    await f.member({ countryId: C, createTime: at(3) })
    const joined = await summary('engagement', query)
    expect(joined.figures.summary!.rows[0]!.slice(0, 3)).toEqual([2, 2, 1])
  })

  it('take new app events and a new release into the performance answer', async () => {
    const P = await f.country()
    const m = await f.member({ countryId: P, createTime: at(10) })
    await f.event(m, { code: 'app.launch', time: at(2), platform: 'ios', appVersion: '9.1.0', value: 800 })
    await f.refresh()
    const query = { from: ago(5), to: today, countryId: P }
    const first = await summary('performance', query)
    expect(first.figures.summary!.rows[0]![0]).toBe(1)
    expect(first.figures.crashFree!.marks).toEqual([])

    await f.event(m, { code: 'app.launch', time: at(1), platform: 'ios', appVersion: '9.1.0', value: 900 })
    await f.refresh()
    expect((await summary('performance', query)).figures.summary!.rows[0]![0]).toBe(2)

    // Releases are read live: a release in the range shows as a mark without any new fact.
    await f
      .db()
      .insertInto('cntAppVersion')
      .values({ platform: 'ios', versionCode: '9.1.0', versionType: 'normal', downloadUrl: 'https://example.com/app', updateInterval: 24, releaseTime: at(3), createBy: 'test', createTime: at(3) })
      .execute()
    const released = await summary('performance', query)
    expect(released.figures.crashFree!.marks).toEqual([{ at: ago(3), label: 'iOS 9.1.0' }])
    expect(released.figures.byVersion!.rows[0]!.slice(0, 3)).toEqual(['9.1.0', 'ios', ago(3)])
  })

  it('never give one scope the answer of another, in any order', async () => {
    const D = await f.country()
    const E = await f.country()
    const d = await f.member({ countryId: D, createTime: at(30) })
    const e = await f.member({ countryId: E, createTime: at(30) })
    await f.ride(d, at(2))
    await f.ride(e, at(2))
    await f.ride(e, at(2, 15))
    await f.event(d, { code: 'app.launch', time: at(2), value: 500 })
    await f.event(e, { code: 'app.launch', time: at(2), value: 500 })
    await f.event(e, { code: 'app.launch', time: at(3), value: 500 })
    await f.refresh()
    const perms = ['dashboard:engagement:list', 'dashboard:performance:list']
    const inD = await f.regional('cacheregionald', [D], perms)
    const inE = await f.regional('cacheregionale', [E], perms)
    const query = { from: ago(5), to: today }
    const rides = async (token: string) => (await summary('engagement', query, token)).figures.summary!.rows[0]!
    const sessions = async (token: string) => (await summary('performance', query, token)).figures.summary!.rows[0]![0]
    // Active 1 of their own country; 1 and 2 rides per active member.
    const expectD = [1, 1, 0, expect.any(Number), 1]
    const expectE = [1, 1, 0, expect.any(Number), 2]
    for (let round = 0; round < 2; round++) {
      const admin = await rides(t.admin)
      expect(Number(admin[0])).toBeGreaterThanOrEqual(2)
      expect(await rides(inD.token)).toEqual(expectD)
      expect(await rides(inE.token)).toEqual(expectE)
      expect(await sessions(inE.token)).toBe(2)
      expect(await sessions(inD.token)).toBe(1)
      expect(Number(await sessions(t.admin))).toBeGreaterThanOrEqual(3)
    }
    // At once, too (the requests of one moment share a computation only within one scope).
    const together = await Promise.all([rides(inE.token), rides(inD.token), rides(t.admin), rides(inD.token), rides(inE.token)])
    expect([together[0], together[1], together[3], together[4]]).toEqual([expectE, expectD, expectD, expectE])
  })
})
