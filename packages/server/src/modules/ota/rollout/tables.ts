import { OTA_ACTIVE_STATES, OTA_FINAL_STATES, type OtaDeviceState, type OtaPart, otaEntities } from '@velo/shared'
import type { Db } from '../../../db/database'
import type { TransitionRecord } from '../../../platform/crud/history'

export type { TransitionRecord }

// The rollout's tables are shared by the four parts' slices (partKind).

export type Row = Record<string, unknown>

/** A part's upgrade campaign entity (the four differ only in their slice, path and rights). */
export const upgradeEntityOf = (part: OtaPart) => (otaEntities as Record<string, unknown>)[`${part}Upgrade`] as typeof otaEntities.iotUpgrade

export const upgradeKey = (part: OtaPart) => `${part}Upgrade`
export const upgradeDeviceKey = (part: OtaPart) => `${part}UpgradeDevice`

/** Who the history names for what the rollout does by itself. */
export const SYSTEM = { userId: 0, userName: 'system' }

/** The device states in the order an upgrade goes through them: a report never moves a row back. */
export const PROGRESS_RANK: Partial<Record<OtaDeviceState, number>> = {
  notified: 0,
  downloading: 1,
  downloaded: 2,
  verified: 3,
  installing: 4,
  rebooting: 5,
  trial: 6,
}

export const ACTIVE = [...OTA_ACTIVE_STATES]
export const FINAL = [...OTA_FINAL_STATES]
/**
 * States a retry may queue again. A rolled-back device runs its old, working image again, as a failed
 * one does: offering it again is safe, and what makes it roll back is often passing (the connection
 * lost during the self-test, a commit too late); one that keeps rolling back uses up its retries and
 * counts against the error threshold on each attempt.
 */
export const RETRYABLE: OtaDeviceState[] = ['failed', 'rolledBack', 'timedOut', 'rejected']
/**
 * What a campaign retries by itself. Not a refusal: one for a passing reason is held instead
 * (outcomes.ts › holdOrSkip), and any other (`incompatible`: it runs that version already, it has no
 * such part) would be refused again; staff may still retry it by hand.
 */
export const RETRIED_BY_ITSELF: OtaDeviceState[] = RETRYABLE.filter((state) => state !== 'rejected')
/** Handed to the device, the image not all there yet: what a device's sync asks the offer of again. */
export const NOT_DOWNLOADED: OtaDeviceState[] = ['notified', 'downloading']
/** Not started yet: a soft cancel ends these. */
export const WAITING: OtaDeviceState[] = ['queued', 'held']

/** A device row's column holding what a part runs, and what it is (the IoT module's own are the device's). */
export const versionColumn = (part: OtaPart) => (part === 'iot' ? 'firmwareVersion' : (`${part}Version` as const))
export const hardwareColumn = (part: OtaPart) => (part === 'iot' ? 'hardwareVersion' : (`${part}Hardware` as const))

export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v))
export const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : String(v))

/** The devices by id, as the gateway addresses them (SN and model), read in one query. */
export async function devicesById(db: Db, ids: number[]): Promise<Map<number, { deviceId: number; sn: string; modelId: number }>> {
  if (!ids.length) return new Map()
  const rows = await db.selectFrom('iotDevice').select(['deviceId', 'sn', 'modelId']).where('deviceId', 'in', ids).execute()
  return new Map(rows.map((d: Row) => [num(d.deviceId), { deviceId: num(d.deviceId), sn: String(d.sn), modelId: num(d.modelId) }]))
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
