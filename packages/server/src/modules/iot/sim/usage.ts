import { luhnValid, reportedIccid, type StatusPayload } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import { cardHolders, heldByAnother } from '../../../gateway/card-holders'
import { WriteBehind } from '../../../gateway/write-behind'
import type { Db } from '../../../db/database'

type Row = Record<string, unknown>

/** What the flow alarms need of a SIM card, before and after a change. */
export interface FlowSide {
  simId: number
  iccid: string
  deviceId: number | null
  flowState: string
  usedMb: number
  limitMb: number
}

export interface FlowChange {
  before?: FlowSide
  after?: FlowSide
}

export const ICCID_PATTERN = /^\d{19,20}$/
export const isIccid = (s: string) => ICCID_PATTERN.test(s) && luhnValid(s)
const isImei = (s: string | undefined): s is string => !!s && /^\d{15}$/.test(s) && luhnValid(s)

/**
 * Remaining data and the flow state: warning once the used share reaches the card's threshold. A card
 * without a package (limit 0) has nothing to warn about.
 */
export function flowOf(sim: Row): { remainingMb: number; flowState: 'normal' | 'warning' } {
  const used = Number(sim.usedMb ?? 0)
  const limit = Number(sim.limitMb ?? 0)
  const percent = Number(sim.warningPercent ?? 80)
  return {
    remainingMb: Math.round((limit - used) * 1000) / 1000,
    flowState: limit > 0 && used >= (limit * percent) / 100 ? 'warning' : 'normal',
  }
}

export const flowSide = (row: Row): FlowSide => ({
  simId: Number(row.simId),
  iccid: String(row.iccid),
  deviceId: row.deviceId === null || row.deviceId === undefined ? null : Number(row.deviceId),
  flowState: String(row.flowState),
  usedMb: Number(row.usedMb ?? 0),
  limitMb: Number(row.limitMb ?? 0),
})

/** A card one device reports while it is linked to another device that still exists. */
export interface HeldClaim {
  iccid: string
  deviceId: number
  sn: string
  holderSn: string
}

interface Report {
  deviceId: number
  sn: string
  iccid: string
  imei?: string
  usedMb: number
  limitMb: number
}

const SIDE_COLUMNS = ['simId', 'iccid', 'deviceId', 'flowState', 'usedMb', 'limitMb', 'warningPercent', 'imei'] as const

/**
 * The SIM usage devices report in their status, written in batches (10,000 devices reporting at once
 * cost a few transactions): the card with the ICCID gets the usage and is linked to the device that
 * reports it (the card the device held before is unlinked). A card linked to another device that
 * still exists is not taken: a second device claiming it may be a card moved between bikes or a
 * cloned module, which staff decide (they edit the card's device); until then the report is left
 * out and its claim goes to `held` (the simClash alarm). A card we do not know is added as in use:
 * the device that reports it proves it is fitted and working, and a fleet's cards then appear
 * without anyone typing them in. An ICCID that fails its
 * check digit is a bad read, not a card: it is logged and left out.
 */
export class UsageWriter {
  private readonly buffer: WriteBehind<Map<string, Report>>
  private badReports = 0

  constructor(
    private readonly deps: { db: Db; logger: FastifyBaseLogger; changed: (changes: FlowChange[]) => Promise<void>; held: (claims: HeldClaim[]) => Promise<void> },
    options: { flushMs?: number; maxBatch?: number } = {},
  ) {
    this.buffer = new WriteBehind({
      delayMs: options.flushMs ?? 50,
      maxSize: options.maxBatch ?? 500,
      empty: () => new Map(),
      size: (b) => b.size,
      // In ICCID order: instances writing the same cards at once lock them in one order.
      write: (b) => this.write([...b.values()].sort((x, y) => (x.iccid < y.iccid ? -1 : 1))),
      onError: (err) => deps.logger.error({ err }, 'could not write SIM usage'),
    })
  }

  report(device: { deviceId: number; sn: string }, sim: NonNullable<StatusPayload['sim']>) {
    const iccid = reportedIccid(sim)
    if (!isIccid(iccid)) {
      // Named the first few times, then counted: a fleet of misconfigured modules must not flood the log.
      this.badReports++
      if (this.badReports <= 10 || this.badReports % 1000 === 0) {
        this.deps.logger.warn({ sn: device.sn, iccid, reports: this.badReports }, 'a device reported an ICCID that is not 19 or 20 digits with its check digit: ignored')
      }
      return
    }
    this.buffer.add((batch) => batch.set(iccid, { deviceId: device.deviceId, sn: device.sn, iccid, imei: sim.imei, usedMb: sim.usedMb, limitMb: sim.limitMb }))
  }

  flush(): Promise<void> {
    return this.buffer.flush()
  }

  close(): Promise<void> {
    return this.buffer.close()
  }

  private async write(reports: Report[]) {
    const changes: FlowChange[] = []
    const held: HeldClaim[] = []
    const now = new Date().toISOString()
    await this.deps.db.transaction().execute(async (tx) => {
      const stored = new Map((await tx.selectFrom('iotSim').select(SIDE_COLUMNS).where('iccid', 'in', reports.map((r) => r.iccid)).execute()).map((r) => [String(r.iccid), r as Row]))
      const holders = await cardHolders(tx, reports.map((r) => r.iccid))
      const taken = reports.filter((r) => {
        const holder = heldByAnother(holders, r.iccid, r.deviceId)
        if (holder) held.push({ iccid: r.iccid, deviceId: r.deviceId, sn: r.sn, holderSn: holder.sn })
        return !holder
      })
      if (!taken.length) return
      // A device reporting another card no longer holds the one it had (a device whose claim is held keeps it).
      const left = await tx
        .selectFrom('iotSim')
        .select(SIDE_COLUMNS)
        .where('deviceId', 'in', [...new Set(taken.map((r) => r.deviceId))])
        .where('iccid', 'not in', taken.map((r) => r.iccid))
        .execute()
      for (const s of left) {
        await tx.updateTable('iotSim').set({ deviceId: null, updateBy: 'device', updateTime: now }).where('simId', '=', s.simId).execute()
        changes.push({ before: flowSide(s), after: { ...flowSide(s), deviceId: null } })
      }
      for (const r of taken) {
        const s = stored.get(r.iccid)
        if (!s) {
          const values = { iccid: r.iccid, imei: isImei(r.imei) ? r.imei : '', status: 'inUse', usedMb: r.usedMb, limitMb: r.limitMb, deviceId: r.deviceId }
          const row = await tx
            .insertInto('iotSim')
            .values({ ...values, ...flowOf(values), carrierState: '', createBy: 'device', createTime: now })
            .onConflict((oc) => oc.column('iccid').doNothing())
            .returning(SIDE_COLUMNS)
            .executeTakeFirst()
          // Another instance added it meanwhile: its next report updates it.
          if (row) changes.push({ after: flowSide(row) })
          continue
        }
        const set: Row = {}
        if (Number(s.usedMb) !== r.usedMb || Number(s.limitMb) !== r.limitMb) Object.assign(set, { usedMb: r.usedMb, limitMb: r.limitMb }, flowOf({ ...s, usedMb: r.usedMb, limitMb: r.limitMb }))
        if (Number(s.deviceId ?? 0) !== r.deviceId) set.deviceId = r.deviceId
        if (isImei(r.imei) && s.imei !== r.imei) set.imei = r.imei
        if (!Object.keys(set).length) continue
        Object.assign(set, { updateBy: 'device', updateTime: now })
        const flowMoves = set.flowState !== undefined && set.flowState !== s.flowState
        // Only while the card is linked as read: one that staff or another device's report moved meanwhile is judged again on the next report.
        const linked = s.deviceId === null ? null : Number(s.deviceId)
        // The flow state moves once: of two instances writing the card at once, one raises or clears its alarm.
        let q = tx.updateTable('iotSim').set(set).where('simId', '=', Number(s.simId)).where('deviceId', linked === null ? 'is' : '=', linked)
        if (flowMoves) q = q.where('flowState', '=', String(s.flowState))
        const written = await q.executeTakeFirst()
        if (Number(written.numUpdatedRows) === 0) {
          if (!flowMoves) continue
          const { flowState: _moved, ...rest } = set
          await tx.updateTable('iotSim').set(rest).where('simId', '=', Number(s.simId)).where('deviceId', linked === null ? 'is' : '=', linked).execute()
          continue
        }
        changes.push({ before: flowSide(s), after: flowSide({ ...s, ...set }) })
      }
    })
    await this.deps.changed(changes)
    if (held.length) await this.deps.held(held)
  }
}
