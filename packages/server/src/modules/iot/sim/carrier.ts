/**
 * Where a carrier's API plugs in (China Mobile OneLink, a roaming MVNO): the SIM module asks for a
 * life-cycle change, the carrier answers "accepted" with its request id and carries the change out
 * later, so the module polls it; the carrier also changes cards on its own (suspended for non-payment,
 * over quota, no real-name registration), which the module learns from the same polling.
 */

/** Our life-cycle states (SPEC §4), as the carrier is asked for them and reported in. */
export type SimStatus = 'silent' | 'inUse' | 'paused' | 'suspended' | 'obsolete'

/** What a carrier says of one card: our state for it and its own name of the state (shown as is). */
export interface CarrierCardState {
  status: SimStatus
  carrierState: string
  /** Why the carrier changed it on its own (unpaid, over quota). */
  reason?: string
}

export type CarrierRequestOutcome =
  | { state: 'pending' }
  | { state: 'done'; card: CarrierCardState }
  /** The card stays as it was before the request. */
  | { state: 'refused'; reason: string }

/** A refusal at the time of asking: nothing was accepted, nothing is to change. */
export class CarrierRefusal extends Error {}

export interface CarrierAdapter {
  /** Asks for a card to move to a state; answers the carrier's request id once accepted, or throws CarrierRefusal. */
  requestState(iccid: string, status: SimStatus, reason: string): Promise<{ requestId: string }>
  /** How an accepted request went. */
  requestOutcome(requestId: string): Promise<CarrierRequestOutcome>
  /** The carrier's current view of these cards (those it knows); the poll asks in batches. */
  cardStates(iccids: readonly string[]): Promise<Map<string, CarrierCardState>>
}

/** The carrier's names of our states (OneLink's, DOMAIN.md › SIM life cycle). */
export const SIMULATED_CARRIER_STATES: Record<SimStatus, string> = {
  silent: 'awaitingActivation',
  inUse: 'activated',
  paused: 'stopped',
  suspended: 'suspended',
  obsolete: 'pendingCancellation',
}

const card = (status: SimStatus, reason?: string): CarrierCardState => ({ status, carrierState: SIMULATED_CARRIER_STATES[status], ...(reason ? { reason } : {}) })

/**
 * A carrier in the server's memory, for development, demos and tests. An accepted request is done
 * `delayMs` after it was accepted. Its id says everything about it (card, state, when it is due, a
 * refusal to come), so any server instance that polls it gets the same answer. Cards the carrier
 * changed itself (`carrierChanges`) are known to the instance they were simulated on.
 */
export class SimulatedCarrier implements CarrierAdapter {
  /** Cards it refuses every request for, with the reason (as a real carrier refuses a cancelled card). */
  readonly refuseNow = new Map<string, string>()
  /** Cards whose next request it accepts and then refuses, with the reason (a check that fails later). */
  readonly refuseLater = new Map<string, string>()
  /** What the carrier did to cards on its own, until a request of ours changes them again. */
  readonly carrierChanges = new Map<string, CarrierCardState>()

  constructor(public delayMs: () => number | Promise<number> = () => 5000) {}

  async requestState(iccid: string, status: SimStatus, _reason: string): Promise<{ requestId: string }> {
    const refusal = this.refuseNow.get(iccid) ?? (this.carrierChanges.get(iccid)?.status === 'obsolete' ? 'the card is cancelled' : undefined)
    if (refusal) throw new CarrierRefusal(refusal)
    const later = this.refuseLater.get(iccid)
    this.refuseLater.delete(iccid)
    this.carrierChanges.delete(iccid)
    const due = Date.now() + (await this.delayMs())
    return { requestId: ['sim', iccid, status, due, later ? Buffer.from(later).toString('base64url') : ''].join(':') }
  }

  async requestOutcome(requestId: string): Promise<CarrierRequestOutcome> {
    const [kind, iccid, status, due, refusal] = requestId.split(':')
    if (kind !== 'sim' || !iccid || !status || !(status in SIMULATED_CARRIER_STATES)) throw new Error(`not a request of the simulated carrier: ${requestId}`)
    if (Date.now() < Number(due)) return { state: 'pending' }
    if (refusal) return { state: 'refused', reason: Buffer.from(refusal, 'base64url').toString() }
    return { state: 'done', card: card(status as SimStatus) }
  }

  async cardStates(iccids: readonly string[]): Promise<Map<string, CarrierCardState>> {
    const known = new Map<string, CarrierCardState>()
    for (const iccid of iccids) {
      const changed = this.carrierChanges.get(iccid)
      if (changed) known.set(iccid, changed)
    }
    return known
  }

  /** The carrier changes a card itself (suspended for non-payment): the next poll finds it. */
  simulateChange(iccid: string, status: SimStatus, reason?: string) {
    this.carrierChanges.set(iccid, card(status, reason))
  }
}
