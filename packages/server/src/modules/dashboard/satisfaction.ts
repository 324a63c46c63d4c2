import type { FigureValue } from '@velo/shared'
import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { DashboardCompute, DashboardContext } from './context'
import { hoursBetween, num, percent, percentileSql, round, timeRange, weekOf, weeksOf } from './measures'
import { countryCondition } from './scope'

// Satisfaction (SPEC §1): stars, CSAT, tags, unanswered feedback and the time staff take to reply,
// for the feedback submitted in the range by members of the caller's countries. Feedback is small
// (thousands of rows) and changes as staff reply, so every figure is read live: the range is served
// by mem_feedback (create_time), the unanswered count by (replied, create_time), a member's country
// by mem_member's key, the tags by mem_feedback_tag_link's (tag, feedback) key.

/** CSAT: the share of feedback with 4 or 5 stars. */
const SATISFIED = 4
const TOP_TAGS = 10

/** The feedback of the range in the caller's countries (f: mem_feedback, m: its member). */
function feedbackOfRange(ctx: DashboardContext): RawBuilder<SqlBool> {
  const { start, end } = timeRange(ctx.query.from, ctx.query.to)
  return sql<SqlBool>`${sql.ref('f.createTime')} >= ${start} and ${sql.ref('f.createTime')} < ${end} and ${countryCondition('m.countryId', ctx.scope, ctx.query.countryId)}`
}

const FROM = sql`mem_feedback f join mem_member m on m.member_id = f.member_id`

/** Median and p90 hours from feedback to reply, per week (or once over the range: `week` null). */
async function responseHours(ctx: DashboardContext, byWeek: boolean) {
  const group = byWeek ? weekOf(ctx.dialect, 'f.createTime') : sql`'all'`
  const { rows } = await sql<{ g: string; n: number | string; p50: number | string | null; p90: number | string | null }>`
    with replied as (
      select ${group} as g, ${hoursBetween(ctx.dialect, 'f.createTime', 'f.replyTime')} as h
      from ${FROM}
      where ${feedbackOfRange(ctx)} and f.replied = true and f.reply_time is not null
    ),
    ranked as (
      select g, h, row_number() over (partition by g order by h) as rn, count(*) over (partition by g) as n from replied
    )
    select g, max(n) as n, ${percentileSql(0.5)} as p50, ${percentileSql(0.9)} as p90 from ranked group by g
  `.execute(ctx.db)
  return new Map(rows.map((r) => [r.g, { replied: Number(r.n), p50: num(r.p50), p90: num(r.p90) }]))
}

export const satisfactionDashboard: DashboardCompute = async (ctx) => {
  const { db, dialect } = ctx
  const where = feedbackOfRange(ctx)
  const mayList = ctx.may('member:feedback:list')
  const week = weekOf(dialect, 'f.createTime')

  // Independent statements, sent together (PostgreSQL answers them on several connections).
  const [totalRows, overallHours, starRows, tagRows, weekRows, weekHours] = await Promise.all([
    sql<{ n: number | string; good: number | string | null; stars: number | string | null; open: number | string | null }>`
      select count(*) as n, sum(case when f.stars >= ${SATISFIED} then 1 else 0 end) as good, sum(f.stars) as stars,
        sum(case when f.replied then 0 else 1 end) as open
      from ${FROM} where ${where}
    `.execute(db),
    responseHours(ctx, false),
    sql<{ stars: number | string; n: number | string }>`select f.stars as stars, count(*) as n from ${FROM} where ${where} group by f.stars`.execute(db),
    // Ties in count go by name, so the ten shown do not change from one request to the next.
    sql<{ tag: string; n: number | string; good: number | string }>`
      select t.name as tag, count(*) as n, sum(case when f.stars >= ${SATISFIED} then 1 else 0 end) as good
      from ${FROM}
      join mem_feedback_tag_link l on l.feedback_id = f.feedback_id
      join mem_feedback_tag t on t.tag_id = l.tag_id
      where ${where}
      group by t.tag_id, t.name
      order by count(*) desc, t.name
      limit ${TOP_TAGS}
    `.execute(db),
    sql<{ week: string; n: number | string; good: number | string; open: number | string }>`
      select ${week} as week, count(*) as n, sum(case when f.stars >= ${SATISFIED} then 1 else 0 end) as good,
        sum(case when f.replied then 0 else 1 end) as open
      from ${FROM} where ${where} group by ${week}
    `.execute(db),
    responseHours(ctx, true),
  ])

  const totals = totalRows.rows[0]
  const count = Number(totals?.n ?? 0)
  const overall = overallHours.get('all')
  const summary: FigureValue[] = [
    count,
    percent(Number(totals?.good ?? 0), count),
    count ? round(Number(totals?.stars ?? 0) / count, 2) : null,
    // The card opens the feedback list filtered on Replied = no: counted only for who may open it.
    mayList ? Number(totals?.open ?? 0) : null,
    overall?.p50 == null ? null : round(overall.p50, 2),
  ]

  const byStars = new Map(starRows.rows.map((r) => [Number(r.stars), Number(r.n)]))
  const stars = [1, 2, 3, 4, 5].map((s) => [String(s), byStars.get(s) ?? 0])

  const tags = tagRows.rows.map((r) => [r.tag, Number(r.n), percent(Number(r.good), Number(r.n))])

  const weekly = new Map(weekRows.rows.map((r) => [r.week, r]))
  const weeks = weeksOf(ctx.query.from, ctx.query.to)
  const csatTrend = weeks.map((w) => {
    const r = weekly.get(w)
    const n = Number(r?.n ?? 0)
    return [w, percent(Number(r?.good ?? 0), n), n, Number(r?.open ?? 0)]
  })

  const responseTime = weeks.map((w) => {
    const r = weekHours.get(w)
    return [w, r?.p50 == null ? null : round(r.p50, 2), r?.p90 == null ? null : round(r.p90, 2), r?.replied ?? 0]
  })

  return {
    figures: [
      { key: 'summary', rows: [summary] },
      { key: 'stars', rows: stars },
      { key: 'tags', rows: tags },
      { key: 'csatTrend', rows: csatTrend },
      { key: 'responseTime', rows: responseTime },
    ],
    refreshedAt: null,
  }
}
