import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by hand (issue 43): partitioning is PostgreSQL DDL the definitions do not describe. The
// partition keeper (modules/iot/collections/partitions.ts) makes the same partitions later on; this
// file keeps its own copy of the naming so that changing the keeper never changes what it did.

const DAY = 86_400_000
/** Partitions made ahead of today, as the keeper makes them. */
const DAYS_AHEAD = 3
const COLUMNS = ['telemetry_id', 'device_id', 'received_at', 'device_time', 'battery', 'speed', 'latitude', 'longitude', 'satellites', 'signal', 'odometer', 'locked', 'tilt', 'vibration']

const partitionName = (day: number) => `iot_telemetry_p${new Date(day).toISOString().slice(0, 10).replace(/-/g, '')}`

/**
 * iot_telemetry on PostgreSQL: from a plain table to one PARTITION BY RANGE (received_at) with a
 * partition per UTC day and a default one, so retention drops a day at once instead of deleting 29 M
 * rows a day one by one. The rows move in this migration's transaction; the id sequence stays, so ids
 * go on where they were. SQLite keeps the plain table.
 */
export function telemetryPartitions(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return
      // The old table's key and index names are the new ones': it gives them up before the new table takes them.
      await sql`alter table iot_telemetry rename to iot_telemetry__old`.execute(db)
      await sql`alter table iot_telemetry__old drop constraint iot_telemetry_pkey`.execute(db)
      await sql`drop index iot_telemetry_device_received, iot_telemetry_received`.execute(db)

      // A partitioned table's key must hold the partition column. bigint with the old sequence as its
      // default rather than bigserial: a new sequence would start again at 1.
      await db.schema
        .createTable('iot_telemetry')
        .addColumn('telemetry_id', 'bigint', (c) => c.notNull().defaultTo(sql`nextval('iot_telemetry_telemetry_id_seq'::regclass)`))
        .addColumn('device_id', 'bigint', (c) => c.notNull())
        .addColumn('received_at', 'timestamptz', (c) => c.notNull())
        .addColumn('device_time', 'timestamptz')
        .addColumn('battery', 'double precision')
        .addColumn('speed', 'double precision')
        .addColumn('latitude', 'double precision')
        .addColumn('longitude', 'double precision')
        .addColumn('satellites', 'integer')
        .addColumn('signal', 'integer')
        .addColumn('odometer', 'double precision')
        .addColumn('locked', 'boolean')
        .addColumn('tilt', 'double precision')
        .addColumn('vibration', 'double precision')
        .addPrimaryKeyConstraint('iot_telemetry_pkey', ['telemetry_id', 'received_at'])
        .modifyEnd(sql`partition by range (received_at)`)
        .execute()
      // Owned by the new column: dropping the old table keeps it, and pg_get_serial_sequence (the demo's setval) finds it.
      await sql`alter sequence iot_telemetry_telemetry_id_seq owned by iot_telemetry.telemetry_id`.execute(db)

      // A day for each day the rows have (not every day between the first and the last: a stray old
      // row would make years of empty partitions), today and the days the keeper keeps ahead.
      const found = await sql<{ day: string }>`select distinct (received_at at time zone 'UTC')::date::text as day from iot_telemetry__old`.execute(db)
      const today = Math.floor(Date.now() / DAY) * DAY
      const days = new Set(found.rows.map((r) => Date.parse(`${r.day}T00:00:00Z`)))
      for (let d = 0; d <= DAYS_AHEAD; d++) days.add(today + d * DAY)
      for (const day of [...days].sort((a, b) => a - b)) {
        const from = sql.lit(new Date(day).toISOString())
        const to = sql.lit(new Date(day + DAY).toISOString())
        await sql`create table ${sql.id(partitionName(day))} partition of iot_telemetry for values from (${from}) to (${to})`.execute(db)
      }
      // A row of a day no partition has yet (a clock far off, the keeper not run) is kept, not refused.
      await sql`create table iot_telemetry_default partition of iot_telemetry default`.execute(db)

      const columns = sql.join(COLUMNS.map((c) => sql.id(c)))
      await sql`insert into iot_telemetry (${columns}) select ${columns} from iot_telemetry__old`.execute(db)
      await sql`drop table iot_telemetry__old`.execute(db)
      // After the rows: one sort per partition instead of index updates row by row. On the parent, so
      // every partition made later gets them too.
      await db.schema.createIndex('iot_telemetry_device_received').on('iot_telemetry').columns(['device_id', 'received_at']).execute()
      await db.schema.createIndex('iot_telemetry_received').on('iot_telemetry').column('received_at').execute()
    },
  }
}
