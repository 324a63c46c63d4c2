import { DEFAULT_FLOW_WARNING_PERCENT, type DeviceEvent, type DeviceState, deviceState, type PresencePayload, reportedIccid, type StatusPayload, type TelemetryPayload } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import { sql, type Transaction, type Updateable } from 'kysely'
import type { Db, Dialect } from '../db/database'
import type { Database } from '../db/schema'
import { snakeCase } from '../db/schema-gen/shape'
import { cardHolders, heldByAnother } from './card-holders'
import type { IotDeviceTable } from '../db/schema'
import type { ConfigValues } from '../platform/config-keys'
import type { IotEventBus } from './events'
import type { Gateway, KnownDevice, UpMessage } from './types'
import { inCommit, type SharedCommits, WriteBehind } from './write-behind'

export const HEARTBEAT_SECONDS_KEY = 'iot.heartbeat.seconds'
export const FLOW_WARNING_PERCENT_KEY = 'iot.flow.warningPercent'
export const DEFAULT_HEARTBEAT_SECONDS = 60
/** Silent for this many heartbeat intervals: offline, even without a last will (a broker restart loses wills). */
const MISSED_HEARTBEATS = 3
/** The telemetry batch's delay (collections/recorder.ts): device state that only reports is written with it. */
const DEFAULT_REPORT_FLUSH_MS = 250

export interface PresenceOptions {
  /** How long a presence or status message waits for others before they are written together. */
  flushMs?: number
  /**
   * How long what only reports (telemetry, heartbeats) waits: by default the telemetry batch's 250 ms
   * (flushMs when that is given), so on SQLite both are written in one transaction (SharedCommits),
   * and a device reporting every second is one row update per batch, not five.
   */
  reportFlushMs?: number
  /** Written at once when this many devices have changes waiting (default 5,000). */
  maxBatch?: number
  /** How often silent devices are looked for. */
  sweepEveryMs?: number
}

/** What the device reported since the last write, merged: the latest value of each field wins. */
interface Pending {
  device: KnownDevice
  /** Set by presence: true online, false offline. */
  online?: boolean
  /** When the offline presence arrived. */
  offlineAt?: string
  /** Presence said online: the commands service delivers what waited for it. */
  announcedOnline: boolean
  /** The device spoke after its last presence message, so it is connected whatever the row says. */
  spoke: boolean
  /** It was connected at some point of the batch (an online and an offline may meet in one). */
  wasConnected: boolean
  changes: Updateable<IotDeviceTable>
  activated?: boolean
  sim?: NonNullable<StatusPayload['sim']>
}

/** The device's columns a DeviceEvent is made of. */
const EVENT_COLUMNS = ['deviceId', 'sn', 'state', 'online', 'activated', 'flowState', 'lastSeenAt', 'battery', 'firmwareVersion', 'configVersion', 'hardwareVersion', 'transportMode', 'simNumber', 'remainingFlow'] as const

type EventRow = { [K in (typeof EVENT_COLUMNS)[number]]: unknown }
const EVENT_SQL_COLUMNS = EVENT_COLUMNS.map(snakeCase).join(', ')

const REPORTED = new Set(['lastSeenAt', 'battery', 'signal', 'latitude', 'longitude'])
/** Only reported values (telemetry, heartbeats): no presence, status, activation or SIM to weigh. */
const onlyReports = (p: Pending) => p.online === undefined && p.activated === undefined && !p.sim && p.spoke && Object.keys(p.changes).every((k) => REPORTED.has(k))

export function deviceEventOf(row: EventRow, state = row.state as DeviceState): DeviceEvent {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))
  return {
    deviceId: Number(row.deviceId),
    sn: String(row.sn),
    state,
    flowState: row.flowState === 'warning' ? 'warning' : 'normal',
    lastSeenAt: (row.lastSeenAt as string | null) ?? null,
    battery: num(row.battery),
    firmwareVersion: (row.firmwareVersion as string | null) ?? null,
    configVersion: (row.configVersion as string | null) ?? null,
    hardwareVersion: (row.hardwareVersion as string | null) ?? null,
    transportMode: row.transportMode === 'on' ? 'on' : 'off',
    simNumber: (row.simNumber as string | null) ?? null,
    remainingFlow: num(row.remainingFlow),
  }
}

/** remaining < percent % of the package: warning. */
export function flowStateOf(usedMb: number, limitMb: number, warningPercent: number): { remainingFlow: number; flowState: 'normal' | 'warning' } {
  const remainingFlow = Math.round((limitMb - usedMb) * 1000) / 1000
  return { remainingFlow, flowState: remainingFlow < (limitMb * warningPercent) / 100 ? 'warning' : 'normal' }
}

/**
 * Device state from what devices report (presence, heartbeat, status, telemetry), kept in iot_device
 * through a write-behind buffer, with a 'device' event for every device written. Its sweep marks
 * devices offline that have been silent too long (the scheduler's devicePresence, every sweepEveryMs);
 * it is a conditional update, so a sweep run by hand beside it marks each device once.
 */
export class Presence {
  private readonly buffer: WriteBehind<Map<number, Pending>>
  private readonly onlineListeners = new Set<(device: KnownDevice) => void>()
  private readonly reportFlushMs: number

  constructor(
    private readonly deps: { db: Db; dialect: Dialect; gateway: Gateway; events: IotEventBus; configValues: ConfigValues; logger: FastifyBaseLogger; commits?: SharedCommits },
    private readonly options: PresenceOptions = {},
  ) {
    this.reportFlushMs = options.reportFlushMs ?? options.flushMs ?? DEFAULT_REPORT_FLUSH_MS
    this.buffer = new WriteBehind({
      delayMs: options.flushMs ?? 50,
      // As large as the telemetry batch: written early at 500, device state would no longer share its commit.
      maxSize: options.maxBatch ?? 5000,
      empty: () => new Map(),
      size: (b) => b.size,
      // In id order: instances writing the same devices at once then lock rows in one order, never deadlock.
      write: (b) => this.write([...b.values()].sort((x, y) => x.device.deviceId - y.device.deviceId)),
      onError: (err) => deps.logger.error({ err }, 'could not write device state'),
    })
    const { gateway } = deps
    gateway.on('presence', (m) => this.presence(m as UpMessage<PresencePayload>))
    gateway.on('heartbeat', (m) => this.pending(m, () => {}))
    gateway.on('sync', (m) => this.pending(m, () => {}))
    gateway.on('status', (m) => this.status(m as UpMessage<StatusPayload>))
    gateway.on('telemetry', (m) => this.telemetry(m as UpMessage<TelemetryPayload>))
  }

  /** Called with each device whose presence said online, once its state is written. */
  onOnline(listener: (device: KnownDevice) => void): () => void {
    this.onlineListeners.add(listener)
    return () => void this.onlineListeners.delete(listener)
  }

  private pending(m: UpMessage, fill: (p: Pending) => void) {
    const reports = m.kind === 'telemetry' || m.kind === 'heartbeat' || m.kind === 'sync'
    this.buffer.add((batch) => {
      let p = batch.get(m.device.deviceId)
      if (!p) {
        p = { device: m.device, announcedOnline: false, spoke: false, wasConnected: false, changes: {} }
        batch.set(m.device.deviceId, p)
      }
      if (m.kind !== 'presence') {
        p.spoke = true
        p.wasConnected = true
        p.changes.lastSeenAt = new Date(m.receivedAt).toISOString()
      }
      fill(p)
    }, reports ? this.reportFlushMs : undefined)
  }

  private presence(m: UpMessage<PresencePayload>) {
    this.pending(m, (p) => {
      p.online = m.payload.state === 'online'
      p.offlineAt = p.online ? undefined : new Date(m.receivedAt).toISOString()
      p.announcedOnline = p.online
      p.wasConnected ||= p.online
      p.spoke = false
      if (p.online) p.changes.lastSeenAt = new Date(m.receivedAt).toISOString()
    })
  }

  private status(m: UpMessage<StatusPayload>) {
    const s = m.payload
    this.pending(m, (p) => {
      if (s.firmwareVersion !== undefined) p.changes.firmwareVersion = s.firmwareVersion
      if (s.hardwareVersion !== undefined) p.changes.hardwareVersion = s.hardwareVersion
      if (s.configVersion !== undefined) p.changes.configVersion = s.configVersion
      if (s.transportMode !== undefined) p.changes.transportMode = s.transportMode ? 'on' : 'off'
      if (s.activated !== undefined) p.activated = s.activated
      if (s.sim) p.sim = s.sim
    })
  }

  private telemetry(m: UpMessage<TelemetryPayload>) {
    const t = m.payload
    this.pending(m, (p) => {
      if (t.battery !== undefined) p.changes.battery = t.battery
      if (t.signal !== undefined) p.changes.signal = t.signal
      if (t.gps) {
        p.changes.latitude = t.gps.lat
        p.changes.longitude = t.gps.lng
      }
    })
  }

  private async write(batch: Pending[]) {
    const { db, events, configValues } = this.deps
    const warningPercent = batch.some((p) => p.sim) ? await configValues.int(FLOW_WARNING_PERCENT_KEY, DEFAULT_FLOW_WARNING_PERCENT, 0) : DEFAULT_FLOW_WARNING_PERCENT
    const now = new Date().toISOString()
    const written: DeviceEvent[] = []
    const cameOnline: KnownDevice[] = []
    const body = async (tx: Transaction<Database>) => {
      // A card another device holds stays off this device's row until staff move it (card-holders.ts).
      const holders = await cardHolders(tx, batch.flatMap((p) => (p.sim ? [reportedIccid(p.sim)] : [])))
      // Devices that only reported (telemetry, heartbeats): one statement for all of them.
      const reportsOnly = batch.filter(onlyReports)
      const bulk = reportsOnly.length > 1 ? await this.writeReports(tx, reportsOnly) : new Map<number, EventRow>()
      for (const p of batch) {
        // Typed loosely: online and activatedAt are set by expressions (activatedAt keeps its first value).
        const set: Record<string, unknown> = { ...p.changes }
        if (p.online) set.online = 1
        // Another instance may have written a later message of the device first (a reboot's offline and
        // online can go to different instances): offline only if nothing was heard since it arrived.
        else if (p.online === false) set.online = sql`case when ${sql.ref('lastSeenAt')} > ${p.offlineAt} then ${sql.ref('online')} else ${0} end`
        if (p.activated !== undefined) {
          set.activated = p.activated ? 1 : 0
          if (p.activated) set.activatedAt = sql<string>`coalesce(${sql.ref('activatedAt')}, ${now})`
        }
        if (p.sim && !heldByAnother(holders, reportedIccid(p.sim), p.device.deviceId)) Object.assign(set, { simNumber: p.sim.iccid, simUsedMb: p.sim.usedMb, simLimitMb: p.sim.limitMb, ...flowStateOf(p.sim.usedMb, p.sim.limitMb, warningPercent) })
        const row = bulk.size && onlyReports(p) ? bulk.get(p.device.deviceId) : await tx.updateTable('iotDevice').set(set).where('deviceId', '=', p.device.deviceId).returning(EVENT_COLUMNS).executeTakeFirst()
        // Deleted meanwhile: nothing to keep.
        if (!row) continue
        // A device that speaks is connected, even if a sweep (or a lost presence message) said otherwise.
        const revived = p.online === undefined && p.spoke && !row.online
        const online = revived || Boolean(row.online)
        const state = deviceState({ everConnected: row.state !== 'inactive' || p.wasConnected || online, online, activated: Boolean(row.activated) })
        if (state !== row.state || revived) {
          await tx
            .updateTable('iotDevice')
            .set({ state, ...(revived ? { online: 1 } : {}) })
            .where('deviceId', '=', p.device.deviceId)
            .execute()
        }
        // A heartbeat alone only moves the last-seen time: 10,000 devices would send every open console
        // ~170 events a second for it. The time travels with the device's next real change.
        const heartbeatOnly = p.online === undefined && p.activated === undefined && !p.sim && Object.keys(p.changes).every((k) => k === 'lastSeenAt')
        if (!heartbeatOnly || state !== row.state || revived) written.push(deviceEventOf(row, state))
        if (p.announcedOnline || revived) cameOnline.push(p.device)
      }
    }
    await inCommit(db, this.deps.commits, body)
    await events.publishBatch(written.map((data) => ({ type: 'device', data })))
    for (const device of cameOnline) {
      for (const listener of this.onlineListeners) {
        try {
          listener(device)
        } catch (err) {
          this.deps.logger.error({ err, sn: device.sn }, 'online listener failed')
        }
      }
    }
  }

  /**
   * The last-seen time, battery, signal and position of devices that said nothing else, in one
   * UPDATE … FROM a list of values (PostgreSQL: arrays; SQLite: one JSON parameter): at a fleet's
   * telemetry rate, one statement per batch instead of one per device. Answers the rows as written.
   */
  private async writeReports(tx: Transaction<Database>, batch: Pending[]): Promise<Map<number, EventRow>> {
    const values = batch.map((p) => [p.device.deviceId, p.changes.lastSeenAt ?? null, p.changes.battery ?? null, p.changes.signal ?? null, p.changes.latitude ?? null, p.changes.longitude ?? null] as const)
    // Unqualified: SQLite's RETURNING names only the updated table's columns, and no alias of it. The
    // values' columns are named apart from the table's for that reason.
    const returning = sql.raw(EVENT_SQL_COLUMNS)
    const set = sql`last_seen_at = coalesce(v.seen, d.last_seen_at), battery = coalesce(v.charge, d.battery), signal = coalesce(v.rssi, d.signal), latitude = coalesce(v.lat, d.latitude), longitude = coalesce(v.lng, d.longitude)`
    const column = (i: number) => values.map((v) => v[i])
    const query =
      this.deps.dialect === 'postgres'
        ? sql<EventRow>`update iot_device d set ${set}
            from unnest(${column(0)}::bigint[], ${column(1)}::timestamptz[], ${column(2)}::float8[], ${column(3)}::float8[], ${column(4)}::float8[], ${column(5)}::float8[]) as v(id, seen, charge, rssi, lat, lng)
            where d.device_id = v.id returning ${returning}`
        : sql<EventRow>`update iot_device as d set ${set}
            from (select value ->> 0 as id, value ->> 1 as seen, value ->> 2 as charge, value ->> 3 as rssi, value ->> 4 as lat, value ->> 5 as lng from json_each(${JSON.stringify(values)})) as v
            where d.device_id = v.id returning ${returning}`
    const { rows } = await query.execute(tx)
    return new Map(rows.map((r) => [Number(r.deviceId), r]))
  }

  /** Resolves when every report received so far is written. */
  flush(): Promise<void> {
    return this.buffer.flush()
  }

  /**
   * Marks online devices offline that have not been heard from since `before` (default: three
   * heartbeat intervals ago) and publishes their events; returns how many.
   */
  async sweep(before?: string): Promise<number> {
    const { db, events, configValues } = this.deps
    const cutoff = before ?? new Date(Date.now() - MISSED_HEARTBEATS * 1000 * (await configValues.int(HEARTBEAT_SECONDS_KEY, DEFAULT_HEARTBEAT_SECONDS))).toISOString()
    // Only rows still online are touched, so instances sweeping at once each mark a device once.
    const rows = await db
      .updateTable('iotDevice')
      .set({ online: 0, state: sql<string>`case when ${sql.ref('activated')} then 'activatedOffline' else 'offline' end` })
      .where('online', '=', 1)
      .where((eb) => eb.or([eb('lastSeenAt', '<', cutoff), eb('lastSeenAt', 'is', null)]))
      .returning(EVENT_COLUMNS)
      .execute()
    if (rows.length) await events.publishBatch(rows.map((row) => ({ type: 'device', data: deviceEventOf(row) })))
    return rows.length
  }

  async close(): Promise<void> {
    await this.buffer.close()
  }
}
