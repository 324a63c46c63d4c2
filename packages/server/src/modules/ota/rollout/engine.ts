import {
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
import type { Db } from '../../../db/database'
import type { KnownDevice, UpMessage } from '../../../gateway/types'
import { WriteBehind } from '../../../gateway/write-behind'
import { t } from '../../../platform/i18n'
import type { Services } from '../../../platform/services'
import type { RefusedUpgrade } from '../transfer'
import { abortPayload, approvedImageOf, buildOffer, type ImageRefusal, imageOf, otaIdOf, parseOtaId, refusalOf } from '../transfer/offer'
import type { OtaEventBus } from './events'
import { bothLanguages } from './reasons'
import { claim, MAX_ACTIVE_DEVICES, type Offer } from './offers'
import { commitSecondsOf, expire, holdOrSkip, requeueForRetry } from './outcomes'
import { ACTIVE, campaignRecord, deviceRecord, FINAL, NOT_DOWNLOADED, num, PROGRESS_RANK, type Row, type TransitionRecord, upgradeDeviceKey } from './tables'
import { recordTransitions } from '../../../platform/crud/history'
import { advanceWaves, alarmTypesOf, BASELINE_DAYS, countsOf, DAY_MS, finishIfDone, judge, shortOfSuccess, updateAudioStatus, updateCounters } from './waves'

/** The default of OtaRolloutOptions.maxActiveDevices. */
export { MAX_ACTIVE_DEVICES }

export interface OtaRolloutOptions {
  /** How often each instance looks at its running campaigns (≈ 1 s); device events wake it sooner. */
  tickMs?: number
  /** The clock every rollout decision reads (tests move it: daily windows, timeouts, backoff). */
  now?: () => Date
  /** Devices of one campaign working on it at once (MAX_ACTIVE_DEVICES; tests go lower). */
  maxActiveDevices?: number
}

/** Live events: at most this often per instance, and this many device events per campaign each time. */
const EVENT_FLUSH_MS = 400
const DEVICE_EVENTS_PER_FLUSH = 100

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

interface LiveCampaign {
  part: OtaPart
  devices: Map<number, OtaDeviceStateEvent>
}

/**
 * The rollout: every instance runs a ticker over the running campaigns. A campaign's tick runs in one
 * transaction that first locks its row (PostgreSQL: SKIP LOCKED, so two instances never tick one
 * campaign at once); devices are claimed with a conditional update (queued → notified) whose
 * RETURNING names the rows this tick won, so no device is offered twice. Offers go out after the
 * commit. Device reports move rows forward only, with conditional updates that never leave a final
 * state. Everything lives in the database: a restarted server picks up where the last one stopped.
 * A tick's steps are beside it: the devices' outcomes (outcomes.ts), the waves' rules (waves.ts) and
 * the offers' pace (offers.ts); a campaign's targets are chosen once, at submit (targets.ts).
 */
export class OtaRollout {
  private readonly db: Db
  private tickMs: number
  now: () => Date
  private maxActiveDevices: number
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
    this.db = services.db
    this.tickMs = options.tickMs ?? 1000
    this.now = options.now ?? (() => new Date())
    this.maxActiveDevices = options.maxActiveDevices ?? MAX_ACTIVE_DEVICES
    this.history = new WriteBehind({
      delayMs: 100,
      maxSize: 500,
      empty: (): TransitionRecord[] => [],
      size: (b) => b.length,
      write: (b) => recordTransitions(this.db, b),
      onError: (err) => app.log.error({ err }, 'could not write OTA device history'),
    })
  }

  /** Changes the clock, the tick interval or the devices at work at once (tests). */
  configure(options: OtaRolloutOptions) {
    if (options.now) this.now = options.now
    if (options.maxActiveDevices) this.maxActiveDevices = options.maxActiveDevices
    // The scheduler reads the interval at each run: the next tick comes at the new pace.
    if (options.tickMs) this.tickMs = options.tickMs
  }

  start() {
    const { gateway, presence } = this.app.iot
    gateway.on('ota', (m) => this.inOrder(m.device.deviceId, () => this.report(m as UpMessage<OtaProgressPayload>)))
    gateway.on('status', (m) => this.inOrder(m.device.deviceId, () => this.status(m as UpMessage<StatusPayload>)))
    // A device that connects may take its offer now (within its window): no waiting for the next tick.
    presence.onOnline(() => this.wake())
    this.app.iot.sync.onAsk((device) => this.offerAgain(device))
    // Once per tick across instances: a campaign's pass locks its row anyway, and an instance's
    // device reports and wake-ups still tick at once where they land.
    this.services.jobs.every({ key: 'otaRollout', every: () => this.tickMs, run: () => this.tick() })
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
  private async lockCampaign(tx: Db, campaignId: number, status: OtaCampaignStatus): Promise<Row | undefined> {
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
      await recordTransitions(tx, [campaignRecord(c, 'start', 'scheduled', 'running', { automatic: true }, now)])
      return c
    })
    if (started) this.markLive(started.partKind as OtaPart, campaignId)
  }

  /** What starting a campaign sets: its start time, the alarm rate before it, an audio's deploy status. */
  async onStarted(tx: Db, campaign: Row, now: Date) {
    const campaignId = num(campaign.campaignId)
    const since = new Date(now.getTime() - BASELINE_DAYS * DAY_MS).toISOString()
    const alarms = await tx
      .selectFrom('iotAlarm')
      .select(sql<number>`count(*)`.as('n'))
      .where('deviceId', 'in', (eb) => eb.selectFrom('otaCampaignDevice').select('deviceId').where('campaignId', '=', campaignId))
      .where('startTime', '>=', since)
      .where('startTime', '<', now.toISOString())
      .$if(alarmTypesOf(campaign).length > 0, (q) => q.where('type', 'in', alarmTypesOf(campaign)))
      .executeTakeFirst()
    const targets = Math.max(1, num(campaign.totalDevices))
    // The same bikes, the same alarm types, per bike-day: what the upgraded bikes' rate is compared with.
    await tx
      .updateTable('otaCampaign')
      .set({ startedAt: (campaign.startedAt ?? now.toISOString()) as string | null, baselineAlarmRate: (num(alarms?.n) * 1000) / (targets * BASELINE_DAYS) })
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
      await expire(tx, c, now, records)
      // Held first: a refusal for a passing reason (riding) waits as held, using no retry.
      await holdOrSkip(tx, c, now, records)
      await requeueForRetry(tx, c, now, records)
      // Every device done: nothing is left for a pause to protect.
      if (!(await finishIfDone(tx, c, now, records))) {
        let stop = await judge(tx, c, now)
        let wave = num(c.currentWave)
        if (!stop) {
          const advanced = await advanceWaves(tx, c)
          wave = advanced.wave
          // A report may have landed since the rules were judged: if the error rule holds now, it is the reason.
          if (advanced.short) stop = (await judge(tx, c, now)) ?? shortOfSuccess(c, advanced.short)
        }
        if (stop) {
          // The report that failed the last device may have committed after the check above (each
          // statement reads what is committed when it runs): then every device is done, and the
          // campaign finishes rather than pausing with nothing left to protect.
          if (!(await finishIfDone(tx, c, now, records))) {
            await tx.updateTable('otaCampaign').set({ status: 'paused', pauseReason: stop.reason }).where('campaignId', '=', campaignId).execute()
            records.push(campaignRecord(c, 'pause', 'running', 'paused', { automatic: true, rule: stop.rule }, now))
          }
        } else {
          // Stamped after the wave was judged: a report that finished the wave before committed before
          // that read, so every notification of the next wave is later than every finish of this one.
          offers.push(...(await claim(tx, { ...c, currentWave: wave }, this.now(), records, { tickMs: this.tickMs, maxActiveDevices: this.maxActiveDevices })))
        }
      }
      await updateCounters(tx, campaignId)
      await recordTransitions(tx, records)
    })
    if (!campaign) return
    const part = campaign.partKind as OtaPart
    this.noteDevices(part, campaignId, records)
    if (offers.length) await this.sendOffers(campaign, offers)
    if (records.length) this.markLive(part, campaignId)
  }

  /**
   * The device asked for what is pending (up/sync, or subscribed): the offer of each upgrade it has
   * been handed and not yet downloaded goes again, with the same id (a duplicate to a device that has
   * it) and a fresh HTTPS link, so an offer lost on a breaking connection, or a link that expired on a
   * slow modem, is not the end of the attempt.
   */
  async offerAgain(device: KnownDevice): Promise<number> {
    if (this.closed) return 0
    const under = (await this.db
      .selectFrom('otaCampaignDevice as o')
      .innerJoin('otaCampaign as c', 'c.campaignId', 'o.campaignId')
      .selectAll('c')
      .select(['o.upgradeId', 'o.attempt'])
      .where('o.deviceId', '=', device.deviceId)
      .where('o.state', 'in', NOT_DOWNLOADED)
      .execute()) as Row[]
    for (const row of under) await this.sendOffers(row, [{ device, upgradeId: num(row.upgradeId), attempt: num(row.attempt) }])
    return under.length
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
      await recordTransitions(this.db, [campaignRecord({ campaignId: r.campaignId, partKind: row.partKind }, 'pause', 'running', 'paused', { automatic: true, rule: 'imageRefused', code: r.refusal.code }, now)])
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
    if (this.liveTimer) clearTimeout(this.liveTimer)
    await this.ticking?.catch(() => {})
    await Promise.all([...this.inLine.values()])
    await this.history.flush().catch(() => {})
  }
}

/** A refusal's parameters as its sentence takes them: a digest shortened to what people compare. */
const imageParams = (r: ImageRefusal) => ({ approved: shortSha(r.params.approved), found: shortSha(r.params.found) })
const shortSha = (sha256: string | undefined) => (sha256 ? `${sha256.slice(0, 12)}…` : '')
