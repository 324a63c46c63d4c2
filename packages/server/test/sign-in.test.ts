import type { AccountFeatures, CaptchaResult, RouteNode, UserInfo } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ADMIN_PASSWORD, createTestApp, type TestApp } from './harness'

/** What POST /login answers: the token, and the session too when asked for it (withSession). */
type SignedIn = { token: string; userInfo?: UserInfo; routes?: RouteNode[] }

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ CAPTCHA_ENABLED: 'true' })
})
afterAll(() => t.close())

async function solveCaptcha(): Promise<{ uuid: string; code: string }> {
  const res = await t.call<CaptchaResult>({ url: '/api/common/captcha' })
  // The answer is only on the server; tests read it where the server keeps it.
  const code = await t.app.services.captchas.store.get(`captcha:${res.data.uuid}`)
  return { uuid: res.data.uuid!, code: code! }
}

describe('captcha', () => {
  it('answers an svg data url and a uuid', async () => {
    const res = await t.call<CaptchaResult>({ url: '/api/common/captcha' })
    expect(res.code).toBe(200)
    expect(res.data.captchaEnabled).toBe(true)
    expect(res.data.img).toMatch(/^data:image\/svg\+xml;base64,/)
    expect(Buffer.from(res.data.img!.split(',')[1]!, 'base64').toString()).toContain('<svg')
    expect(res.data.uuid).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('signs in with the right code and refuses the same code a second time', async () => {
    const captcha = await solveCaptcha()
    const first = await t.call<SignedIn>({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD, ...captcha } })
    expect(first.code).toBe(200)
    expect(first.data.token).toBeTruthy()
    const again = await t.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD, ...captcha } })
    expect(again.status).toBe(400)
    expect(again.msg).toMatch(/expired/)
  })

  it('refuses a wrong code, and the captcha is used up by the wrong try', async () => {
    const captcha = await solveCaptcha()
    const wrong = await t.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD, uuid: captcha.uuid, code: 'nope' } })
    expect(wrong.status).toBe(400)
    expect(wrong.msg).toBe('The verification code is wrong')
    const right = await t.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD, ...captcha } })
    expect(right.status).toBe(400)
  })

  it('refuses a missing code and says so in Chinese when asked', async () => {
    const res = await t.call({ method: 'POST', url: '/api/login', lang: 'zh_CN', body: { username: 'admin', password: ADMIN_PASSWORD } })
    expect(res.status).toBe(400)
    expect(res.msg).toBe('请输入验证码')
  })

  it('expires after two minutes', async () => {
    const captcha = await solveCaptcha()
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(Date.now() + 121_000)
      const res = await t.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD, ...captcha } })
      expect(res.status).toBe(400)
      expect(res.msg).toMatch(/expired/)
    } finally {
      vi.useRealTimers()
    }
  })

  it('is switched off by the config key when CAPTCHA_ENABLED is not set', async () => {
    const byKey = await createTestApp({ CAPTCHA_ENABLED: '' })
    try {
      expect((await byKey.call<CaptchaResult>({ url: '/api/common/captcha' })).data.captchaEnabled).toBe(true)
      await byKey.app.services.db.updateTable('sysConfig').set({ configValue: 'false' }).where('configKey', '=', 'sys.account.captchaEnabled').execute()
      expect((await byKey.call({ url: '/api/common/captcha' })).data).toEqual({ captchaEnabled: false })
      expect((await byKey.call<AccountFeatures>({ url: '/api/common/features' })).data.captchaEnabled).toBe(false)
      await byKey.login()
    } finally {
      await byKey.close()
    }
  })

  it('is kept on by CAPTCHA_ENABLED=true whatever the key says', async () => {
    await t.app.services.db.updateTable('sysConfig').set({ configValue: 'false' }).where('configKey', '=', 'sys.account.captchaEnabled').execute()
    expect((await t.call<CaptchaResult>({ url: '/api/common/captcha' })).data.captchaEnabled).toBe(true)
    await t.app.services.db.updateTable('sysConfig').set({ configValue: 'true' }).where('configKey', '=', 'sys.account.captchaEnabled').execute()
  })
})

describe('a sign-in that asks for its session (the console, one round trip before its first page)', () => {
  it('answers with the token the user and routes GET /getUserInfo and /getRouters give that token; unasked, the token alone', async () => {
    const asked = await t.call<Required<SignedIn>>({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD, ...(await solveCaptcha()), withSession: true } })
    expect(asked.code).toBe(200)
    const token = asked.data.token
    expect(asked.data.userInfo.user.username).toBe('admin')
    expect(asked.data.userInfo).toEqual((await t.call<UserInfo>({ url: '/api/getUserInfo', token })).data)
    expect(asked.data.routes.length).toBeGreaterThan(0)
    expect(asked.data.routes).toEqual((await t.call<RouteNode[]>({ url: '/api/getRouters', token })).data)
    const plain = await t.call<SignedIn>({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD, ...(await solveCaptcha()) } })
    expect(Object.keys(plain.data)).toEqual(['token'])
  })

  it('a refused sign-in answers nothing of the account, asked or not', async () => {
    const wrong = await t.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password: 'not-the-password', ...(await solveCaptcha()), withSession: true } })
    expect(wrong.status).toBeGreaterThanOrEqual(400)
    expect(wrong.data ?? null).toBeNull()
    const odd = await t.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD, ...(await solveCaptcha()), withSession: 'yes' } })
    expect(odd.status).toBe(400)
  })
})
