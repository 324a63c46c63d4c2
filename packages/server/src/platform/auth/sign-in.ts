import type { Services } from '../services'
import { writeLoginLog, LoginStatus } from '../audit/login-log'
import type { ClientInfo } from '../client-info'
import { ConfigKey } from '../config-keys'
import { AppError, badRequest } from '../errors'
import { type MessageKey, t } from '../i18n'
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
  // The log says what really happened (staff read it); the client only hears `error`.
  const fail = async (error: AppError, logKey: MessageKey = error.messageKey): Promise<never> => {
    await writeLoginLog(db, { userName, status: LoginStatus.failure, msg: t('en_US', logKey, error.params), client })
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
  // One answer for every refusal before the password is known to be right: an unknown name, a wrong
  // password and a locked account read alike, so neither accounts nor locks can be probed.
  const refused = badRequest('auth.badCredentials', { max: maxRetry, minutes: lockMinutes })
  const user = await db
    .selectFrom('sysUser')
    .select(['userId', 'userName', 'password', 'status'])
    .where('userName', '=', userName)
    .where('delFlag', '=', '0')
    .executeTakeFirst()
  if (!user) {
    // The same work as for a real account, so the answer takes as long.
    await verifyPassword(await dummyPasswordHash(), input.password)
    await fail(refused)
  }

  // The attempt is counted before the password is checked, in one statement: parallel guesses each
  // take a slot, and only the first maxRetry of them are checked at all.
  const now = new Date()
  const attempt = await reserveAttempt(services, user!.userId, now)
  if (attempt === 'locked') return fail(refused, 'auth.lockedLog')
  if (attempt > maxRetry) {
    await lockAccount(services, user!.userId, now, lockMinutes)
    await fail(refused, 'auth.lockedLog')
  }
  if (!(await verifyPassword(user!.password, input.password))) {
    if (attempt >= maxRetry) await lockAccount(services, user!.userId, now, lockMinutes)
    await fail(refused)
  }
  if (user!.status !== '0') await fail(new AppError(403, 'auth.disabled'))

  const token = newToken()
  await services.sessions.create(token, { userId: user!.userId, userName: user!.userName, ...client }, services.config.sessionTtlMinutes)
  if (await configValues.bool(ConfigKey.singleSignOn, false)) await services.sessions.displaceOthers(user!.userId, token)
  // A lock that parallel guesses set meanwhile stays: the right password was within the budget, the rest were not.
  await db
    .updateTable('sysUser')
    .set((eb) => ({
      failedLogins: eb.case().when('lockedUntil', 'is', null).then(0).else(eb.ref('failedLogins')).end(),
      loginIp: client.ipaddr,
      loginDate: now.toISOString(),
    }))
    .where('userId', '=', user!.userId)
    .execute()
  await writeLoginLog(db, { userName: user!.userName, status: LoginStatus.success, msg: t('en_US', 'auth.loginSuccess'), client })
  return token
}

/**
 * Takes one attempt slot of the account atomically: the slot's number (a lock that has run out
 * starts a fresh count), or 'locked' while a lock holds.
 */
async function reserveAttempt(services: Services, userId: number, now: Date): Promise<number | 'locked'> {
  const at = now.toISOString()
  const row = await services.db
    .updateTable('sysUser')
    .set((eb) => ({
      failedLogins: eb.case().when('lockedUntil', 'is not', null).then(1).else(eb('failedLogins', '+', 1)).end(),
      lockedUntil: null,
    }))
    .where('userId', '=', userId)
    .where((eb) => eb.or([eb('lockedUntil', 'is', null), eb('lockedUntil', '<=', at)]))
    .returning('failedLogins')
    .executeTakeFirst()
  return row ? Number(row.failedLogins) : 'locked'
}

async function lockAccount(services: Services, userId: number, now: Date, minutes: number) {
  await services.db
    .updateTable('sysUser')
    .set({ failedLogins: 0, lockedUntil: new Date(now.getTime() + minutes * 60_000).toISOString() })
    .where('userId', '=', userId)
    .where((eb) => eb.or([eb('lockedUntil', 'is', null), eb('lockedUntil', '<=', now.toISOString())]))
    .execute()
}
