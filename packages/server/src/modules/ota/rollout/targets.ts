import { randomInt } from 'node:crypto'
import { compareVersions, type OtaPart, versionNumber } from '@velo/shared'
import { conflict } from '../../../platform/errors'
import type { Insertable } from 'kysely'
import type { Db } from '../../../db/database'
import type { Database } from '../../../db/schema'
import { hardwareColumn, num, type Row, versionColumn } from './tables'

/** Why matching devices were left out of a campaign (kept in the submit step's history). */
export interface LeftOut {
  /** They run the target version or a newer one (a campaign may allow a downgrade explicitly). */
  notOlder: number
  /** Their part's hardware revision is not one the firmware is for (or was never reported). */
  hardware: number
  /** Their bike speaks another protocol version than the firmware. */
  protocol: number
  /** They never reported what the part runs, so no downgrade can be ruled out. */
  unknownVersion: number
}

export interface ResolvedTargets {
  total: number
  waves: number
  leftOut: LeftOut
}

const INSERT_CHUNK = 500

interface Candidate {
  deviceId: number
  version: string | null
  hardware: string | null
  bikeProtocol: string | null
  timeZone: string | null
}

/** The models, countries and devices a campaign names (its referenceMany fields' join tables). */
const linkedIdsOf = (tx: Db, campaignId: number): Promise<[number[], number[], number[]]> =>
  Promise.all([
    tx.selectFrom('otaCampaignModel').select('modelId as id').where('campaignId', '=', campaignId).execute(),
    tx.selectFrom('otaCampaignCountry').select('countryId as id').where('campaignId', '=', campaignId).execute(),
    tx.selectFrom('otaCampaignTarget').select('deviceId as id').where('campaignId', '=', campaignId).execute(),
  ]).then((lists) => lists.map((rows) => rows.map((r) => num(r.id))) as [number[], number[], number[]])

const majorOf = (version: string) => Number(/^\d+/.exec(version.trim())?.[0] ?? NaN)

/** The hardware revisions a firmware is for: its own list, else its product's revision; none: any. */
async function revisionsOf(tx: Db, firmware: Row): Promise<Set<string>> {
  const own = String(firmware.hardwareRevisions ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (own.length) return new Set(own)
  const product = await tx.selectFrom('otaProduct').select('hardwareRevision').where('productId', '=', num(firmware.productId)).executeTakeFirst()
  return new Set(product?.hardwareRevision ? [String(product.hardwareRevision)] : [])
}

/** The firmware's functions need an app version nobody can install yet: refused, whatever the devices. */
async function checkAppVersion(tx: Db, firmware: Row) {
  const needed = firmware.minAppVersion ? String(firmware.minAppVersion) : ''
  if (!needed) return
  const released = await tx.selectFrom('cntAppVersion').select('versionCode').execute()
  const newest = released.map((r) => String(r.versionCode)).sort(compareVersions).at(-1)
  if (!newest || compareVersions(newest, needed) < 0) throw conflict('ota.rollout.appTooOld', { needed, newest: newest ?? '—' })
}

/** Fisher–Yates with the system's randomness: a cell tower does not get a whole wave at once. */
function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randomInt(i + 1)
    ;[items[i], items[j]] = [items[j]!, items[i]!]
  }
  return items
}

/** How many devices each wave takes: the canary (wave 0), then the rest split as evenly as it goes. */
export function waveSizes(total: number, canaryCount: number | null, canaryPercent: number, waveCount: number): number[] {
  if (total === 0) return []
  const canary = Math.min(total, Math.max(1, canaryCount ?? Math.ceil((total * canaryPercent) / 100)))
  const rest = total - canary
  const waves = rest === 0 ? 0 : Math.min(Math.max(1, waveCount), rest)
  const sizes = [canary]
  for (let w = 0; w < waves; w++) sizes.push(Math.floor(rest / waves) + (w < rest % waves ? 1 : 0))
  return sizes
}

/**
 * Resolves a submitted campaign's targets into its per-device rows (state queued): the devices that
 * match every filter given, are compatible with the image and would not be downgraded. Refuses (409)
 * when none is left, naming why. Runs in the submit step's transaction.
 */
export async function resolveTargets(tx: Db, part: OtaPart, campaign: Row, now: Date): Promise<ResolvedTargets> {
  const campaignId = num(campaign.campaignId)
  const audio = campaign.payload === 'audio'
  let toVersion: string
  let revisions = new Set<string>()
  let protocolMajor: number | null = null
  if (audio) {
    const row = await tx.selectFrom('iotAudio').select('version').where('audioId', '=', num(campaign.audioId)).executeTakeFirst()
    if (!row) throw conflict('ota.rollout.noImage')
    toVersion = String(row.version)
  } else {
    const firmware = await tx.selectFrom('otaFirmware').selectAll().where('firmwareId', '=', num(campaign.firmwareId)).where('partKind', '=', part).executeTakeFirst()
    if (!firmware) throw conflict('ota.rollout.noImage')
    toVersion = String(firmware.customVersion)
    revisions = await revisionsOf(tx, firmware)
    protocolMajor = majorOf(String(firmware.protocolVersion ?? ''))
    await checkAppVersion(tx, firmware)
  }

  const [modelIds, countryIds, deviceIds] = await linkedIdsOf(tx, campaignId)
  const product = campaign.productId ? await tx.selectFrom('otaProduct').select('hardwareRevision').where('productId', '=', num(campaign.productId)).executeTakeFirst() : undefined

  let query = tx
    .selectFrom('iotDevice as d')
    .leftJoin('bikeBike as b', 'b.iotDeviceId', 'd.deviceId')
    .leftJoin('memMember as m', 'm.memberId', 'b.memberId')
    .leftJoin('sysCountry as c', 'c.countryId', 'm.countryId')
    .select([
      'd.deviceId as deviceId',
      `d.${versionColumn(part)} as version` as const,
      `d.${hardwareColumn(part)} as hardware` as const,
      'b.protocolVersion as bikeProtocol',
      'c.timeZone as timeZone',
    ])
  if (modelIds.length) query = query.where('d.modelId', 'in', modelIds)
  if (deviceIds.length) query = query.where('d.deviceId', 'in', deviceIds)
  if (countryIds.length) query = query.where('m.countryId', 'in', countryIds)
  const candidates = (await query.orderBy('d.deviceId').execute()) as Candidate[]

  const wantedHardware = [String(campaign.hardwareRevision ?? ''), product ? String(product.hardwareRevision) : ''].filter(Boolean)
  const min = campaign.fromVersionMin ? versionNumber(String(campaign.fromVersionMin)) : null
  const max = campaign.fromVersionMax ? versionNumber(String(campaign.fromVersionMax)) : null
  const target = versionNumber(toVersion)
  const leftOut: LeftOut = { notOlder: 0, hardware: 0, protocol: 0, unknownVersion: 0 }
  const chosen: (Candidate & { fromVersion: string })[] = []
  // One bike may name a device once, but a join can still repeat a row: each device counts once.
  const seen = new Set<number>()
  for (const d of candidates) {
    if (seen.has(d.deviceId)) continue
    seen.add(d.deviceId)
    const hardware = d.hardware ?? ''
    // Filters: a device they do not match is simply not a target.
    if (wantedHardware.some((h) => h !== hardware)) continue
    const current = d.version ? versionNumber(d.version) : -1
    if (min !== null && (current < 0 || current < min)) continue
    if (max !== null && (current < 0 || current > max)) continue
    // Compatibility: a device that matches but cannot take the image is counted as left out.
    if (!audio) {
      if (current < 0) {
        leftOut.unknownVersion++
        continue
      }
      if (revisions.size && !revisions.has(hardware)) {
        leftOut.hardware++
        continue
      }
      if (protocolMajor !== null && !Number.isNaN(protocolMajor) && d.bikeProtocol && majorOf(d.bikeProtocol) !== protocolMajor) {
        leftOut.protocol++
        continue
      }
      if (campaign.allowDowngrade ? current === target : current >= target) {
        leftOut.notOlder++
        continue
      }
    }
    chosen.push({ ...d, fromVersion: d.version ?? '' })
  }

  if (!chosen.length) {
    throw conflict('ota.rollout.noTargets', { matched: candidates.length === 0 ? 0 : seen.size, version: toVersion, ...leftOut })
  }

  const ordered = campaign.randomOrder ? shuffle(chosen) : chosen
  const sizes = waveSizes(ordered.length, campaign.canaryCount === null || campaign.canaryCount === undefined ? null : num(campaign.canaryCount), num(campaign.canaryPercent), num(campaign.waveCount))
  const stamp = now.toISOString()
  await tx.deleteFrom('otaCampaignDevice').where('campaignId', '=', campaignId).execute()
  const rows: Insertable<Database['otaCampaignDevice']>[] = []
  let wave = 0
  let leftInWave = sizes[0]!
  ordered.forEach((d, position) => {
    if (leftInWave === 0) leftInWave = sizes[++wave]!
    leftInWave--
    rows.push({
      partKind: part,
      campaignId,
      deviceId: d.deviceId,
      wave,
      state: 'queued',
      percent: 0,
      attempt: 0,
      fromVersion: d.fromVersion,
      toVersion,
      code: '',
      message: '',
      position,
      timeZone: d.timeZone || 'UTC',
      updatedAt: stamp,
    })
  })
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) await tx.insertInto('otaCampaignDevice').values(rows.slice(i, i + INSERT_CHUNK)).execute()
  await tx
    .updateTable('otaCampaign')
    .set({ targetVersion: toVersion, totalDevices: rows.length, currentWave: 0, succeededCount: 0, failedCount: 0, pauseReason: '', finishedAt: null, startedAt: null, resumedAt: null })
    .where('campaignId', '=', campaignId)
    .execute()
  return { total: rows.length, waves: sizes.length, leftOut }
}
