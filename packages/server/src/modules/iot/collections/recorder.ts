import type { TelemetryPayload } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { Insertable } from 'kysely'
import { WriteBehind } from '../../../gateway/write-behind'
import type { UpMessage } from '../../../gateway/types'
import type { ConfigValues } from '../../../platform/config-keys'
import type { Db } from '../../../db/database'
import type { Database } from '../../../db/schema'

export const TELEMETRY_RETENTION_KEY = 'iot.telemetry.retentionDays'
export const DEFAULT_TELEMETRY_RETENTION_DAYS = 30

/** Columns of one row (14 with the id): 500 rows bind 6,500 values, far below SQLite's 32,766 per statement. */
const INSERT_CHUNK = 500
/** Rows one retention DELETE removes: each statement holds SQLite's single writer only briefly. */
const DELETE_CHUNK = 5000

export interface TelemetryRecorderOptions {
  /** How long a report waits for others before they are written together (default 1 s). */
  flushMs?: number
  /** Written at once when this many wait (default 5,000). */
  maxBatch?: number
}

type Row = Insertable<Database['iotTelemetry']>

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
 * Keeps the telemetry history: reports are collected for about a second and written in multi-row
 * INSERTs (10,000 devices every 30 s are ~330 rows a second: one transaction, not 330), and rows
 * older than iot.telemetry.retentionDays are deleted by the retention job (ops/maintenance), through sweep().
 */
export class TelemetryRecorder {
  private readonly buffer: WriteBehind<Row[]>
  private closed = false

  constructor(
    private readonly deps: { db: Db; configValues: ConfigValues; logger: FastifyBaseLogger },
    private readonly options: TelemetryRecorderOptions = {},
  ) {
    this.buffer = new WriteBehind<Row[]>({
      delayMs: options.flushMs ?? 1000,
      maxSize: options.maxBatch ?? 5000,
      empty: () => [],
      size: (b) => b.length,
      write: (b) => this.write(b),
      onError: (err) => deps.logger.error({ err }, 'could not write the telemetry history'),
    })
  }

  record(m: UpMessage<TelemetryPayload>): void {
    const row = telemetryRow(m)
    this.buffer.add((b) => b.push(row))
  }

  private async write(rows: Row[]) {
    await this.deps.db.transaction().execute(async (tx) => {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) await tx.insertInto('iotTelemetry').values(rows.slice(i, i + INSERT_CHUNK)).execute()
    })
  }

  /** Resolves when every report recorded so far is stored. */
  flush(): Promise<void> {
    return this.buffer.flush()
  }

  /**
   * Deletes rows older than the retention period, a chunk at a time through the time index; returns
   * how many. Instances sweeping at once only delete what the other has not: nothing is counted twice
   * and nothing but old rows goes.
   */
  async sweep(now = Date.now()): Promise<number> {
    const days = await this.deps.configValues.int(TELEMETRY_RETENTION_KEY, DEFAULT_TELEMETRY_RETENTION_DAYS)
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

  async close(): Promise<void> {
    this.closed = true
    await this.buffer.close()
  }
}
