import { z } from 'zod'
import { VERSION_PATTERN } from '../validation'
import {
  OTA_BLOCK_BYTES,
  OTA_DEVICE_STAGES,
  OTA_KEY_ID_PATTERN,
  OTA_MAX_BLOCKS_PER_REQUEST,
  OTA_PARTS,
  OTA_PAYLOADS,
  OTA_PROTOCOL,
  OTA_SIGNATURE_PATTERN,
} from './ota'

// The OTA messages' schemas (./ota.ts has the protocol's constants): apart, so that what only needs
// the constants (the entity definitions, the console's first pages) does not carry zod.
const envelope = { v: z.literal(1), ts: z.number().int().positive().optional() }
/** An upgrade's id on the wire: the server's campaign device row and attempt (`c{row}a{attempt}`). */
export const otaIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/)
const sha256Schema = z.string().regex(/^[0-9a-f]{64}$/)
const crc8Schema = z.string().regex(/^[0-9A-F]{2}$/)

/** Server → device (down/ota): take this image. */
export const otaOfferPayload = z.object({
  ...envelope,
  ota: z.literal(OTA_PROTOCOL),
  op: z.literal('offer'),
  id: otaIdSchema,
  part: z.enum(OTA_PARTS),
  payload: z.enum(OTA_PAYLOADS),
  /** The version the part runs once installed (for audio, the audio's name). */
  version: z.string().regex(VERSION_PATTERN),
  /** For audio: the IoT name the device plays it by. */
  name: z.string().max(64).optional(),
  size: z.number().int().positive(),
  sha256: sha256Schema,
  /** CRC-8/SMBUS of the whole image, as the firmware declares it (a 1-in-256 check: the SHA-256 decides). */
  crc8: crc8Schema,
  blockBytes: z.number().int().min(OTA_BLOCK_BYTES.min).max(OTA_BLOCK_BYTES.max),
  blocks: z.number().int().positive(),
  /** The same image over HTTPS (byte ranges), signed and expiring at urlExpiresAt (epoch ms). */
  url: z.string().max(1000).optional(),
  urlExpiresAt: z.number().int().positive().optional(),
  /** The device refuses below this battery charge (%). */
  minBattery: z.number().int().min(0).max(100).optional(),
  /** Seconds the server waits for the whole upgrade before counting it timed out. */
  timeoutSeconds: z.number().int().positive(),
  /**
   * Seconds the device has, once it runs the new image (stage trial), to pass its self-test and commit;
   * past them it rolls back by itself (E_COMMIT_TIMEOUT). Absent (an offer from before): OTA_COMMIT_SECONDS.default.
   */
  commitSeconds: z.number().int().min(1).max(86_400).optional(),
  /** The signed manifest (./ota-signing.ts): the exact JSON text signed, its Ed25519 signature over its UTF-8 bytes, and the signing key's id. */
  manifest: z.string().min(2).max(4000),
  signature: z.string().regex(OTA_SIGNATURE_PATTERN),
  keyId: z.string().regex(OTA_KEY_ID_PATTERN),
})

/** Server → device (down/ota): stop the upgrade (a forced cancel); the device keeps what it runs. */
export const otaAbortPayload = z.object({
  ...envelope,
  ota: z.literal(OTA_PROTOCOL),
  op: z.literal('abort'),
  id: otaIdSchema,
  reason: z.string().max(64).optional(),
})

/**
 * Server → device (down/ota): the keys manifests may be signed with, as a signed key set
 * (ota-signing.ts › otaSignedKeySetSchema). A device takes it only when a key it already trusts signed it.
 */
export const otaKeysPayload = z.object({
  ...envelope,
  ota: z.literal(OTA_PROTOCOL),
  op: z.literal('keys'),
  keys: z.string().min(2).max(4000),
  signatures: z.array(z.object({ keyId: z.string().regex(OTA_KEY_ID_PATTERN), signature: z.string().regex(OTA_SIGNATURE_PATTERN) })).min(1).max(8),
})

export const otaDownPayload = z.discriminatedUnion('op', [otaOfferPayload, otaAbortPayload, otaKeysPayload])

/** Device → server (up/otaReq): send blocks first…first+count-1 of the upgrade's image. */
/**
 * up/otaReq. Only its shape is checked on arrival: a window or block size out of range, in a request
 * for the device's own upgrade, is answered with an error frame (OTA_BLOCK_ERRORS) instead of
 * silence, which would leave the device asking again at every timeout.
 */
export const otaBlockRequestPayload = z.object({
  ...envelope,
  id: otaIdSchema,
  first: z.number().int().min(0),
  /** 1 to OTA_MAX_BLOCKS_PER_REQUEST. */
  count: z.number().int().min(1),
  /** The offer's block size, echoed: block n stays the same bytes should ota.blockBytes change meanwhile. OTA_BLOCK_BYTES.min to .max. */
  blockBytes: z.number().int().optional(),
})

/**
 * What a block request can be refused for, in an error frame on down/otaBlock: a window that asks
 * for no block of the image or more than OTA_MAX_BLOCKS_PER_REQUEST (E_WINDOW), a block size outside
 * OTA_BLOCK_BYTES (E_BLOCK_BYTES).
 */
export const OTA_BLOCK_ERRORS = ['E_WINDOW', 'E_BLOCK_BYTES'] as const
export const otaBlockError = z.object({ id: otaIdSchema, first: z.number().int().min(0), error: z.enum(OTA_BLOCK_ERRORS) })
export type OtaBlockError = z.infer<typeof otaBlockError>

/** Why a request is refused, or null when it may be served (`blocks`: the image's count at its block size). */
export function blockRequestError(request: { first: number; count: number }, blockBytes: number, size: number): OtaBlockError['error'] | null {
  if (!Number.isInteger(blockBytes) || blockBytes < OTA_BLOCK_BYTES.min || blockBytes > OTA_BLOCK_BYTES.max) return 'E_BLOCK_BYTES'
  if (request.count > OTA_MAX_BLOCKS_PER_REQUEST || request.first >= Math.ceil(size / blockBytes)) return 'E_WINDOW'
  return null
}

export const otaProgressPayload = z.object({
  ...envelope,
  id: otaIdSchema,
  stage: z.enum(OTA_DEVICE_STAGES),
  /** Downloading: percent of the image received. */
  progress: z.number().min(0).max(100).optional(),
  /** Rejected, failed or rolledBack: the device's code (a reject code, a rollback code, or its own such as E_VERIFY_SHA256, E_FLASH_WRITE). */
  code: z.string().min(1).max(32).optional(),
  message: z.string().max(500).optional(),
  /** Trial: the version it now runs (on trial); rolledBack: the version it runs again. */
  version: z.string().regex(VERSION_PATTERN).optional(),
})

/**
 * down/otaBlock is binary: one JSON header line, a newline, then the block's bytes. The header names
 * the upgrade, the block and its CRC-8/SMBUS, so a device checks each block before keeping it.
 */
export const otaBlockHeader = z.object({ id: otaIdSchema, n: z.number().int().min(0), crc8: crc8Schema, size: z.number().int().min(0) })
export type OtaBlockHeader = z.infer<typeof otaBlockHeader>

const NEWLINE = 0x0a

export function encodeOtaBlock(header: OtaBlockHeader | OtaBlockError, bytes: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(JSON.stringify(header))
  const out = new Uint8Array(head.length + 1 + bytes.length)
  out.set(head, 0)
  out[head.length] = NEWLINE
  out.set(bytes, head.length + 1)
  return out
}

/** An error frame: its header line (OtaBlockError) and the newline, no bytes. A device that knows no error frames drops it as no block. */
export const encodeOtaBlockError = (error: OtaBlockError): Uint8Array => encodeOtaBlock(error, new Uint8Array(0))

/** The error a frame carries, or null when it is none. */
export function decodeOtaBlockError(frame: Uint8Array): OtaBlockError | null {
  const at = frame.indexOf(NEWLINE)
  if (at < 0 || at > 512 || frame.length !== at + 1) return null
  try {
    const parsed = otaBlockError.safeParse(JSON.parse(new TextDecoder().decode(frame.subarray(0, at))))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

/** Null when the frame is no block (no header line, a header that does not parse, a size that disagrees). */
export function decodeOtaBlock(frame: Uint8Array): { header: OtaBlockHeader; bytes: Uint8Array } | null {
  const at = frame.indexOf(NEWLINE)
  if (at < 0 || at > 512) return null
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder().decode(frame.subarray(0, at)))
  } catch {
    return null
  }
  const header = otaBlockHeader.safeParse(parsed)
  if (!header.success) return null
  const bytes = frame.subarray(at + 1)
  return bytes.length === header.data.size ? { header: header.data, bytes } : null
}

/** Status addition (up/status `parts`): what each part other than the IoT module runs. */
export const partVersionsSchema = z.partialRecord(
  z.enum(['display', 'bms', 'ecu']),
  z.object({ version: z.string().regex(VERSION_PATTERN), hardware: z.string().max(32).optional() }),
)

export type OtaOfferPayload = z.infer<typeof otaOfferPayload>
export type OtaAbortPayload = z.infer<typeof otaAbortPayload>
export type OtaKeysPayload = z.infer<typeof otaKeysPayload>
export type OtaDownPayload = z.infer<typeof otaDownPayload>
export type OtaBlockRequestPayload = z.infer<typeof otaBlockRequestPayload>
export type OtaProgressPayload = z.infer<typeof otaProgressPayload>
