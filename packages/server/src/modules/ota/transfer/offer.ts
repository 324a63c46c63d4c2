import { OTA_BLOCK_BYTES, OTA_PROTOCOL, type OtaAbortPayload, type OtaOfferPayload, type OtaPart, type OtaPayloadKind, PROTOCOL_VERSION } from '@velo/shared'
import type { Db } from '../../../db/database'
import { fileLinks } from '../../../platform/files/links'
import type { Services } from '../../../platform/services'
import { otaSignerOf } from '../signing'
import { manifestOf } from '../signing/manifest'

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
  /** The entity and file field it was uploaded through. */
  entity: string
  field: string
  /** Firmware: its product's supplier and product codes, and the hardware revisions it is for (its own, else its product's; none: any). Signed into the manifest. */
  supplier?: string
  product?: string
  hardware?: string[]
}

/** What of a campaign row names its image. */
export interface CampaignImageRef {
  payload?: string | null
  firmwareId?: number | string | null
  audioId?: number | string | null
}

/**
 * The image a campaign's approval binds (docs/ota.md › Approval binds): the digests its file had
 * when it was submitted, kept on the campaign. Offers carry them, and no other bytes are served for
 * the campaign.
 */
export interface ApprovedImage {
  sha256: string
  size: number
}

/** A campaign's approved image, or null when it has none (a draft; a row written without a submit). */
export function approvedImageOf(campaign: { imageSha256?: unknown; imageSize?: unknown }): ApprovedImage | null {
  const sha256 = String(campaign.imageSha256 ?? '')
  const size = Number(campaign.imageSize ?? NaN)
  return /^[0-9a-f]{64}$/.test(sha256) && Number.isInteger(size) && size > 0 ? { sha256, size } : null
}

/** Why an image is not served for a campaign: the device's code, and the reason's message and parameters. */
export interface ImageRefusal {
  code: 'E_IMAGE_CHANGED' | 'E_IMAGE_MISSING' | 'E_IMAGE_NOT_APPROVED'
  key: 'ota.image.changed' | 'ota.image.missing' | 'ota.image.notApproved'
  params: { approved?: string; found?: string }
}

/**
 * Whether the image as stored now is the approved one, by its upload's digests: a firmware or audio row
 * that names another file since (it cannot be modified once submitted, but a race or a hand in the
 * database could) is refused. The bytes themselves are summed again where they are read (ImageCache).
 */
export function refusalOf(approved: ApprovedImage | null, image: OtaImage | null): ImageRefusal | null {
  if (!approved) return { code: 'E_IMAGE_NOT_APPROVED', key: 'ota.image.notApproved', params: {} }
  if (!image) return { code: 'E_IMAGE_MISSING', key: 'ota.image.missing', params: { approved: approved.sha256 } }
  if (image.sha256 !== approved.sha256 || image.size !== approved.size) return { code: 'E_IMAGE_CHANGED', key: 'ota.image.changed', params: { approved: approved.sha256, found: image.sha256 } }
  return null
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
export async function imageOf(db: Db | Db, campaign: CampaignImageRef): Promise<OtaImage | null> {
  const tdb = db
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
    .leftJoin('otaProduct', 'otaProduct.productId', 'otaFirmware.productId')
    .leftJoin('otaSupplier', 'otaSupplier.supplierId', 'otaProduct.supplierId')
    .select([
      'otaFirmware.file',
      'otaFirmware.customVersion',
      'otaFirmware.hardwareRevisions',
      'otaProduct.productCode',
      'otaProduct.hardwareRevision',
      'otaSupplier.supplierCode',
      'sysFile.size',
      'sysFile.sha256',
      'sysFile.crc8',
      'sysFile.entity',
      'sysFile.field',
    ])
    .where('otaFirmware.firmwareId', '=', Number(campaign.firmwareId))
    .executeTakeFirst()
  if (!row) return null
  // As the targets read them (rollout/targets.ts revisionsOf): the firmware's own list, else its product's revision.
  const own = String(row.hardwareRevisions ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean)
  const hardware = own.length ? own : row.hardwareRevision ? [String(row.hardwareRevision)] : []
  return {
    fileName: row.file,
    size: Number(row.size),
    sha256: row.sha256,
    crc8: row.crc8,
    version: row.customVersion,
    entity: row.entity,
    field: row.field,
    supplier: row.supplierCode ?? '',
    product: row.productCode ?? '',
    hardware,
  }
}

/** The block size offers are made with now (config key ota.blockBytes, kept within the protocol's bounds). */
export async function currentBlockBytes(services: Pick<Services, 'configValues'>): Promise<number> {
  const configured = await services.configValues.int('ota.blockBytes', OTA_BLOCK_BYTES.default, OTA_BLOCK_BYTES.min)
  return Math.min(configured, OTA_BLOCK_BYTES.max)
}

/** What an upgrade's image link is signed for (files/links.ts): the upgrade id, never a stored file's name. */
export const imageLinkTarget = (id: string) => ({ entity: 'otaUpgrade', field: 'image', fileName: id })

/**
 * The path of a signed, expiring link to one upgrade's image (GET {API}/ota/image/{id}, byte ranges
 * included): relative to the server's HTTP origin, the one the device registers at. It serves the
 * campaign's approved bytes only, as the block server does, and only while the upgrade is active.
 */
export async function imageLink(services: Services, id: string): Promise<{ url: string; expiresAt: number }> {
  const { exp, sig } = await fileLinks(services.kv).sign(imageLinkTarget(id))
  return { url: `${services.config.apiPrefix}/ota/image/${id}?exp=${exp}&sig=${sig}`, expiresAt: exp * 1000 }
}

export interface OfferInput {
  upgradeId: number
  attempt: number
  part: OtaPart
  payload: OtaPayloadKind
  image: OtaImage
  /** What the campaign's approval binds: the offer carries these digests, not the file row's. */
  approved: ApprovedImage
  timeoutSeconds: number
  minBattery?: number
  /** The campaign's commit deadline: the device rolls back by itself when it has not committed this long after its reboot. */
  commitSeconds: number
}

/**
 * The offer of one upgrade attempt to its device (down/ota): the approved digests, the image's blocks,
 * a signed link to it, and the manifest of the approved image signed with the environment's key
 * (docs/ota.md › Signed images): built from the campaign's approved digests, never the file row's.
 */
export async function buildOffer(services: Services, o: OfferInput): Promise<OtaOfferPayload> {
  const blockBytes = await currentBlockBytes(services)
  const id = otaIdOf(o.upgradeId, o.attempt)
  const link = await imageLink(services, id)
  const signed = otaSignerOf(services).sign(
    manifestOf({ part: o.part, payload: o.payload, approved: o.approved, version: o.image.version, name: o.image.name, supplier: o.image.supplier, product: o.image.product, hardware: o.image.hardware }),
  )
  return {
    v: PROTOCOL_VERSION,
    ota: OTA_PROTOCOL,
    op: 'offer',
    id,
    part: o.part,
    payload: o.payload,
    version: o.image.version,
    ...(o.image.name ? { name: o.image.name } : {}),
    size: o.approved.size,
    sha256: o.approved.sha256,
    crc8: o.image.crc8,
    blockBytes,
    blocks: Math.ceil(o.approved.size / blockBytes),
    url: link.url,
    urlExpiresAt: link.expiresAt,
    ...(o.minBattery !== undefined ? { minBattery: o.minBattery } : {}),
    timeoutSeconds: o.timeoutSeconds,
    manifest: signed.manifest,
    signature: signed.signature,
    keyId: signed.keyId,
    commitSeconds: o.commitSeconds,
  }
}

/** Tells a device to stop an upgrade (a forced cancel); it keeps what it runs. */
export function abortPayload(id: string, reason?: string): OtaAbortPayload {
  return { v: PROTOCOL_VERSION, ota: OTA_PROTOCOL, op: 'abort', id, ...(reason ? { reason: reason.slice(0, 64) } : {}) }
}
