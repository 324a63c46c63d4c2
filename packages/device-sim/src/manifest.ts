import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto'
import {
  compareVersions,
  manifestMismatch,
  OTA_SIGNATURE_CODES,
  type OtaManifest,
  otaKeySetSchema,
  otaManifestSchema,
  type OtaOfferPayload,
  type OtaPublicKey,
  type OtaSignedKeySet,
  otaSignedKeySetSchema,
} from '@velo/shared'

/**
 * A device's side of signed images (docs/iot-protocol.md › OTA › Signed images): the Ed25519 check of
 * an offer's manifest with a key the device trusts, then the manifest against the offer and the
 * device; and the key updates it takes only from a key it already trusts.
 */

/** An Ed25519 public key from its raw 32 bytes in base64. */
export function publicKeyOf(base64: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(base64, 'base64').toString('base64url') }, format: 'jwk' })
}

/** Whether `signature` (base64) is the Ed25519 signature of the UTF-8 bytes of `text` by this key (raw, base64). */
export function verifySigned(text: string, signature: string, publicKey: string): boolean {
  const sig = Buffer.from(signature, 'base64')
  if (sig.length !== 64) return false
  try {
    return verify(null, Buffer.from(text, 'utf8'), publicKeyOf(publicKey), sig)
  } catch {
    return false
  }
}

/** What the device is, as the manifest is checked against it. */
export interface DeviceIdentity {
  /** The version the part runs now (for audio: the audio's, if the module holds it). */
  currentVersion?: string
  /** The part's hardware revision, when the device knows it. */
  hardware?: string
  /** The part's supplier and product codes, when the device knows them. */
  supplier?: string
  product?: string
}

export type ManifestCheck = { ok: true; manifest: OtaManifest } | { ok: false; code: string; message: string }

/**
 * The checks a device makes of an offer before it takes a byte of it, in this order: the key its keyId
 * names is trusted (E_KEY_UNKNOWN), the signature over the manifest text verifies (E_SIGNATURE), and
 * the manifest parses and matches the offer and the device (E_MANIFEST). `flipSignature` damages the
 * signature first (the simulator's badSignature knob).
 */
export function checkManifest(offer: OtaOfferPayload, keys: readonly OtaPublicKey[], device: DeviceIdentity, flipSignature = false): ManifestCheck {
  const key = keys.find((k) => k.keyId === offer.keyId)
  if (!key) return { ok: false, code: OTA_SIGNATURE_CODES.keyUnknown, message: `The manifest is signed with key ${offer.keyId}, which this device does not trust` }
  let signature = offer.signature
  if (flipSignature) {
    const bytes = Buffer.from(signature, 'base64')
    bytes[0] = bytes[0]! ^ 0x01
    signature = bytes.toString('base64')
  }
  if (!verifySigned(offer.manifest, signature, key.publicKey)) return { ok: false, code: OTA_SIGNATURE_CODES.signature, message: 'The manifest signature does not verify' }
  let parsed: ReturnType<typeof otaManifestSchema.safeParse>
  try {
    parsed = otaManifestSchema.safeParse(JSON.parse(offer.manifest))
  } catch {
    return { ok: false, code: OTA_SIGNATURE_CODES.manifest, message: 'The manifest is not JSON' }
  }
  if (!parsed.success) return { ok: false, code: OTA_SIGNATURE_CODES.manifest, message: 'The manifest is not a format 1 manifest' }
  const m = parsed.data
  const bad = (what: string) => ({ ok: false as const, code: OTA_SIGNATURE_CODES.manifest, message: `The manifest's ${what} does not match` })
  const mismatch = manifestMismatch(m, offer)
  if (mismatch) return bad(`${mismatch} and the offer's`)
  if (m.hardware.length && device.hardware && !m.hardware.includes(device.hardware)) return bad(`hardware revisions (${m.hardware.join(', ')}) and this device's ${device.hardware}`)
  if (m.supplier && device.supplier && m.supplier !== device.supplier) return bad('supplier')
  if (m.product && device.product && m.product !== device.product) return bad('product')
  if (m.minVersion && (!device.currentVersion || compareVersions(device.currentVersion, m.minVersion) < 0)) return bad(`minimum version ${m.minVersion} and the version this device runs`)
  return { ok: true, manifest: m }
}

/**
 * A key set to trust instead of `trusted`, or null when it is not one: its text must verify with a
 * signature by a key already trusted, and be no older than the set held (issuedAt), so a copy of an
 * old set cannot bring back a key that was dropped.
 */
export function acceptKeySet(signed: OtaSignedKeySet, trusted: readonly OtaPublicKey[], heldIssuedAt: number): { keys: OtaPublicKey[]; issuedAt: number } | null {
  const parsedSigned = otaSignedKeySetSchema.safeParse(signed)
  if (!parsedSigned.success) return null
  const vouched = parsedSigned.data.signatures.some((s) => {
    const key = trusted.find((k) => k.keyId === s.keyId)
    return !!key && verifySigned(parsedSigned.data.keys, s.signature, key.publicKey)
  })
  if (!vouched) return null
  let set: ReturnType<typeof otaKeySetSchema.safeParse>
  try {
    set = otaKeySetSchema.safeParse(JSON.parse(parsedSigned.data.keys))
  } catch {
    return null
  }
  if (!set.success || set.data.issuedAt < heldIssuedAt) return null
  // A key is known by its id: one that is not its own key's would let a signature pass under another name.
  if (!set.data.keys.every((k) => keyIdOf(k.publicKey) === k.keyId)) return null
  return { keys: set.data.keys, issuedAt: set.data.issuedAt }
}

/** First 16 hex digits of the SHA-256 of the raw 32-byte public key (base64). */
export const keyIdOf = (publicKey: string) => createHash('sha256').update(Buffer.from(publicKey, 'base64')).digest('hex').slice(0, 16)

/**
 * The key set a device that trusts no key yet (registered before signed images) takes on first use,
 * fetched over TLS from the server it registered with: signed by a key in it, each id its key's.
 */
export function firstKeySet(signed: OtaSignedKeySet): { keys: OtaPublicKey[]; issuedAt: number } | null {
  try {
    const set = otaKeySetSchema.parse(JSON.parse(signed.keys))
    return acceptKeySet(signed, set.keys, 0)
  } catch {
    return null
  }
}
