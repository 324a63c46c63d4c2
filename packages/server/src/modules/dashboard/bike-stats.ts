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

/** The bikes the caller counts (b: bike_bike, m: its bound member, if any), with the model filter. */
function bikesCounted(ctx: DashboardContext): RawBuilder<SqlBool> {
  const model = ctx.query.modelId === undefined ? sql`1 = 1` : sql`${sql.ref('b.modelId')} = ${ctx.query.modelId}`
  return sql<SqlBool>`${countryCondition('m.countryId', ctx.scope, ctx.query.countryId)} and ${model}`
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

  // Independent statements, sent together (PostgreSQL answers them on several connections).
  const [bikeRows, share, monthRows, modelRows, countryRows, partRows, onlineRows] = await Promise.all([
    sql<{ registered: number | string | null; inrange: number | string | null; fitted: number | string | null; online: number | string | null }>`
      select sum(case when ${BOUND} then 1 else 0 end) as registered,
        sum(case when ${BOUND} and ${inRange} then 1 else 0 end) as inrange,
        count(d.device_id) as fitted,
        sum(case when ${isOnline('d.state')} then 1 else 0 end) as online
      from ${BIKES} left join iot_device d on d.device_id = b.iot_device_id
      where ${counted}
    `.execute(db),
    boundShare(ctx),
    sql<{ month: string; n: number | string }>`
      select ${month} as month, count(*) as n from ${BIKES} where ${BOUND} and ${inRange} and ${counted} group by ${month}
    `.execute(db),
    sql<{ model: string; n: number | string }>`
      select bm.name as model, count(*) as n from ${BIKES} join bike_model bm on bm.model_id = b.model_id
      where ${BOUND} and ${counted} group by bm.model_id, bm.name order by count(*) desc, bm.name
    `.execute(db),
    sql<{ country: string | null; n: number | string }>`
      select ${name} as country, count(*) as n from ${BIKES} left join sys_country c on c.country_id = m.country_id
      where ${BOUND} and ${counted} group by c.country_id, ${name} order by count(*) desc, ${name}
    `.execute(db),
    // One group-by per part over the devices of the bikes counted.
    Promise.all(
      PARTS.map((part) => {
        const version = sql.ref(part.column)
        return sql<{ version: string | null; n: number | string }>`
          select ${version} as version, count(*) as n
          from ${BIKES} join iot_device d on d.device_id = b.iot_device_id
          where ${counted} group by ${version}
        `.execute(db)
      }),
    ),
    sql<{ model: string; n: number | string; online: number | string | null }>`
      select bm.name as model, count(*) as n, sum(case when ${isOnline('d.state')} then 1 else 0 end) as online
      from ${BIKES} join iot_device d on d.device_id = b.iot_device_id join bike_model bm on bm.model_id = b.model_id
      where ${counted} group by bm.model_id, bm.name order by count(*) desc, bm.name
    `.execute(db),
  ])

  const bikes = bikeRows.rows[0]
  const fitted = Number(bikes?.fitted ?? 0)
  const online = Number(bikes?.online ?? 0)
  const summary: FigureValue[] = [Number(bikes?.registered ?? 0), Number(bikes?.inrange ?? 0), share, online, percent(online, fitted)]

  const months = new Map(monthRows.rows.map((r) => [r.month, Number(r.n)]))
  const byMonth = monthsOf(ctx.query.from, ctx.query.to).map((m) => [m, months.get(m) ?? 0])

  const byModel = modelRows.rows.map((r) => [r.model, Number(r.n)])

  // The top countries by name; the rest, and members who gave no country, are summed as Other.
  const named = countryRows.rows.filter((c) => c.country !== null)
  const byCountry: FigureValue[][] = named.slice(0, TOP_COUNTRIES).map((c) => [c.country, Number(c.n)])
  const rest = [...named.slice(TOP_COUNTRIES), ...countryRows.rows.filter((c) => c.country === null)].reduce((s, c) => s + Number(c.n), 0)
  if (rest > 0) byCountry.push([WORDS.other[lang], rest])

  const unknown = WORDS.unknown[lang]
  const firmware: FigureValue[][] = []
  for (const [i, part] of PARTS.entries()) {
    // A part that never reported (null) or reported nothing ('') runs an unknown version.
    const counts = new Map<string, number>()
    for (const r of partRows[i]!.rows) {
      const v = r.version ? r.version : unknown
      counts.set(v, (counts.get(v) ?? 0) + Number(r.n))
    }
    // Newest version first, unknown last.
    const known = [...counts.keys()].filter((v) => v !== unknown).sort((a, b) => compareVersions(b, a) || a.localeCompare(b))
    for (const v of [...known, ...(counts.has(unknown) ? [unknown] : [])]) firmware.push([part.label[lang], v, counts.get(v)!])
  }

  const onlineByModel = onlineRows.rows.map((r) => [r.model, Number(r.n), Number(r.online ?? 0), percent(Number(r.online ?? 0), Number(r.n))])

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
      select count(*) as sold, sum(case when b.bind_status = 'bound' then 1 else 0 end) as bound
      from ord_frame_number n
      join ord_device_order o on o.order_id = n.order_id
      left join bike_bike b on b.bike_id = n.bike_id
      where n.status <> 'voided' and ${model}
    `.execute(ctx.db)
  ).rows
  return percent(num(row?.bound) ?? 0, Number(row?.sold ?? 0))
}
