import { CONFIG_VALUES, type DeviceEventPayload, type TelemetryPayload } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../../../db/database'
import type { UpMessage } from '../../../gateway/types'
import type { ConfigValues } from '../../../platform/config-keys'
import { readTogether } from '../../../lib/read-together'
import { type DeviceTemplate, deviceTemplates } from '../config/templates'
import type { AlarmType } from './alarms'
import type { AlarmStore } from './store'

export const LOW_BATTERY_KEY = 'iot.warning.lowBatteryPercent'
export const FALL_ANGLE_KEY = 'iot.warning.fallAngle'
export const OFFLINE_HOURS_KEY = 'iot.warning.offlineHours'

const DEFAULT_LOW_BATTERY = 15
const DEFAULT_FALL_ANGLE = 60
const DEFAULT_OFFLINE_HOURS = 24
const DEFAULT_SENSITIVITY = CONFIG_VALUES.find((v) => v.key === 'vibrationSensitivity')?.default ?? 3
/** Above the threshold by this much before a low battery clears: a charge hovering at it does not flap. */
export const BATTERY_HYSTERESIS = 5
/** Back under the angle by this much before a fall clears (the bike stood up again). */
export const TILT_HYSTERESIS = 10
/** Telemetry is frequent: a device's thresholds are read again after this long. */
const THRESHOLD_TTL_MS = 30_000

export interface Thresholds {
  lowBattery: number
  fallAngle: number
  /** The vibration level (0–5) that counts as theft while locked. */
  theftVibration: number
}

/** Sensitivity 1 (least) to 5 (most): 5 takes any vibration (1), 1 only the strongest (5). */
export const theftVibrationOf = (sensitivity: number) => Math.min(5, Math.max(1, 6 - Math.round(sensitivity)))

type AlarmOfReports = 'lowBattery' | 'fall' | 'theft'
type Outcome = Partial<Record<AlarmOfReports, boolean>>

/**
 * What a report says of each alarm it bears on, from the device's thresholds and what was judged
 * last (an undefined `now` keeps that: inside a hysteresis band). The one place these rules live:
 * judging a report and telling that it changes nothing both read it.
 */
function verdictsOf(p: TelemetryPayload, t: Thresholds, outcome: Outcome): { type: AlarmOfReports; now: boolean | undefined }[] {
  const verdicts: { type: AlarmOfReports; now: boolean | undefined }[] = []
  if (p.battery !== undefined) verdicts.push({ type: 'lowBattery', now: p.battery < t.lowBattery ? true : p.battery >= t.lowBattery + BATTERY_HYSTERESIS ? false : outcome.lowBattery })
  if (p.tilt !== undefined) verdicts.push({ type: 'fall', now: p.tilt > t.fallAngle ? true : p.tilt <= t.fallAngle - TILT_HYSTERESIS ? false : outcome.fall })
  // Theft lasts while the bike stays locked: it ends when its rider unlocks it.
  if (p.locked === false) verdicts.push({ type: 'theft', now: false })
  else if (p.locked === true && p.vibration !== undefined && p.vibration >= t.theftVibration) verdicts.push({ type: 'theft', now: true })
  return verdicts
}

/** The warning's detail when a report raises it. */
function raisedDetail(type: AlarmOfReports, p: TelemetryPayload, t: Thresholds): string {
  if (type === 'lowBattery') return `Battery ${p.battery} % (below ${t.lowBattery} %)`
  if (type === 'fall') return `Tilt ${p.tilt}° (beyond ${t.fallAngle}°)`
  return `Vibration ${p.vibration} while locked (alarm level ${t.theftVibration})`
}

/**
 * The rules on device data. Each message is judged in memory against the device's thresholds
 * (cached); the database is touched only when a rule's outcome changes for this instance: a
 * device that reports 8 % every ten seconds raises once. An outcome this instance has not seen yet
 * (after a start, or when the shared subscription sent the device's earlier messages elsewhere) is
 * written once: a raise that counts a repeat, or a clear that finds nothing.
 */
export class AlarmRules {
  private readonly thresholds = new Map<number, { value: Thresholds; until: number }>()
  private readonly outcomes = new Map<number, Outcome>()
  /** The tail of each device's judging, while one runs. */
  private readonly queues = new Map<number, Promise<void>>()
  private defaults: { value: { lowBattery: number; fallAngle: number }; until: number } | null = null
  /**
   * Templates asked for in the same tick are read together: a fleet's devices each come due every
   * THRESHOLD_TTL_MS, 700 a second with 20,000 reporting every 5 s, and one query each was most of an
   * instance's work behind PostgreSQL. Not a cache (the thresholds map is).
   */
  private readonly templateOf: (deviceId: number) => Promise<DeviceTemplate | null>

  constructor(
    private readonly db: Db,
    private readonly config: ConfigValues,
    private readonly alarms: AlarmStore,
    private readonly log: FastifyBaseLogger,
  ) {
    this.templateOf = readTogether<number, DeviceTemplate | null>((ids) => deviceTemplates(this.db, ids), null)
  }

  async thresholdsOf(deviceId: number): Promise<Thresholds> {
    const cached = this.thresholds.get(deviceId)
    if (cached && cached.until > Date.now()) return cached.value
    if (!this.defaults || this.defaults.until <= Date.now()) {
      const value = { lowBattery: await this.config.int(LOW_BATTERY_KEY, DEFAULT_LOW_BATTERY), fallAngle: await this.config.int(FALL_ANGLE_KEY, DEFAULT_FALL_ANGLE) }
      this.defaults = { value, until: Date.now() + THRESHOLD_TTL_MS }
    }
    const template = await this.templateOf(deviceId)
    const value: Thresholds = {
      lowBattery: template?.lowBatteryPercent ?? this.defaults.value.lowBattery,
      fallAngle: template?.fallAngle ?? this.defaults.value.fallAngle,
      theftVibration: theftVibrationOf(template?.vibrationSensitivity ?? DEFAULT_SENSITIVITY),
    }
    this.thresholds.set(deviceId, { value, until: Date.now() + THRESHOLD_TTL_MS })
    return value
  }

  /** Forgets the device's cached thresholds and outcomes (a template pushed, a device deleted). */
  forget(deviceId?: number) {
    if (deviceId === undefined) {
      this.thresholds.clear()
      this.outcomes.clear()
      this.defaults = null
    } else {
      this.thresholds.delete(deviceId)
      this.outcomes.delete(deviceId)
    }
  }

  /**
   * One device's messages are judged one after another, in arrival order: the gateway does not wait
   * for a handler, and two reports judged at once (the one on connect, tilt 0, and a fall right after
   * it) could otherwise raise the fall and then clear it with the older reading.
   */
  private inOrder(deviceId: number, judge: () => Promise<void>): Promise<void> {
    const next = (this.queues.get(deviceId) ?? Promise.resolve()).then(judge)
    const kept = next.catch(() => {})
    this.queues.set(deviceId, kept)
    void kept.then(() => {
      if (this.queues.get(deviceId) === kept) this.queues.delete(deviceId)
    })
    return next
  }

  /** undefined when the report was judged at once (it changes nothing), else the judging's promise. */
  onTelemetry(m: UpMessage<TelemetryPayload>): Promise<void> | undefined {
    // Nearly every report changes no outcome: at a fleet's rate the queue's promises for each were a
    // measurable share of the ingest's CPU and garbage (issue 45). Judged here only when nothing of the
    // device is being judged, so the order holds.
    if (!this.queues.has(m.device.deviceId) && this.changesNothing(m)) return undefined
    return this.inOrder(m.device.deviceId, () => this.judgeTelemetry(m))
  }

  /**
   * Whether judging the report would find every outcome as it is, and so do nothing: false when it
   * cannot tell without waiting (thresholds not cached, no outcome seen yet).
   */
  private changesNothing(m: UpMessage<TelemetryPayload>): boolean {
    const p = m.payload
    if (p.battery === undefined && p.tilt === undefined && p.vibration === undefined && p.locked === undefined) return true
    const cached = this.thresholds.get(m.device.deviceId)
    const outcome = this.outcomes.get(m.device.deviceId)
    if (!cached || cached.until <= Date.now() || !outcome) return false
    return verdictsOf(p, cached.value, outcome).every((v) => v.now === undefined || outcome[v.type] === v.now)
  }

  onEvent(m: UpMessage<DeviceEventPayload>): Promise<void> {
    return this.inOrder(m.device.deviceId, () => this.judgeEvent(m))
  }

  private async judgeTelemetry(m: UpMessage<TelemetryPayload>) {
    const p = m.payload
    if (p.battery === undefined && p.tilt === undefined && p.vibration === undefined && p.locked === undefined) return
    const deviceId = m.device.deviceId
    const t = await this.thresholdsOf(deviceId)
    const outcome = this.outcomes.get(deviceId) ?? {}
    this.outcomes.set(deviceId, outcome)
    for (const v of verdictsOf(p, t, outcome)) await this.judge(deviceId, outcome, v.type, v.now, v.now ? raisedDetail(v.type, p, t) : '')
  }

  private async judge(deviceId: number, outcome: Outcome, type: 'lowBattery' | 'fall' | 'theft', now: boolean | undefined, detail: string) {
    if (now === undefined || outcome[type] === now) return
    outcome[type] = now
    try {
      if (now) await this.alarms.raise({ deviceId, type, detail })
      else await this.alarms.clear(deviceId, type)
    } catch (err) {
      // Judged again on the next message.
      delete outcome[type]
      throw err
    }
  }

  private async judgeEvent(m: UpMessage<DeviceEventPayload>) {
    const p = m.payload
    if (p.type !== 'fault') return
    if (p.cleared) await this.alarms.clear(m.device.deviceId, 'fault', p.code)
    else await this.alarms.raise({ deviceId: m.device.deviceId, type: 'fault', code: p.code, detail: p.message ? `${p.code}: ${p.message}` : p.code })
  }

  /**
   * Raises an offline alarm for each device silent longer than the configured hours that has none
   * active. Every instance sweeps: the raise inserts only where no active alarm is (its unique key),
   * so a device is warned about once. Returns how many were raised.
   */
  async sweepOffline(batch = 500): Promise<number> {
    const hours = await this.config.int(OFFLINE_HOURS_KEY, DEFAULT_OFFLINE_HOURS)
    const cutoff = new Date(Date.now() - hours * 3_600_000).toISOString()
    // A device back while no event of it reached this instance: its alarm is over all the same.
    const back = await this.db
      .selectFrom('iotAlarm as a')
      .innerJoin('iotDevice as d', 'd.deviceId', 'a.deviceId')
      .select('a.deviceId')
      .where('a.type', '=', 'offline')
      .where('a.state', 'in', ['activeUnack', 'activeAck'])
      .where('d.online', '=', 1)
      .execute()
    for (const a of back) await this.alarms.clear(Number(a.deviceId), 'offline')
    let raised = 0
    let after = 0
    for (;;) {
      const silent = await this.db
        .selectFrom('iotDevice as d')
        .select(['d.deviceId', 'd.lastSeenAt'])
        .where('d.online', '=', 0)
        .where('d.lastSeenAt', '<', cutoff)
        .where('d.deviceId', '>', after)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('iotAlarm as a').select('a.alarmId').whereRef('a.deviceId', '=', 'd.deviceId').where('a.type', '=', 'offline').where('a.state', 'in', ['activeUnack', 'activeAck']))),
        )
        .orderBy('d.deviceId')
        .limit(batch)
        .execute()
      for (const d of silent) {
        const lastSeen: unknown = d.lastSeenAt
        const seen = lastSeen instanceof Date ? lastSeen.toISOString() : String(lastSeen)
        if (await this.alarms.raiseOnce({ deviceId: Number(d.deviceId), type: 'offline', detail: `Last seen ${seen} (over ${hours} h)` })) raised++
      }
      if (silent.length < batch) return raised
      after = Number(silent[silent.length - 1]!.deviceId)
    }
  }

  /** A device heard from again: its offline alarm is over. */
  async deviceBack(deviceId: number) {
    await this.alarms.clear(deviceId, 'offline' satisfies AlarmType)
  }

  logFailure(what: string) {
    return (err: unknown) => this.log.warn({ err }, `warning rule failed: ${what}`)
  }
}
