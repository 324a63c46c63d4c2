import { bikeEntities, finalStates, memberEntities, iotEntities, iotWarningEntities, type ResolvedEntity, serviceEntities, type FigureValue } from '@velo/shared'
import { sql, type RawBuilder } from 'kysely'
import type { DashboardCompute } from './context'
import { addDays, dayOf, startOf } from './query'
import { dayOfSql, freshRollups } from './rollups'
import { daysOf } from './engagement'
import { entityScope } from '../../platform/rbac/entity-scope'
import { countryCondition } from './scope'

// The home page (docs/dashboards.md › Home): one cheap statement per card, each only for a caller
// holding the right to the list it opens; the page asks again often for "devices online now".

type Row = Record<string, unknown>
const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v))
const OPEN_WARNING_STATES = ['activeUnack', 'activeAck']

export const homeDashboard: DashboardCompute = async (ctx) => {
  const { db, dialect, scope } = ctx
  const cols = ctx.def.figures.find((f) => f.key === 'cards')!.columns
  const trend = ctx.def.figures.find((f) => f.key === 'registrations')!.columns
  const allowed = (key: string, of = cols) => ctx.may(of.find((c) => c.key === key)!.permission!)
  const first = async (q: RawBuilder<unknown>) => ((await q.execute(db)).rows[0] ?? {}) as Row
  const count = async (q: RawBuilder<unknown>) => num((await first(q)).n)
  const today = dayOf(ctx.now)
  let refreshedAt: string | null = null

  const card = async (key: string, compute: () => Promise<number | null>): Promise<number | null> => (allowed(key) ? compute() : null)
  // Each card's rows are those of the list it opens, in the caller's data scope as the list applies it.
  const inScope = (entity: ResolvedEntity, alias: string) => entityScope(entity, ctx.rows, alias)
  // The cards and the trend are independent statements, sent together: PostgreSQL answers them on
  // several pool connections, SQLite on its reader threads, so the page waits for the slowest, not the sum.
  const warningsOf = async (): Promise<Record<string, number> | null> => {
    if (!allowed('warningsCritical')) return null
    const rows = await sql<Row>`select w.severity as s, count(*) as n from iot_alarm w
        where w.state in (${sql.join(OPEN_WARNING_STATES)}) and ${inScope(iotWarningEntities.iotAlarm, 'w')} group by w.severity`.execute(db)
    return Object.fromEntries(rows.rows.map((r) => [String(r.s), num(r.n)]))
  }
  // Overdue as the engine's list marks it (platform/crud/workflow.ts): past the due time in a state that is not final.
  const order = serviceEntities.repairOrder
  // Registrations per day: sign-ups (the member's create time) and bikes bound (the bike's bound time).
  const { from, to } = ctx.query
  const lo = startOf(from).toISOString()
  const hi = startOf(addDays(to, 1)).toISOString()
  const perDay = async (q: RawBuilder<unknown>) => new Map(((await q.execute(db)).rows as Row[]).map((r) => [String(r.d), num(r.n)]))
  const [bikesRegistered, membersActive7d, devicesOnline, warnings, upgradesRunning, serviceOverdue, membersPerDay, bikesPerDay] = await Promise.all([
    card('bikesRegistered', () => count(sql`select count(*) as n from bike_bike b where b.bind_status = 'bound' and ${inScope(bikeEntities.bike, 'b')}`)),
    // The members whose last active day (kept by the rollups) is in the 7 days ending today: the rows the
    // members list shows with the card's filter, in the caller's scope as the list applies it.
    card('membersActive7d', async () => {
      refreshedAt = await freshRollups(db, dialect)
      return count(sql`select count(*) as n from mem_member m where m.last_active_day >= ${addDays(today, -6)} and m.last_active_day <= ${today} and ${inScope(memberEntities.member, 'm')}`)
    }),
    card('devicesOnline', () => count(sql`select count(*) as n from iot_device d where d.state in ('online', 'activated') and ${inScope(iotEntities.iotDevice, 'd')}`)),
    warningsOf(),
    // IoT upgrades only: the card opens the IoT upgrade list, whose rows are that part's campaigns.
    card('upgradesRunning', () => count(sql`select count(*) as n from ota_campaign c where c.part_kind = 'iot' and c.status = 'running'`)),
    card('serviceOverdue', () =>
      count(sql`select count(*) as n from service_repair_order o where o.due_time < ${ctx.now.toISOString()} and o.status not in (${sql.join(finalStates(order))})
          and ${inScope(order, 'o')}`),
    ),
    allowed('members', trend)
      ? perDay(sql`select ${dayOfSql(dialect, 'm.create_time')} as d, count(*) as n from mem_member m
            where m.create_time >= ${lo} and m.create_time < ${hi} and ${countryCondition('m.country_id', scope, undefined)} group by 1`)
      : null,
    allowed('bikes', trend)
      ? perDay(sql`select ${dayOfSql(dialect, 'b.bound_time')} as d, count(*) as n from bike_bike b
            ${scope.all ? sql`` : sql`join mem_member m on m.member_id = b.member_id`}
            where b.bound_time >= ${lo} and b.bound_time < ${hi} and ${scope.all ? sql`1 = 1` : countryCondition('m.country_id', scope, undefined)} group by 1`)
      : null,
  ])

  const w = (s: 'critical' | 'major' | 'minor' | 'warning') => (warnings ? (warnings[s] ?? 0) : null)
  const cards: FigureValue[] = [bikesRegistered, membersActive7d, devicesOnline, w('critical'), w('major'), w('minor'), w('warning'), upgradesRunning, serviceOverdue]
  return {
    refreshedAt,
    figures: [
      { key: 'cards', rows: [cards] },
      { key: 'registrations', rows: daysOf(from, to).map((d) => [d, membersPerDay ? (membersPerDay.get(d) ?? 0) : null, bikesPerDay ? (bikesPerDay.get(d) ?? 0) : null]) },
    ],
  }
}
