import { sql } from 'kysely'
import type { Db } from '../../../db/database'
import type { KnownDevice } from '../../../gateway/types'
import { ACTIVE, deviceRecord, devicesById, isoOrNull, num, type Row, type TransitionRecord } from './tables'
import { inDailyWindow } from './window'

// Which devices a tick offers the upgrade to, and how fast: the rate per minute, the devices at work
// at once, the daily window of each device's time zone.

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

export interface Offer {
  device: KnownDevice
  upgradeId: number
  attempt: number
}

/**
 * Claims the devices this tick offers the upgrade to: queued in an open wave, due, online, inside
 * the daily window of their time zone, in position order, within the rate per minute. The update
 * is conditional on the row still being queued: what it returns is what this tick won.
 */
export async function claim(tx: Db, c: Row, now: Date, records: TransitionRecord[], pace: { tickMs: number; maxActiveDevices: number }): Promise<Offer[]> {
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
    allowed = Math.min(UNLIMITED_BATCH, rate - num(lastMinute?.n), spreadOverTheMinute(rate, num(lastMinute?.n), isoOrNull(lastMinute?.first), isoOrNull(lastMinute?.last), now, pace.tickMs))
  }
  const active = await tx
    .selectFrom('otaCampaignDevice')
    .select(sql<number>`count(*)`.as('n'))
    .where('campaignId', '=', campaignId)
    .where('state', 'in', ACTIVE)
    .executeTakeFirst()
  allowed = Math.min(allowed, pace.maxActiveDevices - num(active?.n))
  if (allowed <= 0) return []
  // Both statements below read the waiting devices: queued, of a wave started, their backoff over.
  const zones = (await tx
    .selectFrom('otaCampaignDevice as o')
    .where('o.campaignId', '=', campaignId)
    .where('o.state', '=', 'queued')
    .where('o.wave', '<=', num(c.currentWave))
    .where((eb) => eb.or([eb('o.nextAttemptAt', 'is', null), eb('o.nextAttemptAt', '<=', stamp)]))
    .select('o.timeZone')
    .distinct()
    .execute()) as Row[]
  const open = zones.map((z) => String(z.timeZone)).filter((zone) => inDailyWindow(now, zone, String(c.windowStart ?? ''), String(c.windowEnd ?? '')))
  if (!open.length) return []
  const candidates = (await tx
    .selectFrom('otaCampaignDevice as o')
    .innerJoin('iotDevice as d', 'd.deviceId', 'o.deviceId')
    .where('o.campaignId', '=', campaignId)
    .where('o.state', '=', 'queued')
    .where('o.wave', '<=', num(c.currentWave))
    .where((eb) => eb.or([eb('o.nextAttemptAt', 'is', null), eb('o.nextAttemptAt', '<=', stamp)]))
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
    .set((eb) => ({ state: 'notified', attempt: eb(eb.fn.coalesce('attempt', sql.lit(0)), '+', 1), notifiedAt: stamp, percent: 0, code: '', message: '', trialAt: null, nextAttemptAt: null, finishedAt: null, updatedAt: stamp }))
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
