import { describe, expect, it } from 'vitest'
import ExcelJS from 'exceljs'
import { ago, at, dashboard, fixtures, today } from './dashboard-fixtures'
import { limitedUser, useTestApp } from './harness'

// App performance over a hand-made data set: six sessions of three members of one country on three
// app versions, one crashed session, one crash report, cold starts in known buckets, two releases.
const t = useTestApp()
const f = fixtures(t)

let P = 0
let Q = 0
const setUp = (() => {
  let done: Promise<void> | null = null
  return () =>
    (done ??= (async () => {
      P = await f.country()
      Q = await f.country()
      const p1 = await f.member({ countryId: P, createTime: at(30) })
      const p2 = await f.member({ countryId: P, createTime: at(30) })
      const p3 = await f.member({ countryId: P, createTime: at(30) })
      const q1 = await f.member({ countryId: Q, createTime: at(30) })
      const launch = (m: number, sessionId: string, value: number, o: { platform?: 'ios' | 'android'; appVersion?: string; day?: number } = {}) =>
        f.event(m, { code: 'app.launch', sessionId, value, time: at(o.day ?? 4), platform: o.platform ?? 'ios', appVersion: o.appVersion ?? '7.10.0' })
      await launch(p1, 's1', 800)
      await launch(p1, 's2', 1220)
      await f.event(p1, { code: 'app.crash', sessionId: 's1', time: at(4, 11), platform: 'ios', appVersion: '7.10.0' })
      await launch(p2, 's3', 900)
      await launch(p2, 's4', 3000, { appVersion: '7.2.0' })
      await launch(p3, 's5', 450, { platform: 'android' })
      await f.upload(p3, { time: at(4), platform: 'android', appVersion: '7.10.0' })
      await f.upload(p3, { time: at(4), platform: 'android', appVersion: '7.10.0', logType: 'log' })
      await launch(p1, 's6', 810, { day: 3 })
      // Neither a member nor a country: counted under the "all" scope only.
      await f.upload(null, { time: at(4), platform: 'android', appVersion: '7.10.0' })
      await launch(q1, 'q1', 1000)
      const version = (platform: string, versionCode: string, day: number) =>
        f
          .db()
          .insertInto('cntAppVersion')
          .values({ platform, versionCode, versionType: 'normal', downloadUrl: 'https://example.com/app', updateInterval: 24, releaseTime: at(day), createBy: 'test', createTime: at(day) })
          .execute()
      await version('android', '7.10.0', 4)
      await version('ios', '7.10.0', 10)
      await f.refresh()
    })())
})()

describe('performance dashboard', () => {
  it('answers crash-free sessions and members and cold-start percentiles to their bucket', async () => {
    await setUp()
    const res = await dashboard(t, 'performance', { from: ago(5), to: today, countryId: P }, t.admin)
    expect(res.status, res.msg).toBe(200)
    // 6 sessions, 1 crashed: 83.3 %; members p1 (crash) and p3 (report) of 3 crashed: 33.3 %;
    // starts 450 800 810 900 1220 3000: p50 in [800, 850), p90 in [3000, 3100).
    expect(res.figures.summary!.rows).toEqual([[6, 83.3, 33.3, 850, 3100]])
    const crashFree = res.figures.crashFree!.rows
    expect(crashFree).toHaveLength(6)
    expect(crashFree.find((r) => r[0] === ago(4))).toEqual([ago(4), 80, 33.3])
    expect(crashFree.find((r) => r[0] === ago(3))).toEqual([ago(3), 100, 100])
    expect(crashFree.find((r) => r[0] === ago(2))).toEqual([ago(2), null, null])
    const start = res.figures.startTime!.rows
    expect(start.find((r) => r[0] === ago(4))).toEqual([ago(4), 950, 3100, 3100])
    expect(start.find((r) => r[0] === ago(3))).toEqual([ago(3), 850, 850, 850])
  })

  it('lists versions newest first (as numbers), with their release day, and marks releases in the range', async () => {
    await setUp()
    const res = await dashboard(t, 'performance', { from: ago(5), to: today, countryId: P }, t.admin)
    expect(res.figures.byVersion!.rows).toEqual([
      ['7.10.0', 'android', ago(4), 1, 100, 0, 1, 500, 500, 500],
      ['7.10.0', 'ios', ago(10), 4, 75, 50, 0, 850, 1250, 1250],
      ['7.2.0', 'ios', null, 1, 100, 100, 0, 3100, 3100, 3100],
    ])
    expect(res.figures.crashFree!.marks).toEqual([{ at: ago(4), label: 'Android 7.10.0' }])
    expect(res.figures.startTime!.marks).toEqual([{ at: ago(4), label: 'Android 7.10.0' }])
    const wider = await dashboard(t, 'performance', { from: ago(12), to: today, countryId: P }, t.admin)
    expect(wider.figures.crashFree!.marks).toEqual([
      { at: ago(10), label: 'iOS 7.10.0' },
      { at: ago(4), label: 'Android 7.10.0' },
    ])
  })

  it('filters by platform', async () => {
    await setUp()
    const res = await dashboard(t, 'performance', { from: ago(5), to: today, countryId: P, platform: 'ios' }, t.admin)
    // iOS: s1 s2 s3 s4 s6, s1 crashed; members p1 (crashed) and p2.
    expect(res.figures.summary!.rows[0]!.slice(0, 3)).toEqual([5, 80, 50])
    expect(res.figures.byVersion!.rows.map((r) => r.slice(0, 2))).toEqual([
      ['7.10.0', 'ios'],
      ['7.2.0', 'ios'],
    ])
    expect(res.figures.crashFree!.marks).toEqual([])
  })

  it('counts a crash report without a member only for a caller who sees every country', async () => {
    await setUp()
    const all = await dashboard(t, 'performance', { from: ago(5), to: today }, t.admin)
    expect(all.figures.byVersion!.rows.find((r) => r[0] === '7.10.0' && r[1] === 'android')![6]).toBe(2)
    const regional = await f.regional('perfregional', [Q], ['dashboard:performance:list'])
    const mine = await dashboard(t, 'performance', { from: ago(5), to: today }, regional.token)
    expect(mine.status, mine.msg).toBe(200)
    expect(mine.figures.summary!.rows).toEqual([[1, 100, 100, 1050, 1050]])
    expect(mine.figures.byVersion!.rows).toEqual([['7.10.0', 'ios', ago(10), 1, 100, 100, 0, 1050, 1050, 1050]])
  })

  it('answers empty figures (nulls) for a range without data', async () => {
    await setUp()
    const empty = await f.country()
    const res = await dashboard(t, 'performance', { from: ago(5), to: today, countryId: empty }, t.admin)
    expect(res.figures.summary!.rows).toEqual([[0, null, null, null, null]])
    expect(res.figures.byVersion!.rows).toEqual([])
    expect(res.figures.startTime!.rows.every((r) => r.slice(1).every((v) => v === null))).toBe(true)
  })

  it('needs dashboard:performance:list (403) and :export for the download', async () => {
    await setUp()
    const reader = await limitedUser(t, { userName: 'perfreader', perms: ['dashboard:performance:list'], dataScope: '1' })
    expect((await dashboard(t, 'performance', {}, reader.token)).status).toBe(200)
    expect((await t.call({ url: '/api/analytics/performance/export', token: reader.token })).status).toBe(403)
    const none = await limitedUser(t, { userName: 'perfnone', perms: ['dashboard:engagement:list'], dataScope: '1' })
    expect((await dashboard(t, 'performance', {}, none.token)).status).toBe(403)

    const res = await t.call({ url: `/api/analytics/performance/export?from=${ago(5)}&to=${today}&countryId=${P}`, token: t.admin, lang: 'zh_CN' })
    expect(res.status).toBe(200)
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load(res.raw as unknown as ArrayBuffer)
    expect(wb.worksheets).toHaveLength(5)
    const versions = wb.worksheets[4]!
    expect((versions.getRow(1).values as unknown[]).slice(1, 3)).toEqual(['App 版本', '平台'])
    expect((versions.getRow(3).values as unknown[]).slice(1)).toEqual(['7.10.0', 'ios', ago(10), 4, 75, 50, 0, 850, 1250, 1250])
  })
})
