import type { TelemetryPayload } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import { CompiledQuery, type Transaction } from 'kysely'
import { runsOften } from '../../../db/pg-named'
import { snakeCase } from '../../../db/schema-gen/shape'
import { inCommit, type SharedCommits, WriteBehind } from '../../../gateway/write-behind'
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
const WIDTH = COLUMNS.length
/** Where a row's device id, device time and locked flag sit among its WIDTH values. */
const DEVICE_ID = 0
const DEVICE_TIME = 2
const LOCKED = 10
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

/**
 * A batch is its rows' values one after another (WIDTH a row, in COLUMNS order), bound as they are:
 * no object per report. A report waits in its batch until the commit, long enough to be promoted out
 * of V8's young generation, so whatever it holds there is old-generation garbage, freed only by a
 * full collection (docs/ops/capacity.md › Memory under steady ingest): the values alone promote
 * about half what a row object did (heap sampling at 2,500/s: ~360 → ~180 bytes a report), and
 * nothing is copied again to bind them.
 */
interface Batch {
  values: unknown[]
  /** Reports in it that were sent again (MQTT DUP) and carry a device time. */
  dups: number
}
/** How far back a report sent again is looked for: redeliveries come within minutes of the first. */
const DUP_WINDOW_MS = 3_600_000

/** Appends what a telemetry report stores, in COLUMNS order: the server's receive time, and the device's own clock if it sent one. */
export function pushTelemetryValues(m: UpMessage<TelemetryPayload>, values: unknown[]): void {
  const p = m.payload
  const gps = p.gps
  values.push(
    m.device.deviceId,
    new Date(m.receivedAt).toISOString(),
    p.ts ? new Date(p.ts).toISOString() : null,
    p.battery ?? null,
    gps?.speed ?? null,
    gps?.lat ?? null,
    gps?.lng ?? null,
    gps?.satellites ?? null,
    p.signal === undefined ? null : Math.round(p.signal),
    p.odometer ?? null,
    // 1 and 0: SQLite binds no booleans, and PostgreSQL reads them as true and false.
    p.locked === undefined ? null : Number(p.locked),
    p.tilt ?? null,
    p.vibration ?? null,
  )
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
    private readonly deps: { db: Db; dialect: Dialect; configValues: ConfigValues; logger: FastifyBaseLogger; commits?: SharedCommits },
    private readonly options: TelemetryRecorderOptions = {},
  ) {
    this.buffer = new WriteBehind<Batch>({
      delayMs: options.flushMs ?? 250,
      maxSize: options.maxBatch ?? 5000,
      empty: () => ({ values: [], dups: 0 }),
      size: (b) => b.values.length / WIDTH,
      write: (b) => this.write(b),
      onError: (err) => deps.logger.error({ err }, 'could not write the telemetry history: its reports are not acknowledged'),
    })
  }

  record(m: UpMessage<TelemetryPayload>): void {
    const dup = Boolean(m.dup && m.payload.ts)
    const fill = (b: Batch) => {
      pushTelemetryValues(m, b.values)
      if (dup) b.dups++
    }
    if (m.hold) m.hold(this.buffer.addWritten(fill))
    else this.buffer.add(fill)
  }

  private async write(batch: Batch) {
    let wait = RETRY_MS
    for (;;) {
      try {
        const values = batch.dups ? await this.withoutWritten(batch.values) : batch.values
        await this.insert(values)
        this.written += values.length / WIDTH
        return
      } catch (err) {
        // Closing: the reports stay unacknowledged and come again to the next start.
        if (this.closed) throw err
        this.deps.logger.error({ err, rows: batch.values.length / WIDTH, retryInMs: wait }, 'could not write the telemetry history; trying again')
        await new Promise((r) => setTimeout(r, wait))
        wait = Math.min(wait * 2, 60_000)
      }
    }
  }

  private async insert(values: unknown[]) {
    const db = this.deps.db
    const rows = values.length / WIDTH
    if (this.dialect === 'postgres') {
      const columns = COLUMNS.map(() => new Array<unknown>(rows))
      for (let r = 0, v = 0; r < rows; r++) for (let c = 0; c < WIDTH; c++, v++) columns[c]![r] = values[v]
      // locked is 1/0 (pushTelemetryValues); the bool[] cast wants true/false.
      columns[LOCKED] = columns[LOCKED]!.map((v) => (v === null ? null : Boolean(v)))
      await db.executeQuery(CompiledQuery.raw(PG_INSERT, columns))
      return
    }
    const body = async (tx: Transaction<Database>) => {
      for (let r = 0; r < rows; r += INSERT_CHUNK) {
        const n = Math.min(INSERT_CHUNK, rows - r)
        await tx.executeQuery(CompiledQuery.raw(sqliteInsert(n), n === rows ? values : values.slice(r * WIDTH, (r + n) * WIDTH)))
      }
    }
    // With the device state of the same reports, in one commit (gateway/write-behind.ts › SharedCommits).
    await inCommit(db, this.deps.commits, body)
  }

  /** The rows not yet written (their values): a report sent again carries its device time, which its first row kept. */
  private async withoutWritten(values: unknown[]): Promise<unknown[]> {
    const timed: { deviceId: number; deviceTime: string }[] = []
    for (let v = 0; v < values.length; v += WIDTH) {
      const deviceTime = values[v + DEVICE_TIME] as string | null
      if (deviceTime) timed.push({ deviceId: values[v + DEVICE_ID] as number, deviceTime })
    }
    const since = new Date(Date.now() - DUP_WINDOW_MS).toISOString()
    const seen = new Set<string>()
    for (let i = 0; i < timed.length; i += INSERT_CHUNK) {
      const chunk = timed.slice(i, i + INSERT_CHUNK)
      const found = await this.deps.db
        .selectFrom('iotTelemetry')
        .select(['deviceId', 'deviceTime'])
        .where('deviceId', 'in', [...new Set(chunk.map((r) => r.deviceId))])
        .where('receivedAt', '>=', since)
        .where('deviceTime', 'in', [...new Set(chunk.map((r) => r.deviceTime))])
        .execute()
      for (const f of found) seen.add(`${f.deviceId} ${new Date(f.deviceTime!).toISOString()}`)
    }
    if (!seen.size) return values
    const fresh: unknown[] = []
    for (let v = 0; v < values.length; v += WIDTH) {
      const deviceTime = values[v + DEVICE_TIME] as string | null
      const key = `${values[v + DEVICE_ID] as number} ${deviceTime}`
      if (deviceTime && seen.has(key)) {
        this.duplicates++
        continue
      }
      // Twice in this very batch: once is enough.
      if (deviceTime) seen.add(key)
      for (let c = 0; c < WIDTH; c++) fresh.push(values[v + c])
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
