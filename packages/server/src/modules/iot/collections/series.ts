import { telemetryBucketSeconds, type TelemetrySeries } from '@velo/shared'
import { sql } from 'kysely'
import type { Dialect } from '../../../db/database'
import type { Db } from '../../../db/database'

const numberOrNull = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 100) / 100)

/**
 * One device's telemetry between two instants, per bucket: average battery, average and top speed,
 * reports with a position and average signal. One index range scan of (deviceId, receivedAt), grouped in
 * SQL; every value is bound.
 */
export async function telemetrySeries(db: Db, dialect: Dialect, deviceId: number, from: Date, to: Date): Promise<TelemetrySeries> {
  const bucketSeconds = telemetryBucketSeconds(from.getTime(), to.getTime())
  const fromSeconds = Math.floor(from.getTime() / 1000)
  // Whole seconds since `from`, divided by the bucket: the row's bucket number. better-sqlite3 binds a
  // JS number as a real, so SQLite casts them, or the division would not be whole.
  const bucket =
    dialect === 'postgres'
      ? sql<number>`floor((extract(epoch from ${sql.ref('receivedAt')}) - ${fromSeconds}::bigint) / ${bucketSeconds}::integer)::bigint`
      : sql<number>`(cast(strftime('%s', ${sql.ref('receivedAt')}) as integer) - cast(${fromSeconds} as integer)) / cast(${bucketSeconds} as integer)`
  const rows = await db
    .selectFrom('iotTelemetry')
    .select([
      bucket.as('bucket'),
      (eb) => eb.fn.countAll<number>().as('count'),
      (eb) => eb.fn.avg<number>('battery').as('battery'),
      (eb) => eb.fn.avg<number>('speed').as('speed'),
      (eb) => eb.fn.max<number>('speed').as('maxSpeed'),
      (eb) => eb.fn.count<number>('latitude').as('positions'),
      (eb) => eb.fn.avg<number>('signal').as('signal'),
    ])
    .where('deviceId', '=', deviceId)
    .where('receivedAt', '>=', from.toISOString())
    .where('receivedAt', '<', to.toISOString())
    .groupBy(sql`1`)
    .orderBy(sql`1`)
    .execute()
  return {
    bucketSeconds,
    // The buckets count from this whole second: the console lays its slots out from it.
    from: new Date(fromSeconds * 1000).toISOString(),
    to: to.toISOString(),
    points: rows.map((r) => ({
      time: new Date((fromSeconds + Number(r.bucket) * bucketSeconds) * 1000).toISOString(),
      count: Number(r.count),
      battery: numberOrNull(r.battery),
      speed: numberOrNull(r.speed),
      maxSpeed: numberOrNull(r.maxSpeed),
      positions: Number(r.positions),
      signal: numberOrNull(r.signal),
    })),
  }
}
