import { ResultCode } from '@velo/shared'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { dummyPasswordHash, verifyPassword } from '../../platform/auth/passwords'
import { hashToken, newToken } from '../../platform/auth/session-store'
import { ok } from '../../platform/envelope'
import { AppError, forbidden } from '../../platform/errors'
import { MEMBER, PUBLIC, readToken } from '../../platform/rbac/guard'
import { done, envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { APP_TAGS, MEMBER_SECURITY } from './tables'
import { loginAttemptsPerEmail } from '../../platform/auth/login-limits'
import type { Db } from '../../db/database'

/** The member a MEMBER route serves, as the app API's hook found them. */
export interface SignedInMember {
  memberId: number
  tokenHash: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on MEMBER routes of the app API by its onRequest hook; null elsewhere. */
    member: SignedInMember | null
  }
}

/** A phone stays signed in while it is used: each use within this pushes the end further. */
const SESSION_DAYS = 30
const SESSION_MS = SESSION_DAYS * 24 * 3600_000
// Sliding expiry rewrites a session at most this often, not on every call.
const TOUCH_EVERY_MS = 3600_000
// Ended and expired sessions are kept a week, so a late call hears "expired" rather than "unknown".
const KEEP_ENDED_MS = 7 * 24 * 3600_000

/** Sign-in attempts per address (a carrier's NAT puts many phones behind one) and per account. */
const LOGIN_PER_ADDRESS = { max: 30, timeWindow: '1 minute' } as const

const refusedToken = () => new AppError(401, 'auth.tokenIllegal', {}, ResultCode.ILLEGAL_TOKEN)

/** The member's session and account state for a token, in one indexed read. */
async function sessionOf(db: Db, tokenHash: string) {
  return db
    .selectFrom('memSession as s')
    .innerJoin('memMember as m', 'm.memberId', 's.memberId')
    .select(['s.memberId', 's.lastSeen', 's.expiresAt', 's.ended', 'm.status'])
    .where('s.tokenHash', '=', tokenHash)
    .executeTakeFirst()
}

/**
 * Authenticates the member token of a MEMBER route: a session of mem_session that has not ended or
 * expired, of a member whose account is enabled now (a member disabled by staff is refused at the
 * next call, not at the end of the session). A staff token is unknown here, as a member token is to
 * the staff guard: the two never share a table.
 */
export function memberAuthenticator(services: Services) {
  const db = services.db
  return async (req: FastifyRequest) => {
    const token = readToken(req)
    if (!token) throw new AppError(401, 'auth.notLoggedIn', {}, ResultCode.ILLEGAL_TOKEN)
    const tokenHash = hashToken(token)
    const session = await sessionOf(db, tokenHash)
    if (!session || session.ended) throw refusedToken()
    const now = Date.now()
    if (Date.parse(session.expiresAt) <= now) throw new AppError(401, 'auth.tokenExpired', {}, ResultCode.TOKEN_EXPIRED)
    if (session.status !== '0') throw forbidden('app.memberDisabled')
    if (now - Date.parse(session.lastSeen) > TOUCH_EVERY_MS) {
      await db
        .updateTable('memSession')
        .set({ lastSeen: new Date(now).toISOString(), expiresAt: new Date(now + SESSION_MS).toISOString() })
        .where('tokenHash', '=', tokenHash)
        .execute()
    }
    req.member = { memberId: Number(session.memberId), tokenHash }
  }
}

/** The member of a MEMBER route; its hook has made sure there is one. */
export function signedInMember(req: FastifyRequest): SignedInMember {
  if (!req.member) throw new AppError(401, 'auth.notLoggedIn', {}, ResultCode.ILLEGAL_TOKEN)
  return req.member
}

const loginBody = z.object({
  email: z.string().trim().min(1).max(128),
  password: z.string().min(1).max(128),
})
const loginAnswer = z.object({ token: z.string(), expiresAt: z.string() })
const meAnswer = z.object({ memberId: z.number(), email: z.string(), firstName: z.string(), lastName: z.string(), countryCode: z.string().nullable() })

/** Sign-in, sign-out and the signed-in member (POST /auth/login, POST /auth/logout, GET /me). */
export function registerMemberRoutes(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db
  const limitPerEmail = loginAttemptsPerEmail(app, 'app')

  api.post(
    '/auth/login',
    {
      config: { permission: PUBLIC, audit: false, rateLimit: LOGIN_PER_ADDRESS },
      schema: {
        tags: APP_TAGS,
        summary: `A member signs in with e-mail and password; answers a member token valid ${SESSION_DAYS} days after its last use (limited per address and per e-mail)`,
        security: [],
        body: loginBody,
        response: { 200: envelope(loginAnswer) },
      },
    },
    async (req, reply) => {
      await limitPerEmail(req, reply)
      const email = req.body.email
      // Stored as the member typed it at sign-up: the exact text or its lower case, both by the unique index.
      const candidates = await db
        .selectFrom('memMember')
        .select(['memberId', 'email', 'passwordHash', 'status'])
        .where('email', 'in', [...new Set([email, email.toLowerCase()])])
        .execute()
      const member = candidates.find((c) => c.email === email) ?? candidates[0]
      // An unknown e-mail, an account without an app password and a wrong password read alike and
      // take as long: the answer must not tell who has an account.
      const passwordOk = await verifyPassword(member?.passwordHash || (await dummyPasswordHash()), req.body.password)
      if (!member?.passwordHash || !passwordOk) throw new AppError(400, 'app.badCredentials')
      // Said only to whoever knows the password.
      if (member.status !== '0') throw forbidden('app.memberDisabled')
      const token = newToken()
      const now = new Date()
      const expiresAt = new Date(now.getTime() + SESSION_MS).toISOString()
      await db
        .insertInto('memSession')
        .values({ tokenHash: hashToken(token), memberId: Number(member.memberId), created: now.toISOString(), lastSeen: now.toISOString(), expiresAt, ended: null })
        .execute()
      await db.updateTable('memMember').set({ lastLoginTime: now.toISOString() }).where('memberId', '=', member.memberId).execute()
      await db.deleteFrom('memSession').where('expiresAt', '<', new Date(now.getTime() - KEEP_ENDED_MS).toISOString()).execute()
      return ok({ token, expiresAt }, 'app.loginSuccess')
    },
  )

  api.post(
    '/auth/logout',
    {
      config: { permission: MEMBER, audit: false },
      schema: { tags: APP_TAGS, summary: 'End this member session: its token is refused from now on', security: MEMBER_SECURITY, response: { 200: done } },
    },
    async (req) => {
      const { tokenHash } = signedInMember(req)
      await db.updateTable('memSession').set({ ended: new Date().toISOString() }).where('tokenHash', '=', tokenHash).where('ended', 'is', null).execute()
      return ok(null, 'app.logoutSuccess')
    },
  )

  api.get(
    '/me',
    {
      config: { permission: MEMBER },
      schema: { tags: APP_TAGS, summary: 'The signed-in member: id, e-mail, name and country code', security: MEMBER_SECURITY, response: { 200: envelope(meAnswer) } },
    },
    async (req) => {
      const { memberId } = signedInMember(req)
      const me = await db
        .selectFrom('memMember as m')
        .leftJoin('sysCountry as c', 'c.countryId', 'm.countryId')
        .select(['m.memberId', 'm.email', 'm.firstName', 'm.lastName', 'c.code as countryCode'])
        .where('m.memberId', '=', memberId)
        .executeTakeFirstOrThrow()
      return { memberId: Number(me.memberId), email: me.email, firstName: me.firstName, lastName: me.lastName, countryCode: me.countryCode ?? null }
    },
  )
}
