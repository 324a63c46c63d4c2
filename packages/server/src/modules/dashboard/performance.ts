import { compareVersions, type FigureData, type FigureMark, type FigureValue } from '@velo/shared'
import { sql, type RawBuilder } from 'kysely'
import { cachedRollupDashboard } from './answer-cache'
import type { DashboardCompute, DashboardContext } from './context'
import { daysOf, percent } from './engagement'
import { bucketTop } from './rollups'
import { countryCondition } from './scope'

// App performance (docs/dashboards.md › App performance), from the rollups of tracking events and
// crash uploads: sessions are app.launch events, a crashed session an app.crash event; a member is
// crash-free over a period when they had a session in it and neither a crashed session nor a crash
// report. Cold-start percentiles come from the histogram, exact to the bucket's width.

type Row = Record<string, unknown>
const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v))
const PLATFORM_NAMES: Record<string, string> = { ios: 'iOS', android: 'Android' }

/** Rows of a rollup (alias `t`) in the range, the caller's countries and the filters. */
function filtered(ctx: DashboardContext): RawBuilder<unknown> {
  const platform = ctx.query.platform
  return sql`t.day >= ${ctx.query.from} and t.day <= ${ctx.query.to} and ${countryCondition('t.country_id', ctx.scope, ctx.query.countryId)}${platform ? sql` and t.platform = ${platform}` : sql``}`
}

/** Crash-free sessions: a crash sent without its launch in the range cannot take the share below 0. */
const crashFree = (sessions: number, crashed: number) => percent(sessions - Math.min(crashed, sessions), sessions)

type Percentiles = [number | null, number | null, number | null]

/**
 * p50/p90/p99 of a cold-start histogram (bucket → count): the first bucket whose running count
 * reaches the share of the total, reported as its upper bound. Histograms add up, so the database
 * answers the counts per bucket and group, and the groups' totals are merged here.
 */
export function percentilesOf(hist: Map<number, number>): Percentiles {
  const buckets = [...hist.keys()].sort((a, b) => a - b)
  const total = buckets.reduce((s, b) => s + hist.get(b)!, 0)
  if (total === 0) return [null, null, null]
  return [0.5, 0.9, 0.99].map((share) => {
    let running = 0
    for (const b of buckets) {
      running += hist.get(b)!
      if (running >= share * total) return bucketTop(b)
    }
    return bucketTop(buckets[buckets.length - 1]!)
  }) as Percentiles
}

/** Cold-start counts per group (k: an expression of `t`) and bucket, as histograms by group. */
async function histograms(ctx: DashboardContext, k: RawBuilder<unknown>): Promise<Map<string, Map<number, number>>> {
  const res = await sql<Row>`select ${k} as k, t.bucket as b, sum(t.n) as n from dash_start_hist t where ${filtered(ctx)} group by 1, 2`.execute(ctx.db)
  const out = new Map<string, Map<number, number>>()
  for (const r of res.rows) {
    const key = String(r.k)
    if (!out.has(key)) out.set(key, new Map())
    out.get(key)!.set(Number(r.b), num(r.n))
  }
  return out
}

/** The releases (any country: a version is released everywhere at once), as the figures read them. */
const releasesOf = async (ctx: DashboardContext) =>
  (await sql<Row>`select platform, version_code as v, release_time as t from cnt_app_version${ctx.query.platform ? sql` where platform = ${ctx.query.platform}` : sql``}`.execute(ctx.db)).rows

/** The figures from the rollups as they are (the caller has refreshed them). */
export async function performanceFigures(ctx: DashboardContext): Promise<FigureData[]> {
  const { db, query } = ctx
  const rows = async (q: RawBuilder<unknown>) => (await q.execute(db)).rows as Row[]

  // Per member and day first: a member's sessions and crashes of a day, then per day.
  const perDayQuery = rows(sql`select x.day as d, sum(x.s) as sessions, sum(x.cs) as crashed, sum(case when x.s > 0 then 1 else 0 end) as members,
        sum(case when x.s > 0 and x.c > 0 then 1 else 0 end) as crashedmembers
      from (select t.day, t.member_id, sum(t.sessions) as s, sum(t.crashed_sessions) as cs, sum(t.crashed_sessions + t.crash_reports) as c
            from dash_app_day t where ${filtered(ctx)} group by t.day, t.member_id) x
      group by x.day`)
  const overallQuery = rows(sql`select sum(case when x.s > 0 then 1 else 0 end) as members, sum(case when x.s > 0 and x.c > 0 then 1 else 0 end) as crashedmembers
      from (select t.member_id, sum(t.sessions) as s, sum(t.crashed_sessions + t.crash_reports) as c from dash_app_day t where ${filtered(ctx)} group by t.member_id) x`)
  const perVersionQuery = rows(sql`select x.v, x.p, sum(x.s) as sessions, sum(x.cs) as crashed, sum(x.r) as reports, sum(case when x.s > 0 then 1 else 0 end) as members,
        sum(case when x.s > 0 and x.c > 0 then 1 else 0 end) as crashedmembers
      from (select t.app_version as v, t.platform as p, t.member_id, sum(t.sessions) as s, sum(t.crashed_sessions) as cs, sum(t.crash_reports) as r,
              sum(t.crashed_sessions + t.crash_reports) as c
            from dash_app_day t where ${filtered(ctx)} group by t.app_version, t.platform, t.member_id) x
      group by x.v, x.p`)
  // Independent statements: PostgreSQL runs them on several pool connections, SQLite on its readers.
  const [perDay, [overall], perVersion, dayHist, versionHist, releaseRows] = await Promise.all([
    perDayQuery,
    overallQuery,
    perVersionQuery,
    histograms(ctx, sql`t.day`),
    histograms(ctx, sql`t.app_version || '|' || t.platform`),
    releasesOf(ctx),
  ])
  const all = new Map<number, number>()
  for (const h of versionHist.values()) for (const [b, n] of h) all.set(b, (all.get(b) ?? 0) + n)

  // Releases (any country: a version is released everywhere at once): the byVersion column and the marks.
  const releases = releaseRows.map(
    (r) => ({ platform: String(r.platform), version: String(r.v), day: new Date(String(r.t)).toISOString().slice(0, 10) }),
  )
  const released = new Map(releases.map((r) => [`${r.version}|${r.platform}`, r.day]))
  const marks: FigureMark[] = releases
    .filter((r) => r.day >= query.from && r.day <= query.to)
    .sort((a, b) => a.day.localeCompare(b.day) || a.platform.localeCompare(b.platform))
    .map((r) => ({ at: r.day, label: `${PLATFORM_NAMES[r.platform] ?? r.platform} ${r.version}` }))

  const days = daysOf(query.from, query.to)
  const byDay = new Map(perDay.map((r) => [String(r.d), r]))
  const sessions = perDay.reduce((s, r) => s + num(r.sessions), 0)
  const crashed = perDay.reduce((s, r) => s + num(r.crashed), 0)
  const [p50, p90] = percentilesOf(all)

  const versionRows: FigureValue[][] = perVersion
    .map((r) => ({ r, v: String(r.v), p: String(r.p) }))
    .sort((a, b) => compareVersions(b.v, a.v) || a.p.localeCompare(b.p))
    .map(({ r, v, p }) => {
      const start = percentilesOf(versionHist.get(`${v}|${p}`) ?? new Map())
      const members = num(r.members)
      return [
        v || null,
        p,
        released.get(`${v}|${p}`) ?? null,
        num(r.sessions),
        crashFree(num(r.sessions), num(r.crashed)),
        members > 0 ? percent(members - num(r.crashedmembers), members) : null,
        num(r.reports),
        ...start,
      ]
    })

  return [
    {
      key: 'summary',
      rows: [[sessions, crashFree(sessions, crashed), num(overall?.members) > 0 ? percent(num(overall?.members) - num(overall?.crashedmembers), num(overall?.members)) : null, p50 ?? null, p90 ?? null]],
    },
    {
      key: 'crashFree',
      rows: days.map((d) => {
        const r = byDay.get(d)
        const members = num(r?.members)
        return [d, crashFree(num(r?.sessions), num(r?.crashed)), members > 0 ? percent(members - num(r?.crashedmembers), members) : null]
      }),
      marks,
    },
    { key: 'startTime', rows: days.map((d) => [d, ...percentilesOf(dayHist.get(d) ?? new Map())]), marks },
    { key: 'byVersion', rows: versionRows },
  ]
}

// The releases are read live beside the rollups: the kept answer holds while they are the same.
export const performanceDashboard: DashboardCompute = cachedRollupDashboard(performanceFigures, releasesOf)
