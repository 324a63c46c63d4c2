import { OTA_MANIFEST_FORMAT, type OtaManifest, otaManifestText, type OtaPart, type OtaPayloadKind } from '@velo/shared'
import type { OtaKeyring } from './keys'

/** What a manifest is built from: the campaign's approved digests and the image's catalogue facts. */
export interface ManifestInput {
  part: OtaPart
  payload: OtaPayloadKind
  /** The approved image (the campaign's imageSha256 and imageSize): what is signed is what was approved. */
  approved: { sha256: string; size: number }
  version: string
  name?: string
  supplier?: string
  product?: string
  hardware?: readonly string[]
  minVersion?: string
}

export function manifestOf(i: ManifestInput): OtaManifest {
  return {
    format: OTA_MANIFEST_FORMAT,
    part: i.part,
    kind: i.payload,
    supplier: i.payload === 'audio' ? '' : (i.supplier ?? ''),
    product: i.payload === 'audio' ? '' : (i.product ?? ''),
    name: i.payload === 'audio' ? (i.name ?? '') : '',
    version: i.version,
    size: i.approved.size,
    sha256: i.approved.sha256,
    hardware: i.payload === 'audio' ? [] : [...(i.hardware ?? [])],
    minVersion: i.minVersion ?? '',
  }
}

export interface SignedManifest {
  manifest: string
  signature: string
  keyId: string
}

/** Manifests signed, kept by their text: a campaign's wave of 10,000 offers signs its manifest once. */
const SIGNED_KEPT = 1000

/**
 * Signs manifests with the keyring's current key. The cache is keyed by the key and the exact text,
 * so another image, another version, or a new key is a new signature, and nothing stale is reused.
 */
export class ManifestSigner {
  private readonly signed = new Map<string, SignedManifest>()
  /** Signatures made (not served from the cache), for the bench and the tests. */
  signatures = 0

  constructor(readonly keyring: OtaKeyring) {}

  sign(manifest: OtaManifest): SignedManifest {
    const text = otaManifestText(manifest)
    const cacheKey = `${this.keyring.keyId}\n${text}`
    const known = this.signed.get(cacheKey)
    if (known) return known
    const entry = { manifest: text, signature: this.keyring.sign(text), keyId: this.keyring.keyId }
    this.signatures++
    if (this.signed.size >= SIGNED_KEPT) this.signed.delete(this.signed.keys().next().value!)
    this.signed.set(cacheKey, entry)
    return entry
  }
}
