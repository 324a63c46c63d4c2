import { type Language, OTA_COMMIT_MARGIN_SECONDS, OTA_COMMIT_SECONDS, type OtaDeviceState } from '@velo/shared'
import { sql, type Updateable, type WhereInterface } from 'kysely'
import type { Db } from '../../../db/database'
import type { Database } from '../../../db/schema'
import { type MessageKey, t } from '../../../platform/i18n'
import { bothLanguages } from './reasons'
import { ACTIVE, deviceRecord, isoOrNull, num, RETRIED_BY_ITSELF, type Row, type TransitionRecord, WAITING } from './tables'

// What a tick decides of its devices' attempts, before it judges the waves: timed out, rolled back
// past the commit deadline, held for a passing refusal or skipped past the hold limit, queued again
// for a retry. Each writes with conditions, so a device report that landed meanwhile wins.

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
export const notFinalYet = (c: Row) => sql<boolean>`(${passingRefusal} or ${retryLeft(c)})`
const passingRefusal = sql<boolean>`(${sql.ref('state')} = 'rejected' and ${sql.ref('code')} in (${sql.join(PASSING_REFUSALS.map((code) => sql.lit(code)))}))`
const retryLeft = (c: Row) =>
  sql<boolean>`(${sql.ref('state')} in (${sql.join(RETRIED_BY_ITSELF.map((state) => sql.lit(state)))}) and ${sql.ref('attempt')} - ${sql.ref('heldOffers')} <= ${sql.lit(num(c.retries))})`

/** A hold's reason in a sentence's language (anything else a device said: "could not take it"). */
export const holdReasonIn = (lang: Language, code: string) => t(lang, `ota.rollout.held.${PASSING_REFUSALS.includes(code) ? code : 'other'}` as MessageKey)

/** States of a device that took its offer: a hold it had is over. */
const PAST_THE_OFFER: OtaDeviceState[] = [...ACTIVE.filter((s) => s !== 'notified'), 'succeeded', 'failed', 'rolledBack', 'timedOut']

/** A statement on otaCampaignDevice, a select or an update: narrowed alike by the helpers below. */
type DeviceRows = WhereInterface<Database, 'otaCampaignDevice'>

const HELD_WHERE_SIM_LOW = sql<boolean>`device_id in (select device_id from iot_device where flow_state = 'warning' union select device_id from iot_sim where flow_state = 'warning' and device_id is not null)`

/** A campaign's commit deadline (seconds); a row written without one has the default. */
export const commitSecondsOf = (c: Row) => num(c.commitSeconds) || OTA_COMMIT_SECONDS.default

/**
 * Active devices past the campaign's timeout since they were notified: timed out. A device on trial
 * is judged by its commit deadline instead (it runs the new image, and rolls back by itself past
 * it): no commit within commitSeconds of going on trial, and the margin for a device rolling back
 * to reboot and say so, counts as rolled back (E_COMMIT_TIMEOUT).
 */
export async function expire(tx: Db, c: Row, now: Date, records: TransitionRecord[]) {
  await expireTrials(tx, c, now, records)
  const cutoff = new Date(now.getTime() - num(c.timeoutMinutes) * 60_000).toISOString()
  const stamp = now.toISOString()
  // Still late and active when written: a report that landed meanwhile wins.
  await endOverdue(
    tx,
    (q) => q.where('campaignId', '=', num(c.campaignId)).where('state', 'in', BEFORE_TRIAL).where('notifiedAt', '<', cutoff),
    () => ({ state: 'timedOut', finishedAt: stamp, updatedAt: stamp }),
    (r) => records.push(deviceRecord(c, r, 'timeout', String(r.state), 'timedOut', { minutes: num(c.timeoutMinutes) }, now)),
  )
}

/** Devices on trial past their commit deadline and its margin: rolled back (E_COMMIT_TIMEOUT). */
export async function expireTrials(tx: Db, c: Row, now: Date, records: TransitionRecord[]) {
  const seconds = commitSecondsOf(c)
  const cutoff = new Date(now.getTime() - (seconds + OTA_COMMIT_MARGIN_SECONDS) * 1000).toISOString()
  const stamp = now.toISOString()
  // Still on trial and overdue when written: a commit that landed meanwhile wins.
  await endOverdue(
    tx,
    (q) => q.where('campaignId', '=', num(c.campaignId)).where('state', '=', 'trial').where('trialAt', '<', cutoff),
    () => ({ state: 'rolledBack', code: 'E_COMMIT_TIMEOUT', message: bothLanguages('ota.rollout.commitTimeout', () => ({ seconds, version: String(c.targetVersion ?? '') })), finishedAt: stamp, updatedAt: stamp }),
    (r) => records.push(deviceRecord(c, r, 'commitTimeout', 'trial', 'rolledBack', { code: 'E_COMMIT_TIMEOUT', seconds }, now)),
  )
}

/**
 * Ends the devices `overdue` picks with the values `end` gives, only those still picked when written
 * (a report that landed between the read and the write wins), and tells `ended` of each one it ended.
 */
async function endOverdue(tx: Db, overdue: (q: DeviceRows) => DeviceRows, end: () => Updateable<Database['otaCampaignDevice']>, ended: (r: Row) => void) {
  const pick = <Q extends DeviceRows>(q: Q) => overdue(q) as Q
  const before = (await pick(tx.selectFrom('otaCampaignDevice').select(['upgradeId', 'deviceId', 'wave', 'attempt', 'state'])).execute()) as Row[]
  if (!before.length) return
  const done = (await pick(tx.updateTable('otaCampaignDevice').set(end()))
    .where(
      'upgradeId',
      'in',
      before.map((r) => num(r.upgradeId)),
    )
    .returning(['upgradeId'])
    .execute()) as Row[]
  const endedIds = new Set(done.map((r) => num(r.upgradeId)))
  for (const r of before) if (endedIds.has(num(r.upgradeId))) ended(r)
}

/**
 * Skips a held device (past the hold limit, or by hand) if it is still in the state it was read in: a
 * report that landed meanwhile wins. Answers whether it was skipped.
 */
export async function skipHeldDevice(tx: Db, r: Row, why: string, message: string, stamp: string): Promise<boolean> {
  const skipped = await tx
    .updateTable('otaCampaignDevice')
    .set({ state: 'skipped', code: why, message, finishedAt: stamp, nextAttemptAt: null, updatedAt: stamp })
    .where('upgradeId', '=', num(r.upgradeId))
    .where('state', '=', String(r.state))
    .executeTakeFirst()
  return Number(skipped.numUpdatedRows) === 1
}

/** Failed, rolled-back and timed-out devices with retries left go back to the queue, each later than the last. */
export async function requeueForRetry(tx: Db, c: Row, now: Date, records: TransitionRecord[]) {
  const retries = num(c.retries)
  const backoffMs = num(c.retryBackoffSeconds) * 1000
  for (let attempt = 1; attempt <= retries; attempt++) {
    const nextAttemptAt = new Date(now.getTime() + backoffMs * 2 ** (attempt - 1)).toISOString()
    for (const from of RETRIED_BY_ITSELF) {
      const rows = await tx
        .updateTable('otaCampaignDevice')
        .set({ state: 'queued', nextAttemptAt, finishedAt: null, updatedAt: now.toISOString() })
        .where('campaignId', '=', num(c.campaignId))
        .where('state', '=', from)
        // A refusal for a passing reason that landed after this tick's holds: the next tick holds it.
        .where((eb) => eb.not(passingRefusal))
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
export async function holdOrSkip(tx: Db, c: Row, now: Date, records: TransitionRecord[]) {
  const campaignId = num(c.campaignId)
  const stamp = now.toISOString()
  const ofCampaign = <Q extends DeviceRows>(q: Q) => q.where('campaignId', '=', campaignId) as Q
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
      .set((eb) => ({ state: 'held', heldSince, heldOffers: eb('heldOffers', '+', 1), nextAttemptAt, finishedAt: null, updatedAt: stamp }))
      .where('upgradeId', '=', num(r.upgradeId))
      .where('attempt', '=', num(r.attempt))
      .where('state', '=', 'rejected')
      .executeTakeFirst()
    if (Number(moved.numUpdatedRows) === 1) records.push(deviceRecord(c, r, 'hold', 'rejected', 'held', { why: String(r.code), nextAttemptAt }, now))
  }
  const simLow = await ofCampaign(tx.updateTable('otaCampaignDevice'))
    .set((eb) => ({ state: 'held', code: 'simDataLow', heldSince: eb.fn.coalesce('heldSince', sql.lit(stamp)), updatedAt: stamp }))
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
      if (await skipHeldDevice(tx, r, why, message, stamp)) records.push(deviceRecord(c, r, 'skip', String(r.state), 'skipped', { why, heldSince: isoOrNull(r.heldSince), hours: limitHours }, now))
    }
  }
  const released = await ofCampaign(tx.updateTable('otaCampaignDevice'))
    .set({ state: 'queued', updatedAt: stamp })
    .where('state', '=', 'held')
    .where((eb) => eb.and([eb.not(HELD_WHERE_SIM_LOW), eb.or([eb('nextAttemptAt', 'is', null), eb('nextAttemptAt', '<=', stamp)])]))
    .returning(['upgradeId', 'deviceId', 'wave', 'attempt'])
    .execute()
  for (const r of released) records.push(deviceRecord(c, r, 'release', 'held', 'queued', {}, now))
}
