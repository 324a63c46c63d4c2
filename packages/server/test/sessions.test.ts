import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ADMIN_PASSWORD, addUser, createTestApp, type Refusal, type TestApp } from './harness'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ SESSION_TTL_MINUTES: '30' })
})
afterAll(() => t.close())

const userInfo = (token?: string) => t.call({ url: '/api/getUserInfo', token })

async function withClockAt<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(ms)
  try {
    return await fn()
  } finally {
    vi.useRealTimers()
  }
}

describe('sign-in', () => {
  it('trims the user name and answers an opaque token that is stored only hashed', async () => {
    const res = await t.call<{ token: string }>({ method: 'POST', url: '/api/login', body: { username: '  admin  ', password: ADMIN_PASSWORD } })
    expect(res.code).toBe(200)
    const token: string = res.data.token
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    if (!process.env.REDIS_URL) {
      const rows = await t.app.services.db.selectFrom('sysSession').select('tokenHash').execute()
      expect(rows.map((r) => r.tokenHash)).not.toContain(token)
      expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.tokenHash))).toBe(true)
    }
  })

  it('accepts the token bare or as Bearer', async () => {
    const token = await t.login()
    expect((await userInfo(token)).code).toBe(200)
    expect((await userInfo(`Bearer ${token}`)).code).toBe(200)
  })

  it('refuses a wrong password with a clear message and no token', async () => {
    const res = await t.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password: 'wrong-one' } })
    expect(res.status).toBe(400)
    expect(res.msg).toMatch(/^User name or password is incorrect/)
    expect(res.data).toBeNull()
    // A wrong password of admin must not lock the account for the rest of this file.
    await t.app.services.db.updateTable('sysUser').set({ failedLogins: 0 }).where('userName', '=', 'admin').execute()
  })

  it('refuses an unknown user with the same message as a wrong password', async () => {
    const res = await t.call({ method: 'POST', url: '/api/login', body: { username: 'nobody', password: 'whatever' } })
    expect(res.status).toBe(400)
    expect(res.msg).toMatch(/^User name or password is incorrect \(/)
  })

  it('refuses a disabled account', async () => {
    await addUser(t, { userName: 'sleeper', password: 'secret12', status: '1' })
    const res = await t.call({ method: 'POST', url: '/api/login', body: { username: 'sleeper', password: 'secret12' } })
    expect(res.status).toBe(403)
    expect(res.msg).toMatch(/disabled/)
  })

  it('refuses bad input naming the field', async () => {
    const res = await t.call<Refusal>({ method: 'POST', url: '/api/login', body: { password: 'x' } })
    expect(res.status).toBe(400)
    expect(res.data.errors[0]!.field).toBe('username')
    expect(res.msg).toMatch(/username is required/)
  })
})

describe('session codes', () => {
  it('answers 50008 without a token, with an unknown one, and after logout', async () => {
    expect((await userInfo()).code).toBe(50008)
    expect((await userInfo('made-up-token')).code).toBe(50008)
    expect((await userInfo('made-up-token')).status).toBe(401)
    const token = await t.login()
    expect((await t.call({ method: 'POST', url: '/api/logout', token })).code).toBe(200)
    const after = await userInfo(token)
    expect(after.code).toBe(50008)
    expect(after.msg).toMatch(/not valid/)
    const last = await t.app.services.db.selectFrom('sysLoginLog').selectAll().orderBy('infoId', 'desc').executeTakeFirstOrThrow()
    expect(last).toMatchObject({ userName: 'admin', status: '0', msg: 'Signed out' })
  })

  it('answers 50014 once the session has expired, and slides the expiry while it is used', async () => {
    const token = await t.login()
    const start = Date.now()
    // Used 20 minutes in: the 30-minute session now runs until minute 50.
    expect((await withClockAt(start + 20 * 60_000, () => userInfo(token))).code).toBe(200)
    expect((await withClockAt(start + 45 * 60_000, () => userInfo(token))).code).toBe(200)
    // Then left alone for 31 minutes.
    const expired = await withClockAt(start + 77 * 60_000, () => userInfo(token))
    expect(expired.code).toBe(50014)
    expect(expired.status).toBe(401)
    expect(expired.msg).toMatch(/expired/)
  })

  it('answers 50012 to a session displaced by a newer sign-in when single sign-in is on', async () => {
    await addUser(t, { userName: 'single1', password: 'secret12' })
    const first = await t.login('single1', 'secret12')
    const second = await t.login('single1', 'secret12')
    // Off by default: both sessions live.
    expect((await userInfo(first)).code).toBe(200)
    await t.app.services.db.updateTable('sysConfig').set({ configValue: 'true' }).where('configKey', '=', 'sys.account.singleSignOn').execute()
    try {
      const third = await t.login('single1', 'secret12')
      expect((await userInfo(first)).code).toBe(50012)
      expect((await userInfo(second)).code).toBe(50012)
      expect((await userInfo(third)).code).toBe(200)
      expect((await t.call({ url: '/api/getUserInfo', token: first, lang: 'zh_CN' })).msg).toBe('您的账号已在别处登录，请重新登录')
    } finally {
      await t.app.services.db.updateTable('sysConfig').set({ configValue: 'false' }).where('configKey', '=', 'sys.account.singleSignOn').execute()
    }
  })

  it('ends the session of a user who has been disabled', async () => {
    const id = await addUser(t, { userName: 'leaver1', password: 'secret12' })
    const token = await t.login('leaver1', 'secret12')
    await t.app.services.db.updateTable('sysUser').set({ status: '1' }).where('userId', '=', id).execute()
    expect((await userInfo(token)).code).toBe(50008)
  })
})

describe('lockout', () => {
  const REFUSED = 'User name or password is incorrect (after 5 wrong attempts an account is locked for 10 minutes)'
  // The account lock is what guessers spread over many addresses meet: each attempt here comes from
  // an address of its own, so the per-address delays (below) never answer first.
  let nextAddress = 1
  const run = `10.${Math.floor(Math.random() * 250)}`
  const nextRemote = () => `${run}.${Math.floor(nextAddress / 250)}.${1 + (nextAddress++ % 250)}`
  const signInFrom = () => {
    return async (body: { username: string; password: string }, remoteAddress = nextRemote()) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/login', payload: body, remoteAddress })
      const parsed = res.json() as { code: number; msg: string; data: { token?: string } }
      return { status: res.statusCode, code: parsed.code, msg: parsed.msg, token: parsed.data?.token }
    }
  }

  it('locks after 5 wrong passwords for 10 minutes, even against the right password, then lets in', async () => {
    await addUser(t, { userName: 'clumsy1', password: 'secret12' })
    const login = signInFrom()
    const attempt = (password: string) => login({ username: 'clumsy1', password })
    for (let i = 1; i <= 5; i++) {
      const res = await attempt('wrong')
      expect(res.status).toBe(400)
      expect(res.msg).toBe(REFUSED)
    }
    const right = await attempt('secret12')
    expect(right.status).toBe(400)
    expect(right.msg).toBe(REFUSED)
    const start = Date.now()
    expect((await withClockAt(start + 9 * 60_000, () => attempt('secret12'))).status).toBe(400)
    expect((await withClockAt(start + 11 * 60_000, () => attempt('secret12'))).code).toBe(200)
  })

  it('answers an unknown name, a wrong password and a locked account alike', async () => {
    await addUser(t, { userName: 'lockedaway', password: 'secret12' })
    const attempt = async (username: string, password: string, lang?: 'zh_CN') => {
      const res = await t.app.inject({ method: 'POST', url: '/api/login', payload: { username, password }, remoteAddress: nextRemote(), headers: lang ? { currentlanguage: lang } : {} })
      return { status: res.statusCode, msg: (res.json() as { msg: string }).msg }
    }
    const unknown = await attempt('nosuchname', 'wrong')
    const wrong = await attempt('lockedaway', 'wrong')
    for (let i = 0; i < 4; i++) await attempt('lockedaway', 'wrong')
    const lockedWrong = await attempt('lockedaway', 'wrong')
    const lockedRight = await attempt('lockedaway', 'secret12')
    for (const res of [unknown, wrong, lockedWrong, lockedRight]) {
      expect(res.status).toBe(400)
      expect(res.msg).toBe(REFUSED)
    }
    expect((await attempt('nosuchname', 'wrong', 'zh_CN')).msg).toBe((await attempt('lockedaway', 'wrong', 'zh_CN')).msg)
    // Staff reading the log still see why.
    const log = await t.app.services.db.selectFrom('sysLoginLog').select('msg').where('userName', '=', 'lockedaway').orderBy('infoId', 'desc').executeTakeFirstOrThrow()
    expect(log.msg).toMatch(/locked/)
  })

  it('counts parallel guesses before checking them: 24 wrong and 1 right at once get no more than 5 checks, and the account locks', async () => {
    await addUser(t, { userName: 'flooded1', password: 'secret12' })
    const login = signInFrom()
    const attempts = Array.from({ length: 25 }, (_, i) => login({ username: 'flooded1', password: i === 24 ? 'secret12' : `wrong${i}` }))
    const answers = await Promise.all(attempts)
    const db = t.app.services.db
    const logs = await db.selectFrom('sysLoginLog').select('msg').where('userName', '=', 'flooded1').execute()
    const checked = logs.filter((l) => !/locked/.test(l.msg))
    expect(checked.length).toBeLessThanOrEqual(5)
    expect(answers.filter((a) => a.code === 200).length).toBeLessThanOrEqual(1)
    const user = await db.selectFrom('sysUser').select('lockedUntil').where('userName', '=', 'flooded1').executeTakeFirstOrThrow()
    expect(user.lockedUntil).not.toBeNull()
    expect((await login({ username: 'flooded1', password: 'secret12' })).status).toBe(400)
  })

  it('takes both numbers from the configuration keys', async () => {
    const db = t.app.services.db
    await db.updateTable('sysConfig').set({ configValue: '2' }).where('configKey', '=', 'sys.account.maxRetryCount').execute()
    await db.updateTable('sysConfig').set({ configValue: '3' }).where('configKey', '=', 'sys.account.lockTime').execute()
    try {
      await addUser(t, { userName: 'clumsy2', password: 'secret12' })
      const login = signInFrom()
      const attempt = (password: string) => login({ username: 'clumsy2', password })
      const first = await attempt('wrong')
      expect(first.msg).toMatch(/after 2 wrong attempts an account is locked for 3 minutes/)
      await attempt('wrong')
      expect((await attempt('secret12')).status).toBe(400)
      expect((await withClockAt(Date.now() + 2 * 60_000, () => attempt('secret12'))).status).toBe(400)
      expect((await withClockAt(Date.now() + 4 * 60_000, () => attempt('secret12'))).code).toBe(200)
    } finally {
      await db.updateTable('sysConfig').set({ configValue: '5' }).where('configKey', '=', 'sys.account.maxRetryCount').execute()
      await db.updateTable('sysConfig').set({ configValue: '10' }).where('configKey', '=', 'sys.account.lockTime').execute()
    }
  })

  it('resets the count after a good sign-in', async () => {
    await addUser(t, { userName: 'clumsy3', password: 'secret12' })
    const login = signInFrom()
    const attempt = (password: string) => login({ username: 'clumsy3', password })
    for (let i = 0; i < 4; i++) await attempt('wrong')
    expect((await attempt('secret12')).code).toBe(200)
    for (let i = 0; i < 4; i++) await attempt('wrong')
    expect((await attempt('secret12')).code).toBe(200)
  })

  it('slows a guesser down at their address: three wrong passwords are free, then each waits twice as long, while the owner elsewhere signs in', async () => {
    await addUser(t, { userName: 'guessed1', password: 'secret12' })
    const login = signInFrom()
    const guesser = nextRemote()
    const owner = nextRemote()
    const guess = () => login({ username: 'guessed1', password: 'wrong' }, guesser)
    for (let i = 0; i < 3; i++) expect((await guess()).status).toBe(400)
    // Each failure from here doubles the wait: 1 s after the third, 2 s after the fourth.
    const held = await guess()
    expect(held.status).toBe(429)
    expect(held.msg).toBe('Too many wrong attempts for this account from here: try again in 1 second')
    // Even the right password waits: the delay is answered before any password is checked.
    expect((await login({ username: 'guessed1', password: 'secret12' }, guesser)).status).toBe(429)
    const ownerIn = await login({ username: 'guessed1', password: 'secret12' }, owner)
    expect(ownerIn.code).toBe(200)
    const later = Date.now() + 1_100
    expect((await withClockAt(later, () => guess())).status).toBe(400)
    const again = await withClockAt(later, () => guess())
    expect(again.status).toBe(429)
    expect(again.msg).toMatch(/in 2 seconds/)
    const log = await t.app.services.db.selectFrom('sysLoginLog').select('msg').where('userName', '=', 'guessed1').where('ipaddr', '=', guesser).orderBy('infoId', 'desc').executeTakeFirstOrThrow()
    expect(log.msg).toBe('Refused without checking the password: too many wrong attempts for this account from this address')
  })

  it('writes every attempt to the login log with user, address, browser, OS, status and message', async () => {
    const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
    await t.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password: 'bad-pass' }, headers: { 'user-agent': ua } })
    await t.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD }, headers: { 'user-agent': ua } })
    await t.app.services.db.updateTable('sysUser').set({ failedLogins: 0 }).where('userName', '=', 'admin').execute()
    const rows = await t.app.services.db.selectFrom('sysLoginLog').selectAll().where('userName', '=', 'admin').orderBy('infoId', 'desc').limit(2).execute()
    const [good, bad] = rows
    expect(good).toMatchObject({ status: '0', browser: 'Chrome 126', os: 'Linux', msg: 'Signed in' })
    expect(bad).toMatchObject({ status: '1', browser: 'Chrome 126', msg: expect.stringMatching(/incorrect/) })
    expect(good!.ipaddr).toMatch(/^127\./)
    expect(Date.parse(good!.loginTime)).toBeGreaterThan(Date.now() - 60_000)
  })
})
