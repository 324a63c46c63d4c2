import { type Kysely, sql } from 'kysely'
import type { Db } from '../../../db/database'

// iot_telemetry on PostgreSQL is partitioned by day of received_at (migration
// 2026-12-01T04-telemetry-partitions): one partition per UTC day, iot_telemetry_pYYYYMMDD, and a
// default one. This file keeps the days ahead made and gives retention whole days to drop. SQLite has
// the plain table and none of this.

export const DAY_MS = 86_400_000
/** Days made ahead of today: the keeper runs daily, so two runs can fail before a row lands in the default partition. */
export const PARTITION_DAYS_AHEAD = 3
export const DEFAULT_PARTITION = 'iot_telemetry_default'
const NAME = /^iot_telemetry_p(\d{4})(\d{2})(\d{2})$/
/** Dropping a partition locks the whole table: past this, retention leaves it to the next run rather than stall the writer behind a long read. */
const DROP_LOCK_TIMEOUT = '5s'
/** Rows one DELETE of the boundary day removes, so that retention can stop between chunks. */
const DELETE_CHUNK = 5000

/**
 * Held while a partition is dropped or made from the default one: two instances each counting a
 * partition (a weak lock on it) and then dropping it (a strong lock on the table) would deadlock.
 */
const LOCK = sql`select pg_advisory_xact_lock(hashtext('velo:iot:telemetry:partitions'))`
/** Another instance made it first, or another partition covers the range already. */
const ALREADY_THERE = new Set(['42P07', '42710', '23505', '42P17'])
const codeOf = (err: unknown) => (err as { code?: string } | null)?.code

export const startOfDay = (t: number) => Math.floor(t / DAY_MS) * DAY_MS
export const partitionName = (day: number) => `iot_telemetry_p${new Date(day).toISOString().slice(0, 10).replace(/-/g, '')}`

/** The UTC day a partition's name stands for; undefined for the default one or one named otherwise. */
export function dayOfPartition(name: string): number | undefined {
  const m = NAME.exec(name)
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : undefined
}

/** Raw SQL with snake_case names: the app's CamelCasePlugin has nothing to change in it. */
const raw = (db: Db) => db.withoutPlugins() as unknown as Kysely<unknown>

const bounds = (day: number) => sql`for values from (${sql.lit(new Date(day).toISOString())}) to (${sql.lit(new Date(day + DAY_MS).toISOString())})`

/**
 * Makes the default partition and one per day from `from`'s day to `to`'s, those missing. Safe when
 * two instances run it at once: an error of a name or range already taken counts as done (a plain
 * CREATE rather than IF NOT EXISTS, so that only the instance that made one answers it). A
 * day whose rows went to the default partition meanwhile is made from them: the rows move into a
 * table of their own, which is then attached. Answers the partitions it made.
 *
 * Inside a transaction (`db` a Transaction) an error ends the transaction whatever is caught: the
 * demo calls it there after emptying the table, which holds the table's lock, so nobody races it.
 */
export async function ensureTelemetryPartitions(db: Db, from: number, to: number): Promise<string[]> {
  const made: string[] = []
  const pg = raw(db)
  const existing = new Set(await partitionNames(db))
  if (!existing.has(DEFAULT_PARTITION)) {
    try {
      await sql`create table ${sql.id(DEFAULT_PARTITION)} partition of iot_telemetry default`.execute(pg)
      made.push(DEFAULT_PARTITION)
    } catch (err) {
      if (!ALREADY_THERE.has(codeOf(err) ?? '')) throw err
    }
  }
  for (let day = startOfDay(from); day <= startOfDay(to); day += DAY_MS) {
    const name = partitionName(day)
    if (existing.has(name)) continue
    try {
      await sql`create table ${sql.id(name)} partition of iot_telemetry ${bounds(day)}`.execute(pg)
      made.push(name)
    } catch (err) {
      const code = codeOf(err)
      if (ALREADY_THERE.has(code ?? '')) continue
      // 23514: the default partition holds rows of that day, which the new partition would have to take.
      if (code !== '23514' || db.isTransaction) throw err
      if (await fromDefault(db, day)) made.push(name)
    }
  }
  return made
}

/** The day's partition made of the default partition's rows of that day, in one transaction; false when another instance made it first. */
async function fromDefault(db: Db, day: number): Promise<boolean> {
  const name = sql.id(partitionName(day))
  const from = new Date(day).toISOString()
  const to = new Date(day + DAY_MS).toISOString()
  try {
    await raw(db)
      .transaction()
      .execute(async (tx) => {
        await LOCK.execute(tx)
        await sql`create table ${name} (like iot_telemetry including defaults)`.execute(tx)
        await sql`with moved as (delete from ${sql.id(DEFAULT_PARTITION)} where received_at >= ${from} and received_at < ${to} returning *) insert into ${name} select * from moved`.execute(tx)
        await sql`alter table iot_telemetry attach partition ${name} ${bounds(day)}`.execute(tx)
      })
    return true
  } catch (err) {
    if (ALREADY_THERE.has(codeOf(err) ?? '')) return false
    throw err
  }
}

/** Today and PARTITION_DAYS_AHEAD days after it, at the start and then daily. */
export function keepTelemetryPartitions(db: Db, now = Date.now()): Promise<string[]> {
  return ensureTelemetryPartitions(db, now, now + PARTITION_DAYS_AHEAD * DAY_MS)
}

/** The partitions of iot_telemetry, by name. */
async function partitionNames(db: Db): Promise<string[]> {
  const found = await sql<{ name: string }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'iot_telemetry'::regclass`.execute(raw(db))
  return found.rows.map((r) => r.name)
}

/**
 * Retention on PostgreSQL: drops each day's partition wholly older than `cutoff`, then deletes the
 * rows older than it that remain (the boundary day's, the default partition's, and any partition
 * named otherwise), a chunk at a time. Answers how many rows went: a partition is counted exactly
 * (count(*): an index-only scan once autovacuum has seen a day that no longer changes, else one read
 * of it; reltuples would be free but is an estimate, -1 before the first analyze) before it is
 * dropped, in the same transaction under LOCK, so two instances sweeping at once never count one
 * twice (the second finds it gone).
 */
export async function sweepTelemetryPartitions(db: Db, cutoff: Date, stopped: () => boolean): Promise<number> {
  const pg = raw(db)
  let removed = 0
  const partial: string[] = []
  for (const name of await partitionNames(db)) {
    if (stopped()) return removed
    const day = dayOfPartition(name)
    if (day !== undefined && day + DAY_MS <= cutoff.getTime()) removed += await dropPartition(pg, name)
    else if (day === undefined || day < cutoff.getTime()) partial.push(name)
  }
  for (const name of partial) {
    const table = sql.id(name)
    // Oldest first through the time index, by row address: the partition itself, not the table, so no other partition is looked at.
    while (!stopped()) {
      try {
        const result = await sql`delete from ${table} where ctid = any(array(select ctid from ${table} where received_at < ${cutoff.toISOString()} order by received_at limit ${DELETE_CHUNK})) and received_at < ${cutoff.toISOString()}`.execute(pg)
        const n = Number(result.numAffectedRows ?? 0)
        removed += n
        if (n < DELETE_CHUNK) break
      } catch (err) {
        // 42P01: dropped by another instance meanwhile.
        if (codeOf(err) === '42P01') break
        throw err
      }
    }
  }
  return removed
}

async function dropPartition(pg: Kysely<unknown>, name: string): Promise<number> {
  try {
    return await pg.transaction().execute(async (tx) => {
      // Before the timeout: another instance's count and drop of the same partition are worth waiting for.
      await LOCK.execute(tx)
      await sql`set local lock_timeout = ${sql.lit(DROP_LOCK_TIMEOUT)}`.execute(tx)
      const counted = await sql<{ n: string }>`select count(*) as n from ${sql.id(name)}`.execute(tx)
      await sql`drop table ${sql.id(name)}`.execute(tx)
      return Number(counted.rows[0]?.n ?? 0)
    })
  } catch (err) {
    // 42P01: another instance dropped it first (and counted it). 55P03: the lock was not had in time; the next run drops it.
    const code = codeOf(err)
    if (code === '42P01' || code === '55P03') return 0
    throw err
  }
}
