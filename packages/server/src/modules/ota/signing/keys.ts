import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { OTA_MANIFEST_FORMAT, type OtaPublicKey, type OtaSignedKeySet, otaKeySetText } from '@velo/shared'

/** The folder under DATA_DIR holding the signing keys: never inside STORAGE_DIR (config.ts refuses that), never in a backup. */
export const SIGNING_FOLDER = 'ota-signing'
/** The private key manifests are signed with (PKCS#8 PEM, mode 0600), made at the first start unless OTA_SIGNING_KEY gives one. */
export const SIGNING_KEY_FILE = 'signing-key.pem'
/** Retired private keys still trusted: their public keys stay in the key set, and they co-sign it, so devices that trust only them learn the new key. */
export const RETIRED_FOLDER = 'retired'
/** The key set's ids and the time it was first issued: a new set (a rotation) gets a newer time, so devices never go back to an older one. */
const KEY_SET_FILE = 'keyset.json'

export class SigningKeyError extends Error {}

/** First 16 hex digits of the SHA-256 of the raw 32-byte public key. */
export const keyIdOf = (rawPublicKey: Buffer) => createHash('sha256').update(rawPublicKey).digest('hex').slice(0, 16)

/** The raw 32 bytes of an Ed25519 public key (JWK's x is exactly that, base64url). */
export const rawPublicKeyOf = (key: KeyObject) => Buffer.from(String(createPublicKey(key).export({ format: 'jwk' }).x), 'base64url')

export const publicKeyFromRaw = (raw: Buffer): KeyObject => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' })

/** A PKCS#8 private key in PEM, or its DER in base64 (OTA_SIGNING_KEY); refused unless Ed25519. */
export function parsePrivateKey(text: string, where: string): KeyObject {
  let key: KeyObject
  try {
    const trimmed = text.trim()
    key = trimmed.startsWith('-----BEGIN') ? createPrivateKey({ key: trimmed, format: 'pem' }) : createPrivateKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'pkcs8' })
  } catch {
    throw new SigningKeyError(`${where} is not a PKCS#8 private key (PEM, or its DER in base64)`)
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new SigningKeyError(`${where} is a ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`)
  return key
}

function publicKeyEntry(raw: Buffer): OtaPublicKey {
  return { keyId: keyIdOf(raw), publicKey: raw.toString('base64') }
}

export interface KeyringSource {
  dataDir: string
  /** OTA_SIGNING_KEY: the private key, instead of the folder's (several instances share it this way). */
  privateKey?: string
  /** OTA_SIGNING_PUBLIC_KEYS: more public keys devices keep trusting (raw 32 bytes, base64). */
  publicKeys?: string[]
}

interface Signer {
  keyId: string
  key: KeyObject
}

/**
 * The signing keys of this environment (docs/ota.md › Signed images › Keys). The current private key
 * signs manifests; the public keys of it, of retired keys kept in the folder and of OTA_SIGNING_PUBLIC_KEYS
 * make the key set devices trust. Private keys stay in this object: nothing here hands one out, and
 * nothing else reads the folder.
 */
export class OtaKeyring {
  /** The key manifests are signed with now. */
  readonly keyId: string
  /** Every key devices may trust, the current one first. */
  readonly keys: readonly OtaPublicKey[]
  private readonly current: Signer
  /** The current key and the retired ones whose private key is kept: each co-signs the key set. */
  private readonly coSigners: readonly Signer[]
  private signedSet: OtaSignedKeySet | null = null

  private constructor(
    current: Signer,
    retired: Signer[],
    extra: Buffer[],
    private readonly issuedAt: number,
  ) {
    this.current = current
    this.keyId = current.keyId
    this.coSigners = [current, ...retired]
    const keys: OtaPublicKey[] = []
    for (const raw of [rawPublicKeyOf(current.key), ...retired.map((r) => rawPublicKeyOf(r.key)), ...extra]) {
      const entry = publicKeyEntry(raw)
      if (!keys.some((k) => k.keyId === entry.keyId)) keys.push(entry)
    }
    this.keys = keys
  }

  /** Several keys trusted at once: a rotation is under way, and devices are told the set as they connect. */
  get rotating(): boolean {
    return this.keys.length > 1
  }

  /** The Ed25519 signature of these UTF-8 bytes with the current key, base64. */
  sign(text: string): string {
    return sign(null, Buffer.from(text, 'utf8'), this.current.key).toString('base64')
  }

  /** The key set, signed by every private key held (a device takes it when one of them is a key it trusts). */
  signedKeySet(): OtaSignedKeySet {
    if (this.signedSet) return this.signedSet
    const keys = otaKeySetText({ format: OTA_MANIFEST_FORMAT, issuedAt: this.issuedAt, keys: [...this.keys] })
    const bytes = Buffer.from(keys, 'utf8')
    this.signedSet = { keys, signatures: this.coSigners.map((s) => ({ keyId: s.keyId, signature: sign(null, bytes, s.key).toString('base64') })) }
    return this.signedSet
  }

  /**
   * The keyring of DATA_DIR/ota-signing: the operator's key (OTA_SIGNING_KEY), else the folder's,
   * made now when there is none (the first start). The folder is 0700 and each private key 0600.
   */
  static load(source: KeyringSource): OtaKeyring {
    const dir = join(source.dataDir, SIGNING_FOLDER)
    const ensureDir = () => {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      chmodSync(dir, 0o700)
    }
    let key: KeyObject
    if (source.privateKey) {
      key = parsePrivateKey(source.privateKey, 'OTA_SIGNING_KEY')
    } else {
      const file = join(dir, SIGNING_KEY_FILE)
      if (existsSync(file)) {
        key = parsePrivateKey(readFileSync(file, 'utf8'), file)
      } else {
        ensureDir()
        key = generateKeyPairSync('ed25519').privateKey
        // Written whole under another name, then renamed: a crash never leaves half a key, and two
        // instances starting on one folder at once end with one key (the last rename; both read it back).
        const tmp = `${file}.${process.pid}.tmp`
        writeFileSync(tmp, key.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 })
        chmodSync(tmp, 0o600)
        if (!existsSync(file)) renameSync(tmp, file)
        key = parsePrivateKey(readFileSync(file, 'utf8'), file)
      }
    }
    const retiredDir = join(dir, RETIRED_FOLDER)
    const retired: Signer[] = existsSync(retiredDir)
      ? readdirSync(retiredDir)
          .filter((name) => name.endsWith('.pem'))
          .sort()
          .map((name) => {
            const k = parsePrivateKey(readFileSync(join(retiredDir, name), 'utf8'), join(retiredDir, name))
            return { keyId: keyIdOf(rawPublicKeyOf(k)), key: k }
          })
      : []
    const extra = (source.publicKeys ?? []).map((text, i) => {
      const raw = Buffer.from(text.trim(), 'base64')
      if (raw.length !== 32) throw new SigningKeyError(`OTA_SIGNING_PUBLIC_KEYS item ${i + 1} is not a raw 32-byte Ed25519 public key in base64`)
      publicKeyFromRaw(raw)
      return raw
    })
    const current = { keyId: keyIdOf(rawPublicKeyOf(key)), key }
    const ring = new OtaKeyring(current, retired, extra, 1)
    return new OtaKeyring(current, retired, extra, issuedAtOf(dir, ring.keys, ensureDir))
  }
}

/**
 * When this key set was first seen here: kept beside the keys, so a restart issues the same set with
 * the same time, and a changed set (a rotation) a newer one. Without a writable folder (a read-only
 * deployment given OTA_SIGNING_KEY), the set is issued at 1: devices take it, and any later set.
 */
function issuedAtOf(dir: string, keys: readonly OtaPublicKey[], ensureDir: () => void): number {
  const ids = keys.map((k) => k.keyId).join(',')
  const file = join(dir, KEY_SET_FILE)
  try {
    const known = JSON.parse(readFileSync(file, 'utf8')) as { keyIds?: string; issuedAt?: number }
    if (known.keyIds === ids && Number.isInteger(known.issuedAt) && known.issuedAt! > 0) return known.issuedAt!
  } catch {
    // none yet, or unreadable: issued now
  }
  const issuedAt = Date.now()
  try {
    ensureDir()
    writeFileSync(file, `${JSON.stringify({ keyIds: ids, issuedAt })}\n`, { mode: 0o600 })
    return issuedAt
  } catch {
    return 1
  }
}
