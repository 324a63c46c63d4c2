import { ResultCode, type SecurityOverview, type SignInAnswer, type StepUpRequired, type UserInfo } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { hashToken } from '../src/platform/auth/session-store'
import { totpCode } from '../src/platform/auth/factors/totp'
import { addRole, addUser, ADMIN_PASSWORD, idOf, useTestApp } from './harness'

// Staff identity (issue 40): authenticator apps, recovery codes, a role that requires a factor, a
// second proof before dangerous actions, and a lock that no longer locks the owner out.
const t = useTestApp()
const db = () => t.app.services.db
const STEP = 30_000

let nextAddress = 1
const fromAddress = () => `10.40.${Math.floor(nextAddress / 250)}.${1 + (nextAddress++ % 250)}`

/** POST /login from an address of its own (the per-address delays stay out of these tests). */
const signIn = async (username: string, password: string, remoteAddress = fromAddress()) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/login', payload: { username, password }, remoteAddress })
  const body = res.json() as { code: number; msg: string; data: SignInAnswer }
  return { status: res.statusCode, ...body }
}
const secondStep = (ticket: string, code: string) => t.call<SignInAnswer>({ method: 'POST', url: '/api/login/second-factor', body: { ticket, code } })

/** Enrols an authenticator app through the profile, as its owner: the seed and the recovery codes. */
async function enrol(token: string, name = 'Phone') {
  const started = await t.call<{ secret: string; uri: string; qrSvg: string }>({ method: 'POST', url: '/api/system/user/profile/totp/start', token })
  expect(started.code, started.msg).toBe(200)
  const confirmed = await t.call<{ factorId: number; recoveryCodes?: string[] }>({ method: 'POST', url: '/api/system/user/profile/totp/confirm', token, body: { code: totpCode(started.data.secret), name } })
  expect(confirmed.code, confirmed.msg).toBe(200)
  return { secret: started.data.secret, uri: started.data.uri, qrSvg: started.data.qrSvg, factorId: confirmed.data.factorId, recoveryCodes: confirmed.data.recoveryCodes ?? [] }
}

/** The session's recent proof gone, as after STEP_UP_MINUTES. */
const forgetProof = (token: string) => t.app.services.kv.delete(`proof:${hashToken(token)}`)

describe('an authenticator app (TOTP)', () => {
  it('enrols with a QR code and a first code, gives ten recovery codes once, and keeps the seed sealed', async () => {
    await addUser(t, { userName: 'totpuser1', password: 'secret12' })
    const token = (await signIn('totpuser1', 'secret12')).data.token!
    const enrolled = await enrol(token)
    expect(enrolled.uri).toMatch(/^otpauth:\/\/totp\/Velo%20Admin:totpuser1\?secret=[A-Z2-7]+&issuer=Velo%20Admin$/)
    expect(enrolled.qrSvg).toMatch(/^<svg/)
    expect(enrolled.recoveryCodes).toHaveLength(10)
    expect(new Set(enrolled.recoveryCodes).size).toBe(10)
    for (const c of enrolled.recoveryCodes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/)

    const overview = await t.call<SecurityOverview>({ url: '/api/system/user/profile/security', token })
    expect(overview.data.factors).toEqual([expect.objectContaining({ kind: 'totp', name: 'Phone' })])
    expect(overview.data.recoveryCodesLeft).toBe(10)
    expect(JSON.stringify(overview.data)).not.toContain(enrolled.secret)
    // At rest: sealed with the identity key, not the seed; recovery codes as hashes only.
    const row = await db().selectFrom('sysUserFactor').selectAll().where('factorId', '=', enrolled.factorId).executeTakeFirstOrThrow()
    expect(row.secret).toMatch(/^v1:/)
    expect(row.secret).not.toContain(enrolled.secret)
    const codes = await db().selectFrom('sysUserRecoveryCode').select('codeHash').where('userId', '=', row.userId).execute()
    expect(codes.map((c) => c.codeHash).join()).not.toContain(enrolled.recoveryCodes[0]!.replace('-', ''))
    // Nothing of it in the operation log.
    const logs = await db().selectFrom('sysOperLog').select(['operParam', 'jsonResult']).where('operName', '=', 'totpuser1').execute()
    expect(logs.length).toBeGreaterThan(0)
    const logged = JSON.stringify(logs)
    expect(logged).not.toContain(enrolled.secret)
    for (const c of enrolled.recoveryCodes) expect(logged).not.toContain(c)
  })

  it('refuses an enrolment with a wrong code, and keeps nothing', async () => {
    await addUser(t, { userName: 'totpuser2', password: 'secret12' })
    const token = (await signIn('totpuser2', 'secret12')).data.token!
    await t.call({ method: 'POST', url: '/api/system/user/profile/totp/start', token })
    const wrong = await t.call({ method: 'POST', url: '/api/system/user/profile/totp/confirm', token, body: { code: '000000' } })
    expect(wrong.status).toBe(400)
    expect(wrong.msg).toBe('The code does not match: check the app and the time of your phone, and try again')
    expect((await t.call<SecurityOverview>({ url: '/api/system/user/profile/security', token })).data.factors).toEqual([])
  })

  it('asks for a code after the password; takes a code one step off, each code once, and five wrong codes end the ticket', async () => {
    await addUser(t, { userName: 'totpuser3', password: 'secret12' })
    const { secret } = await enrol((await signIn('totpuser3', 'secret12')).data.token!)

    const first = await signIn('totpuser3', 'secret12')
    expect(first.code).toBe(200)
    expect(first.data.token).toBeUndefined()
    expect(first.data.secondFactor?.methods).toEqual(['totp', 'recovery'])
    expect(first.msg).toBe('Confirm with your passkey, a code of your authenticator app, or a recovery code')
    // A phone a step ahead: its code is the next step's.
    const ahead = totpCode(secret, Date.now() + STEP)
    const inWith = await secondStep(first.data.secondFactor!.ticket, ahead)
    expect(inWith.code, inWith.msg).toBe(200)
    expect(inWith.data.token).toBeTruthy()
    const info = await t.call<UserInfo>({ url: '/api/getUserInfo', token: inWith.data.token })
    expect(info.data.secondFactor).toMatchObject({ enrolled: true })

    // The same code again (seen over a shoulder): refused.
    const second = await signIn('totpuser3', 'secret12')
    const replay = await secondStep(second.data.secondFactor!.ticket, ahead)
    expect(replay.status).toBe(400)
    expect(replay.msg).toBe('The code is wrong, or it has been used already')
    for (let i = 0; i < 4; i++) expect((await secondStep(second.data.secondFactor!.ticket, '123456')).status).toBe(400)
    const spent = await secondStep(second.data.secondFactor!.ticket, totpCode(secret, Date.now() + 2 * STEP))
    expect(spent.msg).toBe('This sign-in has run out of time or tries: enter your password again')
    const log = await db().selectFrom('sysLoginLog').select('msg').where('userName', '=', 'totpuser3').where('status', '=', '0').orderBy('infoId', 'desc').executeTakeFirstOrThrow()
    expect(log.msg).toBe('Signed in with a password and a second factor (totp)')
  })

  it('takes each recovery code once', async () => {
    await addUser(t, { userName: 'totpuser4', password: 'secret12' })
    const { recoveryCodes } = await enrol((await signIn('totpuser4', 'secret12')).data.token!)
    const code = recoveryCodes[3]!
    const a = await signIn('totpuser4', 'secret12')
    // As typed: upper case, spaces instead of the dash.
    const used = await secondStep(a.data.secondFactor!.ticket, code.toUpperCase().replace('-', ' '))
    expect(used.code, used.msg).toBe(200)
    const b = await signIn('totpuser4', 'secret12')
    expect((await secondStep(b.data.secondFactor!.ticket, code)).status).toBe(400)
    const overview = await t.call<SecurityOverview>({ url: '/api/system/user/profile/security', token: used.data.token })
    expect(overview.data.recoveryCodesLeft).toBe(9)
  })

  it('holds the second step of an account after ten wrong codes, whatever the ticket: the right code waits too', async () => {
    await addUser(t, { userName: 'totpuser5', password: 'secret12' })
    const { secret } = await enrol((await signIn('totpuser5', 'secret12')).data.token!)
    for (let round = 0; round < 2; round++) {
      const ticket = (await signIn('totpuser5', 'secret12')).data.secondFactor!.ticket
      for (let i = 0; i < 5; i++) expect((await secondStep(ticket, String(100000 + round * 10 + i))).status).toBe(400)
    }
    const held = await secondStep((await signIn('totpuser5', 'secret12')).data.secondFactor!.ticket, totpCode(secret, Date.now() + STEP))
    expect(held.status).toBe(429)
    expect(held.msg).toBe('Too many wrong codes for this account: try again in 15 minutes')
    const log = await db().selectFrom('sysLoginLog').select('msg').where('userName', '=', 'totpuser5').orderBy('infoId', 'desc').executeTakeFirstOrThrow()
    expect(log.msg).toBe('Refused without checking the code: too many wrong second factors for this account')
    // A quarter of an hour later (the counter gone): the right code signs in.
    const userId = await idOf(t, 'user', 'totpuser5')
    await t.app.services.kv.delete(`factor-wrong:${userId}`)
    const ok = await secondStep((await signIn('totpuser5', 'secret12')).data.secondFactor!.ticket, totpCode(secret, Date.now() + STEP))
    expect(ok.code, ok.msg).toBe(200)
  })

  it('refuses the second step for a wrong ticket, and validates its input', async () => {
    expect((await secondStep('x'.repeat(32), '123456')).msg).toBe('This sign-in has run out of time or tries: enter your password again')
    expect((await t.call({ method: 'POST', url: '/api/login/second-factor', body: { ticket: 'short', code: '1' } })).status).toBe(400)
  })
})

describe('a role that requires a second factor', () => {
  it('leads a user without one to enrol at sign-in once the grace period is over, and signs them in with the first code', async () => {
    const roleId = await addRole(t, { roleKey: 'mustfactor', dataScope: '5', perms: ['system:user:list'] })
    await db().updateTable('sysRole').set({ secondFactor: 'always' }).where('roleId', '=', roleId).execute()
    const userId = await addUser(t, { userName: 'mustenrol1', password: 'secret12', roleKeys: ['mustfactor'] })

    // Within the grace period (7 days by default): signed in, told by when.
    const early = await signIn('mustenrol1', 'secret12')
    expect(early.data.token).toBeTruthy()
    const info = await t.call<UserInfo>({ url: '/api/getUserInfo', token: early.data.token })
    expect(info.data.secondFactor.required).toBe(true)
    expect(info.data.secondFactor.enrolled).toBe(false)
    expect(Date.parse(info.data.secondFactor.due!)).toBeGreaterThan(Date.now() + 6 * 86_400_000)

    // Past it: no session until a factor is set up.
    await db().updateTable('sysUser').set({ secondFactorDue: new Date(Date.now() - 1000).toISOString() }).where('userId', '=', userId).execute()
    const late = await signIn('mustenrol1', 'secret12')
    expect(late.data.token).toBeUndefined()
    expect(late.msg).toBe('Your role requires a second factor: set up an authenticator app or a passkey to go on')
    const ticket = late.data.enrol!.ticket
    const started = await t.call<{ secret: string; qrSvg: string }>({ method: 'POST', url: '/api/login/enrol/start', body: { ticket } })
    expect(started.data.qrSvg).toMatch(/^<svg/)
    expect((await t.call({ method: 'POST', url: '/api/login/enrol/confirm', body: { ticket, code: '000000' } })).status).toBe(400)
    const done = await t.call<SignInAnswer>({ method: 'POST', url: '/api/login/enrol/confirm', body: { ticket, code: totpCode(started.data.secret), withSession: true } })
    expect(done.code, done.msg).toBe(200)
    expect(done.data.token).toBeTruthy()
    expect(done.data.recoveryCodes).toHaveLength(10)
    expect(done.data.userInfo?.secondFactor).toEqual({ required: true, enrolled: true, due: expect.any(String) })
    // The enrolment ticket is spent.
    expect((await t.call({ method: 'POST', url: '/api/login/enrol/start', body: { ticket } })).status).toBe(400)
    // The last factor of a user who must have one stays.
    const overview = await t.call<SecurityOverview>({ url: '/api/system/user/profile/security', token: done.data.token })
    const removal = await t.call({ method: 'DELETE', url: `/api/system/user/profile/factor/${overview.data.factors[0]!.factorId}`, token: done.data.token })
    expect(removal.msg).toBe('Your role requires a second factor: add another one before removing this one')
  })

  it('is on by default (auto) for a role holding a sensitive right, off for a role without one, off when set to never', async () => {
    const sensitive = await addRole(t, { roleKey: 'sqlwriter', dataScope: '5', perms: ['tool:sql:execute', 'tool:sql:write'] })
    await addRole(t, { roleKey: 'plainreader', dataScope: '5', perms: ['system:user:list'] })
    await addUser(t, { userName: 'autouser1', password: 'secret12', roleKeys: ['sqlwriter'] })
    await addUser(t, { userName: 'autouser2', password: 'secret12', roleKeys: ['plainreader'] })
    const stateOf = async (name: string, password = 'secret12') => (await t.call<UserInfo>({ url: '/api/getUserInfo', token: (await signIn(name, password)).data.token })).data.secondFactor.required
    expect(await stateOf('autouser1')).toBe(true)
    expect(await stateOf('autouser2')).toBe(false)
    // The administrator role holds every right.
    expect(await stateOf('admin', ADMIN_PASSWORD)).toBe(true)
    await db().updateTable('sysRole').set({ secondFactor: 'never' }).where('roleId', '=', sensitive).execute()
    expect(await stateOf('autouser1')).toBe(false)
  })
})

describe('a second proof before dangerous actions', () => {
  it('guards every route marked stepUp: 401 with code 50020 and the ways to prove, before anything is read or done', async () => {
    const routes = t.app.services.identity.stepUp.routes
    // OTA approve and start for each kind of campaign, the user reset actions, device keys, password reset.
    expect(routes.length).toBeGreaterThanOrEqual(12)
    expect(routes.map((r) => r.url)).toEqual(expect.arrayContaining(['/api/system/user/resetPwd', '/api/iot/model/:id/registrationKey', '/api/iot/device/:id/secret', '/api/system/user/:id/action/resetFactors']))
    const token = (await signIn('admin', ADMIN_PASSWORD)).data.token!
    await forgetProof(token)
    for (const r of routes) {
      const raw = await t.app.inject({ method: r.method as 'POST', url: r.url.replace(':id', '1'), headers: { authorization: token } })
      expect(raw.body, `${r.method} ${r.url}`).not.toBe('')
      const res = await t.call<StepUpRequired>({ method: r.method as 'POST', url: r.url.replace(':id', '1'), token, ...(r.method === 'POST' || r.method === 'PUT' ? { body: {} } : {}) })
      expect(res.status, `${r.method} ${r.url}`).toBe(401)
      expect(res.code, `${r.method} ${r.url}`).toBe(ResultCode.STEP_UP_REQUIRED)
      expect(res.data).toEqual({ methods: ['password'] })
    }
    expect((await t.call({ url: '/api/getUserInfo', token })).code).toBe(200)
  })

  it('takes the password where no factor is enrolled, then lets the action through; a wrong one changes nothing', async () => {
    const token = (await signIn('admin', ADMIN_PASSWORD)).data.token!
    const victim = await addUser(t, { userName: 'resetme1', password: 'secret12' })
    await forgetProof(token)
    const reset = () => t.call({ method: 'PUT', url: '/api/system/user/resetPwd', token, body: { userId: victim, password: 'newpass12' } })
    expect((await reset()).code).toBe(ResultCode.STEP_UP_REQUIRED)
    const wrong = await t.call({ method: 'POST', url: '/api/auth/step-up', token, body: { password: 'wrong' } })
    expect(wrong.status).toBe(400)
    expect(wrong.msg).toBe('The code, the passkey or the password was not accepted')
    expect((await reset()).code).toBe(ResultCode.STEP_UP_REQUIRED)
    const proved = await t.call({ method: 'POST', url: '/api/auth/step-up', token, body: { password: ADMIN_PASSWORD } })
    expect(proved.msg).toBe('Confirmed: dangerous actions go through for 5 minutes')
    expect((await reset()).code).toBe(200)
    const log = await db().selectFrom('sysOperLog').select(['operUrl', 'status', 'operParam']).where('operUrl', 'like', '%/auth/step-up').orderBy('operId', 'desc').limit(2).execute()
    expect(log.map((l) => l.status)).toEqual(['0', '1'])
    expect(JSON.stringify(log)).not.toContain(ADMIN_PASSWORD)
  })

  it('asks a user with a factor for a code, not the password', async () => {
    await addUser(t, { userName: 'stepper1', password: 'secret12' })
    const { secret, recoveryCodes } = await enrol((await signIn('stepper1', 'secret12')).data.token!)
    const first = await signIn('stepper1', 'secret12')
    // In with a recovery code: the app's next code stays unused for the proof below.
    const token = (await secondStep(first.data.secondFactor!.ticket, recoveryCodes[0]!)).data.token!
    await forgetProof(token)
    const refused = await t.call<StepUpRequired>({ method: 'POST', url: '/api/system/user/profile/recoveryCodes', token })
    expect(refused.data).toEqual({ methods: ['totp', 'recovery'] })
    expect((await t.call({ method: 'POST', url: '/api/auth/step-up', token, body: { password: 'secret12' } })).status).toBe(400)
    expect((await t.call({ method: 'POST', url: '/api/auth/step-up', token, body: { code: totpCode(secret, Date.now() + STEP) } })).code).toBe(200)
    const fresh = await t.call<{ recoveryCodes: string[] }>({ method: 'POST', url: '/api/system/user/profile/recoveryCodes', token })
    expect(fresh.data.recoveryCodes).toHaveLength(10)
  })

  it('asks before granting a role or a right, and before an SQL write; not for a change that grants nothing', async () => {
    const token = (await signIn('admin', ADMIN_PASSWORD)).data.token!
    await forgetProof(token)
    const common = await idOf(t, 'role', 'common')
    const target = await addUser(t, { userName: 'grantee1', password: 'secret12' })
    const grant = await t.call({ method: 'PUT', url: '/api/system/user', token, body: { userId: target, roleIds: [common] } })
    expect(grant.code, grant.msg).toBe(ResultCode.STEP_UP_REQUIRED)
    expect(await db().selectFrom('sysUserRole').select('roleId').where('userId', '=', target).execute()).toEqual([])
    const rename = await t.call({ method: 'PUT', url: '/api/system/user', token, body: { userId: target, nickName: 'Renamed', roleIds: [] } })
    expect(rename.code, rename.msg).toBe(200)
    const roleEdit = await t.call({ method: 'PUT', url: '/api/system/role', token, body: { roleId: common, remark: 'x' } })
    expect(roleEdit.code, roleEdit.msg).toBe(ResultCode.STEP_UP_REQUIRED)
    const write = await t.call({ method: 'POST', url: '/api/tool/sql/run', token, body: { sql: "update sys_config set remark = remark where config_key = 'nothing'", write: true } })
    expect(write.code).toBe(ResultCode.STEP_UP_REQUIRED)
    // A menu's permission is granted to every role holding the menu; its name is not.
    const menu = await db().selectFrom('sysMenu').select(['menuId', 'perms', 'menuName']).where('perms', '=', 'system:config:list').executeTakeFirstOrThrow()
    const rePerm = await t.call({ method: 'PUT', url: '/api/system/menu', token, body: { menuId: menu.menuId, perms: 'system:user:list' } })
    expect(rePerm.code, rePerm.msg).toBe(ResultCode.STEP_UP_REQUIRED)
    expect((await db().selectFrom('sysMenu').select('perms').where('menuId', '=', menu.menuId).executeTakeFirstOrThrow()).perms).toBe('system:config:list')
    const reorder = await t.call({ method: 'PUT', url: '/api/system/menu', token, body: { menuId: menu.menuId, orderNum: 7 } })
    expect(reorder.code, reorder.msg).toBe(200)
    await t.call({ method: 'POST', url: '/api/auth/step-up', token, body: { password: ADMIN_PASSWORD } })
    expect((await t.call({ method: 'PUT', url: '/api/system/user', token, body: { userId: target, roleIds: [common] } })).code).toBe(200)
  })
})

describe('lockout without denial of service', () => {
  it('a stranger who locks the account does not lock out its owner with a second factor; a wrong password under the lock gets nowhere', async () => {
    await addUser(t, { userName: 'lockowner1', password: 'secret12' })
    const { secret, recoveryCodes } = await enrol((await signIn('lockowner1', 'secret12')).data.token!)
    // Five wrong passwords from five addresses: the account locks.
    for (let i = 0; i < 5; i++) expect((await signIn('lockowner1', 'wrong')).status).toBe(400)
    expect((await db().selectFrom('sysUser').select('lockedUntil').where('userName', '=', 'lockowner1').executeTakeFirstOrThrow()).lockedUntil).not.toBeNull()
    // Under the lock a wrong password still gets a ticket (the answer tells nothing), which no code opens.
    const logOf = () => db().selectFrom('sysLoginLog').select(['infoId', 'status', 'msg']).where('userName', '=', 'lockowner1').orderBy('infoId', 'desc').execute()
    const before = (await logOf()).length
    const stranger = await signIn('lockowner1', 'wrong')
    expect(stranger.data.secondFactor).toBeTruthy()
    // The client hears nothing of the wrong password; the login log does, at once.
    const after = await logOf()
    expect(after).toHaveLength(before + 1)
    expect(after[0]).toMatchObject({ status: '1', msg: expect.stringMatching(/^User name or password is incorrect/) })
    expect((await secondStep(stranger.data.secondFactor!.ticket, recoveryCodes[0]!)).status).toBe(400)
    const owner = await signIn('lockowner1', 'secret12')
    const inside = await secondStep(owner.data.secondFactor!.ticket, totpCode(secret, Date.now() + STEP))
    expect(inside.code, inside.msg).toBe(200)
    // The owner's proof lifts the lock.
    expect((await db().selectFrom('sysUser').select('lockedUntil').where('userName', '=', 'lockowner1').executeTakeFirstOrThrow()).lockedUntil).toBeNull()
  })

  it('still locks an account without a second factor against the right password', async () => {
    await addUser(t, { userName: 'lockowner2', password: 'secret12' })
    for (let i = 0; i < 5; i++) await signIn('lockowner2', 'wrong')
    const owner = await signIn('lockowner2', 'secret12')
    expect(owner.status).toBe(400)
    expect(owner.data).toBeNull()
  })
})

describe("an administrator's reset", () => {
  it("removes the user's factors and codes, ends their sessions, asks for a proof and is logged", async () => {
    const userId = await addUser(t, { userName: 'lostphone1', password: 'secret12' })
    const own = (await signIn('lostphone1', 'secret12')).data.token!
    await enrol(own)
    const token = (await signIn('admin', ADMIN_PASSWORD)).data.token!
    const reset = await t.call<{ removed: number; message: string }>({ method: 'POST', url: `/api/system/user/${userId}/action/resetFactors`, token, body: {} })
    expect(reset.code, reset.msg).toBe(200)
    expect(reset.data.message).toBe("The user's second factor is removed and their sessions are ended")
    expect(await db().selectFrom('sysUserFactor').select('factorId').where('userId', '=', userId).execute()).toEqual([])
    expect(await db().selectFrom('sysUserRecoveryCode').select('codeHash').where('userId', '=', userId).execute()).toEqual([])
    expect((await t.call({ url: '/api/getUserInfo', token: own })).code).toBe(ResultCode.ILLEGAL_TOKEN)
    const log = await db().selectFrom('sysOperLog').select(['operUrl', 'operName']).where('operUrl', '=', `/api/system/user/${userId}/action/resetFactors`).executeTakeFirstOrThrow()
    expect(log.operName).toBe('admin')
    // Signs in with the password alone again.
    expect((await signIn('lostphone1', 'secret12')).data.token).toBeTruthy()
  })

  it('the secret tables stay out of SQL execution', async () => {
    const token = (await signIn('admin', ADMIN_PASSWORD)).data.token!
    for (const table of ['sys_user_factor', 'sys_user_recovery_code']) {
      const res = await t.call({ method: 'POST', url: '/api/tool/sql/run', token, body: { sql: `select * from ${table}` } })
      expect(res.status, table).toBeGreaterThanOrEqual(400)
    }
  })
})

describe('my sessions', () => {
  it('lists my sessions and signs one of them out', async () => {
    await addUser(t, { userName: 'sessions1', password: 'secret12' })
    const a = (await signIn('sessions1', 'secret12')).data.token!
    const b = (await signIn('sessions1', 'secret12')).data.token!
    const overview = await t.call<SecurityOverview>({ url: '/api/system/user/profile/security', token: a })
    expect(overview.data.sessions).toHaveLength(2)
    const other = overview.data.sessions.find((s) => !s.current)!
    expect((await t.call({ method: 'DELETE', url: `/api/system/user/profile/session/${other.sessionId}`, token: a })).code).toBe(200)
    expect((await t.call({ url: '/api/getUserInfo', token: b })).code).toBe(ResultCode.ILLEGAL_TOKEN)
    expect((await t.call({ url: '/api/getUserInfo', token: a })).code).toBe(200)
    expect((await t.call({ method: 'DELETE', url: `/api/system/user/profile/session/${'0'.repeat(32)}`, token: a })).status).toBe(404)
  })
})
