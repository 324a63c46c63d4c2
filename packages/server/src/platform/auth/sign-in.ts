import type { Services } from '../services'
import { writeLoginLog, LoginStatus } from '../audit/login-log'
import type { ClientInfo } from '../client-info'
import { ConfigKey } from '../config-keys'
import { AppError, badRequest } from '../errors'
import { t } from '../i18n'
import { dummyPasswordHash, verifyPassword } from './passwords'
import { newToken } from './session-store'

export async function captchaEnabled(services: Services): Promise<boolean> {
  return services.config.captchaEnabled ?? (await services.configValues.bool(ConfigKey.captchaEnabled, true))
}

/** Checks the captcha of a form (sign-in, registration, reset) when captchas are on. */
export async function requireCaptcha(services: Services, uuid: string | undefined, code: string | undefined) {
  if (!(await captchaEnabled(services))) return
  const result = await services.captchas.check(uuid, code)
  if (result === 'missing') throw badRequest('auth.captchaRequired')
  if (result === 'expired') throw badRequest('auth.captchaExpired')
  if (result === 'wrong') throw badRequest('auth.captchaWrong')
}

export interface SignInInput {
  username: string
  password: string
  code?: string
  uuid?: string
}

/**
 * Signs a user in: captcha, lock, password, session. Every attempt, good or bad, goes to the login
 * log with the reason in English (the log is read by staff of any language; the client gets its own).
 */
export async function signIn(services: Services, input: SignInInput, client: ClientInfo): Promise<string> {
  const { db, configValues } = services
  const userName = input.username.trim()
  const fail = async (error: AppError): Promise<never> => {
    await writeLoginLog(db, { userName, status: LoginStatus.failure, msg: t('en_US', error.messageKey, error.params), client })
    throw error
  }

  try {
    await requireCaptcha(services, input.uuid, input.code)
  } catch (e) {
    if (e instanceof AppError) await fail(e)
    throw e
  }

  const maxRetry = await configValues.int(ConfigKey.maxRetryCount, 5)
  const lockMinutes = await configValues.int(ConfigKey.lockMinutes, 10)
  const user = await db
    .selectFrom('sysUser')
    .select(['userId', 'userName', 'password', 'status', 'failedLogins', 'lockedUntil'])
    .where('userName', '=', userName)
    .where('delFlag', '=', '0')
    .executeTakeFirst()

  const now = new Date()
  if (user?.lockedUntil && user.lockedUntil > now.toISOString()) {
    const minutes = Math.max(1, Math.ceil((Date.parse(user.lockedUntil) - now.getTime()) / 60_000))
    await fail(new AppError(423, 'auth.locked', { minutes }))
  }

  const passwordOk = await verifyPassword(user?.password ?? (await dummyPasswordHash()), input.password)
  if (!user || !passwordOk) {
    if (!user) await fail(badRequest('auth.badCredentials'))
    // A lock that has run out starts a fresh count.
    const previous = user!.lockedUntil ? 0 : user!.failedLogins
    const failures = previous + 1
    const locked = failures >= maxRetry
    await db
      .updateTable('sysUser')
      .set({
        failedLogins: locked ? 0 : failures,
        lockedUntil: locked ? new Date(now.getTime() + lockMinutes * 60_000).toISOString() : null,
      })
      .where('userId', '=', user!.userId)
      .execute()
    if (locked) await fail(new AppError(423, 'auth.locked', { minutes: lockMinutes }))
    await fail(badRequest('auth.badCredentialsLeft', { left: maxRetry - failures }))
  }
  if (user!.status !== '0') await fail(new AppError(403, 'auth.disabled'))

  const token = newToken()
  await services.sessions.create(token, { userId: user!.userId, userName: user!.userName, ...client }, services.config.sessionTtlMinutes)
  if (await configValues.bool(ConfigKey.singleSignOn, false)) await services.sessions.displaceOthers(user!.userId, token)
  await db
    .updateTable('sysUser')
    .set({ failedLogins: 0, lockedUntil: null, loginIp: client.ipaddr, loginDate: now.toISOString() })
    .where('userId', '=', user!.userId)
    .execute()
  await writeLoginLog(db, { userName: user!.userName, status: LoginStatus.success, msg: t('en_US', 'auth.loginSuccess'), client })
  return token
}
