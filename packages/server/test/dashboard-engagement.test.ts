import { describe, expect, it } from 'vitest'
import ExcelJS from 'exceljs'
import { mondayOf } from '../src/modules/dashboard/engagement'
import { ago, at, dashboard, fixtures, today } from './dashboard-fixtures'
import { limitedUser, useTestApp } from './harness'

// User engagement over a small hand-made data set: three members of one country signing up 20 and 10
// days ago, their rides and app events, and one member of another country the filters keep apart.
const t = useTestApp()
const f = fixtures(t)

let A = 0
let B = 0
const setUp = (() => {
  let done: Promise<void> | null = null
  return () =>
    (done ??= (async () => {
      A = await f.country()
      B = await f.country()
      const m1 = await f.member({ countryId: A, createTime: at(20, 9) })
      const m2 = await f.member({ countryId: A, createTime: at(20, 15) })
      const m3 = await f.member({ countryId: A, createTime: at(10) })
      const m4 = await f.member({ countryId: B, createTime: at(20) })
      await f.ride(m1, at(19, 8), 4)
      await f.ride(m1, at(19, 17), 6)
      await f.ride(m1, at(13))
      await f.ride(m1, at(5))
      await f.event(m1, { time: at(5), platform: 'android' })
      await f.event(m1, { time: at(2), platform: 'ios' })
      await f.ride(m2, at(19))
      await f.event(m2, { time: at(10), platform: 'android' })
      await f.ride(m3, at(9))
      await f.event(m3, { time: at(9), platform: 'ios' })
      await f.ride(m3, at(3))
      await f.ride(m4, at(19))
      await f.ride(m4, at(1))
      await f.refresh()
    })())
})()

const row = (rows: unknown[][], first: string) => rows.find((r) => r[0] === first)

describe('engagement dashboard', () => {
  it('counts daily, weekly and monthly active members, new members, rides and stickiness in one country', async () => {
    await setUp()
    const res = await dashboard(t, 'engagement', { from: ago(20), to: today, countryId: A }, t.admin)
    expect(res.status, res.msg).toBe(200)
    const daily = res.figures.daily!.rows
    expect(daily).toHaveLength(21)
    expect(daily[0]).toEqual([ago(20), 0, 2, 0])
    expect(row(daily, ago(19))).toEqual([ago(19), 2, 0, 3])
    expect(row(daily, ago(13))).toEqual([ago(13), 1, 0, 1])
    // Active through an app event alone: no ride that day.
    expect(row(daily, ago(10))).toEqual([ago(10), 1, 1, 0])
    expect(row(daily, ago(2))).toEqual([ago(2), 1, 0, 0])
    expect(row(daily, ago(1))).toEqual([ago(1), 0, 0, 0])
    // Active 3, active in the last 7 days 2 (m1, m3), new 3, stickiness: 8 active member-days over
    // the 21 days, of 3 members active in them (12.7 %), rides 7 / 3.
    expect(res.figures.summary!.rows).toEqual([[3, 2, 3, 12.7, 2.33]])
    // Weeks and months as the member-days say (counted here from the data set itself).
    const active: Record<string, number[]> = { m1: [19, 13, 5, 2], m2: [19, 10], m3: [9, 3] }
    const rides: Record<number, number> = { 19: 3, 13: 1, 9: 1, 5: 1, 3: 1 }
    const weeks = [...new Set(daily.map((r) => mondayOf(String(r[0]))))]
    const activeIn = (match: (day: string) => boolean) => Object.values(active).filter((days) => days.some((n) => match(ago(n)))).length
    expect(res.figures.weekly!.rows).toEqual(weeks.map((w) => [w, activeIn((d) => mondayOf(d) === w)]))
    const months = [...new Set(daily.map((r) => String(r[0]).slice(0, 7)))]
    expect(res.figures.monthly!.rows).toEqual(months.map((m) => [m, activeIn((d) => d.startsWith(m))]))
    const weekRides = (w: string) => Object.entries(rides).reduce((s, [n, k]) => s + (mondayOf(ago(Number(n))) === w ? k : 0), 0)
    expect(res.figures.ridesPerActive!.rows).toEqual(
      weeks.map((w) => [w, activeIn((d) => mondayOf(d) === w) ? Math.round((100 * weekRides(w)) / activeIn((d) => mondayOf(d) === w)) / 100 : null]),
    )
    expect(res.data.refreshedAt).toBeTruthy()
  })

  it('keeps retention cohorts by sign-up week with day 1, 7 and 30 (null until that day has come)', async () => {
    await setUp()
    const res = await dashboard(t, 'engagement', { from: ago(20), to: today, countryId: A }, t.admin)
    const cohorts = res.figures.retention!.rows
    expect(cohorts).toHaveLength(2)
    // m1 and m2 (20 days ago): both rode the next day, m1 on day 7; day 30 is still to come.
    expect(cohorts[0]!.slice(1)).toEqual([2, 100, 50, null])
    // m3 (10 days ago): active on day 1 and day 7.
    expect(cohorts[1]!.slice(1)).toEqual([1, 100, 100, null])
    // Ending the range earlier: day 7 of the older cohort is after `to`.
    const early = await dashboard(t, 'engagement', { from: ago(20), to: ago(15), countryId: A }, t.admin)
    expect(early.figures.retention!.rows).toEqual([[expect.any(String), 2, 100, null, null]])
  })

  it('filters by platform: members with an app event on it that day', async () => {
    await setUp()
    const res = await dashboard(t, 'engagement', { from: ago(20), to: today, countryId: A, platform: 'android' }, t.admin)
    expect(row(res.figures.daily!.rows, ago(5))).toEqual([ago(5), 1, 0, 1])
    expect(row(res.figures.daily!.rows, ago(10))).toEqual([ago(10), 1, 0, 0])
    expect(row(res.figures.daily!.rows, ago(19))).toEqual([ago(19), 0, 0, 0])
    // m1 and m2 used the Android app in the range: active 2, of them m1 in the last 7 days; both new.
    expect(res.figures.summary!.rows[0]!.slice(0, 3)).toEqual([2, 1, 2])
  })

  it('shows a department scoped to one country only that country’s members', async () => {
    await setUp()
    const regional = await f.regional('engregional', [B], ['dashboard:engagement:list'])
    const res = await dashboard(t, 'engagement', { from: ago(20), to: today }, regional.token)
    expect(res.status, res.msg).toBe(200)
    expect(res.figures.summary!.rows[0]!.slice(0, 3)).toEqual([1, 1, 1])
    expect(row(res.figures.daily!.rows, ago(19))).toEqual([ago(19), 1, 0, 1])
    // Another country than its own: nothing.
    const other = await dashboard(t, 'engagement', { from: ago(20), to: today, countryId: A }, regional.token)
    expect(other.figures.summary!.rows[0]!.slice(0, 3)).toEqual([0, 0, 0])
  })

  it('answers requests at the same moment from callers of different countries each with their own figures', async () => {
    await setUp()
    const regional = await f.regional('engshared', [B], ['dashboard:engagement:list'])
    const query = { from: ago(20), to: today }
    // Identical requests at once share one computation; the regional one must not share the admin's.
    const answers = await Promise.all([
      dashboard(t, 'engagement', query, t.admin),
      dashboard(t, 'engagement', query, regional.token),
      dashboard(t, 'engagement', query, t.admin),
      dashboard(t, 'engagement', query, regional.token),
    ])
    const [admin1, regional1, admin2, regional2] = answers.map((a) => a.figures.summary!.rows[0]!.slice(0, 3))
    expect(regional1).toEqual([1, 1, 1])
    expect(regional2).toEqual([1, 1, 1])
    expect(admin1).toEqual(admin2)
    expect(Number(admin1![0])).toBeGreaterThanOrEqual(4)
  })

  it('refuses a role without the right (403), and a reversed or too long range (400) in both languages', async () => {
    const none = await limitedUser(t, { userName: 'engnone', perms: ['dashboard:performance:list'], dataScope: '1' })
    expect((await dashboard(t, 'engagement', {}, none.token)).status).toBe(403)
    const reversed = await dashboard(t, 'engagement', { from: today, to: ago(1) }, t.admin, 'en_US')
    expect(reversed.status).toBe(400)
    const tooLong = await dashboard(t, 'engagement', { from: ago(400), to: today }, t.admin, 'zh_CN')
    expect(tooLong.status).toBe(400)
    const tooLongEn = await dashboard(t, 'engagement', { from: ago(400), to: today }, t.admin, 'en_US')
    expect(tooLong.msg).not.toBe(tooLongEn.msg)
    expect(tooLong.msg).toMatch(/[\u4e00-\u9fff]/)
  })

  it('adds facts written after a refresh to the next answer, once', async () => {
    await setUp()
    const C = await f.country()
    const m = await f.member({ countryId: C, createTime: at(3) })
    await f.ride(m, at(2))
    const first = await dashboard(t, 'engagement', { from: ago(3), to: today, countryId: C }, t.admin)
    expect(first.figures.summary!.rows[0]!.slice(0, 3)).toEqual([1, 1, 1])
    await f.ride(m, at(1))
    await f.event(m, { time: at(1) })
    const again = await dashboard(t, 'engagement', { from: ago(3), to: today, countryId: C }, t.admin)
    expect(row(again.figures.daily!.rows, ago(1))).toEqual([ago(1), 1, 0, 1])
    await Promise.all([f.refresh(), f.refresh()])
    const third = await dashboard(t, 'engagement', { from: ago(3), to: today, countryId: C }, t.admin)
    expect(third.figures.daily).toEqual(again.figures.daily)
  })

  it('downloads the figures as .xlsx: a sheet per figure with the same numbers', async () => {
    await setUp()
    const res = await t.call({ url: `/api/analytics/engagement/export?from=${ago(20)}&to=${today}&countryId=${A}`, token: t.admin })
    expect(res.status).toBe(200)
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load(res.raw as unknown as ArrayBuffer)
    expect(wb.worksheets.map((w) => w.name)).toEqual(['About', 'In this range', 'Daily active members', 'Weekly active members', 'Monthly active members', 'Retention by sign-up week', 'Rides per active member'])
    const summary = wb.getWorksheet('In this range')!
    expect((summary.getRow(2).values as unknown[]).slice(1)).toEqual([3, 2, 3, 12.7, 2.33])
    expect(wb.getWorksheet('Daily active members')!.rowCount).toBe(22)
  })
})
