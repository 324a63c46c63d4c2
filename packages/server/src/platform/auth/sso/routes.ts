import { createHash, randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { LoginStatus, writeLoginLog } from '../../audit/login-log'
import { type ClientInfo, clientInfo } from '../../client-info'
import { AppError, badRequest, notFound } from '../../errors'
import { t } from '../../i18n'
import { bilingual } from '../../i18n/zod-messages'
import { PUBLIC } from '../../rbac/guard'
import { done } from '../../responses'
import type { Services } from '../../services'
import { type SignInOutcome, signInVouchedFor } from '../sign-in'
import { accountForIdentity } from './accounts'
import { identityOf } from './claims'
import { IdentityProvider, type PendingSignIn, SsoError } from './identity-provider'

// Single sign-on with an OpenID Connect provider, authorization code with PKCE (docs/ops/deploy.md ›
// Staff identity). The browser goes GET /auth/oidc/start → the provider → GET /auth/oidc/callback
// → the sign-in page with a one-time code (never the session token in an address), which the page
// trades at POST /login/sso for what POST /login answers: the session, or the second factor first.

/** A sign-in at the provider may take this long (the user types a password, approves a push). */
const PENDING_SECONDS = 10 * 60
/** The sign-in page trades the code at once; a code found later in a history or a log is spent. */
const CODE_SECONDS = 60

const digest = (value: string) => createHash('sha256').update(value).digest('hex')
// Kept under hashes: the store (sys_cache, or Redis) holds neither a state nor a code someone could replay.
const pendingKey = (state: string) => `sso-pending:${digest(state)}`
const codeKey = (code: string) => `sso-code:${digest(code)}`

interface Pending extends PendingSignIn {
  /** The console page to open after signing in. */
  redirect?: string
  /** The digest of the browser's cookie (SSO_BROWSER_COOKIE): only the browser that started it finishes it. */
  browser: string
}

/**
 * Binds a single sign-on to the browser that started it: an HttpOnly cookie set at the start, which
 * the callback and the code's trade must both bring. Without it, whoever finished a sign-in at the
 * provider could send their sign-in page address (?sso=<code>) to someone else and sign them in as
 * the sender (a login CSRF): everything they then did would be in the sender's account.
 */
export const SSO_BROWSER_COOKIE = 'velo_sso'

/** The browser's single sign-on cookie, if it sent one. */
export function ssoBrowserOf(req: FastifyRequest): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=')
    if (at > 0 && part.slice(0, at).trim() === SSO_BROWSER_COOKIE) return part.slice(at + 1).trim() || undefined
  }
  return undefined
}

/** The cookie's header: sent only to the API (callback and trade), never readable by scripts, kept as long as a sign-in may take. */
function ssoCookie(services: Services, req: FastifyRequest, value: string, seconds: number): string {
  return `${SSO_BROWSER_COOKIE}=${value}; Path=${services.config.apiPrefix || '/'}; Max-Age=${seconds}; HttpOnly; SameSite=Lax${req.protocol === 'https' ? '; Secure' : ''}`
}

/** Ends the browser's binding once its code is traded (or refused). */
export const clearSsoBrowser = (services: Services, req: FastifyRequest) => ssoCookie(services, req, '', 0)

/** A path of this console only: never another site ('//evil.example', '/\evil.example', 'https://…'). */
const appPath = z
  .string()
  .max(512)
  .regex(/^\/(?![/\\])[^\s\\]*$/, { message: bilingual({ en_US: 'The page to open after signing in must be a path of this console', zh_CN: '登录后打开的页面必须是本控制台内的路径' }) })

/** The sign-in page, with what it should do: trade a code, or say why the sign-in stopped. */
function signInPage(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => !!e[1]))
  return `/login?${query}`
}

/** The callback address registered at the provider: OIDC_REDIRECT_URL, else this request's origin (through a proxy's X-Forwarded-* with TRUST_PROXY). */
function callbackUrl(services: Services, req: FastifyRequest): string {
  return services.config.oidc!.redirectUrl ?? `${req.protocol}://${req.host}${services.config.apiPrefix}/auth/oidc/callback`
}

/** GET /auth/oidc/start and /auth/oidc/callback; nothing is registered without OIDC_ISSUER. */
export function ssoRoutes(services: Services): FastifyPluginAsyncZod {
  return async (api) => {
    const settings = services.config.oidc
    if (!settings) return
    const provider = new IdentityProvider(settings, api.log)

    /** A stopped sign-in: in the login log (in English, as every entry), and the browser back at the sign-in page with the reason. */
    const refuse = async (req: FastifyRequest, reply: FastifyReply, err: unknown, userName: string, redirect?: string) => {
      const refusal = err instanceof SsoError ? err : new SsoError('failed', err instanceof Error ? err.message : String(err))
      if (!(err instanceof SsoError)) req.log.error({ err }, 'single sign-on failed unexpectedly')
      else req.log.info({ reason: refusal.reason, detail: refusal.detail }, 'single sign-on refused')
      const reason = t('en_US', `sso.${refusal.reason}`)
      const msg = t('en_US', 'sso.refusedLog', { reason: refusal.detail ? `${reason} (${refusal.detail})` : reason })
      await writeLoginLog(services.db, { userName, status: LoginStatus.failure, msg, client: clientInfo(req) })
      return reply.redirect(signInPage({ ssoError: refusal.reason, redirect }), 302)
    }

    api.get(
      '/auth/oidc/start',
      {
        config: { permission: PUBLIC, rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: 'Single sign-on: sends the browser to the identity provider (authorization code with PKCE); redirect is the console page to open afterwards',
          security: [],
          querystring: z.object({ redirect: appPath.optional() }),
          // It answers 302: to the provider's sign-in, or back to the sign-in page with ?ssoError=<reason>.
          response: { 200: done },
        },
      },
      async (req, reply) => {
        const { redirect } = req.query
        try {
          const redirectUri = callbackUrl(services, req)
          const started = await provider.start(redirectUri)
          const browser = randomBytes(24).toString('base64url')
          const pending: Pending = { ...started.pending, ...(redirect ? { redirect } : {}), browser: digest(browser) }
          await services.kv.set(pendingKey(started.state), JSON.stringify(pending), PENDING_SECONDS)
          return reply.header('set-cookie', ssoCookie(services, req, browser, PENDING_SECONDS)).redirect(started.url, 302)
        } catch (err) {
          return refuse(req, reply, err, '', redirect)
        }
      },
    )

    api.get(
      '/auth/oidc/callback',
      {
        config: { permission: PUBLIC, rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: 'Single sign-on: where the identity provider sends the browser back; on to the sign-in page with a one-time code (or ssoError)',
          security: [],
          querystring: z.object({ state: z.string().max(512).optional(), code: z.string().max(4096).optional(), error: z.string().max(256).optional() }),
          // It answers 302: to the sign-in page with ?sso=<one-time code>, or ?ssoError=<reason>.
          response: { 200: done },
        },
      },
      async (req, reply) => {
        const { state } = req.query
        // Once: a state replayed, made up or past its ten minutes finds nothing.
        const raw = state ? await services.kv.take(pendingKey(state)) : null
        if (!raw) return refuse(req, reply, new SsoError('expired', state ? 'unknown, spent or expired state' : 'no state'), '')
        const pending = JSON.parse(raw) as Pending
        // Finished in another browser than the one that started it (or one that keeps no cookies): nobody is signed in.
        const browser = ssoBrowserOf(req)
        if (!browser || digest(browser) !== pending.browser) return refuse(req, reply, new SsoError('expired', 'finished in another browser than the one that started it'), '', pending.redirect)
        let userName = ''
        try {
          const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : ''
          const claims = await provider.finish(pending, state!, query)
          const identity = identityOf(claims, settings.groupsClaim)
          userName = identity.email
          const account = await accountForIdentity(services, identity, { ip: req.ip, requestId: String(req.id), log: req.log })
          const code = randomBytes(24).toString('base64url')
          await services.kv.set(codeKey(code), JSON.stringify({ userId: account.userId, browser: pending.browser }), CODE_SECONDS)
          return reply.redirect(signInPage({ sso: code, redirect: pending.redirect }), 302)
        } catch (err) {
          return refuse(req, reply, err, userName, pending.redirect)
        }
      },
    )
  }
}

/**
 * POST /login/sso: the one-time code the callback gave the sign-in page, traded once, by the browser
 * that started the sign-in, for what a password sign-in answers. The account is read again: one disabled in the last minute gets nothing.
 */
export async function signInWithSsoCode(services: Services, code: string, browser: string | undefined, client: ClientInfo): Promise<SignInOutcome> {
  const settings = services.config.oidc
  if (!settings) throw notFound('sso.notConfigured')
  const raw = await services.kv.take(codeKey(code))
  if (!raw) throw badRequest('sso.codeExpired')
  const { userId, browser: bound } = JSON.parse(raw) as { userId: number; browser: string }
  // A code brought by another browser than the one that went through the provider: spent, and nobody signed in.
  if (!browser || digest(browser) !== bound) {
    await writeLoginLog(services.db, { userName: '', status: LoginStatus.failure, msg: t('en_US', 'sso.refusedLog', { reason: t('en_US', 'sso.otherBrowser') }), client })
    throw badRequest('sso.otherBrowser')
  }
  const user = await services.db.selectFrom('sysUser').select(['userId', 'userName', 'status']).where('userId', '=', userId).where('delFlag', '=', '0').executeTakeFirst()
  if (!user || user.status !== '0') {
    await writeLoginLog(services.db, { userName: user?.userName ?? '', status: LoginStatus.failure, msg: t('en_US', 'sso.refusedLog', { reason: t('en_US', 'sso.disabled') }), client })
    throw new AppError(403, 'sso.disabled')
  }
  return signInVouchedFor(services, { userId: Number(user.userId), userName: user.userName }, client, t('en_US', 'sso.signedInLog', { provider: settings.name ?? settings.issuer }))
}
