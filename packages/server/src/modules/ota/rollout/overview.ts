import { type Language, OTA_ACTIVE_STATES, OTA_CAMPAIGN_STATUSES, OTA_DEVICE_STATES, type OtaCampaignOverview, type OtaCampaignStatus, type OtaDeviceState, type OtaPart } from '@velo/shared'
import { sql } from 'kysely'
import { z } from 'zod'
import { notFound } from '../../../platform/errors'
import { countsOf } from './waves'
import { reasonIn } from './reasons'
import type { Db } from '../../../db/database'
import { isoOrNull, num, RETRYABLE, type Row } from './tables'

const counts = z.partialRecord(z.enum(OTA_DEVICE_STATES), z.number())

/** GET {upgrade path}/{id}/overview answers this (shared OtaCampaignOverview). */
export const overviewSchema = z.object({
  campaignId: z.number(),
  status: z.enum(OTA_CAMPAIGN_STATUSES),
  pauseReason: z.string().nullable(),
  currentWave: z.number(),
  totalDevices: z.number(),
  counts,
  waves: z.array(
    z.object({
      wave: z.number(),
      total: z.number(),
      succeeded: z.number(),
      failed: z.number(),
      active: z.number(),
      queued: z.number(),
      status: z.enum(['waiting', 'running', 'passed', 'stopped']),
    }),
  ),
  timeline: z.array(z.object({ at: z.string(), counts })),
  failed: z.array(
    z.object({
      upgradeId: z.number(),
      deviceId: z.number(),
      sn: z.string(),
      state: z.enum(OTA_DEVICE_STATES),
      code: z.string().nullable(),
      message: z.string().nullable(),
      attempt: z.number(),
      at: z.string().nullable(),
    }),
  ),
})

const MAX_BUCKETS = 200
const MIN_BUCKET_MS = 60_000
const NEWEST_FAILED = 100

/**
 * The states over time, rebuilt from each device's row rather than kept as snapshots: a device
 * counts as queued until its notification, active until it finished, then in its final state. A
 * device retried shows its last attempt's times. Buckets of a minute, longer for long campaigns,
 * at most 200.
 */
function timelineOf(rows: Row[], startedAt: string | null, endAt: Date): OtaCampaignOverview['timeline'] {
  if (!startedAt) return []
  const start = Date.parse(startedAt)
  const span = Math.max(0, endAt.getTime() - start)
  const bucketMs = Math.max(MIN_BUCKET_MS, Math.ceil(span / MAX_BUCKETS / MIN_BUCKET_MS) * MIN_BUCKET_MS)
  const buckets = Math.min(MAX_BUCKETS, Math.max(1, Math.ceil(span / bucketMs)))
  const timeline: OtaCampaignOverview['timeline'] = []
  for (let i = 1; i <= buckets; i++) {
    const at = Math.min(start + i * bucketMs, endAt.getTime())
    const c: Partial<Record<OtaDeviceState, number>> = {}
    for (const r of rows) {
      const notified = r.notifiedAt ? Date.parse(String(r.notifiedAt)) : Infinity
      const finished = r.finishedAt ? Date.parse(String(r.finishedAt)) : Infinity
      const state: OtaDeviceState = finished <= at ? (r.state as OtaDeviceState) : notified <= at ? 'notified' : 'queued'
      c[state] = (c[state] ?? 0) + 1
    }
    timeline.push({ at: new Date(at).toISOString(), counts: c })
  }
  return timeline
}

export async function overviewOf(db: Db, part: OtaPart, campaignId: number, lang: Language, now: Date): Promise<OtaCampaignOverview> {
  const c = await db.selectFrom('otaCampaign').selectAll().where('campaignId', '=', campaignId).where('partKind', '=', part).executeTakeFirst()
  if (!c) throw notFound()
  const status = c.status as OtaCampaignStatus
  const currentWave = num(c.currentWave)
  const [stateCounts, perWave, rows, failed] = await Promise.all([
    countsOf(db, campaignId),
    db.selectFrom('otaCampaignDevice').select(['wave', 'state', sql<number>`count(*)`.as('n')]).where('campaignId', '=', campaignId).groupBy(['wave', 'state']).execute(),
    db.selectFrom('otaCampaignDevice').select(['state', 'notifiedAt', 'finishedAt']).where('campaignId', '=', campaignId).execute(),
    db
      .selectFrom('otaCampaignDevice as o')
      .innerJoin('iotDevice as d', 'd.deviceId', 'o.deviceId')
      .select(['o.upgradeId', 'o.deviceId', 'd.sn', 'o.state', 'o.code', 'o.message', 'o.attempt', 'o.finishedAt'])
      .where('o.campaignId', '=', campaignId)
      .where('o.state', 'in', RETRYABLE)
      .orderBy('o.finishedAt', 'desc')
      .orderBy('o.upgradeId', 'desc')
      .limit(NEWEST_FAILED)
      .execute(),
  ])
  const waves = new Map<number, OtaCampaignOverview['waves'][number]>()
  for (const r of perWave as Row[]) {
    const wave = num(r.wave)
    const w = waves.get(wave) ?? { wave, total: 0, succeeded: 0, failed: 0, active: 0, queued: 0, status: 'waiting' as const }
    const n = num(r.n)
    const state = r.state as OtaDeviceState
    w.total += n
    if (state === 'succeeded') w.succeeded += n
    else if (RETRYABLE.includes(state)) w.failed += n
    else if (OTA_ACTIVE_STATES.includes(state)) w.active += n
    else if (state === 'queued' || state === 'held') w.queued += n
    waves.set(wave, w)
  }
  const stoppedByRule = status === 'paused' || status === 'cancelled'
  for (const w of waves.values()) {
    if (status === 'draft' || status === 'awaitingApproval' || status === 'scheduled') w.status = 'waiting'
    else if (status === 'finished' || w.wave < currentWave) w.status = 'passed'
    else if (w.wave === currentWave) w.status = stoppedByRule ? 'stopped' : 'running'
  }
  // A report may land while the tick that finishes the campaign runs: the last device's time bounds it too.
  const lastFinished = (rows as Row[]).reduce((last, r) => (r.finishedAt ? Math.max(last, Date.parse(String(r.finishedAt))) : last), 0)
  const endAt = c.finishedAt ? new Date(Math.max(Date.parse(String(c.finishedAt)), lastFinished)) : now
  return {
    campaignId,
    status,
    pauseReason: status === 'paused' ? reasonIn(lang, c.pauseReason as string | null) : null,
    currentWave,
    totalDevices: num(c.totalDevices),
    counts: stateCounts,
    waves: [...waves.values()].sort((a, b) => a.wave - b.wave),
    timeline: timelineOf(rows as Row[], isoOrNull(c.startedAt), endAt),
    failed: (failed as Row[]).map((r) => ({
      upgradeId: num(r.upgradeId),
      deviceId: num(r.deviceId),
      sn: String(r.sn),
      state: r.state as OtaDeviceState,
      code: r.code ? String(r.code) : null,
      // A device's own message as it sent it; the server's reasons (an image refused) in the reader's language.
      message: r.message ? reasonIn(lang, String(r.message)) : null,
      attempt: num(r.attempt),
      at: isoOrNull(r.finishedAt),
    })),
  }
}
