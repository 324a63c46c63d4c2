import type { FastifyBaseLogger } from 'fastify'
import { sql, type RawBuilder } from 'kysely'
import type { Db, Dialect } from '../../db/database'
import type { SweepDef } from '../../platform/jobs'

// The dashboards' daily rollups (docs/dashboards.md). Rides, tracking events and app uploads are
// append-only facts with growing ids: each rollup adds the facts past its watermark (the last id it
// took), in id ranges, with upserts that ADD to the existing rows, and moves the watermark in the same
// transaction only if nobody moved it meanwhile. So a refresh is idempotent, and two instances
// refreshing at once never count the same facts twice (the later one rolls back and reads again).

/** A fact table a rollup reads: its name in dash_rollup_state, its table and its id column. */
interface Source {
  name: 'ride' | 'event' | 'upload'
  table: string
  id: string
  /** Adds the facts with lo < id <= hi into the rollups. */
  add: (tx: Db, dialect: Dialect, lo: number, hi: number) => Promise<void>
}

/** Ids taken per transaction: a batch of the full demo's rides is about half a second of work. */
const BATCH_IDS = 200_000
/** Facts a dashboard request adds before it answers; the background refresh takes the rest. */
export const REQUEST_CAP = 50_000
/** The background refresh's period. */
export const REFRESH_EVERY_MS = 30_000
const ROLLUP_TABLES = ['dash_member_day', 'dash_day', 'dash_member_period', 'dash_app_day', 'dash_start_hist']
/** Facts added by one refresh after which the rollups' statistics are gathered again. */
const ANALYZE_AFTER = 100_000
/** The PostgreSQL advisory lock a refresh batch holds (any number of our own: 'dash' in ASCII). */
const ROLLUP_LOCK = 0x64617368
/** A refresh that finds nothing new stamps its time at most this often (one small write). */
const STAMP_EVERY_MS = 5_000

/** 'YYYY-MM-DD' of a stored time, in UTC: SQLite keeps ISO text ('…Z'), PostgreSQL a timestamptz. */
export function dayOfSql(dialect: Dialect, column: string): RawBuilder<string> {
  const ref = sql.ref(column)
  return dialect === 'postgres' ? sql<string>`to_char(${ref} at time zone 'UTC', 'YYYY-MM-DD')` : sql<string>`substr(${ref}, 1, 10)`
}

/**
 * The cold-start histogram's buckets (ms): 50 ms wide below 2 s, 100 ms below 5 s, 500 ms below 30 s,
 * and one bucket for 30 s and over. A row holds the bucket's lower bound; bucketTop gives its upper.
 */
function bucketSql(dialect: Dialect, column: string): RawBuilder<number> {
  const v = sql.ref(column)
  const down = (width: number) => (dialect === 'postgres' ? sql`(floor(${v} / ${sql.lit(width)}) * ${sql.lit(width)})::integer` : sql`(cast(${v} / ${sql.lit(width)} as integer) * ${sql.lit(width)})`)
  return sql<number>`case when ${v} < 0 then 0 when ${v} < 2000 then ${down(50)} when ${v} < 5000 then ${down(100)} when ${v} < 30000 then ${down(500)} else 30000 end`
}

/** The upper bound of a bucket: what a percentile read from the histogram reports (exact to the bucket's width). */
export function bucketTop(bucket: number): number {
  if (bucket >= 30000) return 30000
  if (bucket >= 5000) return bucket + 500
  if (bucket >= 2000) return bucket + 100
  return bucket + 50
}

/**
 * Marks the members active in the weeks and months of `days` (rows of day, member_id, platform,
 * country_id): a row exists once, whatever adds it again.
 */
async function addPeriods(tx: Db, dialect: Dialect, days: RawBuilder<unknown>): Promise<void> {
  const period = sql`case when k.kind = 'w' then ${weekOfSql(dialect, sql`d.day`)} else substr(d.day, 1, 7) end`
  await sql`insert into dash_member_period (kind, period, platform, member_id, country_id)
      select k.kind, ${period}, d.platform, d.member_id, max(d.country_id)
      from (${days}) d cross join (select 'w' as kind union all select 'm' as kind) k
      where d.member_id is not null
      group by 1, 2, 3, 4
      on conflict (kind, period, platform, member_id) do nothing`.execute(tx)
}

/**
 * Recounts dash_day for the days of `days` (a query of a `day` column) from dash_member_day. Exact
 * because batches run one at a time (refreshSource's lock): no other batch changes those days meanwhile.
 */
async function recountDays(tx: Db, days: RawBuilder<unknown>): Promise<void> {
  await sql`delete from dash_day where day in (${days})`.execute(tx)
  await sql`insert into dash_day (day, country_id, dau, rides)
      select md.day, coalesce(md.country_id, 0), count(*), sum(md.rides) from dash_member_day md where md.day in (${days}) group by 1, 2`.execute(tx)
}

/**
 * Moves the last active day (mem_member.last_active_day) of the members `members` names (a query of
 * a member_id column) to their latest dash_member_day: the members list filters on it, so the home
 * card "Members active (7 days)" and the list it opens count the same rows. In the batch's
 * transaction, so it moves with the rollup it follows.
 */
async function markLastActive(tx: Db, dialect: Dialect, members: RawBuilder<unknown>): Promise<void> {
  const lastDay = sql`(select max(md.day) from dash_member_day md where md.member_id = mem_member.member_id)`
  await sql`update mem_member set last_active_day = ${dialect === 'postgres' ? sql`${lastDay}::date` : lastDay} where member_id in (${members})`.execute(tx)
}

const SOURCES: Source[] = [
  {
    name: 'ride',
    table: 'mem_ride',
    id: 'ride_id',
    // The member's country as it is at refresh time (a member who moves keeps their past days' country).
    add: (tx, dialect, lo, hi) =>
      sql`insert into dash_member_day (day, member_id, country_id, rides, distance, app_events)
          select ${dayOfSql(dialect, 'r.upload_time')}, r.member_id, max(m.country_id), count(*), coalesce(sum(r.distance), 0), 0
          from mem_ride r left join mem_member m on m.member_id = r.member_id
          where r.ride_id > ${lo} and r.ride_id <= ${hi}
          group by 1, 2
          on conflict (day, member_id) do update set rides = dash_member_day.rides + excluded.rides, distance = dash_member_day.distance + excluded.distance`
        .execute(tx)
        .then(() =>
          addPeriods(
            tx,
            dialect,
            sql`select distinct ${dayOfSql(dialect, 'r.upload_time')} as day, r.member_id, '' as platform, m.country_id
                from mem_ride r left join mem_member m on m.member_id = r.member_id where r.ride_id > ${lo} and r.ride_id <= ${hi}`,
          ),
        )
        .then(() => recountDays(tx, sql`select distinct ${dayOfSql(dialect, 'r.upload_time')} from mem_ride r where r.ride_id > ${lo} and r.ride_id <= ${hi}`))
        .then(() => markLastActive(tx, dialect, sql`select distinct r.member_id from mem_ride r where r.ride_id > ${lo} and r.ride_id <= ${hi}`)),
  },
  {
    name: 'event',
    table: 'dash_tracking_event',
    id: 'event_id',
    add: async (tx, dialect, lo, hi) => {
      const day = dayOfSql(dialect, 'e.event_time')
      await sql`insert into dash_member_day (day, member_id, country_id, rides, distance, app_events)
          select ${day}, e.member_id, max(m.country_id), 0, 0, count(*)
          from dash_tracking_event e left join mem_member m on m.member_id = e.member_id
          where e.event_id > ${lo} and e.event_id <= ${hi}
          group by 1, 2
          on conflict (day, member_id) do update set app_events = dash_member_day.app_events + excluded.app_events`.execute(tx)
      // Active in the period at all (platform ''), and with an app event on its platform.
      const events = sql`from dash_tracking_event e left join mem_member m on m.member_id = e.member_id where e.event_id > ${lo} and e.event_id <= ${hi}`
      await addPeriods(tx, dialect, sql`select distinct ${day} as day, e.member_id, '' as platform, m.country_id ${events}`)
      await addPeriods(tx, dialect, sql`select distinct ${day} as day, e.member_id, e.platform, m.country_id ${events}`)
      await recountDays(tx, sql`select distinct ${day} from dash_tracking_event e where e.event_id > ${lo} and e.event_id <= ${hi}`)
      await markLastActive(tx, dialect, sql`select distinct e.member_id from dash_tracking_event e where e.event_id > ${lo} and e.event_id <= ${hi}`)
      // A crash is sent once, on the launch after it, naming its session: each app.crash is one crashed
      // session, counted on the day it was sent.
      await sql`insert into dash_app_day (day, member_id, platform, app_version, country_id, events, sessions, crashed_sessions, crash_reports)
          select ${day}, e.member_id, e.platform, e.app_version, max(m.country_id), count(*),
            sum(case when e.code = 'app.launch' then 1 else 0 end), sum(case when e.code = 'app.crash' then 1 else 0 end), 0
          from dash_tracking_event e left join mem_member m on m.member_id = e.member_id
          where e.event_id > ${lo} and e.event_id <= ${hi}
          group by 1, 2, 3, 4
          on conflict (day, member_id, platform, app_version) do update set events = dash_app_day.events + excluded.events,
            sessions = dash_app_day.sessions + excluded.sessions, crashed_sessions = dash_app_day.crashed_sessions + excluded.crashed_sessions`.execute(tx)
      await sql`insert into dash_start_hist (day, platform, app_version, country_id, bucket, n)
          select ${day}, e.platform, e.app_version, coalesce(m.country_id, 0), ${bucketSql(dialect, 'e.value')}, count(*)
          from dash_tracking_event e left join mem_member m on m.member_id = e.member_id
          where e.event_id > ${lo} and e.event_id <= ${hi} and e.code = 'app.launch' and e.value is not null
          group by 1, 2, 3, 4, 5
          on conflict (day, platform, app_version, country_id, bucket) do update set n = dash_start_hist.n + excluded.n`.execute(tx)
    },
  },
  {
    name: 'upload',
    table: 'mon_app_upload_log',
    id: 'upload_id',
    // Crash reports the app uploaded. An upload without a member counts under member 0 (no country);
    // the clean-up deleting old uploads leaves their counts here: the rollups keep the history.
    add: (tx, dialect, lo, hi) =>
      sql`insert into dash_app_day (day, member_id, platform, app_version, country_id, events, sessions, crashed_sessions, crash_reports)
          select ${dayOfSql(dialect, 'u.upload_time')}, coalesce(u.member_id, 0), u.platform, coalesce(u.app_version, ''), max(m.country_id), 0, 0, 0, count(*)
          from mon_app_upload_log u left join mem_member m on m.member_id = u.member_id
          where u.upload_id > ${lo} and u.upload_id <= ${hi} and u.log_type = 'crash'
          group by 1, 2, 3, 4
          on conflict (day, member_id, platform, app_version) do update set crash_reports = dash_app_day.crash_reports + excluded.crash_reports`
        .execute(tx)
        .then(() => undefined),
  },
]

/** Thrown inside a batch's transaction when another refresh moved the watermark first: roll back, read again. */
class WatermarkMoved extends Error {}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v))

/**
 * The highest id below which every fact is committed. SQLite has one writer, so ids commit in order.
 * On PostgreSQL a transaction may commit id 101 before another commits id 100: a SHARE lock waits
 * for the table's open writers (and holds new ones back for the moment of the read), so the max read
 * under it has no gap left to fill. A writer holding the table longer than the timeout (a demo load)
 * leaves the refresh for later.
 */
async function settledMax(db: Db, dialect: Dialect, src: Source): Promise<number | null> {
  const max = (q: Db) => sql<{ top: number | null }>`select max(${sql.ref(src.id)}) as top from ${sql.table(src.table)}`.execute(q)
  if (dialect === 'sqlite') return num((await max(db)).rows[0]?.top)
  try {
    return await db.transaction().execute(async (tx) => {
      await sql`set local lock_timeout = '200ms'`.execute(tx)
      await sql`lock table ${sql.table(src.table)} in share mode`.execute(tx)
      return num((await max(tx)).rows[0]?.top)
    })
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') return null
    throw err
  }
}

/** Adds one source's new facts, up to `cap` ids; the number of facts added. */
async function refreshSource(db: Db, dialect: Dialect, src: Source, cap: number): Promise<number> {
  let added = 0
  let spent = 0
  for (;;) {
    const state = await sql<{ lastId: number }>`select last_id as "lastId" from dash_rollup_state where name = ${src.name}`.execute(db)
    const last = num(state.rows[0]?.lastId)
    const top = num((await sql<{ top: number | null }>`select max(${sql.ref(src.id)}) as top from ${sql.table(src.table)}`.execute(db)).rows[0]?.top)
    const now = new Date().toISOString()
    if (top <= last) {
      // Nothing new: the rollup is complete as of now (stamped at most every few seconds).
      const cutoff = new Date(Date.now() - STAMP_EVERY_MS).toISOString()
      await sql`update dash_rollup_state set refreshed_time = ${now} where name = ${src.name} and last_id = ${last} and (refreshed_time is null or refreshed_time < ${cutoff})`.execute(db)
      return added
    }
    if (spent >= cap) return added
    const safe = await settledMax(db, dialect, src)
    if (safe === null || safe <= last) return added
    const hi = Math.min(last + Math.min(BATCH_IDS, cap - spent), safe)
    const caughtUp = hi >= safe && safe >= top
    try {
      added += await db.transaction().execute(async (tx) => {
        // One batch at a time across the fact tables (two instances may refresh rides and events at
        // once): dash_day is recounted from dash_member_day, which both change. SQLite has one writer.
        // Then the watermark moves, conditionally: a refresh that waited finds it moved and rolls
        // back; as the first write, it also has SQLite take its write lock before reading (no stale
        // snapshot to upgrade). The facts are added in the same transaction: all commit, or none.
        if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${ROLLUP_LOCK})`.execute(tx)
        const stamp = caughtUp ? sql`${now}` : sql`refreshed_time`
        const moved = await sql`update dash_rollup_state set last_id = ${hi}, refreshed_time = ${stamp} where name = ${src.name} and last_id = ${last}`.execute(tx)
        if (Number(moved.numAffectedRows ?? 0) !== 1) throw new WatermarkMoved()
        const facts = num((await sql<{ n: number }>`select count(*) as n from ${sql.table(src.table)} where ${sql.ref(src.id)} > ${last} and ${sql.ref(src.id)} <= ${hi}`.execute(tx)).rows[0]?.n)
        await src.add(tx, dialect, last, hi)
        return facts
      })
    } catch (err) {
      if (!(err instanceof WatermarkMoved)) throw err
      // Another refresh took these facts: read the state again.
      continue
    }
    spent += hi - last
  }
}

/** When the rollups were last complete: the oldest of the sources' stamps (null: never refreshed). */
export async function rollupsRefreshedAt(db: Db): Promise<string | null> {
  const rows = await sql<{ name: string; t: string | null }>`select name, refreshed_time as t from dash_rollup_state`.execute(db)
  if (rows.rows.some((r) => !r.t)) return null
  const times = rows.rows.map((r) => new Date(r.t!).toISOString()).sort()
  return times[0] ?? null
}

/**
 * The common case of a request-time refresh, in one statement: every fact table caught up and every
 * stamp younger than STAMP_EVERY_MS, so refreshSource would neither add nor stamp. Answers the
 * rollups' refreshedAt then, or null when there is something to do (the full path does it).
 */
async function caughtUp(db: Db): Promise<string | null> {
  const top = sql.join(SOURCES.map((src) => sql`when ${src.name} then (select max(${sql.ref(src.id)}) from ${sql.table(src.table)})`), sql` `)
  const { rows } = await sql<{ name: string; last: number | string; top: number | string | null; t: string | null }>`
    select s.name, s.last_id as last, case s.name ${top} end as top, s.refreshed_time as t from dash_rollup_state s`.execute(db)
  const cutoff = Date.now() - STAMP_EVERY_MS
  if (rows.length !== SOURCES.length) return null
  for (const r of rows) if (num(r.top) > num(r.last) || !r.t || new Date(r.t).getTime() < cutoff) return null
  return rows.map((r) => new Date(r.t!).toISOString()).sort()[0] ?? null
}

async function refresh(db: Db, dialect: Dialect, cap: number): Promise<{ refreshedAt: string; rows: number; ms: number }> {
  const started = performance.now()
  const quick = await caughtUp(db)
  if (quick) return { refreshedAt: quick, rows: 0, ms: Math.round(performance.now() - started) }
  let rows = 0
  for (const src of SOURCES) rows += await refreshSource(db, dialect, src, cap)
  // After a large load (the demo, a first refresh) the planner's statistics of the rollups are those
  // of nearly empty tables: gathered again, or PostgreSQL picks nested loops over 200,000 rows. On
  // PostgreSQL the load also left a dead version of each row it added to (a rollup row per batch, a
  // member's last active day per batch: mem_member grows eightfold on the demo), which every read then
  // walks until autovacuum comes by, if it is on: vacuumed now (outside a transaction, as it must be).
  if (rows >= ANALYZE_AFTER) {
    for (const table of ROLLUP_TABLES) await sql`${sql.raw(dialect === 'postgres' ? 'vacuum (analyze)' : 'analyze')} ${sql.table(table)}`.execute(db)
    if (dialect === 'postgres') await sql`vacuum (analyze) mem_member`.execute(db)
  }
  return { refreshedAt: (await rollupsRefreshedAt(db)) ?? new Date().toISOString(), rows, ms: Math.round(performance.now() - started) }
}

/** Brings every rollup up to date with the rows added since its last refresh (idempotent, safe on several instances at once). */
export async function refreshRollups(db: Db, dialect: Dialect): Promise<{ refreshedAt: string; rows: number; ms: number }> {
  return refresh(db, dialect, Number.POSITIVE_INFINITY)
}

/** A refresh that takes at most `cap` ids per fact table (what a request does before it answers). */
export async function refreshRollupsUpTo(db: Db, dialect: Dialect, cap: number): Promise<{ refreshedAt: string; rows: number; ms: number }> {
  return refresh(db, dialect, cap)
}

/** Empties the rollups and their watermarks (the demo calls it in its transaction before it rewrites the facts). */
export async function resetRollups(db: Db, dialect: Dialect): Promise<void> {
  void dialect
  for (const table of ROLLUP_TABLES) await sql`delete from ${sql.table(table)}`.execute(db)
  // Kept from the rollups, so it starts again with them.
  await sql`update mem_member set last_active_day = null where last_active_day is not null`.execute(db)
  await sql`update dash_rollup_state set last_id = 0, refreshed_time = null`.execute(db)
}

// One request-time refresh per database at a time: concurrent requests wait for the same one.
const inFlight = new WeakMap<object, Promise<string | null>>()

/**
 * Before a dashboard answer that reads rollups: adds at most REQUEST_CAP new facts (when nothing is
 * new, one indexed max(id) per fact table) and returns the rollups' refreshedAt. A refresh that fails
 * (the database busy) does not fail the answer: the figures are those of the last refresh, and
 * refreshedAt says how old.
 */
export function freshRollups(db: Db, dialect: Dialect, log?: FastifyBaseLogger): Promise<string | null> {
  const running = inFlight.get(db)
  if (running) return running
  const p = refreshRollupsUpTo(db, dialect, REQUEST_CAP)
    .then((r) => r.refreshedAt)
    .catch(async (err) => {
      log?.warn({ err }, 'dashboard rollups: the request-time refresh failed')
      return rollupsRefreshedAt(db)
    })
    .finally(() => inFlight.delete(db))
  inFlight.set(db, p)
  return p
}

/**
 * The background refresh as the scheduler runs it: every REFRESH_EVERY_MS, once per tick across
 * instances (two refreshes at once would only wait on each other's writes).
 */
export function rollupRefresh(db: Db, dialect: Dialect): SweepDef {
  return { key: 'dashboardRollups', every: REFRESH_EVERY_MS, run: () => refreshRollups(db, dialect) }
}

// Day arithmetic on 'YYYY-MM-DD' text in SQL, the same answer on both databases (weeks start on Monday).

/** The day `n` days after a day expression. */
export function plusDaysSql(dialect: Dialect, day: RawBuilder<unknown>, n: number): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`to_char(${day}::date + ${sql.lit(n)}, 'YYYY-MM-DD')` : sql<string>`date(${day}, ${sql.lit(`${n >= 0 ? '+' : ''}${n} days`)})`
}

/** The Monday of a day expression's ISO week. */
export function weekOfSql(dialect: Dialect, day: RawBuilder<unknown>): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`to_char(date_trunc('week', ${day}::date), 'YYYY-MM-DD')` : sql<string>`date(${day}, 'weekday 0', '-6 days')`
}
