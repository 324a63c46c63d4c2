import {
  ALARM_TYPE_OPTIONS,
  type Language,
  OTA_COMMIT_MARGIN_SECONDS,
  OTA_COMMIT_SECONDS,
  OTA_FAILURE_STATES,
  type OtaCampaignStatus,
  type OtaDeviceState,
  type OtaDeviceStateEvent,
  type OtaEvent,
  type OtaPart,
  type OtaPayloadKind,
  type OtaProgressPayload,
  type StatusPayload,
} from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import type { KnownDevice, UpMessage } from '../../../iot/types'
import { WriteBehind } from '../../../iot/write-behind'
import { type MessageKey, t } from '../../../platform/i18n'
import type { Services } from '../../../platform/services'
import type { RefusedUpgrade } from '../transfer'
import { abortPayload, approvedImageOf, buildOffer, type ImageRefusal, imageOf, otaIdOf, parseOtaId, refusalOf } from '../transfer/offer'
import type { OtaEventBus } from './events'
import { bothLanguages, waveName } from './reasons'
import {
  ACTIVE,
  type AnyDb,
  anyDb,
  devicesById,
  FINAL,
  isoOrNull,
  num,
  PROGRESS_RANK,
  RETRYABLE,
  type Row,
  SYSTEM,
  type TransitionRecord,
  upgradeDeviceKey,
  upgradeKey,
  WAITING,
  writeHistory,
} from './tables'
import { inDailyWindow } from './window'

export interface OtaRolloutOptions {
  /** How often each instance looks at its running campaigns (≈ 1 s); device events wake it sooner. */
  tickMs?: number
  /** The clock every rollout decision reads (tests move it: daily windows, timeouts, backoff). */
  now?: () => Date
  /** Devices of one campaign working on it at once (MAX_ACTIVE_DEVICES; tests go lower). */
  maxActiveDevices?: number
}

/** Devices one campaign notifies per tick without a rate limit: a wave of 10,000 goes out in a few ticks. */
const UNLIMITED_BATCH = 2000
const RATE_WINDOW_MS = 60_000

/**
 * How many devices a rate of `rate` a minute lets out now, spread over the minute rather than all at
 * its start: the k-th device since the oldest of the last minute (`first`; `notified` of them) goes
 * out k × 60/rate s after it, so no 60 s ever hold more than `rate`; and after a quiet spell no more
 * than a tick's share leaves at once (`last`: the newest). Read from the devices' own notified
 * times, so every instance ticking the campaign (its row locked) keeps the same pace.
 */
export function spreadOverTheMinute(rate: number, notified: number, first: string | null, last: string | null, now: Date, tickMs: number): number {
  if (!notified || !first || !last) return 1
  const scheduled = Math.floor(((now.getTime() - Date.parse(first)) * rate) / RATE_WINDOW_MS) + 1 - notified
  const sinceLast = Math.min(Math.max(now.getTime() - Date.parse(last), 0), Math.max(tickMs, 1000))
  return Math.max(0, Math.min(scheduled, Math.ceil((sinceLast * rate) / RATE_WINDOW_MS)))
}
/**
 * Devices of one campaign working on it at once. The image leaves no faster with more: the server's
 * network is the limit. But every downloading device has a window of blocks in flight, and the
 * embedded broker keeps what a device has not read yet in the server's memory: 9,000 devices at once
 * took the server down in the bench, 1,000 did not.
 */
export const MAX_ACTIVE_DEVICES = 1000
/** Live events: at most this often per instance, and this many device events per campaign each time. */
const EVENT_FLUSH_MS = 400
const DEVICE_EVENTS_PER_FLUSH = 100
/** Alarms per 1,000 bikes per day taken as the baseline when the fleet had none before (one alarm in a quiet week is no crisis). */
const MIN_BASELINE_RATE = 1
/** Each upgraded bike is watched at least this long in the rate: one alarm right after an upgrade is not a rate per day. */
const MIN_OBSERVED_MS = 60 * 60 * 1000
const DAY_MS = 24 * 60 * 60 * 1000
/** The alarm rate's baseline: the target bikes' alarms in this many days before the start. */
const BASELINE_DAYS = 7
/** The alarm types a campaign's rate counts (its alarmTypes, comma-separated): none listed, every type. */
const alarmTypesOf = (c: Row): string[] =>
  String(c.alarmTypes ?? '')
    .split(',')
    .map((type) => type.trim())
    .filter(Boolean)
const FAILURES: OtaDeviceState[] = [...OTA_FAILURE_STATES]

/** A device's report stages that end its attempt, and the state each leaves it in (rolledBack and committed: see report()). */
const ENDING_STAGES: Partial<Record<OtaProgressPayload['stage'], OtaDeviceState>> = { failed: 'failed', rejected: 'rejected', aborted: 'failed' }
/**
 * States a commit is taken from: past the install. Its trial report or status may be what got lost
 * (a device on trial that loses its connection and commits on reconnect); a commit before the
 * install is no commit of this image.
 */
const COMMITTABLE: OtaDeviceState[] = ['installing', 'rebooting', 'trial']
/** Rollback codes the server gives when it inferred the rollback (a status, the deadline): the device's own report of why replaces them. */
const INFERRED_ROLLBACK_CODES = ['E_ROLLED_BACK', 'E_COMMIT_TIMEOUT']
/** The whole upgrade's timeout covers these; a device on trial has its commit deadline instead. */
const BEFORE_TRIAL = ACTIVE.filter((s) => s !== 'trial')
/** Refusals that pass (docs/ota.md › Held and skipped): the device is held and offered again, not failed. */
export const PASSING_REFUSALS = ['riding', 'batteryLow', 'simDataLow', 'busy']

/**
 * A device whose last report is not its last word, though its state is final: it refused for a
 * passing reason (the next tick holds it) or failed with a retry left (the next tick queues it
 * again). A tick judges, retries and finishes without them: on PostgreSQL each statement reads
 * afresh, so such a report can land between a tick's hold or requeue and what it does next.
 */
const notFinalYet = (c: Row) => sql<boolean>`(${passingRefusal} or ${retryLeft(c)})`
const passingRefusal = sql<boolean>`(${sql.ref('state')} = 'rejected' and ${sql.ref('code')} in (${sql.join(PASSING_REFUSALS.map((code) => sql.lit(code)))}))`
const retryLeft = (c: Row) =>
  sql<boolean>`(${sql.ref('state')} in (${sql.join(RETRYABLE.map((state) => sql.lit(state)))}) and ${sql.ref('attempt')} - ${sql.ref('heldOffers')} <= ${sql.lit(num(c.retries))})`

/** A hold's reason in a sentence's language (anything else a device said: "could not take it"). */
export const holdReasonIn = (lang: Language, code: string) => t(lang, `ota.rollout.held.${PASSING_REFUSALS.includes(code) ? code : 'other'}` as MessageKey)
/** States of a device that took its offer: a hold it had is over. */
const PAST_THE_OFFER: OtaDeviceState[] = [...ACTIVE.filter((s) => s !== 'notified'), 'succeeded', 'failed', 'rolledBack', 'timedOut']
const HELD_WHERE_SIM_LOW = sql<boolean>`device_id in (select device_id from iot_device where flow_state = 'warning' union select device_id from iot_sim where flow_state = 'warning' and device_id is not null)`

interface LiveCampaign {
  part: OtaPart
  devices: Map<number, OtaDeviceStateEvent>
}

interface Offer {
  device: KnownDevice
  upgradeId: number
  attempt: number
}

/**
 * The rollout: every instance runs a ticker over the running campaigns. A campaign's tick runs in one
 * transaction that first locks its row (PostgreSQL: SKIP LOCKED, so two instances never tick one
 * campaign at once); devices are claimed with a conditional update (queued → notified) whose
 * RETURNING names the rows this tick won, so no device is offered twice. Offers go out after the
 * commit. Device reports move rows forward only, with conditional updates that never leave a final
 * state. Everything lives in the database: a restarted server picks up where the last one stopped.
 */
export class OtaRollout {
  private readonly db: AnyDb
  private tickMs: number
  now: () => Date
  private maxActiveDevices: number
  private timer: NodeJS.Timeout | null = null
  private ticking: Promise<void> | null = null
  private again = false
  private closed = false
  private readonly history: WriteBehind<TransitionRecord[]>
  private readonly live = new Map<number, LiveCampaign>()
  private liveTimer: NodeJS.Timeout | null = null
  /** Per device, its last report still being applied: a status never overtakes the stage sent before it. */
  private readonly inLine = new Map<number, Promise<void>>()

  constructor(
    private readonly app: FastifyInstance,
    private readonly services: Services,
    private readonly events: OtaEventBus,
    options: OtaRolloutOptions = {},
  ) {
    this.db = anyDb(services.db)
    this.tickMs = options.tickMs ?? 1000
    this.now = options.now ?? (() => new Date())
    this.maxActiveDevices = options.maxActiveDevices ?? MAX_ACTIVE_DEVICES
    this.history = new WriteBehind({
      delayMs: 100,
      maxSize: 500,
      empty: (): TransitionRecord[] => [],
      size: (b) => b.length,
      write: (b) => writeHistory(this.db, b),
      onError: (err) => app.log.error({ err }, 'could not write OTA device history'),
    })
  }

  /** Changes the clock, the tick interval or the devices at work at once (tests). */
  configure(options: OtaRolloutOptions) {
    if (options.now) this.now = options.now
    if (options.maxActiveDevices) this.maxActiveDevices = options.maxActiveDevices
    if (options.tickMs) {
      this.tickMs = options.tickMs
      if (this.timer) this.startTimer()
    }
  }

  start() {
    const { gateway, presence } = this.app.iot
    gateway.on('ota', (m) => this.inOrder(m.device.deviceId, () => this.report(m as UpMessage<OtaProgressPayload>)))
    gateway.on('status', (m) => this.inOrder(m.device.deviceId, () => this.status(m as UpMessage<StatusPayload>)))
    // A device that connects may take its offer now (within its window): no waiting for the next tick.
    presence.onOnline(() => this.wake())
    this.startTimer()
  }

  private startTimer() {
    if (this.timer) clearInterval(this.timer)
    this.timer = setInterval(() => void this.tick(), this.tickMs)
    this.timer.unref()
  }

  /** Ticks soon (a device came online, a step changed a campaign). */
  wake() {
    if (!this.closed) setImmediate(() => void this.tick())
  }

  /** One pass over the campaigns; a pass asked for while one runs follows it once. */
  tick(): Promise<void> {
    if (this.closed) return Promise.resolve()
    if (this.ticking) {
      this.again = true
      return this.ticking
    }
    this.ticking = (async () => {
      do {
        this.again = false
        await this.pass().catch((err) => this.app.log.error({ err }, 'OTA rollout tick failed'))
      } while (this.again && !this.closed)
    })().finally(() => (this.ticking = null))
    return this.ticking
  }

  private async pass() {
    const now = this.now()
    const due = await this.db
      .selectFrom('otaCampaign')
      .select('campaignId')
      .where('status', '=', 'scheduled')
      .where('startAt', 'is not', null)
      .where('startAt', '<=', now.toISOString())
      .execute()
    for (const c of due) await this.startScheduled(num(c.campaignId), now)
    const running = await this.db.selectFrom('otaCampaign').select('campaignId').where('status', '=', 'running').orderBy('campaignId').execute()
    for (const c of running) {
      if (this.closed) return
      await this.tickCampaign(num(c.campaignId))
    }
  }

  /** Locks a campaign row for this transaction, or answers nothing while another instance holds it. */
  private async lockCampaign(tx: AnyDb, campaignId: number, status: OtaCampaignStatus): Promise<Row | undefined> {
    let query = tx.selectFrom('otaCampaign').selectAll().where('campaignId', '=', campaignId).where('status', '=', status)
    if (this.services.dialect === 'postgres') query = query.forUpdate().skipLocked()
    return query.executeTakeFirst()
  }

  private async startScheduled(campaignId: number, now: Date) {
    const started = await this.db.transaction().execute(async (tx) => {
      const c = await this.lockCampaign(tx, campaignId, 'scheduled')
      if (!c) return null
      await tx.updateTable('otaCampaign').set({ status: 'running' }).where('campaignId', '=', campaignId).execute()
      await this.onStarted(tx, c, now)
      await writeHistory(tx, [campaignRecord(c, 'start', 'scheduled', 'running', { automatic: true }, now)])
      return c
    })
    if (started) this.markLive(started.partKind as OtaPart, campaignId)
  }

  /** What starting a campaign sets: its start time, the alarm rate before it, an audio's deploy status. */
  async onStarted(tx: AnyDb, campaign: Row, now: Date) {
    const campaignId = num(campaign.campaignId)
    const since = new Date(now.getTime() - BASELINE_DAYS * DAY_MS).toISOString()
    const alarms = await tx
      .selectFrom('iotAlarm')
      .select(sql<number>`count(*)`.as('n'))
      .where('deviceId', 'in', (eb: any) => eb.selectFrom('otaCampaignDevice').select('deviceId').where('campaignId', '=', campaignId))
      .where('startTime', '>=', since)
      .where('startTime', '<', now.toISOString())
      .$if(alarmTypesOf(campaign).length > 0, (q: any) => q.where('type', 'in', alarmTypesOf(campaign)))
      .executeTakeFirst()
    const targets = Math.max(1, num(campaign.totalDevices))
    // The same bikes, the same alarm types, per bike-day: what the upgraded bikes' rate is compared with.
    await tx
      .updateTable('otaCampaign')
      .set({ startedAt: campaign.startedAt ?? now.toISOString(), baselineAlarmRate: (num(alarms?.n) * 1000) / (targets * BASELINE_DAYS) })
      .where('campaignId', '=', campaignId)
      .execute()
    if (campaign.payload === 'audio') await updateAudioStatus(tx, num(campaign.audioId))
  }

  private async tickCampaign(campaignId: number) {
    const offers: Offer[] = []
    let campaign: Row | undefined
    const records: TransitionRecord[] = []
    await this.db.transaction().execute(async (tx) => {
      campaign = await this.lockCampaign(tx, campaignId, 'running')
      if (!campaign) return
      const c = campaign
      // Read once the lock is held (waiting for another instance's tick takes a while).
      const now = this.now()
      await this.expire(tx, c, now, records)
      // Held first: a refusal for a passing reason (riding) waits as held, using no retry.
      await this.holdOrSkip(tx, c, now, records)
      await this.requeueForRetry(tx, c, now, records)
      // Every device done: nothing is left for a pause to protect.
      if (!(await this.finishIfDone(tx, c, now, records))) {
        let stop = await this.judge(tx, c, now)
        let wave = num(c.currentWave)
        if (!stop) {
          const advanced = await this.advanceWaves(tx, c)
          wave = advanced.wave
          // A report may have landed since the rules were judged: if the error rule holds now, it is the reason.
          if (advanced.short) stop = (await this.judge(tx, c, now)) ?? shortOfSuccess(c, advanced.short)
        }
        if (stop) {
          await tx.updateTable('otaCampaign').set({ status: 'paused', pauseReason: stop.reason }).where('campaignId', '=', campaignId).execute()
          records.push(campaignRecord(c, 'pause', 'running', 'paused', { automatic: true, rule: stop.rule }, now))
        } else {
          offers.push(...(await this.claim(tx, { ...c, currentWave: wave }, now, records)))
        }
      }
      await updateCounters(tx, campaignId)
      await writeHistory(tx, records)
    })
    if (!campaign) return
    const part = campaign.partKind as OtaPart
    this.noteDevices(part, campaignId, records)
    if (offers.length) await this.sendOffers(campaign, offers)
    if (records.length) this.markLive(part, campaignId)
  }

  /**
   * Active devices past the campaign's timeout since they were notified: timed out. A device on trial
   * is judged by its commit deadline instead (it runs the new image, and rolls back by itself past
   * it): no commit within commitSeconds of going on trial, and the margin for a device rolling back
   * to reboot and say so, counts as rolled back (E_COMMIT_TIMEOUT).
   */
  private async expire(tx: AnyDb, c: Row, now: Date, records: TransitionRecord[]) {
    await this.expireTrials(tx, c, now, records)
    const cutoff = new Date(now.getTime() - num(c.timeoutMinutes) * 60_000).toISOString()
    const stamp = now.toISOString()
    const late = (q: any) => q.where('campaignId', '=', num(c.campaignId)).where('state', 'in', BEFORE_TRIAL).where('notifiedAt', '<', cutoff)
    const before = (await late(tx.selectFrom('otaCampaignDevice').select(['upgradeId', 'deviceId', 'wave', 'attempt', 'state'])).execute()) as Row[]
    if (!before.length) return
    // Still late and active when written: a report that landed meanwhile wins.
    const expired = (await late(tx.updateTable('otaCampaignDevice').set({ state: 'timedOut', finishedAt: stamp, updatedAt: stamp }))
      .where(
        'upgradeId',
        'in',
        before.map((r) => num(r.upgradeId)),
      )
      .returning(['upgradeId'])
      .execute()) as Row[]
    const done = new Set(expired.map((r) => num(r.upgradeId)))
    for (const r of before) if (done.has(num(r.upgradeId))) records.push(deviceRecord(c, r, 'timeout', String(r.state), 'timedOut', { minutes: num(c.timeoutMinutes) }, now))
  }

  /** Devices on trial past their commit deadline and its margin: rolled back (E_COMMIT_TIMEOUT). */
  private async expireTrials(tx: AnyDb, c: Row, now: Date, records: TransitionRecord[]) {
    const seconds = commitSecondsOf(c)
    const cutoff = new Date(now.getTime() - (seconds + OTA_COMMIT_MARGIN_SECONDS) * 1000).toISOString()
    const stamp = now.toISOString()
    const overdue = (q: any) => q.where('campaignId', '=', num(c.campaignId)).where('state', '=', 'trial').where('trialAt', '<', cutoff)
    const before = (await overdue(tx.selectFrom('otaCampaignDevice').select(['upgradeId', 'deviceId', 'wave', 'attempt'])).execute()) as Row[]
    if (!before.length) return
    const message = bothLanguages('ota.rollout.commitTimeout', () => ({ seconds, version: String(c.targetVersion ?? '') }))
    // Still on trial and overdue when written: a commit that landed meanwhile wins.
    const rolledBack = (await overdue(tx.updateTable('otaCampaignDevice').set({ state: 'rolledBack', code: 'E_COMMIT_TIMEOUT', message, finishedAt: stamp, updatedAt: stamp }))
      .where(
        'upgradeId',
        'in',
        before.map((r) => num(r.upgradeId)),
      )
      .returning(['upgradeId'])
      .execute()) as Row[]
    const done = new Set(rolledBack.map((r) => num(r.upgradeId)))
    for (const r of before) if (done.has(num(r.upgradeId))) records.push(deviceRecord(c, r, 'commitTimeout', 'trial', 'rolledBack', { code: 'E_COMMIT_TIMEOUT', seconds }, now))
  }

  /** Failed, timed-out and rejected devices with retries left go back to the queue, each later than the last. */
  private async requeueForRetry(tx: AnyDb, c: Row, now: Date, records: TransitionRecord[]) {
    const retries = num(c.retries)
    const backoffMs = num(c.retryBackoffSeconds) * 1000
    for (let attempt = 1; attempt <= retries; attempt++) {
      const nextAttemptAt = new Date(now.getTime() + backoffMs * 2 ** (attempt - 1)).toISOString()
      for (const from of RETRYABLE) {
        const rows = await tx
          .updateTable('otaCampaignDevice')
          .set({ state: 'queued', nextAttemptAt, finishedAt: null, updatedAt: now.toISOString() })
          .where('campaignId', '=', num(c.campaignId))
          .where('state', '=', from)
          // A refusal for a passing reason that landed after this tick's holds: the next tick holds it.
          .where((eb: any) => eb.not(passingRefusal))
          // Offers refused for a passing reason (held) took an attempt each but are no retry.
          .where(sql<number>`${sql.ref('attempt')} - ${sql.ref('heldOffers')}`, '=', attempt)
          .returning(['upgradeId', 'deviceId', 'wave', 'attempt'])
          .execute()
        for (const r of rows) records.push(deviceRecord(c, r, 'retry', from, 'queued', { attempt, nextAttemptAt }, now))
      }
    }
  }

  /**
   * Devices that cannot take the upgrade for now are held, not failed: a refusal for a passing reason
   * (riding, battery low, SIM data low, busy) waits its backoff, a device whose SIM data is low waits
   * for it to recover. A hold has a limit (holdLimitHours since the hold began, 0: none): past it the
   * device is skipped, a final state, so the wave and the campaign finish without it.
   */
  private async holdOrSkip(tx: AnyDb, c: Row, now: Date, records: TransitionRecord[]) {
    const campaignId = num(c.campaignId)
    const stamp = now.toISOString()
    const ofCampaign = (q: any) => q.where('campaignId', '=', campaignId)
    // A device that took an offer since is no longer held: a later refusal starts a new hold.
    await ofCampaign(tx.updateTable('otaCampaignDevice').set({ heldSince: null }))
      .where('heldSince', 'is not', null)
      .where('state', 'in', PAST_THE_OFFER)
      .execute()
    const refused = (await ofCampaign(tx.selectFrom('otaCampaignDevice').select(['upgradeId', 'deviceId', 'wave', 'attempt', 'code', 'finishedAt', 'heldSince']))
      .where('state', '=', 'rejected')
      .where('code', 'in', PASSING_REFUSALS)
      .execute()) as Row[]
    const backoffMs = num(c.retryBackoffSeconds) * 1000
    for (const r of refused) {
      // Offered again later and later (the retry backoff, doubling, at most 64 times it): a ride takes a while.
      const nextAttemptAt = new Date(now.getTime() + backoffMs * 2 ** Math.min(Math.max(num(r.attempt) - 1, 0), 6)).toISOString()
      const heldSince = isoOrNull(r.heldSince) ?? isoOrNull(r.finishedAt) ?? stamp
      const moved = await tx
        .updateTable('otaCampaignDevice')
        .set((eb: any) => ({ state: 'held', heldSince, heldOffers: eb('heldOffers', '+', 1), nextAttemptAt, finishedAt: null, updatedAt: stamp }))
        .where('upgradeId', '=', num(r.upgradeId))
        .where('attempt', '=', num(r.attempt))
        .where('state', '=', 'rejected')
        .executeTakeFirst()
      if (Number(moved.numUpdatedRows) === 1) records.push(deviceRecord(c, r, 'hold', 'rejected', 'held', { why: String(r.code), nextAttemptAt }, now))
    }
    const simLow = await ofCampaign(tx.updateTable('otaCampaignDevice'))
      .set((eb: any) => ({ state: 'held', code: 'simDataLow', heldSince: eb.fn.coalesce('heldSince', sql.lit(stamp)), updatedAt: stamp }))
      .where('state', '=', 'queued')
      .where(HELD_WHERE_SIM_LOW)
      .returning(['upgradeId', 'deviceId', 'wave', 'attempt'])
      .execute()
    for (const r of simLow) records.push(deviceRecord(c, r, 'hold', 'queued', 'held', { why: 'simDataLow' }, now))
    const limitHours = num(c.holdLimitHours)
    if (limitHours > 0) {
      const cutoff = new Date(now.getTime() - limitHours * 3_600_000).toISOString()
      // Queued ones too: a device released to be offered again that is offline again is still the same hold.
      const over = (await ofCampaign(tx.selectFrom('otaCampaignDevice').select(['upgradeId', 'deviceId', 'wave', 'attempt', 'state', 'code', 'heldSince']))
        .where('state', 'in', WAITING)
        .where('heldSince', 'is not', null)
        .where('heldSince', '<=', cutoff)
        .execute()) as Row[]
      for (const r of over) {
        const why = String(r.code || 'simDataLow')
        const message = bothLanguages('ota.rollout.skipped.holdLimit', (lang) => ({ hours: limitHours, why: holdReasonIn(lang, why) }))
        const skipped = await tx
          .updateTable('otaCampaignDevice')
          .set({ state: 'skipped', code: why, message, finishedAt: stamp, nextAttemptAt: null, updatedAt: stamp })
          .where('upgradeId', '=', num(r.upgradeId))
          .where('state', '=', String(r.state))
          .executeTakeFirst()
        if (Number(skipped.numUpdatedRows) === 1) records.push(deviceRecord(c, r, 'skip', String(r.state), 'skipped', { why, heldSince: isoOrNull(r.heldSince), hours: limitHours }, now))
      }
    }
    const released = await ofCampaign(tx.updateTable('otaCampaignDevice'))
      .set({ state: 'queued', updatedAt: stamp })
      .where('state', '=', 'held')
      .where((eb: any) => eb.and([eb.not(HELD_WHERE_SIM_LOW), eb.or([eb('nextAttemptAt', 'is', null), eb('nextAttemptAt', '<=', stamp)])]))
      .returning(['upgradeId', 'deviceId', 'wave', 'attempt'])
      .execute()
    for (const r of released) records.push(deviceRecord(c, r, 'release', 'held', 'queued', {}, now))
  }

  /**
   * Whether the campaign must stop itself: a started wave's failures reached the error threshold
   * (after enough of it finished), or the upgraded bikes raise alarms faster than the fleet did
   * before. Both judge only what happened since the last resume.
   */
  private async judge(tx: AnyDb, c: Row, now: Date): Promise<{ rule: string; reason: string } | null> {
    const campaignId = num(c.campaignId)
    const since = isoOrNull(c.resumedAt)
    let finished = tx
      .selectFrom('otaCampaignDevice')
      .select(['wave', 'state', sql<number>`count(*)`.as('n')])
      .where('campaignId', '=', campaignId)
      .where('wave', '<=', num(c.currentWave))
      .where('state', 'in', ['succeeded', ...RETRYABLE])
      // Without notFinalYet, a failure landing between this tick's requeue and its judgement paused the campaign.
      .where((eb: any) => eb.not(notFinalYet(c)))
    if (since) finished = finished.where('finishedAt', '>=', since)
    const rows = await finished.groupBy(['wave', 'state']).execute()
    const byWave = new Map<number, { finished: number; failed: number }>()
    for (const r of rows) {
      const w = byWave.get(num(r.wave)) ?? { finished: 0, failed: 0 }
      w.finished += num(r.n)
      if (FAILURES.includes(r.state as OtaDeviceState)) w.failed += num(r.n)
      byWave.set(num(r.wave), w)
    }
    const errorCount = c.errorCount === null || c.errorCount === undefined ? null : num(c.errorCount)
    for (const [wave, w] of [...byWave.entries()].sort((a, b) => a[0] - b[0])) {
      if (w.finished < num(c.errorMinFinished) || w.failed === 0) continue
      const percent = Math.round((w.failed * 1000) / w.finished) / 10
      const over = errorCount !== null ? w.failed >= errorCount : percent >= num(c.errorPercent)
      if (!over) continue
      const threshold = errorCount !== null ? String(errorCount) : `${num(c.errorPercent)} %`
      return {
        rule: 'errorThreshold',
        reason: bothLanguages('ota.rollout.pause.errorThreshold', (lang) => ({ wave: waveName(lang, wave), failed: w.failed, finished: w.finished, percent, threshold })),
      }
    }
    return this.judgeAlarms(tx, c, now, since)
  }

  /**
   * The alarm-rate rule: the upgraded bikes' alarms of the campaign's types (alarmTypes; empty: all)
   * per 1,000 bikes a day against the same bikes' rate in the week before the start, the factor
   * over it. It needs alarmMinCount alarms at least: one alarm on a few hundred bikes is a rate far
   * over any baseline and says nothing. The reason gives every number it judged.
   */
  private async judgeAlarms(tx: AnyDb, c: Row, now: Date, since: string | null): Promise<{ rule: string; reason: string } | null> {
    const factor = Number(c.alarmRateFactor ?? 0)
    if (!(factor > 0) || c.baselineAlarmRate === null || c.baselineAlarmRate === undefined) return null
    const campaignId = num(c.campaignId)
    const upgraded = await tx.selectFrom('otaCampaignDevice').select('finishedAt').where('campaignId', '=', campaignId).where('state', '=', 'succeeded').execute()
    if (upgraded.length < num(c.errorMinFinished)) return null
    const types = alarmTypesOf(c)
    let alarms = tx
      .selectFrom('iotAlarm as a')
      .innerJoin('otaCampaignDevice as d', 'd.deviceId', 'a.deviceId')
      .select(sql<number>`count(*)`.as('n'))
      .where('d.campaignId', '=', campaignId)
      .where('d.state', '=', 'succeeded')
      .whereRef('a.startTime', '>=', 'd.finishedAt')
    if (types.length) alarms = alarms.where('a.type', 'in', types)
    if (since) alarms = alarms.where('a.startTime', '>=', since)
    const count = num((await alarms.executeTakeFirst())?.n)
    if (count === 0 || count < Math.max(1, num(c.alarmMinCount))) return null
    const sinceMs = since ? Date.parse(since) : 0
    let observedMs = 0
    for (const r of upgraded) observedMs += Math.max(MIN_OBSERVED_MS, now.getTime() - Math.max(Date.parse(String(r.finishedAt)), sinceMs))
    const bikeDays = observedMs / DAY_MS
    const rate = (count * 1000) / bikeDays
    const baseline = Math.max(Number(c.baselineAlarmRate), MIN_BASELINE_RATE)
    if (rate <= factor * baseline) return null
    const round = (n: number) => Math.round(n * 10) / 10
    return {
      rule: 'alarmRate',
      reason: bothLanguages('ota.rollout.pause.alarmRate', (lang) => ({
        alarms: count,
        types: types.length ? types.map((type) => ALARM_TYPE_OPTIONS.find((o) => o.value === type)?.label[lang] ?? type).join(', ') : t(lang, 'ota.rollout.alarmTypesAll'),
        devices: upgraded.length,
        bikeDays: round(bikeDays),
        rate: round(rate),
        factor,
        // The floor the rule judged by, not a bare 0 of a quiet fleet: "more than 2 × the 0 before" reads as nonsense.
        baseline: round(baseline),
        baselineBikes: num(c.totalDevices),
        baselineDays: BASELINE_DAYS,
        limit: round(factor * baseline),
      })),
    }
  }

  /**
   * Opens the next wave once the current one's succeeded share reaches the success threshold. Held
   * devices never stall a wave: once every other device of it is final, it is judged on those (its
   * skipped devices left out, or counted as not upgraded: the campaign's skippedAs); a wave with
   * nothing but held devices waits for them, or for the hold limit to skip them. A wave that ended
   * short of the threshold (devices that failed below the error threshold) stops the campaign for a
   * person to decide: resumed after that, the wave counts as passed.
   */
  private async advanceWaves(tx: AnyDb, c: Row): Promise<{ wave: number; short?: { wave: number; succeeded: number; total: number } }> {
    const campaignId = num(c.campaignId)
    const final = sql.join(FINAL.map((state) => sql.lit(state)))
    const held = sql`(${sql.ref('state')} = 'held' or (${sql.ref('heldSince')} is not null and ${sql.ref('state')} in ('queued', 'notified', 'rejected')))`
    const rows = await tx
      .selectFrom('otaCampaignDevice')
      .select([
        'wave',
        sql<number>`count(*)`.as('total'),
        sql<number>`sum(case when ${sql.ref('state')} = 'succeeded' then 1 else 0 end)`.as('succeeded'),
        sql<number>`sum(case when ${sql.ref('state')} = 'skipped' then 1 else 0 end)`.as('skipped'),
        sql<number>`sum(case when ${held} then 1 else 0 end)`.as('held'),
        sql<number>`sum(case when ${held} or ${sql.ref('state')} in (${final}) then 0 else 1 end)`.as('open'),
        sql<string | null>`max(${sql.ref('finishedAt')})`.as('lastFinished'),
      ])
      .where('campaignId', '=', campaignId)
      .groupBy('wave')
      .execute()
    const waves = new Map(
      rows.map((r: Row) => [
        num(r.wave),
        { total: num(r.total), succeeded: num(r.succeeded), skipped: num(r.skipped), held: num(r.held), open: num(r.open), lastFinished: isoOrNull(r.lastFinished) },
      ]),
    )
    const last = Math.max(0, ...waves.keys())
    const resumedAt = isoOrNull(c.resumedAt)
    const skippedLeftOut = c.skippedAs !== 'notUpgraded'
    const threshold = num(c.successPercent)
    let wave = num(c.currentWave)
    let short: { wave: number; succeeded: number; total: number } | undefined
    while (wave < last) {
      const w = waves.get(wave)
      if (w) {
        const counted = w.total - (skippedLeftOut ? w.skipped : 0)
        // Reached with every device that counts, held ones as not (yet) upgraded: no need to wait for the rest.
        const reached = counted > 0 && w.succeeded * 100 >= threshold * counted
        if (!reached) {
          if (w.open > 0) break
          // Every device not held is final: judged on those.
          const judged = counted - w.held
          if (judged <= 0) {
            if (w.held > 0) break
          } else if (w.succeeded * 100 < threshold * judged) {
            const decided = resumedAt !== null && w.lastFinished !== null && Date.parse(resumedAt) >= Date.parse(w.lastFinished)
            if (!decided) {
              short = { wave, succeeded: w.succeeded, total: judged }
              break
            }
          }
        }
      }
      wave++
    }
    if (wave !== num(c.currentWave)) await tx.updateTable('otaCampaign').set({ currentWave: wave }).where('campaignId', '=', campaignId).execute()
    return { wave, short }
  }

  /**
   * Claims the devices this tick offers the upgrade to: queued in an open wave, due, online, inside
   * the daily window of their time zone, in position order, within the rate per minute. The update
   * is conditional on the row still being queued: what it returns is what this tick won.
   */
  private async claim(tx: AnyDb, c: Row, now: Date, records: TransitionRecord[]): Promise<Offer[]> {
    const campaignId = num(c.campaignId)
    const stamp = now.toISOString()
    let allowed = UNLIMITED_BATCH
    const rate = num(c.ratePerMinute)
    if (rate > 0) {
      const lastMinute = (await tx
        .selectFrom('otaCampaignDevice')
        .select([sql<number>`count(*)`.as('n'), sql`min(${sql.ref('notifiedAt')})`.as('first'), sql`max(${sql.ref('notifiedAt')})`.as('last')])
        .where('campaignId', '=', campaignId)
        .where('notifiedAt', '>', new Date(now.getTime() - RATE_WINDOW_MS).toISOString())
        .executeTakeFirst()) as Row | undefined
      allowed = Math.min(UNLIMITED_BATCH, rate - num(lastMinute?.n), spreadOverTheMinute(rate, num(lastMinute?.n), isoOrNull(lastMinute?.first), isoOrNull(lastMinute?.last), now, this.tickMs))
    }
    const active = await tx
      .selectFrom('otaCampaignDevice')
      .select(sql<number>`count(*)`.as('n'))
      .where('campaignId', '=', campaignId)
      .where('state', 'in', ACTIVE)
      .executeTakeFirst()
    allowed = Math.min(allowed, this.maxActiveDevices - num(active?.n))
    if (allowed <= 0) return []
    const waiting = (q: any) =>
      q
        .where('o.campaignId', '=', campaignId)
        .where('o.state', '=', 'queued')
        .where('o.wave', '<=', num(c.currentWave))
        .where((eb: any) => eb.or([eb('o.nextAttemptAt', 'is', null), eb('o.nextAttemptAt', '<=', stamp)]))
    const zones = (await waiting(tx.selectFrom('otaCampaignDevice as o')).select('o.timeZone').distinct().execute()) as Row[]
    const open = zones.map((z) => String(z.timeZone)).filter((zone) => inDailyWindow(now, zone, String(c.windowStart ?? ''), String(c.windowEnd ?? '')))
    if (!open.length) return []
    const candidates = (await waiting(tx.selectFrom('otaCampaignDevice as o').innerJoin('iotDevice as d', 'd.deviceId', 'o.deviceId'))
      .where('o.timeZone', 'in', open)
      .where('d.online', '=', 1)
      .select(['o.upgradeId as upgradeId'])
      .orderBy('o.wave')
      .orderBy('o.position')
      .limit(allowed)
      .execute()) as Row[]
    if (!candidates.length) return []
    const claimed = (await tx
      .updateTable('otaCampaignDevice')
      .set((eb: any) => ({ state: 'notified', attempt: eb(eb.fn.coalesce('attempt', sql.lit(0)), '+', 1), notifiedAt: stamp, percent: 0, code: '', message: '', nextAttemptAt: null, finishedAt: null, updatedAt: stamp }))
      .where(
        'upgradeId',
        'in',
        candidates.map((r) => num(r.upgradeId)),
      )
      .where('state', '=', 'queued')
      .returning(['upgradeId', 'deviceId', 'wave', 'attempt'])
      .execute()) as Row[]
    if (!claimed.length) return []
    const byId = await devicesById(tx, claimed.map((r) => num(r.deviceId)))
    const offers: Offer[] = []
    for (const r of claimed) {
      records.push(deviceRecord(c, r, 'notify', 'queued', 'notified', { attempt: num(r.attempt) }, now))
      const device = byId.get(num(r.deviceId))
      if (device) offers.push({ device, upgradeId: num(r.upgradeId), attempt: num(r.attempt) })
    }
    return offers
  }

  private async finishIfDone(tx: AnyDb, c: Row, now: Date, records: TransitionRecord[]): Promise<boolean> {
    const campaignId = num(c.campaignId)
    const open = await tx
      .selectFrom('otaCampaignDevice')
      .select(sql<number>`count(*)`.as('n'))
      .where('campaignId', '=', campaignId)
      // Without notFinalYet, a failure landing between this tick's requeue and this count finished a campaign with a retry to run.
      .where((eb: any) => eb.or([eb('state', 'not in', FINAL), notFinalYet(c)]))
      .executeTakeFirst()
    if (num(open?.n) > 0) return false
    await tx.updateTable('otaCampaign').set({ status: 'finished', finishedAt: now.toISOString() }).where('campaignId', '=', campaignId).execute()
    // The history says how it ended: how many succeeded, failed, rolled back, were skipped or cancelled.
    records.push(campaignRecord(c, 'finish', 'running', 'finished', { summary: summaryOf(await countsOf(tx, campaignId)) }, now))
    if (c.payload === 'audio') await updateAudioStatus(tx, num(c.audioId))
    return true
  }

  private async sendOffers(campaign: Row, offers: Offer[]) {
    const image = await imageOf(this.services.db, { payload: String(campaign.payload ?? 'firmware'), firmwareId: campaign.firmwareId as number | null, audioId: campaign.audioId as number | null })
    const approved = approvedImageOf(campaign)
    // Offered only with the digests the approval bound, and only while the stored image still has them.
    const refusal = refusalOf(approved, image)
    if (refusal) {
      this.app.log.error({ campaignId: campaign.campaignId, code: refusal.code }, 'OTA campaign has no approved image to offer')
      for (const o of offers) await this.refuseImage({ upgradeId: o.upgradeId, attempt: o.attempt, campaignId: num(campaign.campaignId), approved, refusal })
      return
    }
    for (const o of offers) {
      const offer = await buildOffer(this.services, {
        upgradeId: o.upgradeId,
        attempt: o.attempt,
        part: campaign.partKind as OtaPart,
        payload: String(campaign.payload ?? 'firmware') as OtaPayloadKind,
        image: image!,
        approved: approved!,
        timeoutSeconds: num(campaign.timeoutMinutes) * 60,
        minBattery: campaign.minBattery === null || campaign.minBattery === undefined ? undefined : num(campaign.minBattery),
        commitSeconds: commitSecondsOf(campaign),
      })
      await this.app.iot.gateway
        .publishToDevice(o.device, 'ota', offer as unknown as Row)
        .catch((err) => this.app.log.warn({ err, sn: o.device.sn }, 'could not send an OTA offer; the device times out and is retried'))
    }
  }

  /**
   * An upgrade whose image is not the approved one (the block server or its link found other bytes,
   * or the offer found the file row changed): its attempt fails with the code and the reason in both
   * languages, its device is told to stop (an abort whose reason is the code), and the running
   * campaign pauses itself, saying why: every other device would be refused the same.
   */
  async refuseImage(r: RefusedUpgrade) {
    const row = (await this.db
      .selectFrom('otaCampaignDevice as o')
      .innerJoin('iotDevice as d', 'd.deviceId', 'o.deviceId')
      .select(['o.upgradeId', 'o.campaignId', 'o.deviceId', 'o.wave', 'o.attempt', 'o.state', 'o.partKind', 'd.sn', 'd.modelId'])
      .where('o.upgradeId', '=', r.upgradeId)
      .where('o.attempt', '=', r.attempt)
      .executeTakeFirst()) as Row | undefined
    if (!row || !ACTIVE.includes(row.state as OtaDeviceState)) return
    const now = this.now()
    // Paused first: a tick that saw this device fail would otherwise finish a campaign of one wave without saying why.
    const pauseReason = bothLanguages('ota.rollout.pause.imageRefused', (lang) => ({ reason: t(lang, r.refusal.key, imageParams(r.refusal)) }))
    const paused = await this.db
      .updateTable('otaCampaign')
      .set({ status: 'paused', pauseReason })
      .where('campaignId', '=', r.campaignId)
      .where('status', '=', 'running')
      .executeTakeFirst()
    if (Number(paused.numUpdatedRows) === 1) {
      await writeHistory(this.db, [campaignRecord({ campaignId: r.campaignId, partKind: row.partKind }, 'pause', 'running', 'paused', { automatic: true, rule: 'imageRefused', code: r.refusal.code }, now)])
    }
    const message = bothLanguages(r.refusal.key, () => imageParams(r.refusal))
    const failed = await this.move(row, ACTIVE, 'failed', { code: r.refusal.code, message, finishedAt: now.toISOString() }, 'refuse', { code: r.refusal.code }, now)
    if (failed) {
      const device = { deviceId: num(row.deviceId), sn: String(row.sn), modelId: num(row.modelId) }
      await this.sendAborts([{ device, upgradeId: num(row.upgradeId), attempt: num(row.attempt) }], r.refusal.code)
    }
    this.markLive(row.partKind as OtaPart, r.campaignId)
  }

  /** Forced cancel: tells the devices still working on it to stop. */
  async sendAborts(devices: { device: KnownDevice; upgradeId: number; attempt: number }[], reason: string) {
    for (const d of devices) {
      await this.app.iot.gateway
        .publishToDevice(d.device, 'ota', abortPayload(otaIdOf(d.upgradeId, d.attempt), reason) as unknown as Row)
        .catch((err) => this.app.log.warn({ err, sn: d.device.sn }, 'could not send an OTA abort'))
    }
  }

  private inOrder(deviceId: number, work: () => Promise<void>): Promise<void> {
    const ahead = this.inLine.get(deviceId) ?? Promise.resolve()
    const mine = ahead.then(work).catch((err) => this.app.log.error({ err, deviceId }, 'could not apply an OTA report'))
    this.inLine.set(deviceId, mine)
    void mine.finally(() => {
      if (this.inLine.get(deviceId) === mine) this.inLine.delete(deviceId)
    })
    return mine
  }

  /**
   * A device's report on up/ota: the row of that attempt moves forward, never back, never out of a
   * final state. After the reboot the A/B contract: trial puts it on trial (its commit deadline runs
   * from then), committed is its success, rolledBack a failure with the device's code.
   */
  private async report(m: UpMessage<OtaProgressPayload>) {
    const p = m.payload
    const id = parseOtaId(p.id)
    if (!id) return
    const row = (await this.db
      .selectFrom('otaCampaignDevice as o')
      .select(['o.upgradeId', 'o.campaignId', 'o.deviceId', 'o.wave', 'o.attempt', 'o.state', 'o.percent', 'o.partKind', 'o.code'])
      .where('o.upgradeId', '=', id.upgradeId)
      .where('o.deviceId', '=', m.device.deviceId)
      .where('o.attempt', '=', id.attempt)
      .executeTakeFirst()) as Row | undefined
    // Another device's id, or a stale attempt: nothing of it is taken.
    if (!row) return
    const now = this.now()
    const stamp = now.toISOString()
    const ending = ENDING_STAGES[p.stage]
    if (p.stage === 'aborted' && row.state === 'cancelled') return
    if (p.stage === 'committed') {
      await this.move(row, COMMITTABLE, 'succeeded', { percent: 100, finishedAt: stamp }, 'report', { stage: p.stage, ...(p.version ? { version: p.version } : {}) }, now)
      return
    }
    if (p.stage === 'rolledBack') return this.rolledBack(row, p, now)
    if (ending) {
      const code = p.stage === 'aborted' ? 'ABORTED' : (p.code ?? '')
      await this.move(row, ACTIVE, ending, { code: code.slice(0, 32), message: (p.message ?? '').slice(0, 500), finishedAt: stamp }, 'report', { stage: p.stage, ...(code ? { code } : {}) }, now)
      return
    }
    const target: OtaDeviceState | null = p.stage === 'accepted' ? null : (p.stage as OtaDeviceState)
    if (!target) return
    const rank = PROGRESS_RANK[target]!
    const percent = p.stage === 'downloading' ? Math.floor(p.progress ?? 0) : p.stage === 'downloaded' || rank > PROGRESS_RANK.downloaded! ? 100 : undefined
    if (target === row.state) {
      // Only the download's percent moves within a state, and only up.
      if (target === 'downloading' && percent !== undefined && percent > num(row.percent)) {
        await this.db
          .updateTable('otaCampaignDevice')
          .set({ percent, updatedAt: stamp })
          .where('upgradeId', '=', num(row.upgradeId))
          .where('attempt', '=', num(row.attempt))
          .where('state', '=', 'downloading')
          .where('percent', '<', percent)
          .execute()
        this.noteDevice(row, 'downloading', { percent })
      }
      return
    }
    const earlier = (Object.keys(PROGRESS_RANK) as OtaDeviceState[]).filter((s) => PROGRESS_RANK[s]! < rank)
    const set = { ...(percent !== undefined ? { percent } : {}), ...(target === 'trial' ? { trialAt: stamp } : {}) }
    await this.move(row, earlier, target, set, 'report', { stage: p.stage, ...(p.version ? { version: p.version } : {}) }, now)
  }

  /**
   * A device rolled back: a failure with its code. When the server had already counted it rolled
   * back by inference (its status showed the old version, or its deadline passed while it was away),
   * the device's own reason replaces the inferred one: it is the better evidence of what went wrong.
   */
  private async rolledBack(row: Row, p: OtaProgressPayload, now: Date) {
    const code = (p.code ?? 'E_ROLLED_BACK').slice(0, 32)
    const set = { code, message: (p.message ?? '').slice(0, 500) }
    const input = { stage: p.stage, code, ...(p.version ? { version: p.version } : {}) }
    if (row.state !== 'rolledBack') {
      await this.move(row, ACTIVE, 'rolledBack', { ...set, finishedAt: now.toISOString() }, 'report', input, now)
      return
    }
    // A bare rollback (no code) says nothing the inference did not.
    if (!INFERRED_ROLLBACK_CODES.includes(String(row.code)) || code === row.code || code === 'E_ROLLED_BACK') return
    const told = await this.db
      .updateTable('otaCampaignDevice')
      .set({ code, ...(p.message ? { message: set.message } : {}), updatedAt: now.toISOString() })
      .where('upgradeId', '=', num(row.upgradeId))
      .where('attempt', '=', num(row.attempt))
      .where('state', '=', 'rolledBack')
      .where('code', 'in', INFERRED_ROLLBACK_CODES)
      .executeTakeFirst()
    if (Number(told.numUpdatedRows) !== 1) return
    this.history.add((b) => b.push(deviceRecord({ partKind: row.partKind }, row, 'report', 'rolledBack', 'rolledBack', input, now)))
    this.noteDevice(row, 'rolledBack', { code })
  }

  /**
   * A device's status: what its parts run (kept for targeting), and evidence on upgrades waiting for
   * it. The target version reported puts a firmware upgrade on trial (not succeeded: only the
   * device's commit is), an audio file has succeeded; another version after the reboot has failed
   * (E_VERSION_UNCHANGED), and on trial means the device went back to its old image (rolled back).
   */
  private async status(m: UpMessage<StatusPayload>) {
    const s = m.payload
    const deviceId = m.device.deviceId
    if (s.parts && Object.keys(s.parts).length) {
      const set: Row = {}
      // The keys are the schema's part names (display, bms, ecu), each a pair of the device's columns.
      for (const [part, v] of Object.entries(s.parts)) {
        set[`${part}Version`] = v.version
        if (v.hardware !== undefined) set[`${part}Hardware`] = v.hardware
      }
      await this.db.updateTable('iotDevice').set(set).where('deviceId', '=', deviceId).execute()
    }
    if (s.firmwareVersion === undefined && !s.parts && !s.audio) return
    const waiting = (await this.db
      .selectFrom('otaCampaignDevice as o')
      .innerJoin('otaCampaign as c', 'c.campaignId', 'o.campaignId')
      .leftJoin('iotAudio as a', 'a.audioId', 'c.audioId')
      .select(['o.upgradeId', 'o.campaignId', 'o.deviceId', 'o.wave', 'o.attempt', 'o.state', 'o.toVersion', 'o.partKind', 'c.payload', 'a.iotName'])
      .where('o.deviceId', '=', deviceId)
      .where('o.state', 'in', ['verified', 'installing', 'rebooting', 'trial'])
      .execute()) as Row[]
    const now = this.now()
    for (const row of waiting) {
      const part = row.partKind as OtaPart
      if (row.payload === 'audio') {
        // A sound has no version of the module's own: the status listing it at its version says it is there.
        if (s.audio?.[String(row.iotName)] === row.toVersion) {
          await this.move(row, [String(row.state) as OtaDeviceState], 'succeeded', { percent: 100, finishedAt: now.toISOString() }, 'report', { audio: String(row.iotName) }, now)
        }
        continue
      }
      const reported = part === 'iot' ? s.firmwareVersion : s.parts?.[part]?.version
      if (reported === undefined) continue
      const from = [String(row.state) as OtaDeviceState]
      if (reported === row.toVersion) {
        // It runs the new image: on trial until it commits (a device that said trial itself is there already).
        if (row.state !== 'trial') await this.move(row, from, 'trial', { percent: 100, trialAt: now.toISOString() }, 'report', { version: reported }, now)
      } else if (row.state === 'trial') {
        const message = bothLanguages('ota.rollout.rolledBackByStatus', () => ({ reported, version: String(row.toVersion) }))
        await this.move(row, from, 'rolledBack', { code: 'E_ROLLED_BACK', message, finishedAt: now.toISOString() }, 'report', { version: reported, code: 'E_ROLLED_BACK' }, now)
      } else if (row.state === 'rebooting') {
        await this.move(
          row,
          from,
          'failed',
          { code: 'E_VERSION_UNCHANGED', message: `reported ${reported} after the reboot, expected ${String(row.toVersion)}`, finishedAt: now.toISOString() },
          'report',
          { version: reported, code: 'E_VERSION_UNCHANGED' },
          now,
        )
      }
    }
  }

  /** Moves one attempt's row from one of `from` to `to`; a row elsewhere by now (a later report won) is left alone. */
  private async move(row: Row, from: readonly OtaDeviceState[], to: OtaDeviceState, set: Row, step: string, input: Row, now: Date): Promise<boolean> {
    const changed = await this.db
      .updateTable('otaCampaignDevice')
      .set({ ...set, state: to, updatedAt: now.toISOString() })
      .where('upgradeId', '=', num(row.upgradeId))
      .where('attempt', '=', num(row.attempt))
      .where('state', 'in', from)
      .returning(['state'])
      .executeTakeFirst()
    if (!changed) return false
    const part = row.partKind as OtaPart
    this.history.add((b) => b.push(deviceRecord({ partKind: part }, row, step, String(row.state), to, input, now)))
    this.noteDevice(row, to, { percent: set.percent as number | undefined, code: set.code as string | undefined })
    // A final state may finish a wave, a campaign or cross the error threshold: judged now, not at the next tick.
    if (FINAL.includes(to)) this.wake()
    return true
  }

  /** Resolves when every device history row so far is written (tests, close). */
  flushHistory(): Promise<void> {
    return this.history.flush()
  }

  // ---- Live events -----------------------------------------------------------------------------

  private noteDevices(part: OtaPart, campaignId: number, records: TransitionRecord[]) {
    for (const r of records) {
      if (r.entity !== upgradeDeviceKey(part)) continue
      const deviceId = num(r.input.deviceId)
      this.liveOf(part, campaignId).devices.set(deviceId, { type: 'device', campaignId, deviceId, sn: '', wave: num(r.input.wave), state: r.toState as OtaDeviceState })
    }
  }

  private noteDevice(row: Row, state: OtaDeviceState, extra: { percent?: number; code?: string }) {
    const campaignId = num(row.campaignId)
    const deviceId = num(row.deviceId)
    this.liveOf(row.partKind as OtaPart, campaignId).devices.set(deviceId, {
      type: 'device',
      campaignId,
      deviceId,
      sn: '',
      wave: num(row.wave),
      state,
      ...(extra.percent !== undefined ? { percent: extra.percent } : {}),
      ...(extra.code ? { code: extra.code } : {}),
    })
    this.scheduleLive()
  }

  private liveOf(part: OtaPart, campaignId: number): LiveCampaign {
    let live = this.live.get(campaignId)
    if (!live) this.live.set(campaignId, (live = { part, devices: new Map() }))
    return live
  }

  /** A campaign's status or counts changed: its event goes out with the next flush. */
  markLive(part: OtaPart, campaignId: number) {
    this.liveOf(part, campaignId)
    this.scheduleLive()
  }

  private scheduleLive() {
    if (this.liveTimer || this.closed) return
    this.liveTimer = setTimeout(() => {
      this.liveTimer = null
      this.flushLive().catch((err) => this.app.log.warn({ err }, 'could not send OTA live events'))
    }, EVENT_FLUSH_MS)
    this.liveTimer.unref()
  }

  private async flushLive() {
    const batch = [...this.live.entries()]
    this.live.clear()
    for (const [campaignId, live] of batch) {
      const campaign = await this.db.selectFrom('otaCampaign').select(['status', 'pauseReason', 'currentWave']).where('campaignId', '=', campaignId).executeTakeFirst()
      if (!campaign) continue
      const counts = await countsOf(this.db, campaignId)
      const devices = [...live.devices.values()].slice(-DEVICE_EVENTS_PER_FLUSH)
      const sns = devices.length
        ? new Map(
            (
              await this.db
                .selectFrom('iotDevice')
                .select(['deviceId', 'sn'])
                .where(
                  'deviceId',
                  'in',
                  devices.map((d) => d.deviceId),
                )
                .execute()
            ).map((d: Row) => [num(d.deviceId), String(d.sn)]),
          )
        : new Map<number, string>()
      const events: OtaEvent[] = [
        {
          type: 'campaign',
          campaignId,
          part: live.part,
          status: campaign.status as OtaCampaignStatus,
          pauseReason: campaign.pauseReason ? String(campaign.pauseReason) : null,
          currentWave: num(campaign.currentWave),
          counts,
        },
        ...devices.map((d) => ({ ...d, sn: sns.get(d.deviceId) ?? '' })),
      ]
      await this.events.publish({ part: live.part, events })
    }
  }

  async close() {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    if (this.liveTimer) clearTimeout(this.liveTimer)
    await this.ticking?.catch(() => {})
    await Promise.all([...this.inLine.values()])
    await this.history.flush().catch(() => {})
  }
}

/** A campaign's commit deadline (seconds); a row written without one has the default. */
const commitSecondsOf = (c: Row) => num(c.commitSeconds) || OTA_COMMIT_SECONDS.default

/** A refusal's parameters as its sentence takes them: a digest shortened to what people compare. */
const imageParams = (r: ImageRefusal) => ({ approved: shortSha(r.params.approved), found: shortSha(r.params.found) })
const shortSha = (sha256: string | undefined) => (sha256 ? `${sha256.slice(0, 12)}…` : '')

/** Why a campaign stops when a wave ended below its success threshold. */
function shortOfSuccess(c: Row, short: { wave: number; succeeded: number; total: number }): { rule: string; reason: string } {
  const percent = Math.round((short.succeeded * 1000) / short.total) / 10
  return {
    rule: 'successThreshold',
    reason: bothLanguages('ota.rollout.pause.successThreshold', (lang) => ({ ...short, wave: waveName(lang, short.wave), percent, threshold: num(c.successPercent) })),
  }
}

/** Devices per state of a campaign. */
export async function countsOf(db: AnyDb, campaignId: number): Promise<Partial<Record<OtaDeviceState, number>>> {
  const rows = await db.selectFrom('otaCampaignDevice').select(['state', sql<number>`count(*)`.as('n')]).where('campaignId', '=', campaignId).groupBy('state').execute()
  return Object.fromEntries(rows.map((r: Row) => [String(r.state), num(r.n)]))
}

/** How a campaign ended, as its finished view and history say it: failed counts the timed-out and rejected too. */
export function summaryOf(counts: Partial<Record<OtaDeviceState, number>>) {
  return {
    succeeded: counts.succeeded ?? 0,
    failed: (counts.failed ?? 0) + (counts.timedOut ?? 0) + (counts.rejected ?? 0),
    rolledBack: counts.rolledBack ?? 0,
    skipped: counts.skipped ?? 0,
    cancelled: counts.cancelled ?? 0,
  }
}

/** Keeps the campaign's totals current (the list shows them without counting). */
export async function updateCounters(tx: AnyDb, campaignId: number) {
  const counts = await countsOf(tx, campaignId)
  const total = Object.values(counts).reduce((a, b) => a + (b ?? 0), 0)
  const summary = summaryOf(counts)
  await tx
    .updateTable('otaCampaign')
    .set({ totalDevices: total, succeededCount: summary.succeeded, failedCount: summary.failed, rolledBackCount: summary.rolledBack, skippedCount: summary.skipped })
    .where('campaignId', '=', campaignId)
    .execute()
}

/** An audio's deploy status follows its campaigns: deploying while one runs it, deployed once one finished with successes. */
export async function updateAudioStatus(tx: AnyDb, audioId: number) {
  if (!audioId) return
  const campaigns = await tx
    .selectFrom('otaCampaign as c')
    .select([
      'c.status',
      (eb: any) =>
        eb
          .exists(eb.selectFrom('otaCampaignDevice as o').select('o.upgradeId').whereRef('o.campaignId', '=', 'c.campaignId').where('o.state', '=', 'succeeded'))
          .as('anySucceeded'),
    ])
    .where('c.payload', '=', 'audio')
    .where('c.audioId', '=', audioId)
    .execute()
  const deployStatus = campaigns.some((c: Row) => c.status === 'running' || c.status === 'paused')
    ? 'deploying'
    : campaigns.some((c: Row) => c.status === 'finished' && Boolean(c.anySucceeded))
      ? 'deployed'
      : 'notDeployed'
  await tx.updateTable('iotAudio').set({ deployStatus }).where('audioId', '=', audioId).execute()
}

export function deviceRecord(c: Row, r: Row, step: string, fromState: string, toState: string, input: Row, now: Date, who = SYSTEM): TransitionRecord {
  return {
    entity: upgradeDeviceKey(c.partKind as OtaPart),
    rowId: num(r.upgradeId),
    step,
    fromState,
    toState,
    input: { ...input, deviceId: num(r.deviceId), wave: num(r.wave) },
    ...who,
    operTime: now.toISOString(),
  }
}

export function campaignRecord(c: Row, step: string, fromState: string, toState: string, input: Row, now: Date, who = SYSTEM): TransitionRecord {
  return { entity: upgradeKey(c.partKind as OtaPart), rowId: num(c.campaignId), step, fromState, toState, input, ...who, operTime: now.toISOString() }
}
