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
import { captchaEnabled, requireCaptcha, signIn } from './sign-in'
import { newUserRow } from './new-user'
import { hashPassword } from './passwords'
import { done, envelope } from '../responses'
import { accountFeaturesSchema, captchaSchema, routeNodeSchema, userInfoSchema } from './schemas'

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
  const userInfoOf = async (auth: AuthContext): Promise<UserInfo> => ({
    user: await loadSessionUser(db, auth.userId),
    roles: auth.roleKeys.length ? auth.roleKeys : [DEFAULT_ROLE],
    permissions: auth.permissions,
  })
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
    const { sourceUrl, apiDocsUrl } = services.config
    api.get('/common/features', { config: { permission: PUBLIC }, schema: { tags: ['auth'], summary: 'Switches the sign-in pages and the navbar need', response: { 200: envelope(accountFeaturesSchema) } } }, async (): Promise<AccountFeatures> => ({
      captchaEnabled: await captchaEnabled(services),
      registerEnabled: await configValues.bool(ConfigKey.registerUser, false),
      forgetPasswordEnabled: await configValues.bool(ConfigKey.forgetPassword, true),
      ...(sourceUrl ? { sourceUrl } : {}),
      ...(apiDocsUrl ? { apiDocsUrl } : {}),
    }))

    api.post(
      '/login',
      {
        config: { permission: PUBLIC, audit: false, rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: {
          tags: ['auth'],
          summary: 'Sign in; answers a token, and with withSession the user and routes too',
          security: [],
          body: z.object({
            username: z.string().trim().min(1).max(64),
            password: z.string().min(1).max(128),
            ...captchaFields,
            // The console asks for its session with the token: the user and the routes it would ask for
            // next (GET /getUserInfo, /getRouters) come in this answer, one round trip before its first page.
            withSession: z.boolean().optional(),
          }),
          response: { 200: envelope(z.object({ token: z.string(), userInfo: userInfoSchema.optional(), routes: z.array(routeNodeSchema).optional() })) },
        },
      },
      async (req) => {
        const token = await signIn(services, req.body, clientInfo(req))
        if (!req.body.withSession) return ok({ token }, 'auth.loginSuccess')
        const found = await services.authCache.signedIn(token)
        // A session that is not valid the moment it was made (never, short of a race with its revocation)
        // answers the token alone: the console then asks for the rest as before, and is told why.
        if (found.state !== 'valid') return ok({ token }, 'auth.loginSuccess')
        const [userInfo, routes] = await Promise.all([userInfoOf(found.auth), routesOf(found.auth)])
        return ok({ token, userInfo, routes }, 'auth.loginSuccess')
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
          .select(['userId'])
          .where((eb) => eb(eb.fn('lower', ['email']), '=', email))
          .where('delFlag', '=', '0')
          .where('status', '=', '0')
          .executeTakeFirst()
        // The answer is the same whether or not the address is known, and so is its time: the code is
        // stored and mailed after the answer has gone, so a slow mail server tells nothing either.
        if (user) {
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
