import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { type OtaOfferPayload, otaKeySetText, otaManifestSchema, otaManifestText, type OtaPublicKey } from '@velo/shared'
import { acceptKeySet, checkManifest, firstKeySet, keyIdOf, verifySigned } from '../src'

// The device's side of signed images (docs/iot-protocol.md › OTA › Signed images): the worked example
// recomputed from the document itself, so the page cannot drift from the code, and the rules of the
// check and of key updates.

const doc = readFileSync(new URL('../../../docs/iot-protocol.md', import.meta.url), 'utf8')
const field = (label: string) => {
  const m = new RegExp(`^${label.replace(/[()]/g, '\\$&')}:\\s+(\\S+)$`, 'm').exec(doc)
  if (!m) throw new Error(`docs/iot-protocol.md has no "${label}:" line`)
  return m[1]!
}

/** Ed25519 private key from a 32-byte seed (PKCS#8 is a fixed 16-byte prefix and the seed). */
const fromSeed = (seed: Buffer) => createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' })
const rawOf = (key: KeyObject) => Buffer.from(String(createPublicKey(key).export({ format: 'jwk' }).x), 'base64url')
const entryOf = (key: KeyObject): OtaPublicKey => ({ keyId: keyIdOf(rawOf(key).toString('base64')), publicKey: rawOf(key).toString('base64') })
const b64sign = (text: string, key: KeyObject) => sign(null, Buffer.from(text, 'utf8'), key).toString('base64')

describe('the worked example of docs/iot-protocol.md', () => {
  const seed = Buffer.from(field('private key (RFC 8032 test 1 seed, hex)'), 'hex')
  const key = fromSeed(seed)
  const manifestLine = /^manifest \((\d+) bytes of UTF-8, no newline\):\n(.+)$/m.exec(doc)

  it('derives the public key and keyId the page gives', () => {
    // RFC 8032 § 7.1, test 1: the published pair.
    expect(rawOf(key).toString('hex')).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a')
    expect(rawOf(key).toString('hex')).toBe(field('public key (raw, hex)'))
    expect(rawOf(key).toString('base64')).toBe(field('public key (raw, base64)'))
    expect(createHash('sha256').update(rawOf(key)).digest('hex').slice(0, 16)).toBe(field('keyId'))
  })

  it('has the canonical manifest text, and its signature is the one the page gives', () => {
    expect(manifestLine).not.toBeNull()
    const [, bytes, text] = manifestLine!
    expect(Buffer.byteLength(text!, 'utf8')).toBe(Number(bytes))
    // What the server would write for these values, byte for byte.
    expect(otaManifestText(otaManifestSchema.parse(JSON.parse(text!)))).toBe(text)
    const signature = sign(null, Buffer.from(text!, 'utf8'), key)
    expect(signature.toString('hex')).toBe(field('signature (hex)'))
    expect(signature.toString('base64')).toBe(field('signature (base64)'))
  })

  it('an offer carrying it passes the device’s check; a byte changed anywhere fails it', () => {
    const text = manifestLine![2]!
    const m = otaManifestSchema.parse(JSON.parse(text))
    const keys = [{ keyId: field('keyId'), publicKey: field('public key (raw, base64)') }]
    const offer = {
      v: 1,
      ota: 2,
      op: 'offer',
      id: 'c1842a1',
      part: 'iot',
      payload: 'firmware',
      version: '1.3.0',
      size: 2097152,
      sha256: m.sha256,
      crc8: '5A',
      blockBytes: 4096,
      blocks: 512,
      timeoutSeconds: 1800,
      manifest: text,
      signature: field('signature (base64)'),
      keyId: field('keyId'),
    } as OtaOfferPayload
    const device = { currentVersion: '1.0.0', hardware: 'HW-A1' }
    expect(checkManifest(offer, keys, device)).toMatchObject({ ok: true })
    expect(checkManifest({ ...offer, manifest: text.replace('1.3.0', '1.3.1') }, keys, device)).toMatchObject({ ok: false, code: 'E_SIGNATURE' })
    expect(checkManifest(offer, keys, device, true)).toMatchObject({ ok: false, code: 'E_SIGNATURE' })
    expect(checkManifest({ ...offer, keyId: '0000000000000000' }, keys, device)).toMatchObject({ ok: false, code: 'E_KEY_UNKNOWN' })
    expect(checkManifest({ ...offer, version: '1.3.1' }, keys, device)).toMatchObject({ ok: false, code: 'E_MANIFEST' })
    expect(checkManifest(offer, keys, { ...device, hardware: 'HW-B2' })).toMatchObject({ ok: false, code: 'E_MANIFEST' })
  })
})

describe('manifest checks and key updates', () => {
  const current = generateKeyPairSync('ed25519').privateKey
  const next = generateKeyPairSync('ed25519').privateKey
  const stranger = generateKeyPairSync('ed25519').privateKey
  const setOf = (keys: KeyObject[], issuedAt: number) => otaKeySetText({ format: 1, issuedAt, keys: keys.map(entryOf) })

  it('refuses a manifest below its minimum version, and one of another supplier or product the device knows', () => {
    const manifest = otaManifestText({ format: 1, part: 'iot', kind: 'firmware', supplier: 'QT', product: 'EC', name: '', version: '2.0.0', size: 10, sha256: 'a'.repeat(64), hardware: [], minVersion: '1.5.0' })
    const offer = { part: 'iot', payload: 'firmware', version: '2.0.0', size: 10, sha256: 'a'.repeat(64), manifest, signature: b64sign(manifest, current), keyId: entryOf(current).keyId } as OtaOfferPayload
    const keys = [entryOf(current)]
    expect(checkManifest(offer, keys, { currentVersion: '1.5.0' })).toMatchObject({ ok: true })
    expect(checkManifest(offer, keys, { currentVersion: '1.4.9' })).toMatchObject({ ok: false, code: 'E_MANIFEST' })
    expect(checkManifest(offer, keys, { currentVersion: '1.6.0', supplier: 'XX' })).toMatchObject({ ok: false, code: 'E_MANIFEST' })
    expect(checkManifest(offer, keys, { currentVersion: '1.6.0', product: 'XX' })).toMatchObject({ ok: false, code: 'E_MANIFEST' })
    // Signed, but not a manifest: the signature alone does not make it one.
    const junk = '{"format":2}'
    expect(checkManifest({ ...offer, manifest: junk, signature: b64sign(junk, current) }, keys, {})).toMatchObject({ ok: false, code: 'E_MANIFEST' })
  })

  it('takes a key set only when a key it trusts signed it, and never an older one', () => {
    const trusted = [entryOf(current)]
    const rotated = setOf([next, current], 2000)
    const bySelf = { keys: rotated, signatures: [{ keyId: entryOf(next).keyId, signature: b64sign(rotated, next) }] }
    const byBoth = { keys: rotated, signatures: [...bySelf.signatures, { keyId: entryOf(current).keyId, signature: b64sign(rotated, current) }] }
    expect(acceptKeySet(bySelf, trusted, 0)).toBeNull()
    expect(acceptKeySet(byBoth, trusted, 0)).toEqual({ keys: [entryOf(next), entryOf(current)], issuedAt: 2000 })
    expect(acceptKeySet(byBoth, trusted, 2001)).toBeNull()
    // A stranger's key smuggled in under a trusted key's signature of another text: the signature is over the text.
    const forged = setOf([stranger], 3000)
    expect(acceptKeySet({ keys: forged, signatures: [{ keyId: entryOf(current).keyId, signature: b64sign(rotated, current) }] }, trusted, 0)).toBeNull()
    // A key listed under another key's id is refused.
    const misnamed = otaKeySetText({ format: 1, issuedAt: 4000, keys: [{ keyId: entryOf(current).keyId, publicKey: entryOf(stranger).publicKey }] })
    expect(acceptKeySet({ keys: misnamed, signatures: [{ keyId: entryOf(current).keyId, signature: b64sign(misnamed, current) }] }, trusted, 0)).toBeNull()
    // First use (no key yet): the set must at least be signed by a key in it.
    expect(firstKeySet(byBoth)).toEqual({ keys: [entryOf(next), entryOf(current)], issuedAt: 2000 })
    expect(firstKeySet({ keys: rotated, signatures: [{ keyId: entryOf(current).keyId, signature: b64sign(rotated, stranger) }] })).toBeNull()
    expect(verifySigned(rotated, b64sign(rotated, current), entryOf(current).publicKey)).toBe(true)
  })
})
