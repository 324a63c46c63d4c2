import type { TelemetryPayload } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import { CompiledQuery, type Insertable } from 'kysely'
import { runsOften } from '../../../db/pg-named'
import { snakeCase } from '../../../db/schema-gen/shape'
import { WriteBehind } from '../../../gateway/write-behind'
import type { UpMessage } from '../../../gateway/types'
import type { ConfigValues } from '../../../platform/config-keys'
import type { Db, Dialect } from '../../../db/database'
import type { Database } from '../../../db/schema'
import { sweepTelemetryPartitions } from './partitions'

export const TELEMETRY_RETENTION_KEY = 'iot.telemetry.retentionDays'
export const DEFAULT_TELEMETRY_RETENTION_DAYS = 30

/** Columns of one row (14 with the id): 500 rows bind 6,500 values, far below SQLite's 32,766 per statement. */
const INSERT_CHUNK = 500
/** The columns a report fills, in the order the hot path binds them. */
const COLUMNS = ['deviceId', 'receivedAt', 'deviceTime', 'battery', 'speed', 'latitude', 'longitude', 'satellites', 'signal', 'odometer', 'locked', 'tilt', 'vibration'] as const
const COLUMN_LIST = COLUMNS.map(snakeCase).join(', ')
/** PostgreSQL: a whole batch is one statement of one array per column, prepared once per connection. */
const PG_TYPES = ['bigint', 'timestamptz', 'timestamptz', 'float8', 'float8', 'float8', 'float8', 'int', 'int', 'float8', 'bool', 'float8', 'float8']
const PG_INSERT = `insert into iot_telemetry (${COLUMN_LIST}) select * from unnest(${PG_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`
runsOften(PG_INSERT)
/** SQLite: a multi-row INSERT per chunk; its text is made once per chunk size. */
const sqliteInserts = new Map<number, string>()
const sqliteInsert = (rows: number) => {
  let text = sqliteInserts.get(rows)
  if (!text) {
    const row = `(${COLUMNS.map(() => '?').join(', ')})`
    text = `insert into iot_telemetry (${COLUMN_LIST}) values ${Array.from({ length: rows }, () => row).join(', ')}`
    sqliteInserts.set(rows, text)
  }
  return text
}
/** A failed write is tried again after this long (doubling up to a minute): what waits holds the gate, so devices keep what is not written. */
const RETRY_MS = 500
/** Rows one retention DELETE removes: each statement holds SQLite's single writer only briefly. */
const DELETE_CHUNK = 5000

export interface TelemetryRecorderOptions {
  /** How long a report waits for others before they are written together (default 1 s). */
  flushMs?: number
  /** Written at once when this many wait (default 5,000). */
  maxBatch?: number
}

type Row = Insertable<Database['iotTelemetry']>
interface Batch {
  rows: Row[]
  /** Reports in it that were sent again (MQTT DUP) and carry a device time. */
  dups: number
}
/** How far back a report sent again is looked for: redeliveries come within minutes of the first. */
const DUP_WINDOW_MS = 3_600_000

/** What a telemetry report stores: the server's receive time, and the device's own clock if it sent one. */
export function telemetryRow(m: UpMessage<TelemetryPayload>): Row {
  const p = m.payload
  return {
    deviceId: m.device.deviceId,
    receivedAt: new Date(m.receivedAt).toISOString(),
    deviceTime: p.ts ? new Date(p.ts).toISOString() : null,
    battery: p.battery ?? null,
    speed: p.gps?.speed ?? null,
    latitude: p.gps?.lat ?? null,
    longitude: p.gps?.lng ?? null,
    satellites: p.gps?.satellites ?? null,
    signal: p.signal === undefined ? null : Math.round(p.signal),
    odometer: p.odometer ?? null,
    // 1 and 0: SQLite binds no booleans, and PostgreSQL reads them as true and false.
    locked: p.locked === undefined ? null : Number(p.locked),
    tilt: p.tilt ?? null,
    vibration: p.vibration ?? null,
  }
}

/**
 * Keeps the telemetry history: reports are collected for a quarter of a second and written in one
 * statement per batch (PostgreSQL: arrays bound to a prepared INSERT … SELECT unnest; SQLite: a
 * multi-row INSERT per 500 rows, one transaction), with SQL made once, not per report. Each report is
 * acknowledged to its device once its batch is committed (UpMessage.hold). A report sent again
 * (MQTT DUP) after its row was written, but before its acknowledgement left, is written once: rows
 * of the same device and device time are looked for first. Rows older than
 * iot.telemetry.retentionDays are deleted by the retention job (ops/maintenance), through sweep().
 */
export class TelemetryRecorder {
  private readonly buffer: WriteBehind<Batch>
  private closed = false
  /** Rows written since start, and reports found already written (sent again). */
  written = 0
  duplicates = 0

  constructor(
    private readonly deps: { db: Db; dialect: Dialect; configValues: ConfigValues; logger: FastifyBaseLogger },
    private readonly options: TelemetryRecorderOptions = {},
  ) {
    this.buffer = new WriteBehind<Batch>({
      delayMs: options.flushMs ?? 250,
      maxSize: options.maxBatch ?? 5000,
      empty: () => ({ rows: [], dups: 0 }),
      size: (b) => b.rows.length,
      write: (b) => this.write(b),
      onError: (err) => deps.logger.error({ err }, 'could not write the telemetry history: its reports are not acknowledged'),
    })
  }

  record(m: UpMessage<TelemetryPayload>): void {
    const row = telemetryRow(m)
    const dup = Boolean(m.dup && row.deviceTime)
    const fill = (b: Batch) => {
      b.rows.push(row)
      if (dup) b.dups++
    }
    if (m.hold) m.hold(this.buffer.addWritten(fill))
    else this.buffer.add(fill)
  }

  private async write(batch: Batch) {
    let wait = RETRY_MS
    for (;;) {
      try {
        const rows = batch.dups ? await this.withoutWritten(batch.rows) : batch.rows
        await this.insert(rows)
        this.written += rows.length
        return
      } catch (err) {
        // Closing: the reports stay unacknowledged and come again to the next start.
        if (this.closed) throw err
        this.deps.logger.error({ err, rows: batch.rows.length, retryInMs: wait }, 'could not write the telemetry history; trying again')
        await new Promise((r) => setTimeout(r, wait))
        wait = Math.min(wait * 2, 60_000)
      }
    }
  }

  private async insert(rows: Row[]) {
    const db = this.deps.db
    if (this.dialect === 'postgres') {
      const columns = COLUMNS.map(() => new Array<unknown>(rows.length))
      for (let r = 0; r < rows.length; r++) {
        const row = rows[r]!
        for (let c = 0; c < COLUMNS.length; c++) columns[c]![r] = row[COLUMNS[c]!] ?? null
      }
      // locked is 1/0 (telemetryRow); the bool[] cast wants true/false.
      columns[10] = columns[10]!.map((v) => (v === null ? null : Boolean(v)))
      await db.executeQuery(CompiledQuery.raw(PG_INSERT, columns))
      return
    }
    await db.transaction().execute(async (tx) => {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const chunk = rows.slice(i, i + INSERT_CHUNK)
        const values: unknown[] = []
        for (const row of chunk) for (const c of COLUMNS) values.push(row[c] ?? null)
        await tx.executeQuery(CompiledQuery.raw(sqliteInsert(chunk.length), values))
      }
    })
  }

  /** The rows not yet written: a report sent again carries its device time, which its first row kept. */
  private async withoutWritten(rows: Row[]): Promise<Row[]> {
    const timed = rows.filter((r) => r.deviceTime)
    const since = new Date(Date.now() - DUP_WINDOW_MS).toISOString()
    const seen = new Set<string>()
    for (let i = 0; i < timed.length; i += INSERT_CHUNK) {
      const chunk = timed.slice(i, i + INSERT_CHUNK)
      const found = await this.deps.db
        .selectFrom('iotTelemetry')
        .select(['deviceId', 'deviceTime'])
        .where('deviceId', 'in', [...new Set(chunk.map((r) => r.deviceId))])
        .where('receivedAt', '>=', since)
        .where('deviceTime', 'in', [...new Set(chunk.map((r) => r.deviceTime!))])
        .execute()
      for (const f of found) seen.add(`${f.deviceId} ${new Date(f.deviceTime!).toISOString()}`)
    }
    if (!seen.size) return rows
    const fresh: Row[] = []
    for (const r of rows) {
      const key = `${r.deviceId} ${r.deviceTime}`
      if (r.deviceTime && seen.has(key)) {
        this.duplicates++
        continue
      }
      // Twice in this very batch: once is enough.
      if (r.deviceTime) seen.add(key)
      fresh.push(r)
    }
    return fresh
  }

  /** Resolves when every report recorded so far is stored. */
  flush(): Promise<void> {
    return this.buffer.flush()
  }

  /**
   * Deletes rows older than the retention period; returns how many. PostgreSQL drops each day's
   * partition older than that whole and deletes the rest (partitions.ts); SQLite deletes a chunk at a
   * time through the time index. Instances sweeping at once only delete what the other has not:
   * nothing is counted twice and nothing but old rows goes.
   */
  async sweep(now = Date.now()): Promise<number> {
    const days = await this.deps.configValues.int(TELEMETRY_RETENTION_KEY, DEFAULT_TELEMETRY_RETENTION_DAYS)
    if (this.dialect === 'postgres') return sweepTelemetryPartitions(this.deps.db, new Date(now - days * 86_400_000), () => this.closed)
    const cutoff = new Date(now - days * 86_400_000).toISOString()
    const db = this.deps.db
    let deleted = 0
    while (!this.closed) {
      const oldest = db.selectFrom('iotTelemetry').select('telemetryId').where('receivedAt', '<', cutoff).orderBy('receivedAt').limit(DELETE_CHUNK)
      const result = await db.deleteFrom('iotTelemetry').where('telemetryId', 'in', oldest).executeTakeFirst()
      const n = Number(result.numDeletedRows)
      deleted += n
      if (n < DELETE_CHUNK) break
    }
    return deleted
  }

  private get dialect() {
    return this.deps.dialect
  }

  async close(): Promise<void> {
    // The last batches are written, each tried once: what fails stays unacknowledged for the next start.
    this.closed = true
    await this.buffer.close()
  }
}
