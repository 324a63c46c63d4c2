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

/**
 * Median and p90 hours from feedback to reply, per week and once over the range (group 'all'): one
 * pass over the replied feedback, ranked within each week and within the whole.
 */
async function responseHours(ctx: DashboardContext) {
  const { rows } = await sql<{ g: string; n: number | string; p50: number | string | null; p90: number | string | null }>`
    with replied as (
      select ${weekOf(ctx.dialect, 'f.createTime')} as w, ${hoursBetween(ctx.dialect, 'f.createTime', 'f.replyTime')} as h
      from ${FROM}
      where ${feedbackOfRange(ctx)} and f.replied = true and f.reply_time is not null
    ),
    grouped as (select w as g, h from replied union all select 'all', h from replied),
    ranked as (
      select g, h, row_number() over (partition by g order by h) as rn, count(*) over (partition by g) as n from grouped
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

  // Three statements, sent together (PostgreSQL answers them on several connections): the counts by
  // week, stars and answered, which the summary, the stars and the weekly trend are sums of (a few
  // hundred groups at most); the top tags; the hours to a reply. Each reads the range's feedback and
  // its members once, which on PostgreSQL is most of a statement's time.
  const [countRows, tagRows, hours] = await Promise.all([
    sql<{ week: string; stars: number | string | null; open: number | string; n: number | string }>`
      select ${week} as week, f.stars as stars, case when f.replied then 0 else 1 end as open, count(*) as n
      from ${FROM} where ${where} group by 1, 2, 3
    `.execute(db),
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
    responseHours(ctx),
  ])

  let count = 0
  let good = 0
  let starSum = 0
  let open = 0
  const byStars = new Map<number, number>()
  const weekly = new Map<string, { n: number; good: number; open: number }>()
  for (const r of countRows.rows) {
    const n = Number(r.n)
    const stars = r.stars === null ? null : Number(r.stars)
    const satisfied = stars !== null && stars >= SATISFIED ? n : 0
    const unanswered = Number(r.open) ? n : 0
    count += n
    good += satisfied
    starSum += (stars ?? 0) * n
    open += unanswered
    if (stars !== null) byStars.set(stars, (byStars.get(stars) ?? 0) + n)
    const w = weekly.get(r.week) ?? { n: 0, good: 0, open: 0 }
    weekly.set(r.week, { n: w.n + n, good: w.good + satisfied, open: w.open + unanswered })
  }
  const overall = hours.get('all')
  const summary: FigureValue[] = [
    count,
    percent(good, count),
    count ? round(starSum / count, 2) : null,
    // The card opens the feedback list filtered on Replied = no: counted only for who may open it.
    mayList ? open : null,
    overall?.p50 == null ? null : round(overall.p50, 2),
  ]

  const stars = [1, 2, 3, 4, 5].map((s) => [String(s), byStars.get(s) ?? 0])

  const tags = tagRows.rows.map((r) => [r.tag, Number(r.n), percent(Number(r.good), Number(r.n))])

  const weeks = weeksOf(ctx.query.from, ctx.query.to)
  const csatTrend = weeks.map((w) => {
    const r = weekly.get(w)
    const n = r?.n ?? 0
    return [w, percent(r?.good ?? 0, n), n, r?.open ?? 0]
  })

  const responseTime = weeks.map((w) => {
    const r = hours.get(w)
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
