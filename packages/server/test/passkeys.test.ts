import { ResultCode, type SecurityOverview, type SignInAnswer } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { hashToken } from '../src/platform/auth/session-store'
import { addRole, addUser, useTestApp } from './harness'
import { SoftAuthenticator } from './soft-authenticator'

// Passkeys (issue 40): added in the profile or at a sign-in that requires a factor, used as the second
// step, as a sign-in on their own, and as a second proof; checked by @simplewebauthn/server against
// real signatures of a software authenticator.
const t = useTestApp()
const db = () => t.app.services.db
const ORIGIN = 'https://admin.velo.test'
const headers = { origin: ORIGIN }
type Options = Record<string, unknown>

let nextAddress = 1
const fromAddress = () => `10.41.${Math.floor(nextAddress / 250)}.${1 + (nextAddress++ % 250)}`
const signIn = async (username: string, password: string) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/login', payload: { username, password }, remoteAddress: fromAddress() })
  return res.json() as { code: number; msg: string; data: SignInAnswer }
}
const post = <T>(url: string, body: unknown = {}, token?: string) => t.call<T>({ method: 'POST', url, body, token, headers })

/** A user with a passkey added in their profile: its token, authenticator and the recovery codes. */
async function withPasskey(userName: string, roleKeys: string[] = []) {
  const userId = await addUser(t, { userName, password: 'secret12', roleKeys })
  const token = (await signIn(userName, 'secret12')).data.token!
  const device = new SoftAuthenticator(ORIGIN)
  const options = await post<Options>('/api/system/user/profile/passkey/start', {}, token)
  expect(options.code, options.msg).toBe(200)
  const added = await post<{ factorId: number; recoveryCodes?: string[] }>('/api/system/user/profile/passkey/confirm', { passkey: device.create(options.data), name: 'Laptop' }, token)
  expect(added.code, added.msg).toBe(200)
  return { userId, token, device, factorId: added.data.factorId, recoveryCodes: added.data.recoveryCodes ?? [] }
}

const lastLogin = async (userName: string) =>
  (await db().selectFrom('sysLoginLog').select(['status', 'msg']).where('userName', '=', userName).orderBy('infoId', 'desc').executeTakeFirstOrThrow())

describe('a passkey', () => {
  it('is added in the profile (only its public key kept), with ten recovery codes when it is the first factor', async () => {
    const { userId, token, factorId, recoveryCodes } = await withPasskey('keyuser1')
    expect(recoveryCodes).toHaveLength(10)
    const overview = await t.call<SecurityOverview>({ url: '/api/system/user/profile/security', token })
    expect(overview.data.factors).toEqual([expect.objectContaining({ factorId, kind: 'passkey', name: 'Laptop' })])
    const row = await db().selectFrom('sysUserFactor').selectAll().where('userId', '=', userId).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ kind: 'passkey', secret: '', transports: 'internal' })
    expect(row.credentialId).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(row.publicKey.length).toBeGreaterThan(80)
    // The options say who and where, and exclude the passkey already added (an authenticator does not make a second).
    const again = await post<Options>('/api/system/user/profile/passkey/start', {}, token)
    expect(again.data).toMatchObject({ rp: { id: 'admin.velo.test', name: 'Velo Admin' }, user: { name: 'keyuser1' }, attestation: 'none' })
    expect(again.data.excludeCredentials).toEqual([expect.objectContaining({ id: row.credentialId })])
  })

  it('refuses a passkey made for another site, or answering another challenge, and keeps nothing', async () => {
    await addUser(t, { userName: 'keyuser2', password: 'secret12' })
    const token = (await signIn('keyuser2', 'secret12')).data.token!
    const device = new SoftAuthenticator(ORIGIN)
    const options = await post<Options>('/api/system/user/profile/passkey/start', {}, token)
    const elsewhere = await post('/api/system/user/profile/passkey/confirm', { passkey: device.create(options.data, { origin: 'https://velo-admin.example' }) }, token)
    expect(elsewhere.status).toBe(400)
    expect(elsewhere.msg).toBe('The passkey was not accepted: try again, or use another way')
    // The options were used by the refused answer: a right one for them comes too late.
    const late = await post('/api/system/user/profile/passkey/confirm', { passkey: device.create(options.data) }, token)
    expect(late.status).toBe(400)
    const bad = await post('/api/system/user/profile/passkey/confirm', { passkey: { id: 'x', rawId: 'x', type: 'public-key', response: {} } }, token)
    expect(bad.status).toBe(400)
    const overview = await t.call<SecurityOverview>({ url: '/api/system/user/profile/security', token })
    expect(overview.data.factors).toEqual([])
    // No origin to bind the passkey to: refused before any challenge.
    const noOrigin = await t.call({ method: 'POST', url: '/api/system/user/profile/passkey/start', token })
    expect(noOrigin.msg).toBe('Passkeys work only from the console’s own page')
  })

  it('is the second step after the password: only a passkey of that user, each challenge once', async () => {
    const { device } = await withPasskey('keyuser3')
    const other = await withPasskey('keyuser4')
    const first = await signIn('keyuser3', 'secret12')
    expect(first.data.secondFactor?.methods).toEqual(['passkey', 'recovery'])
    const ticket = first.data.secondFactor!.ticket
    const options = await post<Options>('/api/login/second-factor/passkey', { ticket })
    expect(options.data.allowCredentials).toHaveLength(1)
    expect(options.data.userVerification).toBe('preferred')
    // Another user's passkey does not stand in for this one's.
    const wrong = await post('/api/login/second-factor', { ticket, passkey: other.device.get({ ...options.data, allowCredentials: [] }) })
    expect(wrong.status).toBe(400)
    expect(await lastLogin('keyuser3')).toMatchObject({ status: '1' })
    // The challenge was used by the refusal.
    const stale = await post('/api/login/second-factor', { ticket, passkey: device.get(options.data) })
    expect(stale.status).toBe(400)
    const fresh = await post<Options>('/api/login/second-factor/passkey', { ticket })
    const answer = device.get(fresh.data)
    const done = await post<SignInAnswer>('/api/login/second-factor', { ticket, passkey: answer })
    expect(done.code, done.msg).toBe(200)
    expect(done.data.token).toBeTruthy()
    expect(await lastLogin('keyuser3')).toEqual({ status: '0', msg: 'Signed in with a password and a second factor (passkey)' })
    // Neither the ticket nor the answer works twice.
    expect((await post('/api/login/second-factor', { ticket, passkey: answer })).status).toBe(400)
  })

  it('signs in on its own when the device verifies its user; refuses one that did not, a replay, and a cloned counter', async () => {
    const { device } = await withPasskey('keyuser5')
    const begin = async () => (await post<{ challengeId: string; options: Options }>('/api/login/passkey/options')).data
    const started = await begin()
    // Any passkey of this host may answer (the passkey names its user), and it must verify them.
    expect(started.options).toMatchObject({ rpId: 'admin.velo.test', userVerification: 'required' })
    expect(started.options.allowCredentials ?? []).toEqual([])
    const unverified = await post('/api/login/passkey', { challengeId: started.challengeId, passkey: device.get(started.options, { userVerified: false }) })
    expect(unverified.status).toBe(400)
    expect(await lastLogin('keyuser5')).toEqual({ status: '1', msg: 'Passkey refused (unknown to this account, signed for another request or site, or replayed)' })

    const next = await begin()
    const answer = device.get(next.options)
    const done = await post<SignInAnswer>('/api/login/passkey', { challengeId: next.challengeId, passkey: answer, withSession: true })
    expect(done.code, done.msg).toBe(200)
    expect(done.data.userInfo?.user.username).toBe('keyuser5')
    expect(await lastLogin('keyuser5')).toEqual({ status: '0', msg: 'Signed in with a passkey' })
    expect((await post('/api/login/passkey', { challengeId: next.challengeId, passkey: answer })).status).toBe(400)
    // A copy of the key that signs with a counter already seen: refused.
    const third = await begin()
    expect((await post('/api/login/passkey', { challengeId: third.challengeId, passkey: device.get(third.options, { keepCounter: true }) })).status).toBe(400)
  })

  it('gets through a lock that strangers set by guessing the password, and lifts it; not for a disabled account', async () => {
    const { userId, device } = await withPasskey('keyuser6')
    await db().updateTable('sysUser').set({ lockedUntil: new Date(Date.now() + 600_000).toISOString() }).where('userId', '=', userId).execute()
    const started = (await post<{ challengeId: string; options: Options }>('/api/login/passkey/options')).data
    const done = await post<SignInAnswer>('/api/login/passkey', { challengeId: started.challengeId, passkey: device.get(started.options) })
    expect(done.code, done.msg).toBe(200)
    expect((await db().selectFrom('sysUser').select('lockedUntil').where('userId', '=', userId).executeTakeFirstOrThrow()).lockedUntil).toBeNull()

    await db().updateTable('sysUser').set({ status: '1' }).where('userId', '=', userId).execute()
    const later = (await post<{ challengeId: string; options: Options }>('/api/login/passkey/options')).data
    const refused = await post('/api/login/passkey', { challengeId: later.challengeId, passkey: device.get(later.options) })
    expect(refused.status).toBe(403)
    expect(await lastLogin('keyuser6')).toMatchObject({ status: '1' })
  })

  it('is a second proof before a dangerous action', async () => {
    await addRole(t, { roleKey: 'keyresetter', dataScope: '1', perms: ['system:user:resetPwd', 'system:user:list', 'system:user:query', 'system:user:edit'] })
    const { token, device } = await withPasskey('keyuser7', ['keyresetter'])
    const victim = await addUser(t, { userName: 'keyvictim1', password: 'secret12' })
    await t.app.services.kv.delete(`proof:${hashToken(token)}`)
    const reset = () => t.call({ method: 'PUT', url: '/api/system/user/resetPwd', token, body: { userId: victim, password: 'newpass12' } })
    const refused = await reset()
    expect(refused.code, refused.msg).toBe(ResultCode.STEP_UP_REQUIRED)
    expect(refused.data).toEqual({ methods: ['passkey', 'recovery'] })
    const options = await post<Options>('/api/auth/step-up/passkey', {}, token)
    const wrongSite = await post('/api/auth/step-up', { passkey: device.get(options.data, { origin: 'https://velo-admin.example' }) }, token)
    expect(wrongSite.status).toBe(400)
    expect((await reset()).code).toBe(ResultCode.STEP_UP_REQUIRED)
    const again = await post<Options>('/api/auth/step-up/passkey', {}, token)
    const proved = await post('/api/auth/step-up', { passkey: device.get(again.data) }, token)
    expect(proved.code, proved.msg).toBe(200)
    expect((await reset()).code).toBe(200)
  })

  it('can be the factor a role requires, added at the sign-in instead of an app', async () => {
    const roleId = await addRole(t, { roleKey: 'keymust', dataScope: '5', perms: ['system:user:list'] })
    await db().updateTable('sysRole').set({ secondFactor: 'always' }).where('roleId', '=', roleId).execute()
    const userId = await addUser(t, { userName: 'keyuser8', password: 'secret12', roleKeys: ['keymust'] })
    await db().updateTable('sysUser').set({ secondFactorDue: new Date(Date.now() - 1000).toISOString() }).where('userId', '=', userId).execute()
    const ticket = (await signIn('keyuser8', 'secret12')).data.enrol!.ticket
    const device = new SoftAuthenticator(ORIGIN)
    const options = await post<Options>('/api/login/enrol/passkey/start', { ticket })
    expect(options.code, options.msg).toBe(200)
    const done = await post<SignInAnswer>('/api/login/enrol/passkey/confirm', { ticket, passkey: device.create(options.data), name: 'Phone', withSession: true })
    expect(done.code, done.msg).toBe(200)
    expect(done.data.recoveryCodes).toHaveLength(10)
    expect(done.data.userInfo?.secondFactor).toEqual({ required: true, enrolled: true, due: expect.any(String) })
    expect((await post('/api/login/enrol/passkey/start', { ticket })).status).toBe(400)
  })
})

describe('a passkey with sign-in outside single sign-on switched off', () => {
  const off = useTestApp({ OIDC_ISSUER: 'http://127.0.0.1:39999', OIDC_CLIENT_ID: 'velo-admin', OIDC_PASSWORD_SIGN_IN: 'off' })
  /** A passkey added through the factors themselves: the user cannot sign in with a password to add one. */
  async function passkeyOf(userName: string) {
    const user = await off.app.services.db.selectFrom('sysUser').select(['userId', 'userName']).where('userName', '=', userName).executeTakeFirstOrThrow()
    const device = new SoftAuthenticator(ORIGIN)
    const options = await off.app.services.identity.factors.startPasskey(user, { id: 'admin.velo.test', origins: [ORIGIN] })
    expect(await off.app.services.identity.factors.confirmPasskey(user.userId, device.create(options) as never, 'Key')).not.toBeNull()
    return device
  }
  const alone = async (device: SoftAuthenticator) => {
    const started = (await off.call<{ challengeId: string; options: Options }>({ method: 'POST', url: '/api/login/passkey/options', headers })).data
    return off.call<SignInAnswer>({ method: 'POST', url: '/api/login/passkey', headers, body: { challengeId: started.challengeId, passkey: device.get(started.options) } })
  }

  it('does not sign in on its own, so that the identity provider’s deprovisioning holds; a break-glass account’s does', async () => {
    await addUser(off, { userName: 'ssokeyuser', password: 'secret12' })
    const refused = await alone(await passkeyOf('ssokeyuser'))
    expect(refused.status).toBe(403)
    expect(refused.msg).toBe('Signing in with a passkey alone is switched off with password sign-in: use single sign-on (your passkey then confirms it)')
    const log = await off.app.services.db.selectFrom('sysLoginLog').select(['status', 'msg']).where('userName', '=', 'ssokeyuser').orderBy('infoId', 'desc').executeTakeFirstOrThrow()
    expect(log.status).toBe('1')
    const admin = await alone(await passkeyOf('admin'))
    expect(admin.code, admin.msg).toBe(200)
  })
})
