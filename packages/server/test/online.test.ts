import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { addUser, deptId, limitedUser, useTestApp, waitForOperLog } from './harness'

const t = useTestApp()

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0'

async function signInWith(username: string, userAgent: string, password = 'secret12') {
  const res = await t.call<{ token: string }>({ method: 'POST', url: '/api/login', body: { username, password }, headers: { 'user-agent': userAgent } })
  expect(res.code, res.msg).toBe(200)
  return res.data.token
}

interface OnlineRow {
  sessionId: string
  userName: string
  deptName: string
  ipaddr: string
  browser: string
  os: string
  loginTime: string
  lastAccessTime: string
}

// With Redis the store is shared by every test app, now and in earlier runs (whose user ids repeat):
// user names carry this run's mark, and every list filters by them.
const RUN = randomBytes(3).toString('hex')
const named = (base: string) => `${base}${RUN}`
const online = async (body: object, token = t.admin) => {
  const res = await t.call({ method: 'POST', url: '/api/monitor/online/list', token, body })
  expect(res.status, res.msg).toBe(200)
  return res.data as { rows: OnlineRow[]; total: number }
}
const forceLogout = (sessionId: string, token = t.admin) => t.call({ method: 'DELETE', url: `/api/monitor/online/${sessionId}`, token })
const userInfo = (token: string) => t.call({ url: '/api/getUserInfo', token })

describe('POST /monitor/online/list', () => {
  it('shows who is signed in: session id, user, department, address, browser, OS, times; never the token', async () => {
    await addUser(t, { userName: named('onlinea1'), deptId: await deptId(t, 'Sales Europe') })
    const first = await signInWith(named('onlinea1'), CHROME)
    const second = await signInWith(named('onlinea1'), FIREFOX)
    const { rows, total } = await online({ userName: named('onlinea1') })
    expect(total).toBe(2)
    // Newest sign-in first.
    expect(rows.map((r) => r.browser)).toEqual(['Firefox 128', 'Chrome 126'])
    expect(rows[1]).toEqual({
      sessionId: expect.stringMatching(/^[0-9a-f]{32}$/),
      userName: named('onlinea1'),
      deptName: 'Sales Europe',
      ipaddr: expect.stringMatching(/^127\./),
      loginLocation: 'Intranet',
      browser: 'Chrome 126',
      os: 'Linux',
      loginTime: expect.any(String),
      lastAccessTime: expect.any(String),
    })
    expect(Date.parse(rows[0]!.loginTime)).toBeGreaterThan(Date.now() - 60_000)
    expect(rows[0]!.sessionId).not.toBe(rows[1]!.sessionId)
    const text = JSON.stringify(rows)
    expect(text).not.toContain(first)
    expect(text).not.toContain(second)
    expect(text).not.toMatch(/[0-9a-f]{64}/)
  })

  it('filters by user name and address (case-insensitive substrings) and pages', async () => {
    await addUser(t, { userName: `${named('onlineb')}1` })
    await addUser(t, { userName: `${named('onlineb')}2` })
    await signInWith(`${named('onlineb')}1`, CHROME)
    await signInWith(`${named('onlineb')}2`, CHROME)
    await signInWith(`${named('onlineb')}2`, CHROME)
    expect((await online({ userName: named('onlineb').toUpperCase() })).total).toBe(3)
    expect((await online({ userName: `${named('onlineb')}1` })).rows.map((r) => r.userName)).toEqual([`${named('onlineb')}1`])
    const ip = (await online({ userName: `${named('onlineb')}1` })).rows[0]!.ipaddr
    expect((await online({ userName: named('onlineb'), ipaddr: ip })).total).toBe(3)
    expect((await online({ userName: named('onlineb'), ipaddr: '10.99.99.99' })).total).toBe(0)
    const page = await online({ userName: named('onlineb'), pageNum: 2, pageSize: 2 })
    expect(page).toMatchObject({ total: 3, rows: [{ userName: `${named('onlineb')}1` }] })
  })

  it('leaves out ended sessions and users who are disabled', async () => {
    const id = await addUser(t, { userName: named('onlinec1') })
    const gone = await signInWith(named('onlinec1'), CHROME)
    await t.call({ method: 'POST', url: '/api/logout', token: gone })
    expect((await online({ userName: named('onlinec1') })).total).toBe(0)
    await signInWith(named('onlinec1'), CHROME)
    expect((await online({ userName: named('onlinec1') })).total).toBe(1)
    await t.app.services.db.updateTable('sysUser').set({ status: '1' }).where('userId', '=', id).execute()
    expect((await online({ userName: named('onlinec1') })).total).toBe(0)
  })

  it('refuses unknown filters', async () => {
    const res = await t.call({ method: 'POST', url: '/api/monitor/online/list', token: t.admin, body: { token: 'x' } })
    expect(res.status).toBe(400)
  })
})

describe('DELETE /monitor/online/{sessionId}', () => {
  it('ends that session only: its next call answers 50008, saying an administrator signed it out', async () => {
    await addUser(t, { userName: named('onlined1') })
    const kicked = await signInWith(named('onlined1'), CHROME)
    const kept = await signInWith(named('onlined1'), FIREFOX)
    const target = (await online({ userName: named('onlined1') })).rows.find((r) => r.browser === 'Chrome 126')!
    const res = await forceLogout(target.sessionId)
    expect(res.status, res.msg).toBe(200)
    expect(res.msg).toBe('Session ended')

    const next = await userInfo(kicked)
    expect(next.status).toBe(401)
    expect(next.code).toBe(50008)
    expect(next.msg).toBe('An administrator has signed you out, please sign in again')
    expect((await t.call({ url: '/api/getUserInfo', token: kicked, lang: 'zh_CN' })).msg).toBe('您已被管理员强制退出，请重新登录')
    expect((await userInfo(kept)).code).toBe(200)
    expect((await online({ userName: named('onlined1') })).rows.map((r) => r.browser)).toEqual(['Firefox 128'])
    // It is in the operation log as a force logout.
    const log = await waitForOperLog(t, (r) => r.operUrl === `/api/monitor/online/${target.sessionId}`)
    expect(log).toMatchObject({ businessType: '7', status: '0', operName: 'admin' })
  })

  it('answers 404 for a session that is not live, and 400 for a malformed id', async () => {
    await addUser(t, { userName: named('onlinee1') })
    await signInWith(named('onlinee1'), CHROME)
    const { sessionId } = (await online({ userName: named('onlinee1') })).rows[0]!
    expect((await forceLogout(sessionId)).status).toBe(200)
    expect((await forceLogout(sessionId)).status).toBe(404)
    expect((await forceLogout('0'.repeat(32))).status).toBe(404)
    expect((await forceLogout('not-an-id')).status).toBe(400)
  })

  it('can end the caller’s own session', async () => {
    await addUser(t, { userName: named('onlineg1'), roleKeys: ['admin'] })
    const mine = await signInWith(named('onlineg1'), CHROME)
    const { rows } = await online({ userName: named('onlineg1') }, mine)
    expect((await forceLogout(rows[0]!.sessionId, mine)).status).toBe(200)
    expect((await userInfo(mine)).code).toBe(50008)
  })
})

describe('permissions', () => {
  it('a role with the list only sees sessions but cannot end them', async () => {
    const watcher = await limitedUser(t, { userName: named('onlinewatch'), dataScope: '4', dept: 'Sales', perms: ['monitor:online:list'] })
    await addUser(t, { userName: named('onlinef1') })
    const victim = await signInWith(named('onlinef1'), CHROME)
    const { rows } = await online({ userName: named('onlinef1') }, watcher.token)
    expect(rows).toHaveLength(1)
    const res = await forceLogout(rows[0]!.sessionId, watcher.token)
    expect(res.status).toBe(403)
    expect(res.msg).toBe('You have no permission to do this (monitor:online:forceLogout)')
    expect((await userInfo(victim)).code).toBe(200)
  })

  it('a user without the list permission gets 403', async () => {
    const nobody = await limitedUser(t, { userName: named('onlinenone'), dataScope: '5', perms: ['system:dict:list'] })
    expect((await t.call({ method: 'POST', url: '/api/monitor/online/list', token: nobody.token, body: {} })).status).toBe(403)
  })
})
