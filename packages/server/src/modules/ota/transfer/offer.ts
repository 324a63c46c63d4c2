import { entityByKey, OTA_BLOCK_BYTES, OTA_PROTOCOL, type OtaAbortPayload, type OtaOfferPayload, type OtaPart, type OtaPayloadKind, PROTOCOL_VERSION } from '@velo/shared'
import type { Db } from '../../../db/database'
import { fileLinks } from '../../../platform/files/links'
import type { Services } from '../../../platform/services'
import { transferDb } from './tables'

/** The bytes an upgrade carries, as the offer and the block server need them. */
export interface OtaImage {
  /** The stored name (under STORAGE_DIR). */
  fileName: string
  size: number
  sha256: string
  /** CRC-8/SMBUS of the whole image (the variant every upload is summed with), two upper-case hex digits. */
  crc8: string
  /** The version the part runs once installed; for audio, the audio's version. */
  version: string
  /** Audio: the IoT name the device plays it by. */
  name?: string
  /** The entity and file field it was uploaded through: what a signed link to it names. */
  entity: string
  field: string
}

/** What of a campaign row names its image. */
export interface CampaignImageRef {
  payload?: string | null
  firmwareId?: number | string | null
  audioId?: number | string | null
}

/** An upgrade's id on the wire: its campaign device row and attempt (a retry is a new id, so a late block of the last attempt is never taken). */
export const otaIdOf = (upgradeId: number, attempt: number) => `c${upgradeId}a${attempt}`

export function parseOtaId(id: string): { upgradeId: number; attempt: number } | null {
  const m = /^c(\d{1,15})a(\d{1,6})$/.exec(id)
  return m ? { upgradeId: Number(m[1]), attempt: Number(m[2]) } : null
}

/**
 * The image of a campaign: its firmware's file, or its audio's for an audio campaign. The digests are
 * the stored file's (sys_file, summed as it arrived), not what a form said. Null when the row or its
 * file is gone.
 */
export async function imageOf(db: Db, campaign: CampaignImageRef): Promise<OtaImage | null> {
  const tdb = transferDb(db)
  if (campaign.payload === 'audio') {
    if (campaign.audioId == null) return null
    const row = await tdb
      .selectFrom('iotAudio')
      .innerJoin('sysFile', 'sysFile.fileName', 'iotAudio.file')
      .select(['iotAudio.file', 'iotAudio.version', 'iotAudio.iotName', 'sysFile.size', 'sysFile.sha256', 'sysFile.crc8', 'sysFile.entity', 'sysFile.field'])
      .where('iotAudio.audioId', '=', Number(campaign.audioId))
      .executeTakeFirst()
    if (!row) return null
    return { fileName: row.file, size: Number(row.size), sha256: row.sha256, crc8: row.crc8, version: row.version, name: row.iotName, entity: row.entity, field: row.field }
  }
  if (campaign.firmwareId == null) return null
  const row = await tdb
    .selectFrom('otaFirmware')
    .innerJoin('sysFile', 'sysFile.fileName', 'otaFirmware.file')
    .select(['otaFirmware.file', 'otaFirmware.customVersion', 'sysFile.size', 'sysFile.sha256', 'sysFile.crc8', 'sysFile.entity', 'sysFile.field'])
    .where('otaFirmware.firmwareId', '=', Number(campaign.firmwareId))
    .executeTakeFirst()
  if (!row) return null
  return { fileName: row.file, size: Number(row.size), sha256: row.sha256, crc8: row.crc8, version: row.customVersion, entity: row.entity, field: row.field }
}

/** The block size offers are made with now (config key ota.blockBytes, kept within the protocol's bounds). */
export async function currentBlockBytes(services: Pick<Services, 'configValues'>): Promise<number> {
  const configured = await services.configValues.int('ota.blockBytes', OTA_BLOCK_BYTES.default, OTA_BLOCK_BYTES.min)
  return Math.min(configured, OTA_BLOCK_BYTES.max)
}

/**
 * The path of a signed, expiring link to the image (the engine's signed file route, byte ranges
 * included): relative to the server's HTTP origin, the one the device registers at. Undefined when
 * the entity the file was uploaded through is not served.
 */
async function signedPath(services: Services, image: OtaImage): Promise<{ url: string; expiresAt: number } | undefined> {
  let path: string
  try {
    path = entityByKey(image.entity).path
  } catch {
    return undefined
  }
  const { exp, sig } = await fileLinks(services.kv).sign({ entity: image.entity, field: image.field, fileName: image.fileName })
  const stored = image.fileName.split('/').map(encodeURIComponent).join('/')
  return { url: `${services.config.apiPrefix}${path}/file/${image.field}/signed/${stored}?exp=${exp}&sig=${sig}`, expiresAt: exp * 1000 }
}

export interface OfferInput {
  upgradeId: number
  attempt: number
  part: OtaPart
  payload: OtaPayloadKind
  image: OtaImage
  timeoutSeconds: number
  minBattery?: number
}

/** The offer of one upgrade attempt to its device (down/ota): the image's digests, its blocks and a signed link to it. */
export async function buildOffer(services: Services, o: OfferInput): Promise<OtaOfferPayload> {
  const blockBytes = await currentBlockBytes(services)
  const link = await signedPath(services, o.image)
  return {
    v: PROTOCOL_VERSION,
    ota: OTA_PROTOCOL,
    op: 'offer',
    id: otaIdOf(o.upgradeId, o.attempt),
    part: o.part,
    payload: o.payload,
    version: o.image.version,
    ...(o.image.name ? { name: o.image.name } : {}),
    size: o.image.size,
    sha256: o.image.sha256,
    crc8: o.image.crc8,
    blockBytes,
    blocks: Math.ceil(o.image.size / blockBytes),
    ...(link ? { url: link.url, urlExpiresAt: link.expiresAt } : {}),
    ...(o.minBattery !== undefined ? { minBattery: o.minBattery } : {}),
    timeoutSeconds: o.timeoutSeconds,
  }
}

/** Tells a device to stop an upgrade (a forced cancel); it keeps what it runs. */
export function abortPayload(id: string, reason?: string): OtaAbortPayload {
  return { v: PROTOCOL_VERSION, ota: OTA_PROTOCOL, op: 'abort', id, ...(reason ? { reason: reason.slice(0, 64) } : {}) }
}
