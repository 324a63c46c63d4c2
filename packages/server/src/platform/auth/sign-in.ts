import { createHash, randomBytes } from 'node:crypto'
import type { Services } from '../services'
import { writeLoginLog, LoginStatus } from '../audit/login-log'
import type { ClientInfo } from '../client-info'
import { ConfigKey } from '../config-keys'
import { AppError, badRequest } from '../errors'
import { type MessageKey, t } from '../i18n'
import { dummyPasswordHash, verifyPassword } from './passwords'
import { newToken, hashToken } from './session-store'
import { assertFactorNotHeld, clearFactorFailures, countFactorFailure } from './factors/attempts'
import { secondFactorStatus } from './factors/requirement'
import { enabledRolesOf } from '../rbac/auth-context'
import type { ProofMethod } from './factors/second-factors'
import type { PasskeyAssertion, PasskeyRegistration, RelyingParty } from './factors/passkeys'
import { passwordAllowedFor } from './sso/password-sign-in'

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

/** A sign-in half done: the password was given, a second factor (or its enrolment) comes next. */
interface Ticket {
  userId: number
  userName: string
  /** Under a lock the password is checked but the answer does not say: the ticket then fails with any code. */
  passwordOk: boolean
  stage: 'secondFactor' | 'enrol'
  tries: number
}

/** What a sign-in answers: a session, or the step that must come first. */
export type SignInOutcome =
  | { token: string; enrolBy?: string }
  | { secondFactor: { ticket: string; methods: ProofMethod[] } }
  | { enrol: { ticket: string } }

/** A half-done sign-in lasts five minutes and five codes. */
const TICKET_SECONDS = 5 * 60
const TICKET_TRIES = 5

// Progressive delays per account and address: three free wrong passwords, then each one more
// doubles the wait before the next try from there (1 s, 2 s, 4 s … at most 15 minutes). A guesser
// at one address slows to a crawl; the owner at another address is not held back by them.
const FREE_FAILURES = 3
const MAX_DELAY_SECONDS = 15 * 60
const THROTTLE_KEEP_SECONDS = 60 * 60

// Keyed by hashes: the store (Redis, when there is one) holds neither names nor addresses.
const nameHash = (userName: string) => createHash('sha256').update(userName.toLowerCase()).digest('hex')
const throttleKey = (userName: string, ip: string) => `signin-throttle:${createHash('sha256').update(`${nameHash(userName)}|${ip}`).digest('hex')}`
const liftedKey = (userName: string) => `signin-throttle-lifted:${nameHash(userName)}`

interface Throttle {
  failures: number
  /** Epoch ms before which the next try from this address is refused. */
  until: number
  /** Epoch ms of the first failure it counts: an unlock after it voids it. */
  since: number
}

async function readThrottle(services: Services, userName: string, key: string): Promise<Throttle> {
  const [raw, lifted] = await Promise.all([services.kv.get(key), services.kv.get(liftedKey(userName))])
  const found = raw ? (JSON.parse(raw) as Throttle) : null
  if (!found || (lifted && Number(lifted) >= found.since)) return { failures: 0, until: 0, since: 0 }
  return found
}

async function countFailure(services: Services, userName: string, key: string, now: number): Promise<void> {
  const before = await readThrottle(services, userName, key)
  const failures = before.failures + 1
  const delay = failures < FREE_FAILURES ? 0 : Math.min(MAX_DELAY_SECONDS, 2 ** (failures - FREE_FAILURES))
  await services.kv.set(key, JSON.stringify({ failures, until: now + delay * 1000, since: before.since || now }), THROTTLE_KEEP_SECONDS)
}

/** An administrator's unlock: every address's delays for the account go with the lock. */
export async function liftSignInThrottles(services: Services, userName: string): Promise<void> {
  await services.kv.set(liftedKey(userName), String(Date.now()), THROTTLE_KEEP_SECONDS)
}

/**
 * Signs a user in: captcha, throttle, lock, password, then a second factor (or its enrolment) when
 * the user has one (or must have one). Every attempt, good or bad, goes to the login log with the
 * reason in English (the log is read by staff of any language; the client gets its own).
 */
export async function signIn(services: Services, input: SignInInput, client: ClientInfo): Promise<SignInOutcome> {
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

  const now = new Date()
  const throttle = throttleKey(userName, client.ipaddr)
  const held = await readThrottle(services, userName, throttle)
  if (held.until > now.getTime()) {
    const seconds = Math.ceil((held.until - now.getTime()) / 1000)
    await fail(new AppError(429, 'auth.tooManyAttempts', { seconds }), 'auth.throttledLog')
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
    await countFailure(services, userName, throttle, now.getTime())
    return fail(refused)
  }

  // The attempt is counted before the password is checked, in one statement: parallel guesses each
  // take a slot, and only the first maxRetry of them are checked at all.
  const attempt = await reserveAttempt(services, user.userId, now)
  const locked = attempt === 'locked' || attempt > maxRetry
  if (attempt !== 'locked' && attempt > maxRetry) await lockAccount(services, user.userId, now, lockMinutes)
  const methods = await services.identity.factors.methodsOf(user.userId)
  const hasFactor = methods.length > 0
  const secondFactorStep = async (passwordOk: boolean): Promise<SignInOutcome> => ({
    secondFactor: { ticket: await newTicket(services, { userId: user.userId, userName: user.userName, passwordOk, stage: 'secondFactor', tries: 0 }), methods },
  })
  if (locked) {
    // A lock stops password guessing, not the owner: with a second factor the sign-in goes on to it,
    // whether the password was right or not (the answer tells neither), and only a right password
    // with a right code gets through.
    if (!hasFactor) return fail(refused, 'auth.lockedLog')
    const passwordOk = await verifyPassword(user.password, input.password)
    if (!passwordOk) {
      await countFailure(services, userName, throttle, now.getTime())
      // Logged now: the client is answered as if it were right, and may never come to the second step.
      await writeLoginLog(db, { userName, status: LoginStatus.failure, msg: t('en_US', 'auth.badCredentials', refused.params), client })
    }
    return secondFactorStep(passwordOk)
  }
  if (!(await verifyPassword(user.password, input.password))) {
    if (attempt >= maxRetry) await lockAccount(services, user.userId, now, lockMinutes)
    await countFailure(services, userName, throttle, now.getTime())
    await fail(refused)
  }
  if (user.status !== '0') await fail(new AppError(403, 'auth.disabled'))
  await services.kv.delete(throttle)

  return signInVouchedFor(services, user, client, t('en_US', 'auth.loginSuccess'))
}

async function newTicket(services: Services, ticket: Ticket): Promise<string> {
  const id = randomBytes(24).toString('base64url')
  await services.kv.set(`signin-ticket:${id}`, JSON.stringify(ticket), TICKET_SECONDS)
  return id
}

async function readTicket(services: Services, id: string, stage: Ticket['stage']): Promise<Ticket> {
  const raw = await services.kv.get(`signin-ticket:${id}`)
  const ticket = raw ? (JSON.parse(raw) as Ticket) : null
  if (!ticket || ticket.stage !== stage) throw badRequest('auth.signInExpired')
  return ticket
}

/** A wrong code burns one of the ticket's tries; the last one burns the ticket. */
async function burnTry(services: Services, id: string, ticket: Ticket, client: ClientInfo, error: AppError, logKey: MessageKey): Promise<never> {
  if (ticket.tries + 1 >= TICKET_TRIES) await services.kv.delete(`signin-ticket:${id}`)
  else await services.kv.set(`signin-ticket:${id}`, JSON.stringify({ ...ticket, tries: ticket.tries + 1 }), TICKET_SECONDS)
  await writeLoginLog(services.db, { userName: ticket.userName, status: LoginStatus.failure, msg: t('en_US', logKey), client })
  throw error
}

/** A second step by passkey: the options to ask the user's passkeys with, kept with the ticket. */
export async function signInPasskeyOptions(services: Services, ticketId: string, rp: RelyingParty) {
  const ticket = await readTicket(services, ticketId, 'secondFactor')
  return services.identity.factors.passkeys.assertionOptions(`ticket:${ticketId}`, rp, ticket.userId)
}

/** What a second step gives: a code (of the authenticator app, or a recovery code), or a passkey's answer. */
export type SecondProof = { code: string; passkey?: undefined } | { passkey: PasskeyAssertion; code?: undefined }

/** The second step of a sign-in: a code of the user's authenticator app, a recovery code, or a passkey. */
export async function signInSecondFactor(services: Services, ticketId: string, proof: SecondProof, client: ClientInfo): Promise<string> {
  const ticket = await readTicket(services, ticketId, 'secondFactor')
  try {
    await assertFactorNotHeld(services.kv, ticket.userId)
  } catch (e) {
    if (e instanceof AppError) await writeLoginLog(services.db, { userName: ticket.userName, status: LoginStatus.failure, msg: t('en_US', 'auth.secondFactorHeldLog'), client })
    throw e
  }
  const { factors } = services.identity
  const method = !ticket.passwordOk ? null : proof.passkey ? await factors.verifyPasskey(ticket.userId, `ticket:${ticketId}`, proof.passkey) : await factors.verify(ticket.userId, proof.code)
  if (!method) {
    await countFactorFailure(services.kv, ticket.userId)
    return burnTry(services, ticketId, ticket, client, badRequest('auth.secondFactorWrong'), 'auth.secondFactorWrongLog')
  }
  await clearFactorFailures(services.kv, ticket.userId)
  // Once: a ticket that two tabs send at the same moment makes one session.
  if ((await services.kv.take(`signin-ticket:${ticketId}`)) === null) throw badRequest('auth.signInExpired')
  const user = await activeUser(services, ticket.userId)
  // The owner proved themselves: a lock strangers set falls with it.
  await services.db.updateTable('sysUser').set({ failedLogins: 0, lockedUntil: null }).where('userId', '=', user.userId).execute()
  return startSession(services, user, client, t('en_US', 'auth.secondFactorLog', { method }))
}

/** Enrolment inside a sign-in (the role requires a factor and the grace period is over): the seed to scan. */
export async function signInEnrolStart(services: Services, ticketId: string) {
  const ticket = await readTicket(services, ticketId, 'enrol')
  return services.identity.factors.startTotp(ticket.userId, ticket.userName)
}

/** Confirms the enrolment with a first code, and signs in: the session, and the recovery codes to keep. */
export async function signInEnrolConfirm(services: Services, ticketId: string, code: string, name: string, client: ClientInfo): Promise<{ token: string; recoveryCodes: string[] | null }> {
  const ticket = await readTicket(services, ticketId, 'enrol')
  const added = await services.identity.factors.confirmTotp(ticket.userId, code, name)
  if (!added) return burnTry(services, ticketId, ticket, client, badRequest('auth.enrolCodeWrong'), 'auth.secondFactorWrongLog')
  return finishEnrolment(services, ticketId, ticket.userId, client, added.recoveryCodes)
}

/** The enrolment's factor is kept: the ticket is spent, and the session starts with the recovery codes to keep. */
async function finishEnrolment(services: Services, ticketId: string, userId: number, client: ClientInfo, recoveryCodes: string[] | null) {
  await services.kv.delete(`signin-ticket:${ticketId}`)
  const user = await activeUser(services, userId)
  return { token: await startSession(services, user, client, t('en_US', 'auth.enrolLog')), recoveryCodes }
}

/** Enrolment inside a sign-in, with a passkey instead of an app: the options the browser creates it from. */
export async function signInEnrolPasskeyStart(services: Services, ticketId: string, rp: RelyingParty) {
  const ticket = await readTicket(services, ticketId, 'enrol')
  return services.identity.factors.startPasskey({ userId: ticket.userId, userName: ticket.userName }, rp)
}

/** Keeps the new passkey and signs in: the session, and the recovery codes to keep. */
export async function signInEnrolPasskeyConfirm(services: Services, ticketId: string, response: PasskeyRegistration, name: string, client: ClientInfo) {
  const ticket = await readTicket(services, ticketId, 'enrol')
  const added = await services.identity.factors.confirmPasskey(ticket.userId, response, name)
  if (!added) return burnTry(services, ticketId, ticket, client, badRequest('auth.passkeyRefused'), 'auth.passkeyRefusedLog')
  return finishEnrolment(services, ticketId, ticket.userId, client, added.recoveryCodes)
}

/** A sign-in by passkey alone: the options, kept under a fresh id the answer comes back with. */
export async function passkeySignInOptions(services: Services, rp: RelyingParty) {
  const id = randomBytes(24).toString('base64url')
  return { challengeId: id, options: await services.identity.factors.passkeys.assertionOptions(`signin:${id}`, rp) }
}

/**
 * A sign-in by passkey alone (the device verified its user: something held and something known or
 * been). It goes through a lock strangers set by guessing the password, like a second factor does.
 */
export async function signInWithPasskey(services: Services, challengeId: string, response: PasskeyAssertion, client: ClientInfo): Promise<string> {
  const check = await services.identity.factors.passkeys.verifyAssertion(`signin:${challengeId}`, response)
  const user = check.userId === undefined ? undefined : await services.db.selectFrom('sysUser').select(['userId', 'userName', 'status']).where('userId', '=', check.userId).where('delFlag', '=', '0').executeTakeFirst()
  // Logged under the user the passkey named; a passkey nobody holds names nobody.
  const refuse = async (error: AppError, logKey: MessageKey = error.messageKey): Promise<never> => {
    if (user) await writeLoginLog(services.db, { userName: user.userName, status: LoginStatus.failure, msg: t('en_US', logKey), client })
    throw error
  }
  if (!check.ok || !user) return refuse(badRequest('auth.passkeyRefused'), 'auth.passkeyRefusedLog')
  // With sign-in outside the identity provider off, its deprovisioning must hold: a passkey alone is a way around it.
  if (!passwordAllowedFor(services.config, user.userName)) return refuse(new AppError(403, 'auth.passkeySignInOff'), 'auth.passkeySignInOffLog')
  if (user.status !== '0') return refuse(new AppError(403, 'auth.disabled'))
  await services.db.updateTable('sysUser').set({ failedLogins: 0, lockedUntil: null }).where('userId', '=', user.userId).execute()
  return startSession(services, user, client, t('en_US', 'auth.passkeyLog'))
}

async function activeUser(services: Services, userId: number) {
  const user = await services.db.selectFrom('sysUser').select(['userId', 'userName', 'status']).where('userId', '=', userId).where('delFlag', '=', '0').executeTakeFirst()
  if (!user) throw badRequest('auth.signInExpired')
  if (user.status !== '0') throw new AppError(403, 'auth.disabled')
  return user
}

/** The session of a finished sign-in: it counts as a second proof for the next few minutes. */
async function startSession(services: Services, user: { userId: number; userName: string }, client: ClientInfo, logMessage: string): Promise<string> {
  const { db, configValues } = services
  const now = new Date()
  const token = newToken()
  await services.sessions.create(token, { userId: user.userId, userName: user.userName, ...client }, services.config.sessionTtlMinutes)
  if (await configValues.bool(ConfigKey.singleSignOn, false)) await services.sessions.displaceOthers(user.userId, token)
  await services.identity.stepUp.record(hashToken(token))
  // A lock that parallel guesses set meanwhile stays: the right password was within the budget, the rest were not.
  await db
    .updateTable('sysUser')
    .set((eb) => ({
      failedLogins: eb.case().when('lockedUntil', 'is', null).then(0).else(eb.ref('failedLogins')).end(),
      loginIp: client.ipaddr,
      loginDate: now.toISOString(),
    }))
    .where('userId', '=', user.userId)
    .execute()
  await writeLoginLog(db, { userName: user.userName, status: LoginStatus.success, msg: logMessage, client })
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

/**
 * A sign-in whose first factor another party proved: single sign-on (./sso), where the identity
 * provider checked the user. No password, so no throttle or lock (they guard passwords); then the
 * second factor, or its enrolment, exactly as after a right password: the console's own rule for
 * a second factor holds whoever vouched for the user.
 */
export async function signInVouchedFor(services: Services, user: { userId: number; userName: string }, client: ClientInfo, logMessage: string): Promise<SignInOutcome> {
  const now = new Date()
  const methods = await services.identity.factors.methodsOf(user.userId)
  if (methods.length) {
    return { secondFactor: { ticket: await newTicket(services, { userId: user.userId, userName: user.userName, passwordOk: true, stage: 'secondFactor', tries: 0 }), methods } }
  }
  const status = await secondFactorStatus(services, user.userId, await enabledRolesOf(services.db, user.userId), now)
  if (status.required && status.due && status.due <= now.toISOString()) {
    return { enrol: { ticket: await newTicket(services, { userId: user.userId, userName: user.userName, passwordOk: true, stage: 'enrol', tries: 0 }) } }
  }
  const token = await startSession(services, user, client, logMessage)
  return status.required && status.due ? { token, enrolBy: status.due } : { token }
}
