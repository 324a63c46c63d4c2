import { createHash } from 'node:crypto'
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server'
import { z } from 'zod'
import type { AppConfig } from '../../../config'
import type { Db } from '../../../db/database'
import { badRequest } from '../../errors'
import type { KeyValueStore } from '../../kv-store'

// Loaded at the first ceremony, not at start: the library and its certificate parsers (@peculiar/x509,
// asn1js) held about 3.5 MB of every idle server's heap, most of which never sees a passkey (issue 43).
let webauthnLoaded: Promise<[typeof import('@simplewebauthn/server'), typeof import('@simplewebauthn/server/helpers')]> | undefined
const webauthn = () => (webauthnLoaded ??= Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]))

/** A ceremony (options, then the browser's answer) lasts five minutes and is used once. */
const CEREMONY_SECONDS = 5 * 60
const RP_NAME = 'Velo Admin'

/** The host passkeys are bound to, and the pages allowed to use them. */
export interface RelyingParty {
  id: string
  origins: string[]
}

/**
 * The relying party of a request: the configured one (PASSKEY_RP_ID, PASSKEY_ORIGINS), else the page
 * the request came from. Taking the page's own origin is safe: a browser asks an authenticator only
 * for the host it is on, so a look-alike site gets no assertion for this one.
 */
export function relyingPartyOf(config: AppConfig['passkeys'], origin: string | undefined): RelyingParty {
  if (config.rpId) return { id: config.rpId, origins: config.origins ?? [`https://${config.rpId}`] }
  let url: URL | null = null
  try {
    url = origin ? new URL(origin) : null
  } catch {
    url = null
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw badRequest('auth.passkeyOrigin')
  return { id: url.hostname, origins: config.origins ?? [url.origin] }
}

// What the browser answers (@simplewebauthn/browser), checked at the edge: base64url strings of a
// bounded size; the library checks what they hold.
const b64url = z.string().max(16_384).regex(/^[A-Za-z0-9_-]*$/)
const common = {
  id: b64url.min(1),
  rawId: b64url.min(1),
  type: z.literal('public-key'),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
}
export const passkeyRegistrationSchema = z.object({
  ...common,
  response: z.object({
    clientDataJSON: b64url,
    attestationObject: b64url,
    authenticatorData: b64url.optional(),
    publicKey: b64url.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    transports: z.array(z.string().max(16)).max(8).optional(),
  }),
})
export const passkeyAssertionSchema = z.object({
  ...common,
  response: z.object({ clientDataJSON: b64url, authenticatorData: b64url, signature: b64url, userHandle: b64url.optional() }),
})
export type PasskeyRegistration = z.infer<typeof passkeyRegistrationSchema>
export type PasskeyAssertion = z.infer<typeof passkeyAssertionSchema>

interface Pending {
  challenge: string
  rp: RelyingParty
  /** Whose passkey must answer; none for a sign-in by passkey alone (the passkey names its user). */
  userId?: number
}

/** Options as they leave in a response (a plain object; the browser library reads them). */
type WireOptions<T> = { [K in keyof T]: T[K] }

/** The outcome of an assertion: whose passkey, or whose passkey failed (when it named one). */
export type PasskeyCheck = { ok: true; userId: number; factorId: number } | { ok: false; userId?: number }

/**
 * WebAuthn ceremonies with @simplewebauthn/server: registering a passkey, and checking one as a
 * second factor, a second proof, or a sign-in on its own (then with user verification: the device's
 * PIN or biometrics are the second factor). Only public keys are kept.
 */
export class Passkeys {
  constructor(
    private readonly db: Db,
    private readonly kv: KeyValueStore,
  ) {}

  private credentialsOf(userId: number) {
    return this.db.selectFrom('sysUserFactor').select(['credentialId', 'transports']).where('userId', '=', userId).where('kind', '=', 'passkey').execute()
  }

  /** The options a browser creates a passkey from; the challenge is kept for the answer. */
  async registrationOptions(user: { userId: number; userName: string; nickName?: string }, rp: RelyingParty): Promise<WireOptions<PublicKeyCredentialCreationOptionsJSON>> {
    const existing = await this.credentialsOf(user.userId)
    const [{ generateRegistrationOptions }] = await webauthn()
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: rp.id,
      userName: user.userName,
      userDisplayName: user.nickName || user.userName,
      // Stable per user and host (an authenticator then replaces, not adds), and no name in it.
      userID: createHash('sha256').update(`velo-admin:${rp.id}:${user.userId}`).digest(),
      attestationType: 'none',
      excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: transportsOf(c.transports) })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    })
    await this.kv.set(`passkey-register:${user.userId}`, JSON.stringify({ challenge: options.challenge, rp } satisfies Pending), CEREMONY_SECONDS)
    return { ...options }
  }

  /** Checks the browser's new passkey against the kept challenge: its credential to keep, or null. */
  async verifyRegistration(userId: number, response: PasskeyRegistration) {
    const pending = await this.takePending(`passkey-register:${userId}`)
    if (!pending) return null
    try {
      const [{ verifyRegistrationResponse }, { isoBase64URL }] = await webauthn()
      const result = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: pending.challenge,
        expectedOrigin: pending.rp.origins,
        expectedRPID: pending.rp.id,
        requireUserVerification: false,
      })
      if (!result.verified) return null
      const { credential } = result.registrationInfo
      return { credentialId: credential.id, publicKey: isoBase64URL.fromBuffer(credential.publicKey), signCount: credential.counter, transports: (response.response.transports ?? []).join(',').slice(0, 128) }
    } catch {
      return null
    }
  }

  /**
   * The options a browser asks a passkey with, kept under `key` (a sign-in ticket, a session) for
   * the answer. With a user, only their passkeys; without, any passkey of this host, and the device
   * must verify its user.
   */
  async assertionOptions(key: string, rp: RelyingParty, userId?: number): Promise<WireOptions<PublicKeyCredentialRequestOptionsJSON>> {
    const allow = userId === undefined ? [] : await this.credentialsOf(userId)
    if (userId !== undefined && !allow.length) throw badRequest('auth.noPasskey')
    const [{ generateAuthenticationOptions }] = await webauthn()
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      allowCredentials: allow.map((c) => ({ id: c.credentialId, transports: transportsOf(c.transports) })),
      userVerification: userId === undefined ? 'required' : 'preferred',
    })
    await this.kv.set(`passkey-assert:${key}`, JSON.stringify({ challenge: options.challenge, rp, ...(userId === undefined ? {} : { userId }) } satisfies Pending), CEREMONY_SECONDS)
    return { ...options }
  }

  /** Checks an assertion against the challenge kept under `key` (once): whose passkey it was. */
  async verifyAssertion(key: string, response: PasskeyAssertion): Promise<PasskeyCheck> {
    const pending = await this.takePending(`passkey-assert:${key}`)
    if (!pending) return { ok: false, userId: undefined }
    const row = await this.db
      .selectFrom('sysUserFactor')
      .select(['factorId', 'userId', 'credentialId', 'publicKey', 'signCount', 'transports'])
      .where('kind', '=', 'passkey')
      .where('credentialId', '=', response.id)
      .$if(pending.userId !== undefined, (q) => q.where('userId', '=', pending.userId!))
      .executeTakeFirst()
    if (!row) return { ok: false, userId: pending.userId }
    const userId = Number(row.userId)
    try {
      const [{ verifyAuthenticationResponse }, { isoBase64URL }] = await webauthn()
      const result = await verifyAuthenticationResponse({
        response: response as AuthenticationResponseJSON,
        expectedChallenge: pending.challenge,
        expectedOrigin: pending.rp.origins,
        expectedRPID: pending.rp.id,
        credential: { id: row.credentialId, publicKey: isoBase64URL.toBuffer(row.publicKey), counter: Number(row.signCount), transports: transportsOf(row.transports) },
        requireUserVerification: pending.userId === undefined,
      })
      if (!result.verified) return { ok: false, userId }
      await this.db
        .updateTable('sysUserFactor')
        .set({ signCount: result.authenticationInfo.newCounter, lastUsedTime: new Date().toISOString() })
        .where('factorId', '=', row.factorId)
        .execute()
      return { ok: true, userId, factorId: Number(row.factorId) }
    } catch {
      // A replayed counter, a wrong signature, another host or challenge: the library says which; the caller only that it failed.
      return { ok: false, userId }
    }
  }

  private async takePending(key: string): Promise<Pending | null> {
    const raw = await this.kv.take(key)
    return raw ? (JSON.parse(raw) as Pending) : null
  }
}

function transportsOf(stored: string): AuthenticatorTransport[] | undefined {
  return stored ? (stored.split(',') as AuthenticatorTransport[]) : undefined
}
