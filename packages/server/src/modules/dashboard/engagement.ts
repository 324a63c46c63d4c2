import type { FigureData, FigureValue } from '@velo/shared'
import { sql, type RawBuilder } from 'kysely'
import { cachedRollupDashboard } from './answer-cache'
import type { DashboardCompute, DashboardContext } from './context'
import { addDays, dayOf, startOf } from './query'
import { dayOfSql, plusDaysSql, weekOfSql } from './rollups'
import { countryCondition } from './scope'

// User engagement (docs/dashboards.md › Engagement): a member is active on a UTC day with a ride or an
// app event (a row of dash_member_day). Sign-ups (new members, cohorts) are read live from
// mem_member by its create_time index.

type Row = Record<string, unknown>
const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v))
/** Percent values are 0–100, to one decimal; ratios to two. */
export const percent = (part: number, whole: number): number | null => (whole > 0 ? Math.round((1000 * part) / whole) / 10 : null)
export const ratio = (a: number, b: number): number | null => (b > 0 ? Math.round((100 * a) / b) / 100 : null)

/** Every day from `from` to `to`. */
export function daysOf(from: string, to: string): string[] {
  const out: string[] = []
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d)
  return out
}

/** The Monday of a day's ISO week, as weekOfSql answers it. */
export const mondayOf = (day: string): string => addDays(day, -((startOf(day).getUTCDay() + 6) % 7))

/**
 * The active member-days of the query in [from, to] (columns day, member_id), in the caller's
 * countries and the country filter: every member-day, or with the platform filter, the member-days
 * with an app event on that platform (read from dash_app_day, the smaller table; a member-day may
 * appear once per app version there).
 */
function activeDays(ctx: DashboardContext, from: string, to: string): RawBuilder<unknown> {
  const platform = ctx.query.platform
  return platform
    ? sql`select a.day, a.member_id from dash_app_day a where a.day >= ${from} and a.day <= ${to} and a.platform = ${platform} and a.events > 0
        and ${countryCondition('a.country_id', ctx.scope, ctx.query.countryId)}`
    : sql`select md.day, md.member_id from dash_member_day md where md.day >= ${from} and md.day <= ${to} and ${countryCondition('md.country_id', ctx.scope, ctx.query.countryId)}`
}

/** Members signed up in [from, to] in the caller's countries (and with the platform filter, who used the app on it in the range). */
function signUps(ctx: DashboardContext, from: string, to: string): RawBuilder<unknown> {
  const platform = ctx.query.platform
  return sql`m.create_time >= ${startOf(from).toISOString()} and m.create_time < ${startOf(addDays(to, 1)).toISOString()} and ${countryCondition('m.country_id', ctx.scope, ctx.query.countryId)}${
    platform ? sql` and exists (select 1 from dash_app_day a where a.member_id = m.member_id and a.platform = ${platform} and a.events > 0 and a.day >= ${from} and a.day <= ${to})` : sql``
  }`
}

/** Active on a day (expression) as the query counts it: any activity, or an app event on the platform filtered. */
function activeOn(ctx: DashboardContext, member: RawBuilder<unknown>, day: RawBuilder<unknown>): RawBuilder<unknown> {
  const platform = ctx.query.platform
  return platform
    ? sql`exists (select 1 from dash_app_day a where a.member_id = ${member} and a.day = ${day} and a.platform = ${platform} and a.events > 0)`
    : sql`exists (select 1 from dash_member_day r where r.member_id = ${member} and r.day = ${day})`
}

/** The figures from the rollups as they are (the caller has refreshed them). */
export async function engagementFigures(ctx: DashboardContext): Promise<FigureData[]> {
  const { db, dialect, query } = ctx
  const { from, to } = query
  const rows = async (q: RawBuilder<unknown>) => (await q.execute(db)).rows as Row[]

  // From the Monday of the first week: the first week's rides per active member counts its whole week.
  // Without a platform filter, from the per-day and country counts; with one, per member and day.
  const dailyQuery = query.platform
    ? rows(sql`select x.day as d, count(*) as dau, sum(md.rides) as rides from (select distinct y.day, y.member_id from (${activeDays(ctx, mondayOf(from), to)}) y) x
        join dash_member_day md on md.day = x.day and md.member_id = x.member_id group by x.day`)
    : rows(sql`select d.day as d, sum(d.dau) as dau, sum(d.rides) as rides from dash_day d
        where d.day >= ${mondayOf(from)} and d.day <= ${to} and ${countryCondition('d.country_id', ctx.scope, query.countryId)} group by d.day`)
  const joinedQuery = rows(sql`select ${dayOfSql(dialect, 'm.create_time')} as d, count(*) as n from mem_member m where ${signUps(ctx, from, to)} group by 1`)
  // Weeks and months: whole ISO weeks (by their Monday) and months overlapping the range, from the
  // members marked active in them (dash_member_period).
  const periods = (kind: 'w' | 'm', lo: string, hi: string) =>
    rows(sql`select p.period as p, count(*) as n from dash_member_period p where p.kind = ${kind} and p.period >= ${lo} and p.period <= ${hi}
        and p.platform = ${query.platform ?? ''} and ${countryCondition('p.country_id', ctx.scope, query.countryId)} group by p.period`)
  const weeklyQuery = periods('w', mondayOf(from), to)
  const monthlyQuery = periods('m', from.slice(0, 7), to.slice(0, 7))
  // Distinct active members in one pass: the range, the 7 days ending `to` (wau) and, for stickiness
  // (DAU / MAU of the range's last 30 days, all of it when shorter), those 30 days.
  const monthFrom = [from, addDays(to, -29)].sort()[1]!
  const weekFrom = addDays(to, -6)
  // Every day read is at most `to`, so a member is active since a day when their last day read is on
  // or after it: one group-by per member instead of three distinct counts (each its own sort).
  const distinctQuery = rows(sql`select sum(case when x.last >= ${from} then 1 else 0 end) as active,
      sum(case when x.last >= ${weekFrom} then 1 else 0 end) as wau, sum(case when x.last >= ${monthFrom} then 1 else 0 end) as mau
      from (select md.member_id, max(md.day) as last from (${activeDays(ctx, [from, weekFrom].sort()[0]!, to)}) md group by md.member_id) x`)

  // Retention: the sign-up weeks in the range (the last 12); day N of a member counts once it is past
  // (on or before `to` and today), and the cohort's share is over the members whose day N is past.
  const limit = [to, dayOf(ctx.now)].sort()[0]!
  const sd = sql`c.sd`
  const cell = (n: number) => {
    const dayN = plusDaysSql(dialect, sd, n)
    return sql`sum(case when ${dayN} <= ${limit} then 1 else 0 end) as ${sql.raw(`e${n}`)}, sum(case when ${dayN} <= ${limit} and ${activeOn(ctx, sql`c.member_id`, dayN)} then 1 else 0 end) as ${sql.raw(`a${n}`)}`
  }
  const cohortsQuery = rows(sql`with c as (select m.member_id, ${dayOfSql(dialect, 'm.create_time')} as sd from mem_member m where ${signUps(ctx, from, to)})
      select ${weekOfSql(dialect, sd)} as w, count(*) as cohort, ${cell(1)}, ${cell(7)}, ${cell(30)}
      from c group by 1 order by 1 desc limit 12`)

  // Independent statements: PostgreSQL runs them on several pool connections, SQLite on its readers.
  const [daily, joined, weekly, monthly, [distinct], cohorts] = await Promise.all([dailyQuery, joinedQuery, weeklyQuery, monthlyQuery, distinctQuery, cohortsQuery])
  const byDay = new Map(daily.map((r) => [String(r.d), r]))
  const joinedByDay = new Map(joined.map((r) => [String(r.d), num(r.n)]))
  const days = daysOf(from, to)
  const dailyRows: FigureValue[][] = days.map((d) => [d, num(byDay.get(d)?.dau), joinedByDay.get(d) ?? 0, num(byDay.get(d)?.rides)])

  const weeks = [...new Set(days.map(mondayOf))]
  const byWeek = new Map(weekly.map((r) => [String(r.p), num(r.n)]))
  const ridesByWeek = new Map<string, number>()
  for (const r of daily) ridesByWeek.set(mondayOf(String(r.d)), (ridesByWeek.get(mondayOf(String(r.d))) ?? 0) + num(r.rides))
  const months = [...new Set(days.map((d) => d.slice(0, 7)))]
  const byMonth = new Map(monthly.map((r) => [String(r.p), num(r.n)]))
  const active = num(distinct?.active)
  const rides = dailyRows.reduce((s, r) => s + Number(r[3]), 0)
  const monthDays = dailyRows.filter((r) => String(r[0]) >= monthFrom)
  const averageDau = monthDays.reduce((s, r) => s + Number(r[1]), 0) / monthDays.length

  return [
    {
      key: 'summary',
      rows: [[active, num(distinct?.wau), [...joinedByDay.values()].reduce((s, n) => s + n, 0), percent(averageDau, num(distinct?.mau)), ratio(rides, active)]],
    },
    { key: 'daily', rows: dailyRows },
    { key: 'weekly', rows: weeks.map((w) => [w, byWeek.get(w) ?? 0]) },
    { key: 'monthly', rows: months.map((m) => [m, byMonth.get(m) ?? 0]) },
    {
      key: 'retention',
      rows: cohorts
        .reverse()
        .map((r) => [String(r.w), num(r.cohort), ...[1, 7, 30].map((n) => (num(r[`e${n}`]) > 0 ? percent(num(r[`a${n}`]), num(r[`e${n}`])) : null))]),
    },
    { key: 'ridesPerActive', rows: weeks.map((w) => [w, ratio(ridesByWeek.get(w) ?? 0, byWeek.get(w) ?? 0)]) },
  ]
}

/**
 * Sign-ups (new members, cohorts) are read live from mem_member: a member added or removed changes
 * its count, highest id or latest create time, and the kept answer is computed again.
 */
const signUpVersion = async (ctx: DashboardContext) =>
  (await sql`select count(*) as n, max(member_id) as id, max(create_time) as t from mem_member`.execute(ctx.db)).rows[0]

export const engagementDashboard: DashboardCompute = cachedRollupDashboard(engagementFigures, signUpVersion)
