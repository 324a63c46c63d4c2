import { ALARM_TYPE_OPTIONS, OTA_FAILURE_STATES, type OtaDeviceState } from '@velo/shared'
import { sql } from 'kysely'
import type { Db } from '../../../db/database'
import { t } from '../../../platform/i18n'
import { notFinalYet } from './outcomes'
import { bothLanguages, waveName } from './reasons'
import { campaignRecord, FINAL, isoOrNull, num, RETRYABLE, type Row, type TransitionRecord } from './tables'

// The waves' arithmetic: the error and alarm-rate rules that pause a campaign, the success threshold
// that opens the next wave, the end of the campaign, and the counts its list shows.

/** Alarms per 1,000 bikes per day taken as the baseline when the fleet had none before (one alarm in a quiet week is no crisis). */
const MIN_BASELINE_RATE = 1

/** Each upgraded bike is watched at least this long in the rate: one alarm right after an upgrade is not a rate per day. */
const MIN_OBSERVED_MS = 60 * 60 * 1000

export const DAY_MS = 24 * 60 * 60 * 1000

/** The alarm rate's baseline: the target bikes' alarms in this many days before the start. */
export const BASELINE_DAYS = 7

/** The alarm types a campaign's rate counts (its alarmTypes, comma-separated): none listed, every type. */
export const alarmTypesOf = (c: Row): string[] =>
  String(c.alarmTypes ?? '')
    .split(',')
    .map((type) => type.trim())
    .filter(Boolean)

const FAILURES: OtaDeviceState[] = [...OTA_FAILURE_STATES]

/**
 * Whether the campaign must stop itself: a started wave's failures reached the error threshold
 * (after enough of it finished), or the upgraded bikes raise alarms faster than the fleet did
 * before. Both judge only what happened since the last resume.
 */
export async function judge(tx: Db, c: Row, now: Date): Promise<{ rule: string; reason: string } | null> {
  const campaignId = num(c.campaignId)
  const since = isoOrNull(c.resumedAt)
  let finished = tx
    .selectFrom('otaCampaignDevice')
    .select(['wave', 'state', sql<number>`count(*)`.as('n')])
    .where('campaignId', '=', campaignId)
    .where('wave', '<=', num(c.currentWave))
    .where('state', 'in', ['succeeded', ...RETRYABLE])
    // Without notFinalYet, a failure landing between this tick's requeue and its judgement paused the campaign.
    .where((eb) => eb.not(notFinalYet(c)))
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
  return judgeAlarms(tx, c, now, since)
}

/**
 * The alarm-rate rule: the upgraded bikes' alarms of the campaign's types (alarmTypes; empty: all)
 * per 1,000 bikes a day against the same bikes' rate in the week before the start, the factor
 * over it. It needs alarmMinCount alarms at least: one alarm on a few hundred bikes is a rate far
 * over any baseline and says nothing. The reason gives every number it judged.
 */
export async function judgeAlarms(tx: Db, c: Row, now: Date, since: string | null): Promise<{ rule: string; reason: string } | null> {
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
export async function advanceWaves(tx: Db, c: Row): Promise<{ wave: number; short?: { wave: number; succeeded: number; total: number } }> {
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

export async function finishIfDone(tx: Db, c: Row, now: Date, records: TransitionRecord[]): Promise<boolean> {
  const campaignId = num(c.campaignId)
  const open = await tx
    .selectFrom('otaCampaignDevice')
    .select(sql<number>`count(*)`.as('n'))
    .where('campaignId', '=', campaignId)
    // Without notFinalYet, a failure landing between this tick's requeue and this count finished a campaign with a retry to run.
    .where((eb) => eb.or([eb('state', 'not in', FINAL), notFinalYet(c)]))
    .executeTakeFirst()
  if (num(open?.n) > 0) return false
  await tx.updateTable('otaCampaign').set({ status: 'finished', finishedAt: now.toISOString() }).where('campaignId', '=', campaignId).execute()
  // The history says how it ended: how many succeeded, failed, rolled back, were skipped or cancelled.
  records.push(campaignRecord(c, 'finish', 'running', 'finished', { summary: summaryOf(await countsOf(tx, campaignId)) }, now))
  if (c.payload === 'audio') await updateAudioStatus(tx, num(c.audioId))
  return true
}

/** Why a campaign stops when a wave ended below its success threshold. */
export function shortOfSuccess(c: Row, short: { wave: number; succeeded: number; total: number }): { rule: string; reason: string } {
  const percent = Math.round((short.succeeded * 1000) / short.total) / 10
  return {
    rule: 'successThreshold',
    reason: bothLanguages('ota.rollout.pause.successThreshold', (lang) => ({ ...short, wave: waveName(lang, short.wave), percent, threshold: num(c.successPercent) })),
  }
}

/** Devices per state of a campaign. */
export async function countsOf(db: Db, campaignId: number): Promise<Partial<Record<OtaDeviceState, number>>> {
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
export async function updateCounters(tx: Db, campaignId: number) {
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
export async function updateAudioStatus(tx: Db, audioId: number) {
  if (!audioId) return
  const campaigns = await tx
    .selectFrom('otaCampaign as c')
    .select([
      'c.status',
      (eb) =>
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
