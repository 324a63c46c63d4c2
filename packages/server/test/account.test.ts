import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { type AccountFeatures, EMAIL_PATTERN, type Paged, PHONE_PATTERN, type SessionUser, type UserInfo } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addUser, createTestApp, limitedUser, type Refusal, sentMails, type TestApp } from './harness'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const setConfig = (key: string, value: string) =>
  t.app.services.db.updateTable('sysConfig').set({ configValue: value }).where('configKey', '=', key).execute()
const userCount = async () => (await t.app.services.db.selectFrom('sysUser').select('userId').execute()).length

describe('registration', () => {
  const body = { username: 'newbie1', password: 'secret12', confirmPassword: 'secret12' }

  it('is off by default and says so', async () => {
    const before = await userCount()
    const res = await t.call({ method: 'POST', url: '/api/register', body })
    expect(res.status).toBe(403)
    expect(res.msg).toBe('Registration is switched off')
    expect((await t.call<AccountFeatures>({ url: '/api/common/features' })).data.registerEnabled).toBe(false)
    expect(await userCount()).toBe(before)
  })

  it('registers when the config key is on, and the new user can sign in with no role', async () => {
    await setConfig('sys.account.registerUser', 'true')
    expect((await t.call<AccountFeatures>({ url: '/api/common/features' })).data.registerEnabled).toBe(true)
    const res = await t.call({ method: 'POST', url: '/api/register', body })
    expect(res.code).toBe(200)
    const token = await t.login('newbie1', 'secret12')
    expect((await t.call<UserInfo>({ url: '/api/getUserInfo', token })).data.roles).toEqual(['ROLE_DEFAULT'])
  })

  it('answers a taken name, in any case, exactly as a free one, and the taken account keeps its password', async () => {
    const before = await userCount()
    const free = await t.call({ method: 'POST', url: '/api/register', body: { ...body, username: 'freshname1' } })
    for (const username of ['newbie1', 'NEWBIE1', 'admin', 'Admin']) {
      const taken = await t.call({ method: 'POST', url: '/api/register', body: { ...body, username, password: 'hijack99', confirmPassword: 'hijack99' } })
      expect({ status: taken.status, msg: taken.msg, data: taken.data }).toEqual({ status: free.status, msg: free.msg, data: free.data })
    }
    expect(await userCount()).toBe(before + 1)
    await t.login('newbie1', 'secret12')
    expect((await t.call({ method: 'POST', url: '/api/login', body: { username: 'NEWBIE1', password: 'hijack99' } })).status).toBe(400)
  })

  it('refuses a bad name, a bad password and a mismatch, adding nobody', async () => {
    const before = await userCount()
    const badName = await t.call<Refusal>({ method: 'POST', url: '/api/register', body: { ...body, username: 'ab!' } })
    expect(badName.status).toBe(400)
    expect(badName.data.errors).toEqual([{ field: 'username', message: 'User name must be 4 to 20 letters and digits' }])
    const badPass = await t.call<Refusal>({ method: 'POST', url: '/api/register', lang: 'zh_CN', body: { ...body, username: 'newbie2', password: 'short', confirmPassword: 'short' } })
    expect(badPass.status).toBe(400)
    expect(badPass.data.errors[0]).toEqual({ field: 'password', message: '密码必须是 6 到 20 位字母、数字或特殊字符' })
    const mismatch = await t.call({ method: 'POST', url: '/api/register', body: { ...body, username: 'newbie3', confirmPassword: 'other123' } })
    expect(mismatch.status).toBe(400)
    expect(mismatch.msg).toBe('The two passwords do not match')
    expect(await userCount()).toBe(before)
    await setConfig('sys.account.registerUser', 'false')
  })
})

describe('forgotten password', () => {
  const outbox = () => t.app.services.db.selectFrom('sysMailOutbox').selectAll().orderBy('mailId', 'desc').execute()
  const codeFrom = (body: string) => /\b(\d{6})\b/.exec(body)![1]!
  /** The code as the recipient reads it: the newest mail to the address (the mail goes out just after the answer). */
  const mailedCode = async (to: string) => {
    for (let i = 0; i < 200; i++) {
      const mail = sentMails(t).filter((m) => m.to === to).at(-1)
      if (mail && (await outbox()).length) return codeFrom(mail.text)
      await new Promise((r) => setTimeout(r, 10))
    }
    throw new Error(`no mail to ${to}`)
  }
  // These routes are rate-limited per address: the takeover test asks from one of its own.
  const fromElsewhere = async (url: string, body: object) => {
    const res = await t.app.inject({ method: 'POST', url, payload: body, remoteAddress: '10.88.0.1' })
    return { status: res.statusCode, ...(res.json() as { code: number; msg: string }) }
  }
  const sendCode = async (email: string, elsewhere = false) => {
    const count = sentMails(t).length
    const url = '/api/forgetPassword/sendCode'
    const res = elsewhere ? await fromElsewhere(url, { email }) : await t.call({ method: 'POST', url, body: { email } })
    // The mail goes out after the answer; on a loaded machine that can take seconds, and reading the
    // code before it arrives would return the previous mail's.
    for (let i = 0; i < 1000 && sentMails(t).length === count; i++) await new Promise((r) => setTimeout(r, 10))
    if (res.code === 200 && sentMails(t).length === count) throw new Error(`no mail to ${email} within 10 s`)
    return res
  }

  it('mails a reset code; the outbox shows that a code was sent but never the code', async () => {
    await addUser(t, { userName: 'forgetful', password: 'secret12', email: 'Forgetful@Example.com' })
    const res = await sendCode('forgetful@example.com', true)
    expect(res.code).toBe(200)
    const code = await mailedCode('forgetful@example.com')
    const [mail] = await outbox()
    expect(mail).toMatchObject({ mailTo: 'forgetful@example.com', status: 'file', subject: 'Velo Admin password reset code' })
    expect(mail!.body).not.toContain(code)
    expect(mail!.body).toMatch(/Your password reset code is ••••••/)
    const admin = await t.login()
    const list = await t.call<Paged<unknown>>({ method: 'POST', url: '/api/monitor/outbox/list', token: admin, body: { mailTo: 'forgetful' } })
    expect(list.data.total).toBe(1)
    expect(JSON.stringify(list.data)).not.toContain(code)
    expect((await t.call<{ body: string }>({ url: `/api/monitor/outbox/${mail!.mailId}`, token: admin })).data.body).not.toContain(code)
    // The code is in clear only in its file, which no other account on the machine may read.
    const dir = t.app.services.config.mailDir
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    const files = readdirSync(dir).filter((f) => f.endsWith('.eml'))
    expect(files.length).toBeGreaterThan(0)
    for (const f of files) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600)
  })

  it('gives an outbox reader no way to take over the admin account', async () => {
    const reader = await limitedUser(t, { userName: 'mailreader', perms: ['monitor:outbox:list', 'monitor:outbox:query'], dataScope: '5' })
    await t.app.services.db.updateTable('sysUser').set({ email: 'root@example.com' }).where('userName', '=', 'admin').execute()
    await sendCode('root@example.com', true)
    const list = await t.call<Paged<{ mailId: number }>>({ method: 'POST', url: '/api/monitor/outbox/list', token: reader.token, body: { mailTo: 'root' } })
    const mail = await t.call<{ body: string }>({ url: `/api/monitor/outbox/${list.data.rows[0]!.mailId}`, token: reader.token })
    expect(/\b\d{6}\b/.test(mail.data.body)).toBe(false)
    for (const guess of ['000000', '123456']) {
      expect((await fromElsewhere('/api/forgetPassword/reset', { email: 'root@example.com', resetCode: guess, password: 'Owned1234' })).status).toBe(400)
    }
    await t.login()
  })

  it('answers the same for an unknown address and mails nothing', async () => {
    const before = (await outbox()).length
    const res = await t.call({ method: 'POST', url: '/api/forgetPassword/sendCode', body: { email: 'nobody@example.com' } })
    expect(res.code).toBe(200)
    expect(res.msg).toBe('If an account uses this email, a reset code has been sent to it')
    expect((await outbox()).length).toBe(before)
  })

  it('resets with the right code once, ends old sessions, and the new password works', async () => {
    const oldSession = await t.login('forgetful', 'secret12')
    await sendCode('forgetful@example.com')
    const code = await mailedCode('forgetful@example.com')
    const wrong = await t.call({ method: 'POST', url: '/api/forgetPassword/reset', body: { email: 'forgetful@example.com', resetCode: code === '000000' ? '111111' : '000000', password: 'newpass99' } })
    expect(wrong.status).toBe(400)
    expect(wrong.msg).toBe('The reset code is wrong or has expired')
    const right = await t.call({ method: 'POST', url: '/api/forgetPassword/reset', body: { email: 'forgetful@example.com', resetCode: code, password: 'newpass99' } })
    expect(right.code).toBe(200)
    const reuse = await t.call({ method: 'POST', url: '/api/forgetPassword/reset', body: { email: 'forgetful@example.com', resetCode: code, password: 'another99' } })
    expect(reuse.status).toBe(400)
    expect((await t.call({ url: '/api/getUserInfo', token: oldSession })).code).toBe(50008)
    await t.login('forgetful', 'newpass99')
  })

  it('burns the code after five wrong tries', async () => {
    await sendCode('forgetful@example.com')
    const code = await mailedCode('forgetful@example.com')
    const wrongCode = code === '000000' ? '111111' : '000000'
    for (let i = 0; i < 5; i++) {
      await t.call({ method: 'POST', url: '/api/forgetPassword/reset', body: { email: 'forgetful@example.com', resetCode: wrongCode, password: 'newpass77' } })
    }
    const late = await t.call({ method: 'POST', url: '/api/forgetPassword/reset', body: { email: 'forgetful@example.com', resetCode: code, password: 'newpass77' } })
    expect(late.status).toBe(400)
  })

  it('is refused when switched off', async () => {
    await setConfig('sys.account.forgetPassword', 'false')
    const res = await t.call({ method: 'POST', url: '/api/forgetPassword/sendCode', body: { email: 'forgetful@example.com' } })
    expect(res.status).toBe(403)
    expect((await t.call<AccountFeatures>({ url: '/api/common/features' })).data.forgetPasswordEnabled).toBe(false)
    await setConfig('sys.account.forgetPassword', 'true')
  })

  it('refuses a malformed email naming the field', async () => {
    const res = await t.call<Refusal>({ method: 'POST', url: '/api/forgetPassword/sendCode', body: { email: 'not-an-email' } })
    expect(res.status).toBe(400)
    expect(res.data.errors[0]!.field).toBe('email')
  })
})

describe('personal centre', () => {
  it('shows and changes the profile', async () => {
    await addUser(t, { userName: 'profiled' })
    const token = await t.login('profiled', 'secret12')
    const me = await t.call<{ user: SessionUser }>({ url: '/api/system/user/profile', token })
    expect(me.data.user.username).toBe('profiled')
    const res = await t.call({ method: 'PUT', url: '/api/system/user/profile', token, body: { nickName: 'Pro Filed', email: 'pro@example.com', phone: '+31 20 123 4567', sex: '1' } })
    expect(res.code).toBe(200)
    expect((await t.call<UserInfo>({ url: '/api/getUserInfo', token })).data.user).toMatchObject({ nickName: 'Pro Filed', email: 'pro@example.com', phone: '+31 20 123 4567', sex: '1' })
    const bad = await t.call<Refusal>({ method: 'PUT', url: '/api/system/user/profile', token, body: { nickName: '', email: 'x', phone: '1', sex: '1' } })
    expect(bad.status).toBe(400)
    expect(bad.data.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'nickName', 'phone'])
    expect((await t.call<UserInfo>({ url: '/api/getUserInfo', token })).data.user.nickName).toBe('Pro Filed')
  })

  it('lets the seeded admin save their profile unchanged: the seed meets the user rules', async () => {
    const token = await t.login()
    const { user } = (await t.call<{ user: SessionUser }>({ url: '/api/system/user/profile', token })).data
    expect(user.phone).toMatch(PHONE_PATTERN)
    expect(user.email).toMatch(EMAIL_PATTERN)
    const res = await t.call({ method: 'PUT', url: '/api/system/user/profile', token, body: { nickName: user.nickName, email: user.email, phone: user.phone, sex: user.sex } })
    expect(res.status, res.msg).toBe(200)
    // The same row passes the user form's rules too (phone and email required and valid).
    const row = (await t.call<Record<string, unknown>>({ url: `/api/system/user/${user.userId}`, token })).data
    const edit = await t.call({ method: 'PUT', url: '/api/system/user', token, body: { userId: row.userId, nickName: row.nickName, email: row.email, phonenumber: row.phonenumber, sex: row.sex } })
    expect(edit.status, edit.msg).toBe(200)
  })

  it('saves what is sent, keeps what is left out, and does not block on a phone the account never had', async () => {
    const userId = await addUser(t, { userName: 'nophone1' })
    const token = await t.login('nophone1', 'secret12')
    const phoneOf = async () => (await t.app.services.db.selectFrom('sysUser').select(['phonenumber', 'nickName', 'email', 'sex']).where('userId', '=', userId).executeTakeFirstOrThrow())
    // As the profile form sends it back: the blank phone is unchanged, the nickname is new.
    const saved = await t.call({ method: 'PUT', url: '/api/system/user/profile', token, body: { nickName: 'No Phone', email: 'nophone1@example.com', phone: '', sex: '2' } })
    expect(saved.status, saved.msg).toBe(200)
    expect(await phoneOf()).toMatchObject({ nickName: 'No Phone', phonenumber: '' })
    const partial = await t.call({ method: 'PUT', url: '/api/system/user/profile', token, body: { sex: '1' } })
    expect(partial.status, partial.msg).toBe(200)
    expect(await phoneOf()).toEqual({ nickName: 'No Phone', email: 'nophone1@example.com', phonenumber: '', sex: '1' })
    expect((await t.call({ method: 'PUT', url: '/api/system/user/profile', token, body: { phone: '+31 6 1234 5678' } })).status).toBe(200)
    const cleared = await t.call<Refusal>({ method: 'PUT', url: '/api/system/user/profile', token, lang: 'zh_CN', body: { phone: '', email: '' } })
    expect(cleared.status).toBe(400)
    expect(cleared.data.errors).toEqual([
      { field: 'email', message: '邮箱不能为空' },
      { field: 'phone', message: '手机号码不能为空' },
    ])
    expect(await phoneOf()).toMatchObject({ phonenumber: '+31 6 1234 5678', email: 'nophone1@example.com' })
  })

  it('changes the password only with the right old one', async () => {
    await addUser(t, { userName: 'changer1', password: 'secret12' })
    const token = await t.login('changer1', 'secret12')
    const wrong = await t.call({ method: 'PUT', url: '/api/system/user/profile/updatePwd', token, body: { oldPassword: 'nope', newPassword: 'better12' } })
    expect(wrong.status).toBe(400)
    expect(wrong.msg).toBe('The old password is wrong')
    const weak = await t.call({ method: 'PUT', url: '/api/system/user/profile/updatePwd', token, body: { oldPassword: 'secret12', newPassword: '123' } })
    expect(weak.status).toBe(400)
    const ok = await t.call({ method: 'PUT', url: '/api/system/user/profile/updatePwd', token, body: { oldPassword: 'secret12', newPassword: 'better12' } })
    expect(ok.msg).toBe('Password changed')
    await t.login('changer1', 'better12')
  })
})
