import { compareVersions, type FigureValue, labelFieldIn, type Language, systemEntities } from '@velo/shared'
import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { DashboardCompute, DashboardContext } from './context'
import { monthOf, monthsOf, num, percent, timeRange } from './measures'
import { countryCondition } from './scope'

// Registered bikes (SPEC §1): bikes bound to a member, by model, country and month, how many of the
// frames sold are registered, the firmware the bikes' parts run and how many devices are online now.
// Tens of thousands of rows at most, changing as members bind bikes and devices come and go: read
// live: bike_bike's (bind_status, bound_time) index serves the registrations of a range, the joins
// go by keys (mem_member, iot_device, bike_model, sys_country), and the frames (one row per frame
// made) are counted whole for the bound share.
//
// A bike's country is its bound member's: an unbound bike has none, so it counts only for callers
// who see every country and have no country filter (countryCondition is then true for it).

/** A device that is connected now: online before or after its owner activated it (deviceState). */
const ONLINE_STATES = ['online', 'activated'] as const
const TOP_COUNTRIES = 15

/** The parts whose firmware the device reports, with the column it keeps each in. */
const PARTS: { column: string; label: Record<Language, string> }[] = [
  { column: 'd.firmwareVersion', label: { en_US: 'IoT module', zh_CN: '物联网模块' } },
  { column: 'd.displayVersion', label: { en_US: 'Display', zh_CN: '仪表' } },
  { column: 'd.bmsVersion', label: { en_US: 'Battery (BMS)', zh_CN: '电池管理系统' } },
  { column: 'd.ecuVersion', label: { en_US: 'Controller (ECU)', zh_CN: '控制器' } },
]
const WORDS = {
  unknown: { en_US: 'Unknown', zh_CN: '未知' },
  other: { en_US: 'Other', zh_CN: '其他' },
} as const

/** The model filter on the bikes (b). */
const model = (ctx: DashboardContext): RawBuilder<SqlBool> => (ctx.query.modelId === undefined ? sql<SqlBool>`1 = 1` : sql<SqlBool>`${sql.ref('b.modelId')} = ${ctx.query.modelId}`)

/** The bikes the caller counts (b: bike_bike, m: its bound member, if any), with the model filter. */
function bikesCounted(ctx: DashboardContext): RawBuilder<SqlBool> {
  return sql<SqlBool>`${countryCondition('m.countryId', ctx.scope, ctx.query.countryId)} and ${model(ctx)}`
}

const BIKES = sql`bike_bike b left join mem_member m on m.member_id = b.member_id`
const BOUND = sql`b.bind_status = 'bound'`

const isOnline = (column: string) => sql`${sql.ref(column)} in (${sql.join([...ONLINE_STATES])})`

export const bikeStatsDashboard: DashboardCompute = async (ctx) => {
  const { db, dialect, lang } = ctx
  const counted = bikesCounted(ctx)
  const { start, end } = timeRange(ctx.query.from, ctx.query.to)
  const inRange = sql`b.bound_time >= ${start} and b.bound_time < ${end}`
  const month = monthOf(dialect, 'b.boundTime')
  // Countries are named in the caller's language, by the definition's label in it (as lists and pickers name them).
  const name = sql.ref(`c.${labelFieldIn(systemEntities.country, lang)}`)

  // Two passes over the bikes counted instead of one statement per figure: each pass reads every
  // bike (and its member, or its device) once, groups by all the keys its figures need, and sums
  // those groups per figure (a materialized CTE). The bikes' rows are wide, so each pass reads
  // bike_bike through an index that holds the columns it needs ((bind_status, model_id, member_id),
  // (iot_device_id, model_id, member_id)) and the member through (member_id, country_id): narrow
  // entries instead of the rows, and on PostgreSQL index-only scans once the tables are vacuumed.
  // The model is grouped on last, or SQLite walks bike_bike by its model index and fetches each row
  // out of order (twice the time of reading it through).
  // The first pass groups the bound bikes only (an unbound one is in none of its figures), by model
  // and country; the month is not a key of it, as SQLite sorts every row it groups by every key and
  // only the bikes bound in the range have one: those the (bind_status, bound_time) index finds apart.
  const needsMember = !ctx.scope.all || ctx.query.countryId !== undefined
  const perBike = sql`
    select b.model_id as model_id, m.country_id as country_id, count(*) as n
    from ${BIKES} where ${BOUND} and ${counted} group by 2, 1`
  const boundInRange = sql`
    select ${month} as month, count(*) as n
    from ${needsMember ? BIKES : sql`bike_bike b`} where ${BOUND} and ${inRange} and ${needsMember ? counted : model(ctx)} group by 1`
  const onlineFlag = sql`case when ${isOnline('d.state')} then 1 else 0 end`
  // SQLite groups by sorting, and a sort on six keys that mostly tie (few models, fewer versions)
  // compares each pair field by field: one text key made of them all sorts in about two thirds of
  // the time. %Q quotes each version (NULL unquoted), so the key tells every combination apart, and
  // the columns, equal within a group, are read from any of its rows. PostgreSQL hashes the keys as they are.
  const deviceKeys =
    dialect === 'sqlite'
      ? sql`printf(${sql.lit(`%d,%d${'%Q'.repeat(PARTS.length)}`)}, ${onlineFlag}, b.model_id, ${sql.join(PARTS.map((p) => sql.ref(p.column)))})`
      : sql.raw(['2', ...PARTS.map((_, i) => String(i + 3)), '1'].join(', '))
  // The member is joined only when the scope or the country filter needs it.
  const perDevice = sql`
    select b.model_id as model_id, ${onlineFlag} as online,
      ${sql.join(PARTS.map((p, i) => sql`${sql.ref(p.column)} as ${sql.raw(`v${i}`)}`))}, count(*) as n
    from ${needsMember ? BIKES : sql`bike_bike b`} join iot_device d on d.device_id = b.iot_device_id
    where ${needsMember ? counted : model(ctx)} group by ${deviceKeys}`
  // Rows of (kind, name, n[, online]), each kind ordered as its figure shows it: by count, then name.
  const [bikeRows, deviceRows, share] = await Promise.all([
    sql<{ kind: string; name: string | null; n: number | string }>`
      with g as (${perBike})
      select 'model' as kind, bm.name as name, sum(g.n) as n from g join bike_model bm on bm.model_id = g.model_id group by bm.model_id, bm.name
      union all select 'country', ${name}, sum(g.n) from g left join sys_country c on c.country_id = g.country_id group by c.country_id, ${name}
      union all select 'month', r.month, r.n from (${boundInRange}) r
      order by 1, 3 desc, 2
    `.execute(db),
    sql<{ kind: string; name: string | null; n: number | string; online: number | string | null }>`
      with g as (${perDevice})
      select 'online' as kind, bm.name as name, sum(g.n) as n, sum(g.online * g.n) as online from g join bike_model bm on bm.model_id = g.model_id group by bm.model_id, bm.name
      union all select 'fitted', null, sum(g.n), sum(g.online * g.n) from g
      ${sql.join(
        PARTS.map((_, i) => {
          const v = sql.ref(`g.v${i}`)
          return sql`union all select ${sql.lit(`v${i}`)}, ${v}, sum(g.n), 0 from g group by ${v}`
        }),
        sql` `,
      )}
      order by 1, 3 desc, 2
    `.execute(db),
    boundShare(ctx),
  ])
  const of = <R extends { kind: string }>(rows: R[], kind: string) => rows.filter((r) => r.kind === kind)

  const countryRows = of(bikeRows.rows, 'country').map((r) => ({ country: r.name, n: r.n }))
  // Every bound bike counted is in one country group (members without one under null).
  const registered = countryRows.reduce((s, r) => s + Number(r.n), 0)
  const months = new Map(of(bikeRows.rows, 'month').map((r) => [r.name, Number(r.n)]))
  const inrange = [...months.values()].reduce((s, n) => s + n, 0)
  const fittedRow = of(deviceRows.rows, 'fitted')[0]
  const fitted = Number(fittedRow?.n ?? 0)
  const online = Number(fittedRow?.online ?? 0)
  const summary: FigureValue[] = [registered, inrange, share, online, percent(online, fitted)]

  const byMonth = monthsOf(ctx.query.from, ctx.query.to).map((m) => [m, months.get(m) ?? 0])

  const byModel = of(bikeRows.rows, 'model').map((r) => [r.name, Number(r.n)])

  // The top countries by name; the rest, and members who gave no country, are summed as Other.
  const named = countryRows.filter((c) => c.country !== null)
  const byCountry: FigureValue[][] = named.slice(0, TOP_COUNTRIES).map((c) => [c.country, Number(c.n)])
  const rest = [...named.slice(TOP_COUNTRIES), ...countryRows.filter((c) => c.country === null)].reduce((s, c) => s + Number(c.n), 0)
  if (rest > 0) byCountry.push([WORDS.other[lang], rest])

  const partRows = PARTS.map((_, i) => of(deviceRows.rows, `v${i}`).map((r) => ({ version: r.name, n: r.n })))
  const onlineRows = of(deviceRows.rows, 'online').map((r) => ({ model: r.name, n: r.n, online: r.online }))

  const unknown = WORDS.unknown[lang]
  const firmware: FigureValue[][] = []
  for (const [i, part] of PARTS.entries()) {
    // A part that never reported (null) or reported nothing ('') runs an unknown version.
    const counts = new Map<string, number>()
    for (const r of partRows[i]!) {
      const v = r.version ? r.version : unknown
      counts.set(v, (counts.get(v) ?? 0) + Number(r.n))
    }
    // Newest version first, unknown last.
    const known = [...counts.keys()].filter((v) => v !== unknown).sort((a, b) => compareVersions(b, a) || a.localeCompare(b))
    for (const v of [...known, ...(counts.has(unknown) ? [unknown] : [])]) firmware.push([part.label[lang], v, counts.get(v)!])
  }

  const onlineByModel = onlineRows.map((r) => [r.model, Number(r.n), Number(r.online ?? 0), percent(Number(r.online ?? 0), Number(r.n))])

  return {
    figures: [
      { key: 'summary', rows: [summary] },
      { key: 'byMonth', rows: byMonth },
      { key: 'byModel', rows: byModel },
      { key: 'byCountry', rows: byCountry },
      { key: 'firmware', rows: firmware },
      { key: 'online', rows: onlineByModel },
    ],
    refreshedAt: null,
  }
}

/**
 * Bound share of sold frames, in percent. A frame is **sold** when a bike order (Orders › Bike
 * orders, regular or repair) has its number and the number is not voided: generated, printed or
 * bound (docs/frame-numbers.md). A voided number was never a frame on the road, and a replaced one
 * is voided while its replacement counts, so a bike counts once. It is **bound** when the bike that
 * carries it (ord_frame_number.bike_id) is registered to a member now. The model filter applies to
 * the order's model. Frames have no country until a member registers them, so the share is only
 * given to callers who see every country and ask for none (null otherwise).
 */
async function boundShare(ctx: DashboardContext): Promise<number | null> {
  if (!ctx.scope.all || ctx.query.countryId !== undefined) return null
  const model = ctx.query.modelId === undefined ? sql`1 = 1` : sql`o.model_id = ${ctx.query.modelId}`
  const [row] = (
    await sql<{ sold: number | string; bound: number | string | null }>`
      select count(*) as sold, count(b.bike_id) as bound
      from ord_frame_number n
      join ord_device_order o on o.order_id = n.order_id
      left join bike_bike b on b.bike_id = n.bike_id and b.bind_status = 'bound'
      where n.status <> 'voided' and ${model}
    `.execute(ctx.db)
  ).rows
  return percent(num(row?.bound) ?? 0, Number(row?.sold ?? 0))
}
