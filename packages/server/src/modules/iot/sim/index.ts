import { iotSimEntities, type StatusPayload } from '@velo/shared'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { UpMessage } from '../../../gateway/types'
import { registerEntityRoutes } from '../../../platform/crud/routes'
import { recordTransitions } from '../../../platform/crud/history'
import type { TransitionArgs } from '../../../platform/crud/workflow'
import { AppError, conflict } from '../../../platform/errors'
import { t } from '../../../platform/i18n'
import type { Services } from '../../../platform/services'
import { type Alarms, alarmsOf } from '../warnings/alarms'
import { type CarrierAdapter, CarrierRefusal, type SimStatus, SimulatedCarrier } from './carrier'
import { type FlowChange, flowOf, flowSide, type HeldClaim, UsageWriter } from './usage'
import type { Db } from '../../../db/database'

const { iotSim } = iotSimEntities

export const CARRIER_SYNC_MINUTES_KEY = 'iot.sim.carrierSyncMinutes'
export const SIMULATED_CARRIER_DELAY_KEY = 'iot.sim.simulatedCarrierDelaySeconds'
/** Who the history names for what the carrier did. */
const CARRIER_USER = 'carrier'
const POLL_BATCH = 200
const SYNC_BATCH = 500

export interface SimCards {
  /** The adapter of each carrier a card may name (the definition's carrier options). */
  carriers: Map<string, CarrierAdapter>
  /** Resolves when the usage reports received so far are written. */
  flush(): Promise<void>
  /** One round of asking the carriers (accepted requests, then cards due a sync); returns how many cards changed. */
  poll(): Promise<number>
}

const byServices = new WeakMap<Services, SimCards>()

/** The SIM cards module of one server (tests reach its simulated carrier and its poll here). */
export function simCardsOf(services: Services): SimCards {
  const sims = byServices.get(services)
  if (!sims) throw new Error('the SIM cards module is not registered')
  return sims
}

/**
 * IoT › SIM cards: the engine serves the list, form, import, steps and history; here are the
 * carrier behind the steps (asked in the step, confirmed by polling), the usage the devices report,
 * the flow state with its simDataLow warning, and the simClash warning of a card two devices claim.
 */
export function registerSimCards(app: FastifyInstance, services: Services) {
  const log = app.log
  const db = services.db
  const simulated = new SimulatedCarrier(async () => 1000 * (await services.configValues.int(SIMULATED_CARRIER_DELAY_KEY, 5, 0)))
  const carriers = new Map<string, CarrierAdapter>([['simulated', simulated]])
  const carrierOf = (name: unknown) => {
    const carrier = carriers.get(String(name))
    if (!carrier) throw new Error(`no adapter for SIM carrier ${String(name)}`)
    return carrier
  }

  const flowAlarms = new FlowAlarms(services, log)
  const usage = new UsageWriter({ db, logger: log, changed: (changes) => flowAlarms.apply(changes), held: (claims) => flowAlarms.held(claims) })
  app.iot.gateway.on('status', (m) => {
    const sim = (m as UpMessage<StatusPayload>).payload.sim
    if (sim) usage.report(m.device, sim)
  })
  const poller = new CarrierPoller(db, services, carrierOf, log)
  byServices.set(services, { carriers, flush: () => usage.flush(), poll: () => poller.poll() })
  app.iot.attach({ close: () => usage.close() })

  // Asked of the carrier inside the step: a refusal refuses the step, and nothing changes.
  const askCarrier = async ({ tx, row, to, input, context }: TransitionArgs) => {
    const pending = await tx.selectFrom('iotSim').select('carrierRequestId').where('simId', '=', Number(row.simId)).executeTakeFirst()
    if (pending?.carrierRequestId) throw conflict('iot.sim.carrierPending', { iccid: String(row.iccid) })
    try {
      context.carrierRequest = await carrierOf(row.carrier).requestState(String(row.iccid), to as SimStatus, String(input.reason ?? ''))
    } catch (err) {
      if (err instanceof CarrierRefusal) throw conflict('iot.sim.carrierRefused', { reason: err.message })
      log.error({ err, iccid: row.iccid }, 'the SIM carrier could not be asked')
      throw new AppError(502, 'iot.sim.carrierUnavailable')
    }
  }

  registerEntityRoutes(app, services, iotSim, {
    beforeCreate: async ({ values }) => {
      Object.assign(values, flowOf(values))
    },
    beforeUpdate: async ({ before, values }) => {
      if (['usedMb', 'limitMb', 'warningPercent'].some((k) => values[k] !== undefined)) Object.assign(values, flowOf({ ...before, ...values }))
    },
    // Single changes and imported rows alike: the flow state moved, or the card moved to another device
    // (staff linking a card to the device that claims it is their decision of the claim).
    afterCommit: async (change) => {
      if (change.op === 'create') await flowAlarms.apply([{ after: flowSide(change.row) }])
      else if (change.op === 'update') await flowAlarms.apply([{ before: flowSide(change.before), after: flowSide(change.after) }])
      else await flowAlarms.apply(change.rows.map((r) => ({ before: flowSide(r) })))
    },
    // What became of the changes the carriers accepted, and the carriers' own changes: every 5 s.
    every: { carrierSync: { every: '5s', run: () => poller.poll() } },
    guards: Object.fromEntries(iotSim.transitions!.steps.map((s) => [s.name, [askCarrier]])),
    // The status moved at once (what we asked for); the carrier state says pending until the carrier confirms.
    afterTransition: [
      async ({ tx, from, after, context }) => {
        const request = context.carrierRequest as { requestId: string }
        await tx
          .updateTable('iotSim')
          .set({ carrierState: 'pending', carrierRequestId: request.requestId, pendingFrom: from })
          .where('simId', '=', Number(after.simId))
          .execute()
        after.carrierState = 'pending'
      },
    ],
  })
}

/** simDataLow warnings of the cards whose flow state or device changed; simClash warnings of the devices claiming a card another holds. */
class FlowAlarms {
  private warned = false

  constructor(
    private readonly services: Services,
    private readonly log: FastifyBaseLogger,
  ) {}

  // The warnings module registers first; a server without it (a trimmed test build) keeps the flow state only.
  private alarms(): Alarms | null {
    try {
      return alarmsOf(this.services)
    } catch (err) {
      if (!this.warned) this.log.warn({ err }, 'SIM data warnings are not raised: the warnings module is not registered')
      this.warned = true
      return null
    }
  }

  async apply(changes: readonly FlowChange[]) {
    const moved = changes.filter(({ before, after }) => {
      const warnedBefore = before?.flowState === 'warning' ? before.deviceId : null
      const warnedAfter = after?.flowState === 'warning' ? after.deviceId : null
      return warnedBefore !== warnedAfter
    })
    // A card that went to a device settles that device's claim (staff moved it, or its holder let it go).
    const claimants = changes.flatMap(({ before, after }) => (before && after && after.deviceId !== null && after.deviceId !== before.deviceId ? [after.deviceId] : []))
    if (!moved.length && !claimants.length) return
    const alarms = this.alarms()
    if (!alarms) return
    for (const deviceId of claimants) {
      try {
        await alarms.clear(deviceId, 'simClash')
      } catch (err) {
        this.log.error({ err, deviceId }, 'could not clear a SIM claim warning')
      }
    }
    for (const { before, after } of moved) {
      try {
        if (before?.flowState === 'warning' && before.deviceId !== null) await alarms.clear(before.deviceId, 'simDataLow')
        if (after?.flowState === 'warning' && after.deviceId !== null) {
          const percent = after.limitMb > 0 ? Math.round((100 * after.usedMb) / after.limitMb) : 0
          await alarms.raise({
            deviceId: after.deviceId,
            type: 'simDataLow',
            ...(after.usedMb >= after.limitMb ? { severity: 'major' as const } : {}),
            detail: `ICCID ${after.iccid}: ${percent} % of ${after.limitMb.toLocaleString('en-US')} MB used`,
          })
        }
      } catch (err) {
        this.log.error({ err, iccid: (after ?? before)?.iccid }, 'could not raise or clear a SIM data warning')
      }
    }
  }

  /** A device reports a card another device holds: warned on the claimant (a repeat counts up), naming both. */
  async held(claims: readonly HeldClaim[]) {
    const alarms = this.alarms()
    if (!alarms) return
    for (const c of claims) {
      const params = { iccid: c.iccid, holder: c.holderSn, sn: c.sn }
      try {
        // Alarm details are stored once, for staff of either language.
        await alarms.raise({ deviceId: c.deviceId, type: 'simClash', detail: `${t('en_US', 'iot.sim.claimed', params)} / ${t('zh_CN', 'iot.sim.claimed', params)}` })
      } catch (err) {
        this.log.error({ err, iccid: c.iccid, sn: c.sn }, 'could not raise a SIM claim warning')
      }
    }
  }
}

/**
 * Asks the carriers what became of the changes they accepted, and, every CARRIER_SYNC_MINUTES, what
 * state each card is in (the carrier's own changes): the iotSim.carrierSync sweep. Every write is also
 * conditional on what was read, so a poll run by hand beside it (tests, poll()) applies a
 * confirmation or a change, and writes it to the history, once.
 */
class CarrierPoller {
  constructor(
    private readonly db: Db,
    private readonly services: Services,
    private readonly carrierOf: (name: unknown) => CarrierAdapter,
    private readonly log: FastifyBaseLogger,
  ) {}

  async poll(): Promise<number> {
    return (await this.pollRequests()) + (await this.syncCards())
  }

  private async pollRequests(): Promise<number> {
    const rows = await this.db
      .selectFrom('iotSim')
      .select(['simId', 'iccid', 'carrier', 'status', 'carrierRequestId', 'pendingFrom'])
      .where('carrierRequestId', 'is not', null)
      .orderBy('simId')
      .limit(POLL_BATCH)
      .execute()
    let changed = 0
    for (const row of rows) {
      const requestId = row.carrierRequestId!
      let outcome
      try {
        outcome = await this.carrierOf(row.carrier).requestOutcome(requestId)
      } catch (err) {
        this.log.error({ err, iccid: row.iccid }, 'could not ask the SIM carrier about a request')
        continue
      }
      if (outcome.state === 'pending') continue
      const now = new Date().toISOString()
      if (outcome.state === 'done') {
        const done = await this.db
          .updateTable('iotSim')
          .set({ carrierState: outcome.card.carrierState, carrierRequestId: null, pendingFrom: null, lastSyncAt: now })
          .where('simId', '=', row.simId)
          .where('carrierRequestId', '=', requestId)
          .executeTakeFirst()
        changed += Number(done.numUpdatedRows)
        continue
      }
      // Refused after it was accepted: the card is as it was, so the status goes back.
      const restored = row.pendingFrom ?? row.status
      changed += await this.db.transaction().execute(async (tx) => {
        const undone = await tx
          .updateTable('iotSim')
          .set({ status: restored, carrierState: 'refused', carrierRequestId: null, pendingFrom: null, lastSyncAt: now })
          .where('simId', '=', row.simId)
          .where('carrierRequestId', '=', requestId)
          .executeTakeFirst()
        if (Number(undone.numUpdatedRows) !== 1) return 0
        await logCarrierStep(tx, row.simId, 'carrierRefused', row.status, restored, outcome.reason, now)
        return 1
      })
    }
    return changed
  }

  private async syncCards(): Promise<number> {
    const minutes = await this.services.configValues.int(CARRIER_SYNC_MINUTES_KEY, 60)
    const now = new Date()
    const cutoff = new Date(now.getTime() - minutes * 60_000).toISOString()
    const due = await this.db
      .selectFrom('iotSim')
      .select('simId')
      .where('carrierRequestId', 'is', null)
      .where((eb) => eb.or([eb('lastSyncAt', 'is', null), eb('lastSyncAt', '<', cutoff)]))
      .orderBy('simId')
      .limit(SYNC_BATCH)
      .execute()
    if (!due.length) return 0
    // Claimed by stamping them: an instance polling at the same time finds them synchronised.
    const claimed = await this.db
      .updateTable('iotSim')
      .set({ lastSyncAt: now.toISOString() })
      .where(
        'simId',
        'in',
        due.map((r) => r.simId),
      )
      .where('carrierRequestId', 'is', null)
      .where((eb) => eb.or([eb('lastSyncAt', 'is', null), eb('lastSyncAt', '<', cutoff)]))
      .returning(['simId', 'iccid', 'carrier', 'status', 'carrierState'])
      .execute()
    let changed = 0
    const byCarrier = new Map<string, typeof claimed>()
    for (const r of claimed) byCarrier.set(String(r.carrier), [...(byCarrier.get(String(r.carrier)) ?? []), r])
    for (const [name, cards] of byCarrier) {
      let states
      try {
        states = await this.carrierOf(name).cardStates(cards.map((c) => String(c.iccid)))
      } catch (err) {
        this.log.error({ err, carrier: name }, 'could not ask the SIM carrier for its cards')
        continue
      }
      for (const card of cards) {
        const reported = states.get(String(card.iccid))
        if (!reported || (reported.status === card.status && reported.carrierState === card.carrierState)) continue
        changed += await this.db.transaction().execute(async (tx) => {
          const moved = await tx
            .updateTable('iotSim')
            .set({ status: reported.status, carrierState: reported.carrierState })
            .where('simId', '=', card.simId)
            .where('status', '=', card.status)
            .where('carrierRequestId', 'is', null)
            .executeTakeFirst()
          if (Number(moved.numUpdatedRows) !== 1) return 0
          if (reported.status !== card.status) await logCarrierStep(tx, card.simId, 'carrierChanged', card.status, reported.status, reported.reason ?? '', now.toISOString())
          return 1
        })
      }
    }
    return changed
  }
}

/** The history row of what the carrier did (no step of ours: the timeline shows its name). */
async function logCarrierStep(tx: Db, simId: number, step: string, from: string, to: string, reason: string, at: string) {
  await recordTransitions(tx, [{ entity: iotSim.key, rowId: simId, step, fromState: from, toState: to, input: { reason }, userId: 0, userName: CARRIER_USER, operTime: at }])
}
