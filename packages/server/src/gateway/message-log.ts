import type { MessageEvent } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { Insertable, Transaction } from 'kysely'
import type { Db } from '../db/database'
import type { Database, IotMessageTable } from '../db/schema'
import type { ConfigValues } from '../platform/config-keys'
import type { IotEventBus } from './events'
import { inCommit, type SharedCommits, WriteBehind } from './write-behind'

/**
 * One message a device sent or was sent, as the gateway hands it over: the 'message' event without its
 * time, which the log stamps. Its kind is the topic's (presence, reply, command, …), or 'invalid' for a
 * payload that failed its schema.
 */
export type LoggedMessage = Omit<MessageEvent, 'time'>

export interface MessageLogOptions {
  /** How long a message waits for others before they are written together. */
  flushMs?: number
  /** Written at once when this many are waiting. */
  maxBatch?: number
}

export const RETENTION_DAYS_KEY = 'iot.message.retentionDays'
/**
 * Telemetry is the bulk of device traffic and the telemetry history keeps every report, with every
 * field of its payload: the log keeps one report per device every this many seconds (0: all of them).
 */
export const TELEMETRY_SECONDS_KEY = 'iot.message.telemetrySeconds'
export const DEFAULT_TELEMETRY_SECONDS = 300
/** How long a read of the sampling setting holds: record() is on the hot path and reads no database. */
const SETTING_MS = 10_000
const DEFAULT_RETENTION_DAYS = 7
/** Longer payloads are cut: the log is for reading, and a device must not fill the database. */
export const MAX_LOGGED_PAYLOAD = 4096
const INSERT_CHUNK = 500
/**
 * The OTA transfer's traffic is not logged: block requests come by the thousand per upgrade (64 per
 * device for a 2 MB image), and the block server counts them (modules/ota/transfer). Offers,
 * progress and aborts (kind ota) are logged like any other message.
 */
const UNLOGGED_KINDS: ReadonlySet<string> = new Set(['otaReq', 'otaBlock'])

const cut = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text)

/**
 * The device message log (iot_message): every message but heartbeats and OTA blocks, written in batches, and a
 * 'message' event for each once it is stored. Old rows are deleted by the retention job (ops/maintenance).
 */
export class MessageLog {
  private readonly buffer: WriteBehind<MessageEvent[]>
  private telemetryMs = DEFAULT_TELEMETRY_SECONDS * 1000
  private settingRead = 0
  /** When each device's last telemetry report was logged. */
  private lastTelemetry = new Map<number, number>()

  constructor(
    private readonly deps: { db: Db; events: IotEventBus; configValues: ConfigValues; logger: FastifyBaseLogger; commits?: SharedCommits },
    private readonly options: MessageLogOptions = {},
  ) {
    // The batch holds the events; the rows are made from them when written.
    this.buffer = new WriteBehind<MessageEvent[]>({
      delayMs: options.flushMs ?? 50,
      maxSize: options.maxBatch ?? 500,
      empty: () => [],
      size: (b) => b.length,
      write: (b) => this.write(b),
      onError: (err) => deps.logger.error({ err }, 'could not write the device message log'),
    })
  }

  record(message: LoggedMessage): void {
    if (UNLOGGED_KINDS.has(message.kind)) return
    if (message.kind === 'telemetry' && message.direction === 'up' && message.deviceId !== null && !this.sampled(message.deviceId)) return
    const time = new Date().toISOString()
    const payload = cut(message.payload, MAX_LOGGED_PAYLOAD)
    const kind = cut(message.kind, 16)
    const topic = cut(message.topic, 255)
    this.buffer.add((b) => b.push({ deviceId: message.deviceId, sn: message.sn, direction: message.direction, kind, topic, payload, time }))
  }

  /** Reads iot.message.telemetrySeconds now (it is read again every 10 s on its own). */
  async readSettings(): Promise<void> {
    this.settingRead = Date.now()
    this.telemetryMs = (await this.deps.configValues.int(TELEMETRY_SECONDS_KEY, DEFAULT_TELEMETRY_SECONDS, 0)) * 1000
  }

  private sampled(deviceId: number): boolean {
    const now = Date.now()
    if (now - this.settingRead > SETTING_MS) void this.readSettings().catch(() => undefined)
    if (this.telemetryMs === 0) return true
    const last = this.lastTelemetry.get(deviceId)
    if (last !== undefined && now - last < this.telemetryMs) return false
    // Forgotten wholesale now and then: the map must not grow with every device ever seen.
    if (this.lastTelemetry.size > 1_000_000) this.lastTelemetry = new Map()
    this.lastTelemetry.set(deviceId, now)
    return true
  }

  private async write(events: MessageEvent[]) {
    const rows: Insertable<IotMessageTable>[] = events.map((e) => ({ deviceId: e.deviceId, direction: e.direction, kind: e.kind, topic: e.topic, payload: e.payload, createTime: e.time }))
    const body = async (tx: Transaction<Database>) => {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) await tx.insertInto('iotMessage').values(rows.slice(i, i + INSERT_CHUNK)).execute()
    }
    await inCommit(this.deps.db, this.deps.commits, body)
    await this.deps.events.publishBatch(events.map((data) => ({ type: 'message', data })))
  }

  /** Resolves when every message recorded so far is stored. */
  flush(): Promise<void> {
    return this.buffer.flush()
  }

  /** Deletes rows older than the retention period; returns how many. */
  async prune(): Promise<number> {
    const days = await this.deps.configValues.int(RETENTION_DAYS_KEY, DEFAULT_RETENTION_DAYS)
    const cutoff = new Date(Date.now() - days * 86_400_000).toISOString()
    const result = await this.deps.db.deleteFrom('iotMessage').where('createTime', '<', cutoff).executeTakeFirst()
    return Number(result.numDeletedRows)
  }

  async close(): Promise<void> {
    await this.buffer.close()
  }
}
