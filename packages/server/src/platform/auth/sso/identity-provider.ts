import * as oidc from 'openid-client'
import type { FastifyBaseLogger } from 'fastify'
import type { OidcConfig } from '../../../config'

/** Why a single sign-on stopped; each is a message key `sso.<reason>` on the server and on the sign-in page. */
export type SsoRefusal = 'unavailable' | 'cancelled' | 'expired' | 'failed' | 'noEmail' | 'emailUnverified' | 'ambiguous' | 'disabled'

/** A refused single sign-on: the reason the browser is told, and what the logs keep of it (never a token or the secret). */
export class SsoError extends Error {
  constructor(
    readonly reason: SsoRefusal,
    readonly detail = '',
  ) {
    super(detail || reason)
  }
}

/** What a sign-in at the provider started: the values its answer is checked against, kept on our side. */
export interface PendingSignIn {
  codeVerifier: string
  nonce: string
  redirectUri: string
}

const DISCOVERY_SECONDS = 10

/**
 * The console's client at the identity provider (openid-client): the provider's metadata and keys are
 * fetched once, when the first sign-in needs them, and kept; a failed fetch is not kept, so the next
 * sign-in tries again rather than the server refusing until a restart.
 */
export class IdentityProvider {
  private configuration?: Promise<oidc.Configuration>

  constructor(
    readonly settings: OidcConfig,
    private readonly log: FastifyBaseLogger,
  ) {}

  private discover(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const { issuer, clientId, clientSecret } = this.settings
      // Without a secret the console is a public client: PKCE is its only proof.
      const authentication = clientSecret ? oidc.ClientSecretPost(clientSecret) : oidc.None()
      const url = new URL(issuer)
      // Plain http is allowed only to a provider on this machine (config.ts refuses any other).
      const execute = url.protocol === 'http:' ? [oidc.allowInsecureRequests] : []
      const pending = oidc.discovery(url, clientId, clientSecret ? { client_secret: clientSecret } : undefined, authentication, { execute, timeout: DISCOVERY_SECONDS })
      this.configuration = pending
      pending.catch((err: unknown) => {
        if (this.configuration === pending) this.configuration = undefined
        this.log.warn({ issuer, reason: describe(err) }, 'single sign-on: the identity provider could not be discovered')
      })
    }
    return this.configuration.catch(() => {
      throw new SsoError('unavailable')
    })
  }

  /** Where to send the browser: the provider's sign-in, with PKCE (S256), state and nonce; and what to keep until it comes back. */
  async start(redirectUri: string): Promise<{ url: string; state: string; pending: PendingSignIn }> {
    const configuration = await this.discover()
    const codeVerifier = oidc.randomPKCECodeVerifier()
    const state = oidc.randomState()
    const nonce = oidc.randomNonce()
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    })
    return { url: url.href, state, pending: { codeVerifier, nonce, redirectUri } }
  }

  /**
   * The provider's answer at the callback (its query string, as received): the code exchanged with
   * the verifier, the ID token's signature, issuer, audience, expiry and nonce checked, and the
   * user's claims, from the ID token and, for what it leaves out, the userinfo endpoint.
   */
  async finish(pending: PendingSignIn, state: string, query: string): Promise<Record<string, unknown>> {
    const configuration = await this.discover()
    const currentUrl = new URL(pending.redirectUri)
    currentUrl.search = query
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, { pkceCodeVerifier: pending.codeVerifier, expectedState: state, expectedNonce: pending.nonce, idTokenExpected: true })
    } catch (err) {
      if (err instanceof oidc.AuthorizationResponseError && err.error === 'access_denied') throw new SsoError('cancelled', describe(err))
      throw new SsoError(isUnreachable(err) ? 'unavailable' : 'failed', describe(err))
    }
    const idClaims = tokens.claims()
    if (!idClaims) throw new SsoError('failed', 'no ID token')
    const claims: Record<string, unknown> = { ...idClaims }
    // Keycloak puts e-mail and groups in the ID token; others (and oidc-provider by default) only answer them at userinfo.
    const missing = claims.email === undefined || claims[this.settings.groupsClaim] === undefined
    if (missing && configuration.serverMetadata().userinfo_endpoint) {
      try {
        const info = await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims.sub)
        // The ID token is signed: where both say something, it wins.
        for (const [key, value] of Object.entries(info)) if (claims[key] === undefined) claims[key] = value
      } catch (err) {
        throw new SsoError(isUnreachable(err) ? 'unavailable' : 'failed', `userinfo: ${describe(err)}`)
      }
    }
    return claims
  }
}

/** An error in words for the logs: the library's code and message, never a request body (which holds the secret). */
function describe(err: unknown): string {
  if (err instanceof oidc.AuthorizationResponseError) return `${err.error}${err.error_description ? `: ${err.error_description}` : ''}`
  if (err instanceof oidc.ResponseBodyError) return `${err.error}${err.error_description ? `: ${err.error_description}` : ''} (HTTP ${err.status})`
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code
    return `${typeof code === 'string' ? `${code}: ` : ''}${err.message}`.slice(0, 200)
  }
  return String(err).slice(0, 200)
}

/** The provider did not answer (network, timeout), as opposed to answering something wrong. */
function isUnreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false
  if (err.name === 'TimeoutError' || (err instanceof TypeError && /fetch failed/i.test(err.message))) return true
  const code = (err.cause as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && /^(ECONN|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|UND_ERR)/.test(code)
}
