import type { OwnSession, SecurityOverview } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { BusinessType } from '../../platform/audit/operation-log'
import { secondFactorStatus } from '../../platform/auth/factors/requirement'
import { passkeyRegistrationSchema, relyingPartyOf } from '../../platform/auth/factors/passkeys'
import { qrSvgOf } from '../../platform/auth/factors/totp'
import { securityOverviewSchema, totpEnrolmentSchema } from '../../platform/auth/schemas'
import { sessionIdOf } from '../../platform/auth/session-store'
import { ok } from '../../platform/envelope'
import { badRequest, notFound } from '../../platform/errors'
import { caller, SIGNED_IN } from '../../platform/rbac/guard'
import type { AuthContext } from '../../platform/rbac/auth-context'
import type { Services } from '../../platform/services'
import { done, envelope } from '../../platform/responses'

/**
 * The personal centre's Security tab: one's second factors (authenticator apps, passkeys, recovery codes)
 * and sessions. Whoever holds a factor proves themselves again before adding or removing one, or
 * before new recovery codes: a borrowed session must not swap the owner's phone for its own.
 */
export function registerProfileSecurity(app: FastifyInstance, services: Services) {
  const { factors, stepUp } = services.identity
  const api = app.withTypeProvider<ZodTypeProvider>()
  const tags = ['Profile']
  const audit = { module: 'Profile', businessType: BusinessType.update }

  const proofIfEnrolled = async (auth: AuthContext) => {
    if (await factors.has(auth.userId)) await stepUp.assert(auth)
  }

  const ownSessions = async (auth: AuthContext): Promise<OwnSession[]> =>
    (await services.sessions.listActive(auth.userId)).map((s) => ({ sessionId: sessionIdOf(s), current: s.tokenHash === auth.session, ipaddr: s.ipaddr, browser: s.browser, os: s.os, loginTime: s.loginTime, lastSeen: s.lastSeen }))

  api.get(
    '/system/user/profile/security',
    { config: { permission: SIGNED_IN }, schema: { tags, summary: 'My second factors, recovery codes left, whether my roles require a factor, and my sessions', response: { 200: envelope(securityOverviewSchema) } } },
    async (req): Promise<SecurityOverview> => {
      const auth = caller(req)
      const [list, left, status, sessions] = await Promise.all([factors.list(auth.userId), factors.recoveryCodesLeft(auth.userId), secondFactorStatus(services, auth.userId, auth.roles), ownSessions(auth)])
      return { factors: list, recoveryCodesLeft: left, secondFactor: { required: status.required, enrolled: list.length > 0, due: status.due }, sessions }
    },
  )

  api.post(
    '/system/user/profile/totp/start',
    { config: { permission: SIGNED_IN, audit: false }, schema: { tags, summary: 'Start adding an authenticator app: the seed to scan (a QR code) or type', response: { 200: envelope(totpEnrolmentSchema) } } },
    async (req) => {
      const auth = caller(req)
      await proofIfEnrolled(auth)
      const started = await factors.startTotp(auth.userId, auth.userName)
      return { ...started, qrSvg: await qrSvgOf(started.uri) }
    },
  )

  api.post(
    '/system/user/profile/totp/confirm',
    {
      config: { permission: SIGNED_IN, audit },
      schema: {
        tags,
        summary: 'Finish adding an authenticator app with its first code; with the first factor come ten recovery codes (shown once)',
        body: z.object({ code: z.string().trim().min(6).max(12), name: z.string().trim().max(64).optional() }),
        response: { 200: envelope(z.object({ factorId: z.number(), recoveryCodes: z.array(z.string()).optional() })) },
      },
    },
    async (req) => {
      const auth = caller(req)
      await proofIfEnrolled(auth)
      const added = await factors.confirmTotp(auth.userId, req.body.code, req.body.name ?? '')
      if (!added) throw badRequest('auth.enrolCodeWrong')
      // The code just given is a proof too.
      await stepUp.record(auth.session!)
      return ok({ factorId: added.factorId, ...(added.recoveryCodes ? { recoveryCodes: added.recoveryCodes } : {}) }, 'auth.factorAdded')
    },
  )

  api.post(
    '/system/user/profile/passkey/start',
    { config: { permission: SIGNED_IN, audit: false }, schema: { tags, summary: 'Start adding a passkey: the options the browser creates it from', response: { 200: envelope(z.record(z.string(), z.unknown())) } } },
    async (req) => {
      const auth = caller(req)
      await proofIfEnrolled(auth)
      const user = await services.db.selectFrom('sysUser').select('nickName').where('userId', '=', auth.userId).executeTakeFirst()
      return factors.startPasskey({ userId: auth.userId, userName: auth.userName, nickName: user?.nickName ?? '' }, relyingPartyOf(services.config.passkeys, req.headers.origin))
    },
  )

  api.post(
    '/system/user/profile/passkey/confirm',
    {
      config: { permission: SIGNED_IN, audit },
      schema: {
        tags,
        summary: "Finish adding a passkey with the browser's answer; with the first factor come ten recovery codes (shown once)",
        body: z.object({ passkey: passkeyRegistrationSchema, name: z.string().trim().max(64).optional() }),
        response: { 200: envelope(z.object({ factorId: z.number(), recoveryCodes: z.array(z.string()).optional() })) },
      },
    },
    async (req) => {
      const auth = caller(req)
      await proofIfEnrolled(auth)
      const added = await factors.confirmPasskey(auth.userId, req.body.passkey, req.body.name ?? '')
      if (!added) throw badRequest('auth.passkeyRefused')
      await stepUp.record(auth.session!)
      return ok({ factorId: added.factorId, ...(added.recoveryCodes ? { recoveryCodes: added.recoveryCodes } : {}) }, 'auth.passkeyAdded')
    },
  )

  api.delete(
    '/system/user/profile/factor/:factorId',
    { config: { permission: SIGNED_IN, audit }, schema: { tags, summary: 'Remove one of my second factors (not the last one while my roles require one)', params: z.object({ factorId: z.coerce.number().int().positive() }), response: { 200: done } } },
    async (req) => {
      const auth = caller(req)
      await stepUp.assert(auth)
      const list = await factors.list(auth.userId)
      if (!list.some((f) => f.factorId === req.params.factorId)) throw notFound('auth.factorNotFound')
      if (list.length === 1 && (await secondFactorStatus(services, auth.userId, auth.roles)).required) throw badRequest('auth.lastFactorRequired')
      await factors.remove(auth.userId, req.params.factorId)
      return ok(null, 'auth.factorRemoved')
    },
  )

  api.post(
    '/system/user/profile/recoveryCodes',
    { config: { permission: SIGNED_IN, audit }, schema: { tags, summary: 'Ten new recovery codes (shown once); the old ones stop working', response: { 200: envelope(z.object({ recoveryCodes: z.array(z.string()) })) } } },
    async (req) => {
      const auth = caller(req)
      if (!(await factors.has(auth.userId))) throw badRequest('auth.noFactorForCodes')
      await stepUp.assert(auth)
      return ok({ recoveryCodes: await factors.newRecoveryCodes(auth.userId) }, 'auth.recoveryCodesIssued')
    },
  )

  api.delete(
    '/system/user/profile/session/:sessionId',
    { config: { permission: SIGNED_IN, audit }, schema: { tags, summary: 'Sign out one of my sessions (another browser, a lost laptop)', params: z.object({ sessionId: z.string().regex(/^[0-9a-f]{32}$/) }), response: { 200: done } } },
    async (req) => {
      const auth = caller(req)
      const session = (await services.sessions.listActive(auth.userId)).find((s) => sessionIdOf(s) === req.params.sessionId)
      if (!session) throw notFound('auth.sessionNotFound')
      await services.sessions.end(session.tokenHash, 'revoked')
      return ok(null, 'auth.sessionRevoked')
    },
  )
}
