import { z } from 'zod'
import { VERSION_PATTERN } from '../validation'
import { OTA_PARTS, OTA_PAYLOADS, OTA_SIGNATURE_PATTERN, OTA_KEY_ID_PATTERN, OTA_PUBLIC_KEY_PATTERN, type OtaPart, type OtaPayloadKind } from './ota'

/**
 * Signed images (docs/iot-protocol.md › OTA › Signed images, issue 35 §2): every offer carries a
 * manifest of the image it offers, as the exact JSON text the server signed with Ed25519, so a device
 * checks the signature over the bytes it received and never has to rebuild them (no JSON
 * canonicalization to agree on). The crypto lives with whoever signs or verifies (the server, the
 * simulator): this file only fixes the texts and their shapes.
 */
export const OTA_MANIFEST_FORMAT = 1

/** The device's codes for an offer whose manifest it refuses (stage failed, before anything is installed). */
export const OTA_SIGNATURE_CODES = {
  /** The signature does not verify with the key its keyId names. */
  signature: 'E_SIGNATURE',
  /** The manifest does not match the offer, the image or the device. */
  manifest: 'E_MANIFEST',
  /** The keyId names no key the device trusts (and none it could learn). */
  keyUnknown: 'E_KEY_UNKNOWN',
} as const

/** A public key devices trust: its id (first 16 hex of SHA-256 of the raw 32-byte key) and the raw key in base64. */
export const otaPublicKeySchema = z.object({ keyId: z.string().regex(OTA_KEY_ID_PATTERN), publicKey: z.string().regex(OTA_PUBLIC_KEY_PATTERN) })
export type OtaPublicKey = z.infer<typeof otaPublicKeySchema>

/** What a manifest says, parsed. Every key is always present, in this order (otaManifestText). */
export const otaManifestSchema = z.object({
  format: z.literal(OTA_MANIFEST_FORMAT),
  part: z.enum(OTA_PARTS),
  kind: z.enum(OTA_PAYLOADS),
  /** Firmware: its product's supplier code and product code; audio: empty. */
  supplier: z.string().max(8),
  product: z.string().max(8),
  /** Audio: the IoT name it is played by; firmware: empty. */
  name: z.string().max(64),
  version: z.string().regex(VERSION_PATTERN),
  size: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The hardware revisions it is for; empty: any. */
  hardware: z.array(z.string().max(32)).max(32),
  /** The lowest version it may be installed over; empty: any. */
  minVersion: z.union([z.literal(''), z.string().regex(VERSION_PATTERN)]),
})
export type OtaManifest = z.infer<typeof otaManifestSchema>

/**
 * The manifest's text, the bytes that are signed (UTF-8): JSON without spaces, its keys in the
 * schema's order. The server writes it once and sends it as a string; devices verify the text they
 * got and only then parse it, so nobody else ever needs to produce these bytes.
 */
export function otaManifestText(m: OtaManifest): string {
  const ordered: OtaManifest = {
    format: m.format,
    part: m.part,
    kind: m.kind,
    supplier: m.supplier,
    product: m.product,
    name: m.name,
    version: m.version,
    size: m.size,
    sha256: m.sha256,
    hardware: [...m.hardware],
    minVersion: m.minVersion,
  }
  return JSON.stringify(ordered)
}

/** The key set a key update carries (its text is what is signed). issuedAt: a device takes only a newer set than the one it holds. */
export const otaKeySetSchema = z.object({
  format: z.literal(OTA_MANIFEST_FORMAT),
  issuedAt: z.number().int().positive(),
  keys: z.array(otaPublicKeySchema).min(1).max(8),
})
export type OtaKeySet = z.infer<typeof otaKeySetSchema>

export function otaKeySetText(s: OtaKeySet): string {
  return JSON.stringify({ format: s.format, issuedAt: s.issuedAt, keys: s.keys.map((k) => ({ keyId: k.keyId, publicKey: k.publicKey })) })
}

/**
 * A signed key set: on down/ota (op keys) and from GET {API}/iot/ota-keys. One signature per private
 * key the server holds (the current one and those being retired), so a device that trusts only the
 * old key learns the new one from a set the old key signed.
 */
export const otaSignedKeySetSchema = z.object({
  keys: z.string().min(2).max(4000),
  signatures: z.array(z.object({ keyId: z.string().regex(OTA_KEY_ID_PATTERN), signature: z.string().regex(OTA_SIGNATURE_PATTERN) })).min(1).max(8),
})
export type OtaSignedKeySet = z.infer<typeof otaSignedKeySetSchema>

/** The manifest of an offer as a device must find it: the offer's own values (null when it agrees). */
export function manifestMismatch(m: OtaManifest, offer: { part: OtaPart; payload: OtaPayloadKind; version: string; size: number; sha256: string; name?: string }): string | null {
  if (m.part !== offer.part) return 'part'
  if (m.kind !== offer.payload) return 'kind'
  if (m.version !== offer.version) return 'version'
  if (m.size !== offer.size) return 'size'
  if (m.sha256 !== offer.sha256) return 'sha256'
  if (offer.payload === 'audio' && m.name !== (offer.name ?? '')) return 'name'
  return null
}
