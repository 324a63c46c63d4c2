import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers'

/**
 * A software FIDO2 authenticator for the server's tests: it makes ES256 passkeys and signs with them
 * exactly as a browser's authenticator answers (attestation "none"), so the server's checks run on
 * real signatures. Chromium's virtual authenticator does the same in the browser tests.
 */
export class SoftAuthenticator {
  private readonly keys = new Map<string, { privateKey: KeyObject; rpId: string; userHandle: string; counter: number }>()

  constructor(readonly origin: string) {}

  /** Answers creation options (navigator.credentials.create). */
  create(options: Record<string, unknown>, o: { origin?: string; userVerified?: boolean } = {}) {
    const rpId = (options.rp as { id: string }).id
    const userHandle = (options.user as { id: string }).id
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const jwk = publicKey.export({ format: 'jwk' })
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, isoBase64URL.toBuffer(jwk.x!)],
      [-3, isoBase64URL.toBuffer(jwk.y!)],
    ])
    const credentialId = randomBytes(32)
    const id = isoBase64URL.fromBuffer(credentialId)
    this.keys.set(id, { privateKey, rpId, userHandle, counter: 0 })
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(credentialId.length)
    const authData = Buffer.concat([this.header(rpId, 0x40, o.userVerified ?? true, 0), Buffer.alloc(16), idLength, credentialId, Buffer.from(isoCBOR.encode(cose))])
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    )
    return {
      id,
      rawId: id,
      type: 'public-key' as const,
      response: { clientDataJSON: this.clientData('webauthn.create', String(options.challenge), o.origin), attestationObject: isoBase64URL.fromBuffer(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    }
  }

  /** Answers request options (navigator.credentials.get) with one of its passkeys for the host. */
  get(options: Record<string, unknown>, o: { origin?: string; userVerified?: boolean; credentialId?: string; keepCounter?: boolean } = {}) {
    const rpId = String(options.rpId)
    const allowed = ((options.allowCredentials as { id: string }[] | undefined) ?? []).map((c) => c.id)
    const id = o.credentialId ?? [...this.keys.keys()].find((k) => this.keys.get(k)!.rpId === rpId && (!allowed.length || allowed.includes(k)))
    const key = id ? this.keys.get(id) : undefined
    if (!id || !key) throw new Error(`no passkey for ${rpId}`)
    if (!o.keepCounter) key.counter += 1
    const authData = this.header(key.rpId, 0, o.userVerified ?? true, key.counter)
    const clientDataJSON = this.clientData('webauthn.get', String(options.challenge), o.origin)
    const signature = sign('sha256', Buffer.concat([authData, createHash('sha256').update(isoBase64URL.toBuffer(clientDataJSON)).digest()]), key.privateKey)
    return {
      id,
      rawId: id,
      type: 'public-key' as const,
      response: { clientDataJSON, authenticatorData: isoBase64URL.fromBuffer(authData), signature: isoBase64URL.fromBuffer(signature), userHandle: key.userHandle },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    }
  }

  /** rpIdHash, flags (user present, maybe verified, and `more`), the signature counter. */
  private header(rpId: string, more: number, userVerified: boolean, counter: number) {
    const count = Buffer.alloc(4)
    count.writeUInt32BE(counter)
    return Buffer.concat([createHash('sha256').update(rpId).digest(), Buffer.from([0x01 | (userVerified ? 0x04 : 0) | more]), count])
  }

  private clientData(type: string, challenge: string, origin = this.origin) {
    return isoBase64URL.fromUTF8String(JSON.stringify({ type, challenge, origin, crossOrigin: false }))
  }
}
