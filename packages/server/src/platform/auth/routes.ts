import { randomInt } from 'node:crypto'
import { DEFAULT_ROLE, PASSWORD_PATTERN, USERNAME_PATTERN, type AccountFeatures, type Language, type UserInfo } from '@velo/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { LoginStatus, writeLoginLog } from '../audit/login-log'
import { clientInfo } from '../client-info'
import { ConfigKey } from '../config-keys'
import { ok } from '../envelope'
import { badRequest, forbidden } from '../errors'
import { languageOf } from '../http'
import { t } from '../i18n'
import { bilingual } from '../i18n/zod-messages'
import { caller, PUBLIC, SIGNED_IN } from '../rbac/guard'
import type { AuthContext } from '../rbac/auth-context'
import { buildRouteTree, visibleMenus } from '../rbac/routers'
import type { Services } from '../services'
import { loadSessionUser } from './session-user'
import {
  captchaEnabled,
  passkeySignInOptions,
  requireCaptcha,
  signIn,
  signInEnrolConfirm,
  signInEnrolPasskeyConfirm,
  signInEnrolPasskeyStart,
  signInEnrolStart,
  signInPasskeyOptions,
  signInSecondFactor,
  signInWithPasskey,
} from './sign-in'
import { passkeyAssertionSchema, passkeyRegistrationSchema, relyingPartyOf } from './factors/passkeys'
import { assertFactorNotHeld, clearFactorFailures, countFactorFailure } from './factors/attempts'
import { secondFactorStatus } from './factors/requirement'
import { qrSvgOf } from './factors/totp'
import { newUserRow } from './new-user'
import { hashPassword } from './passwords'
import { done, envelope } from '../responses'
import { BusinessType } from '../audit/operation-log'
import { accountFeaturesSchema, captchaSchema, routeNodeSchema, signInAnswerSchema, totpEnrolmentSchema, userInfoSchema } from './schemas'
import { verifyPassword } from './passwords'
import { assertPasswordSignInAllowed, passwordAllowedFor, passwordSignInOff } from './sso/password-sign-in'
import { clearSsoBrowser, signInWithSsoCode, ssoBrowserOf } from './sso/routes'

const RESET_CODE_MINUTES = 15

export const usernameRule = z
  .string()
  .trim()
  .regex(USERNAME_PATTERN, { message: bilingual({ en_US: 'User name must be 4 to 20 letters and digits', zh_CN: '用户名必须是 4 到 20 位字母和数字' }) })
export const passwordRule = z
  .string()
  .regex(PASSWORD_PATTERN, {
    message: bilingual({ en_US: 'Password must be 6 to 20 letters, digits or special characters', zh_CN: '密码必须是 6 到 20 位字母、数字或特殊字符' }),
  })
const emailRule = z.email({ message: bilingual({ en_US: 'Please enter a valid email address', zh_CN: '请输入正确的邮箱地址' }) }).max(128)
const captchaFields = { code: z.string().max(16).optional(), uuid: z.string().max(64).optional() }

/** Stores a fresh reset code for the account and mails it; the outbox keeps the mail with the code masked. */
async function mailResetCode(services: Services, email: string, userId: number, lang: Language) {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
  await services.kv.set(`reset:${email}`, JSON.stringify({ userId, code, tries: 0 }), RESET_CODE_MINUTES * 60)
  await services.mailer.send({
    to: email,
    subject: t(lang, 'auth.resetMailSubject'),
    body: t(lang, 'auth.resetMailBody', { code, minutes: RESET_CODE_MINUTES }),
    secrets: [code],
  })
}

/** Sign-in, session and account self-service routes (SPEC §2, §7). */
export function authRoutes(services: Services): FastifyPluginAsyncZod {
  const { db, configValues } = services
  /** What GET /getUserInfo answers, and a sign-in that asks for its session. */
  const userInfoOf = async (auth: AuthContext): Promise<UserInfo> => {
    const [user, status, enrolled] = await Promise.all([loadSessionUser(db, auth.userId), secondFactorStatus(services, auth.userId, auth.roles), services.identity.factors.has(auth.userId)])
    return {
      user,
      roles: auth.roleKeys.length ? auth.roleKeys : [DEFAULT_ROLE],
      permissions: auth.permissions,
      secondFactor: { required: status.required, enrolled, due: status.due },
    }
  }
  /** What GET /getRouters answers, and a sign-in that asks for its session. */
  const routesOf = async (auth: AuthContext) => buildRouteTree(await visibleMenus(db, auth))
  return async (api) => {
    // As often as sign-in itself: each attempt takes a fresh captcha.
    api.get('/common/captcha', { config: { permission: PUBLIC, rateLimit: { max: 30, timeWindow: '1 minute' } }, schema: { tags: ['auth'], summary: 'A captcha image to sign in with', response: { 200: envelope(captchaSchema) } } }, async () => {
      if (!(await captchaEnabled(services))) return { captchaEnabled: false }
      const type = (await configValues.get(ConfigKey.captchaType)) === 'char' ? 'char' : 'math'
      return { captchaEnabled: true, ...(await services.captchas.issue(type)) }
    })

    // The navbar's links are the operator's (SOURCE_URL, API_DOCS_URL): sent only when set, so a
    // console nobody configured links to no repository or documentation that is not its own.
    const { sourceUrl, apiDocsUrl, oidc } = services.config
    api.get('/common/features', { config: { permission: PUBLIC }, schema: { tags: ['auth'], summary: 'Switches the sign-in pages and the navbar need', response: { 200: envelope(accountFeaturesSchema) } } }, async (): Promise<AccountFeatures> => ({
      captchaEnabled: await captchaEnabled(services),
      // With password sign-in off nobody registers: a new account could only sign in through the provider.
      registerEnabled: !passwordSignInOff(services.config) && (await configValues.bool(ConfigKey.registerUser, false)),
      forgetPasswordEnabled: await configValues.bool(ConfigKey.forgetPassword, true),
      ...(sourceUrl ? { sourceUrl } : {}),
      ...(apiDocsUrl ? { apiDocsUrl } : {}),
      // The provider's name and the switch only: never its addresses, client or secret.
      ...(oidc ? { sso: { ...(oidc.name ? { name: oidc.name } : {}), passwordSignIn: oidc.passwordSignIn } } : {}),
    }))

    /** A finished sign-in's answer: the token, and with withSession the user and routes the console asks for next. */
    const sessionAnswer = async (token: string, withSession: boolean | undefined) => {
      if (!withSession) return { token }
      const found = await services.authCache.signedIn(token)
      // A session that is not valid the moment it was made (never, short of a race with its revocation)
      // answers the token alone: the console then asks for the rest as before, and is told why.
      if (found.state !== 'valid') return { token }
      const [userInfo, routes] = await Promise.all([userInfoOf(found.auth), routesOf(found.auth)])
      return { token, userInfo, routes }
    }
    const ticketRule = z.string().min(16).max(64)
    const codeRule = z.string().trim().min(6).max(32)

    api.post(
      '/login',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: 'Sign in: a token (with withSession the user and routes too), or the second factor (or its enrolment) to give first',
          security: [],
          body: z.object({
            username: z.string().trim().min(1).max(64),
            password: z.string().min(1).max(128),
            ...captchaFields,
            // The console asks for its session with the token: the user and the routes it would ask for
            // next (GET /getUserInfo, /getRouters) come in this answer, one round trip before its first page.
            withSession: z.boolean().optional(),
          }),
          response: { 200: envelope(signInAnswerSchema) },
        },
      },
      async (req) => {
        await assertPasswordSignInAllowed(services, req.body.username, clientInfo(req))
        const outcome = await signIn(services, req.body, clientInfo(req))
        if ('secondFactor' in outcome) return ok(outcome, 'auth.secondFactorNeeded')
        if ('enrol' in outcome) return ok(outcome, 'auth.enrolRequired')
        return ok(await sessionAnswer(outcome.token, req.body.withSession), 'auth.loginSuccess')
      },
    )

    // Single sign-on's last step (./sso/routes.ts): the one-time code the callback gave the sign-in page.
    api.post(
      '/login/sso',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: 'Sign in with the one-time code single sign-on gave the sign-in page (?sso=…): answers as POST /login does',
          security: [],
          body: z.object({ code: z.string().min(16).max(64), withSession: z.boolean().optional() }),
          response: { 200: envelope(signInAnswerSchema) },
        },
      },
      async (req, reply) => {
        // The browser's binding is spent with its code, traded or refused.
        void reply.header('set-cookie', clearSsoBrowser(services, req))
        const outcome = await signInWithSsoCode(services, req.body.code, ssoBrowserOf(req), clientInfo(req))
        if ('secondFactor' in outcome) return ok(outcome, 'auth.secondFactorNeeded')
        if ('enrol' in outcome) return ok(outcome, 'auth.enrolRequired')
        return ok(await sessionAnswer(outcome.token, req.body.withSession), 'auth.loginSuccess')
      },
    )

    api.post(
      '/login/second-factor',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: "Sign in, second step: a code of the user's authenticator app, or a recovery code (five tries per ticket)",
          security: [],
          body: z.object({ ticket: ticketRule, code: codeRule.optional(), passkey: passkeyAssertionSchema.optional(), withSession: z.boolean().optional() }),
          response: { 200: envelope(signInAnswerSchema) },
        },
      },
      async (req) => {
        const { ticket, code, passkey } = req.body
        const proof = passkey ? { passkey } : code ? { code } : null
        if (!proof) throw badRequest('auth.secondFactorWrong')
        return ok(await sessionAnswer(await signInSecondFactor(services, ticket, proof, clientInfo(req)), req.body.withSession), 'auth.loginSuccess')
      },
    )

    // Passkeys (WebAuthn): each ceremony is options first (a challenge kept five minutes, used once),
    // then the browser's answer. The relying party is the page's origin unless PASSKEY_RP_ID is set.
    const rpOf = (req: { headers: { origin?: string } }) => relyingPartyOf(services.config.passkeys, req.headers.origin)
    const passkeyOptions = envelope(z.record(z.string(), z.unknown()))

    api.post(
      '/login/second-factor/passkey',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: { tags: ['auth'], summary: "Sign in, second step by passkey: the options to ask the user's passkeys with (then POST /login/second-factor with passkey)", security: [], body: z.object({ ticket: ticketRule }), response: { 200: passkeyOptions } },
      },
      async (req) => signInPasskeyOptions(services, req.body.ticket, rpOf(req)),
    )

    api.post(
      '/login/passkey/options',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: 'Sign in with a passkey alone: the options, and the id to answer them with (then POST /login/passkey)',
          security: [],
          response: { 200: envelope(z.object({ challengeId: z.string(), options: z.record(z.string(), z.unknown()) })) },
        },
      },
      async (req) => passkeySignInOptions(services, rpOf(req)),
    )

    api.post(
      '/login/passkey',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: "Sign in with a passkey alone (the device verifies its user: the passkey is both factors)",
          security: [],
          body: z.object({ challengeId: ticketRule, passkey: passkeyAssertionSchema, withSession: z.boolean().optional() }),
          response: { 200: envelope(signInAnswerSchema) },
        },
      },
      async (req) => ok(await sessionAnswer(await signInWithPasskey(services, req.body.challengeId, req.body.passkey, clientInfo(req)), req.body.withSession), 'auth.loginSuccess'),
    )

    api.post(
      '/login/enrol/passkey/start',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 10, timeWindow: '1 minute' } },
        schema: { tags: ['auth'], summary: 'Sign in when the role requires a second factor the user lacks, with a passkey instead of an app: the options to create it from', security: [], body: z.object({ ticket: ticketRule }), response: { 200: passkeyOptions } },
      },
      async (req) => signInEnrolPasskeyStart(services, req.body.ticket, rpOf(req)),
    )

    api.post(
      '/login/enrol/passkey/confirm',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: 'Sign in after adding a passkey: answers the session and the ten recovery codes (once)',
          security: [],
          body: z.object({ ticket: ticketRule, passkey: passkeyRegistrationSchema, name: z.string().trim().max(64).optional(), withSession: z.boolean().optional() }),
          response: { 200: envelope(signInAnswerSchema) },
        },
      },
      async (req) => {
        const { token, recoveryCodes } = await signInEnrolPasskeyConfirm(services, req.body.ticket, req.body.passkey, req.body.name ?? '', clientInfo(req))
        return ok({ ...(await sessionAnswer(token, req.body.withSession)), ...(recoveryCodes ? { recoveryCodes } : {}) }, 'auth.passkeyAdded')
      },
    )

    api.post(
      '/login/enrol/start',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 10, timeWindow: '1 minute' } },
        schema: { tags: ['auth'], summary: 'Sign in when the role requires a second factor the user lacks: the seed to scan', security: [], body: z.object({ ticket: ticketRule }), response: { 200: envelope(totpEnrolmentSchema) } },
      },
      async (req) => {
        const started = await signInEnrolStart(services, req.body.ticket)
        return { ...started, qrSvg: await qrSvgOf(started.uri) }
      },
    )

    api.post(
      '/login/enrol/confirm',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: 'Sign in after enrolling: the first code of the app; answers the session and the ten recovery codes (once)',
          security: [],
          body: z.object({ ticket: ticketRule, code: codeRule, name: z.string().trim().max(64).optional(), withSession: z.boolean().optional() }),
          response: { 200: envelope(signInAnswerSchema) },
        },
      },
      async (req) => {
        const { token, recoveryCodes } = await signInEnrolConfirm(services, req.body.ticket, req.body.code, req.body.name ?? '', clientInfo(req))
        return ok({ ...(await sessionAnswer(token, req.body.withSession)), ...(recoveryCodes ? { recoveryCodes } : {}) }, 'auth.factorAdded')
      },
    )

    api.post(
      '/auth/step-up',
      {
        // Logged: a second proof, given or refused, is what an audit of a dangerous action looks for.
        config: { permission: SIGNED_IN, audit: { module: 'Sign-in', businessType: BusinessType.other }, rateLimit: { max: 10, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: 'Give a second proof (a passkey, a code of the authenticator app, a recovery code, or the password where no factor is enrolled): dangerous actions go through for STEP_UP_MINUTES',
          body: z.object({ code: z.string().trim().max(32).optional(), password: z.string().max(128).optional(), passkey: passkeyAssertionSchema.optional() }),
          response: { 200: done },
        },
      },
      async (req) => {
        const auth = caller(req)
        const { factors } = services.identity
        const methods = await services.identity.stepUp.methodsOf(auth.userId)
        let proved = false
        if (methods.includes('password')) {
          const row = await db.selectFrom('sysUser').select('password').where('userId', '=', auth.userId).executeTakeFirstOrThrow()
          proved = !!req.body.password && (await verifyPassword(row.password, req.body.password))
        } else {
          await assertFactorNotHeld(services.kv, auth.userId)
          const { code, passkey } = req.body
          proved = passkey ? (await factors.verifyPasskey(auth.userId, `step-up:${auth.session}`, passkey)) !== null : !!code && (await factors.verify(auth.userId, code)) !== null
          if (proved) await clearFactorFailures(services.kv, auth.userId)
          else await countFactorFailure(services.kv, auth.userId)
        }
        if (!proved) throw badRequest('auth.stepUpWrong')
        await services.identity.stepUp.record(auth.session!)
        return ok(null, 'auth.stepUpDone', { minutes: services.config.stepUpMinutes })
      },
    )

    api.post(
      '/auth/step-up/passkey',
      {
        config: { permission: SIGNED_IN, audit: false, rateLimit: { max: 10, timeWindow: '1 minute' } },
        schema: { tags: ['auth'], summary: "A second proof by passkey: the options to ask the user's passkeys with (then POST /auth/step-up with passkey)", response: { 200: passkeyOptions } },
      },
      async (req) => {
        const auth = caller(req)
        return services.identity.factors.passkeys.assertionOptions(`step-up:${auth.session}`, rpOf(req), auth.userId)
      },
    )

    api.post('/logout', { config: { permission: SIGNED_IN, audit: false }, schema: { tags: ['auth'], summary: 'End this session', response: { 200: done } } }, async (req) => {
      await services.sessions.revoke(req.token!)
      await writeLoginLog(db, { userName: caller(req).userName, status: LoginStatus.success, msg: t('en_US', 'auth.logoutSuccess'), client: clientInfo(req) })
      return ok(null, 'auth.logoutSuccess')
    })

    api.get('/getUserInfo', { config: { permission: SIGNED_IN }, schema: { tags: ['auth'], summary: 'The signed-in user, roles and permissions', response: { 200: envelope(userInfoSchema) } } }, async (req) =>
      userInfoOf(caller(req)),
    )

    api.get('/getRouters', { config: { permission: SIGNED_IN }, schema: { tags: ['auth'], summary: 'The route tree of the menus this user may see', response: { 200: envelope(z.array(routeNodeSchema)) } } }, async (req) =>
      routesOf(caller(req)),
    )

    api.post(
      '/register',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 10, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: 'Self-registration (when sys.account.registerUser is on)',
          security: [],
          body: z.object({ username: usernameRule, password: passwordRule, confirmPassword: z.string(), ...captchaFields }),
          response: { 200: done },
        },
      },
      async (req) => {
        if (passwordSignInOff(services.config)) throw forbidden('auth.registerSsoOnly')
        if (!(await configValues.bool(ConfigKey.registerUser, false))) throw forbidden('auth.registerDisabled')
        const { username, password, confirmPassword } = req.body
        if (password !== confirmPassword) throw badRequest('auth.passwordMismatch', {}, { errors: [{ field: 'confirmPassword', message: t(languageOf(req), 'auth.passwordMismatch') }] })
        await requireCaptcha(services, req.body.uuid, req.body.code)
        // A name taken in any case gets the same answer as a free one, after the same work: the
        // form must not tell who has an account. Whoever took it signs in; anyone else cannot.
        const passwordHash = await hashPassword(password)
        const taken = await db
          .selectFrom('sysUser')
          .select('userId')
          .where((eb) => eb(eb.fn('lower', ['userName']), '=', username.toLowerCase()))
          .executeTakeFirst()
        if (!taken) {
          await db
            .insertInto('sysUser')
            .values(newUserRow({ userName: username, passwordHash, createBy: 'register', remark: 'Registered' }))
            .onConflict((oc) => oc.column('userName').doNothing())
            .execute()
        }
        return ok(null, 'auth.registerSuccess')
      },
    )

    const requireForgetEnabled = async () => {
      if (!(await configValues.bool(ConfigKey.forgetPassword, true))) throw forbidden('auth.forgetDisabled')
    }

    api.post(
      '/forgetPassword/sendCode',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 5, timeWindow: '1 minute' } },
        schema: { tags: ['auth'], summary: 'Mail a password reset code', security: [], body: z.object({ email: emailRule, ...captchaFields }), response: { 200: done } },
      },
      async (req) => {
        await requireForgetEnabled()
        await requireCaptcha(services, req.body.uuid, req.body.code)
        const email = req.body.email.trim().toLowerCase()
        const user = await db
          .selectFrom('sysUser')
          .select(['userId', 'userName'])
          .where((eb) => eb(eb.fn('lower', ['email']), '=', email))
          .where('delFlag', '=', '0')
          .where('status', '=', '0')
          .executeTakeFirst()
        // The answer is the same whether or not the address is known, and so is its time: the code is
        // stored and mailed after the answer has gone, so a slow mail server tells nothing either.
        // With password sign-in off only a break-glass account has a password worth resetting.
        if (user && passwordAllowedFor(services.config, user.userName)) {
          const lang = languageOf(req)
          setImmediate(() => {
            mailResetCode(services, email, user.userId, lang).catch((err: unknown) => req.log.error({ err }, 'could not send a password reset code'))
          })
        }
        return ok(null, 'auth.resetCodeSent')
      },
    )

    api.post(
      '/forgetPassword/reset',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 10, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: 'Set a new password with the mailed code',
          security: [],
          body: z.object({ email: emailRule, resetCode: z.string().trim().regex(/^\d{6}$/), password: passwordRule }),
          response: { 200: done },
        },
      },
      async (req) => {
        await requireForgetEnabled()
        const email = req.body.email.trim().toLowerCase()
        const raw = await services.kv.get(`reset:${email}`)
        const pending = raw ? (JSON.parse(raw) as { userId: number; code: string; tries: number }) : undefined
        if (!pending || pending.code !== req.body.resetCode) {
          // Five wrong codes burn it: a 6-digit code must not be guessable by trying.
          if (pending && pending.tries >= 4) await services.kv.delete(`reset:${email}`)
          else if (pending) await services.kv.set(`reset:${email}`, JSON.stringify({ ...pending, tries: pending.tries + 1 }), RESET_CODE_MINUTES * 60)
          throw badRequest('auth.resetCodeWrong')
        }
        if ((await services.kv.take(`reset:${email}`)) === null) throw badRequest('auth.resetCodeWrong')
        await db
          .updateTable('sysUser')
          .set({ password: await hashPassword(req.body.password), failedLogins: 0, lockedUntil: null, updateBy: 'reset', updateTime: new Date().toISOString() })
          .where('userId', '=', pending.userId)
          .execute()
        await services.sessions.revokeUser(pending.userId)
        return ok(null, 'auth.resetSuccess')
      },
    )
  }
}
