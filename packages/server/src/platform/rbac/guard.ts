import { ResultCode } from '@velo/shared'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError, forbidden } from '../errors'
import type { Services } from '../services'
import { type AuthContext, hasPermission, loadAuthContext } from './auth-context'

/** Anyone may call it. */
export const PUBLIC = 'public'
/** Any signed-in user may call it. */
export const SIGNED_IN = 'signedIn'
/**
 * A member signed in to the riders' app (modules/app). Members are no staff: their tokens live in
 * mem_session, never in the staff sessions, so this guard lets such a route through as it would a
 * PUBLIC one, and the app API's own onRequest hook authenticates the member (req.member) instead.
 */
export const MEMBER = 'member'
/**
 * An operator signed in to the production-line tool's API (modules/tool). Like MEMBER: tool tokens
 * live in their own store, never in the staff sessions; the tool API's own hook authenticates them.
 */
export const TOOL = 'tool'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** PUBLIC, SIGNED_IN, MEMBER, TOOL or a permission string 'area:entity:action'. Every API route must declare one. */
    permission?: string
  }
  interface FastifyRequest {
    auth: AuthContext | null
    token: string | null
  }
}

export function readToken(req: FastifyRequest): string | null {
  const header = req.headers.authorization
  if (!header) return null
  const token = header.replace(/^Bearer\s+/i, '').trim()
  return token || null
}

const SESSION_ERRORS = {
  expired: new AppError(401, 'auth.tokenExpired', {}, ResultCode.TOKEN_EXPIRED),
  displaced: new AppError(401, 'auth.tokenDisplaced', {}, ResultCode.SIGNED_IN_ELSEWHERE),
  revoked: new AppError(401, 'auth.tokenIllegal', {}, ResultCode.ILLEGAL_TOKEN),
  forced: new AppError(401, 'auth.forcedOut', {}, ResultCode.ILLEGAL_TOKEN),
  unknown: new AppError(401, 'auth.tokenIllegal', {}, ResultCode.ILLEGAL_TOKEN),
} as const

/** Counts one refusal against the caller's address: the rate-limit plugin's createRateLimit(). */
export type RefusalLimit = (req: FastifyRequest) => Promise<{ isAllowed: true } | { isAllowed: false; isExceeded: boolean; ttlInSeconds: number }>

/**
 * Inside the API scope: refuses at start any route that declares no permission, then on each request
 * authenticates the token and checks the route's permission before the body is even validated.
 * Callers who are not signed in are refused with 401 up to `limitRefusals` per address, then with 429:
 * a signed-in caller from the same address is never held back by it.
 */
export function installGuard(api: FastifyInstance, services: Services, limitRefusals?: RefusalLimit) {
  api.decorateRequest('auth', null)
  api.decorateRequest('token', null)
  services.authCache.onError = (err) => api.log.error({ err }, 'could not renew the rights stamp in Redis')

  api.addHook('onRoute', (route) => {
    if (!route.config?.permission) throw new Error(`Route ${route.method} ${route.url} declares no permission`)
    if (route.config.stepUp) {
      const permission = route.config.permission
      if (permission === PUBLIC || permission === SIGNED_IN || permission === MEMBER || permission === TOOL) throw new Error(`Route ${route.method} ${route.url} asks for a second proof but names no right`)
      services.identity.stepUp.sensitiveRights.add(permission)
      // HEAD is GET's shadow (Fastify adds one per GET): guarded alike, listed once.
      for (const method of [route.method].flat()) if (method !== 'HEAD') services.identity.stepUp.routes.push({ method, url: route.url })
    }
    // Only the app API's scope authenticates members: a MEMBER route anywhere else would be open to all.
    if (route.config.permission === MEMBER && !route.url.includes('/app/v1/')) throw new Error(`Route ${route.method} ${route.url} is for members but outside the app API`)
    if (route.config.permission === TOOL && !route.url.includes('/tool-api/v1/')) throw new Error(`Route ${route.method} ${route.url} is for tool operators but outside the tool API`)
  })

  const authenticate = async (req: FastifyRequest, permission: string | undefined) => {
    // An unknown route is answered 404 by the not-found handler, whoever asks.
    if (permission === PUBLIC || permission === MEMBER || permission === TOOL || req.is404) return
    const token = readToken(req)
    if (!token) throw new AppError(401, 'auth.notLoggedIn', {}, ResultCode.ILLEGAL_TOKEN)
    // Kept in memory per session, dropped by every change to it (rbac/auth-cache.ts).
    const found = await services.authCache.signedIn(token)
    if (found.state === 'gone') {
      await services.sessions.revoke(token)
      throw SESSION_ERRORS.revoked
    }
    if (found.state !== 'valid') throw SESSION_ERRORS[found.state]
    const { auth } = found
    req.auth = auth
    req.token = token
    if (!routeAllows(auth, permission!)) throw forbidden('error.forbidden', { permission: permission! })
  }

  api.addHook('onRequest', async (req, reply) => {
    // Read once: Fastify builds the route's options object anew at every read.
    const config = req.routeOptions.config
    try {
      await authenticate(req, config.permission)
    } catch (err) {
      if (!limitRefusals || !(err instanceof AppError) || err.status !== 401) throw err
      const limit = await limitRefusals(req)
      if (limit.isAllowed || !limit.isExceeded) throw err
      reply.header('retry-after', limit.ttlInSeconds)
      throw new AppError(429, 'error.rateLimited')
    }
    // After authentication and outside it: a refusal for want of a second proof is no failed
    // sign-in and counts against no address; before the body is read, so nothing is half done.
    if (config.stepUp && req.auth) await services.identity.stepUp.assert(req.auth)
  })
}

/** Whether a signed-in caller may use a route that declares this permission. */
function routeAllows(auth: AuthContext, permission: string): boolean {
  return permission === PUBLIC || permission === SIGNED_IN || hasPermission(auth, permission)
}

/** The caller of a route that is not PUBLIC; the guard has made sure there is one. */
export function caller(req: FastifyRequest): AuthContext {
  if (!req.auth) throw new AppError(401, 'auth.notLoggedIn', {}, ResultCode.ILLEGAL_TOKEN)
  return req.auth
}

/**
 * Whether the request's session still stands and still holds the route's permission: a long-lived
 * answer (an event stream) asks again and again, so signing out, a password change, a disabled
 * account or a lost right ends it too.
 */
export async function stillAuthorized(services: Services, req: FastifyRequest): Promise<boolean> {
  if (!req.token) return true
  if ((await services.sessions.peek(req.token)).state !== 'valid') return false
  const auth = await loadAuthContext(services.db, req.auth?.userId ?? 0)
  const permission = req.routeOptions.config.permission
  return !!auth && routeAllows(auth, permission!)
}
