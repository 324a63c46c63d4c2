import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ResultCode, type AccountFeatures, type SignInAnswer, type UserInfo } from '@velo/shared'
import Provider from 'oidc-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config'
import { hashToken } from '../src/platform/auth/session-store'
import { totpCode } from '../src/platform/auth/factors/totp'
import { addRole, addUser, ADMIN_PASSWORD, createTestApp, deptId, idOf, limitedUser, sentMails, type TestApp } from './harness'

// Single sign-on with OpenID Connect (authorization code with PKCE), against a real OpenID provider
// (oidc-provider) started here on 127.0.0.1: the browser's part is played by fetch with a cookie jar
// (the provider's own sign-in and consent forms), the app's by inject.

const CLIENT_ID = 'velo-console'
const CLIENT_SECRET = 'oidc-client-secret-that-must-never-show-8d1f0c5e'
const CALLBACK = 'http://velo.test/api/auth/oidc/callback'

/** The provider's users, by the login typed into its form (the account id). */
interface Account {
  email?: string
  email_verified?: boolean
  name?: string
  preferred_username?: string
  groups?: string[]
}
const accounts = new Map<string, Account>()

let provider: Server
let issuer = ''

/** A port of ours (394xx) the provider can take: two runs of this file at once (SQLite and PostgreSQL) each find their own. */
async function listenInRange(server: Server): Promise<number> {
  for (let tries = 0; tries < 40; tries++) {
    const port = 39400 + Math.floor(Math.random() * 90)
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => resolve(true))
    })
    if (ok) return (server.address() as AddressInfo).port
  }
  throw new Error('no free port in 39400-39489')
}

beforeAll(async () => {
  const { createServer } = await import('node:http')
  const server = createServer()
  const port = await listenInRange(server)
  issuer = `http://127.0.0.1:${port}`
  const oidc = new Provider(issuer, {
    clients: [
      { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [CALLBACK], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' },
      // A public client: PKCE is its only proof.
      { client_id: 'velo-public', redirect_uris: [CALLBACK], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    ],
    // Every client, confidential or not, must send a code challenge.
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'], groups: ['groups'] },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub)
      if (!account) return undefined
      return { accountId: sub, claims: async () => ({ sub, ...account }) }
    },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['sso-test-cookie-key'] },
  })
  server.on('request', oidc.callback())
  provider = server
})

afterAll(async () => {
  await new Promise((resolve) => provider?.close(resolve))
})

const oidcEnv = (more: Record<string, string> = {}) => ({
  OIDC_ISSUER: issuer,
  OIDC_CLIENT_ID: CLIENT_ID,
  OIDC_CLIENT_SECRET: CLIENT_SECRET,
  OIDC_SCOPES: 'openid email profile groups',
  OIDC_NAME: 'Velo ID',
  OIDC_REDIRECT_URL: CALLBACK,
  ...more,
})

let nextAddress = 1
/** Each flow from an address of its own: the per-address limits of sign-in stay out of these tests. */
const fromAddress = () => `10.61.${Math.floor(nextAddress / 250)}.${1 + (nextAddress++ % 250)}`

/** A browser's cookie jar: name=value pairs, sent to the provider on every request. */
class Jar {
  private cookies = new Map<string, string>()
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const at = pair!.indexOf('=')
      const name = pair!.slice(0, at).trim()
      const value = pair!.slice(at + 1).trim()
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }
}

/** The hidden fields and action of the provider's page's form, with the login form filled in. */
function formOf(html: string, base: string, login: string): { action: string; body: URLSearchParams } {
  const form = /<form[^>]*action="([^"]+)"[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/i.exec(html)
  if (!form) throw new Error(`no form on the provider's page: ${html.slice(0, 300)}`)
  const body = new URLSearchParams()
  for (const input of form[2]!.matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]+)"/.exec(input[0])?.[1]
    if (!name) continue
    const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? ''
    body.set(name, name === 'login' ? login : name === 'password' ? 'any-password' : value)
  }
  return { action: new URL(form[1]!.replace(/&amp;/g, '&'), base).href, body }
}

/**
 * The browser at the provider: from the authorization address through its sign-in form (as `login`)
 * and consent to the redirect back to the console's callback, whose path and query it answers.
 */
async function atProvider(authorizationUrl: string, login: string): Promise<string> {
  const jar = new Jar()
  let url = authorizationUrl
  let init: RequestInit = {}
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers ?? {}), cookie: jar.header() } })
    jar.take(res)
    init = {}
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location')!, url).href
      await res.arrayBuffer()
      if (next.startsWith(CALLBACK)) return next.slice('http://velo.test'.length)
      url = next
      continue
    }
    const html = await res.text()
    if (res.status !== 200) throw new Error(`the provider answered ${res.status}: ${html.slice(0, 300)}`)
    const form = formOf(html, url, login)
    url = form.action
    init = { method: 'POST', body: form.body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } }
  }
  throw new Error('too many hops at the provider')
}

/** The console's cookies each browser holds (one browser per address in these tests): the single sign-on's binding. */
const browsers = new Map<string, Map<string, string>>()
const cookieOf = (remoteAddress: string) => [...(browsers.get(remoteAddress) ?? [])].map(([k, v]) => `${k}=${v}`).join('; ')
function keepCookies(remoteAddress: string, setCookie: string | string[] | undefined) {
  const jar = browsers.get(remoteAddress) ?? new Map<string, string>()
  browsers.set(remoteAddress, jar)
  for (const line of [setCookie ?? []].flat()) {
    const [pair] = line.split(';')
    const at = pair!.indexOf('=')
    const value = pair!.slice(at + 1).trim()
    if (/max-age=0/i.test(line) || value === '') jar.delete(pair!.slice(0, at).trim())
    else jar.set(pair!.slice(0, at).trim(), value)
  }
}

/** GET on the app from one address, as the browser navigates (with its cookies): the status and where it is sent. */
async function navigate(t: TestApp, url: string, remoteAddress: string) {
  const res = await t.app.inject({ method: 'GET', url, remoteAddress, headers: { cookie: cookieOf(remoteAddress) } })
  keepCookies(remoteAddress, res.headers['set-cookie'])
  return { status: res.statusCode, location: String(res.headers.location ?? ''), body: res.body }
}

/** The sign-in page's query, as the callback sent the browser there. */
const pageQuery = (location: string) => {
  expect(location).toMatch(/^\/login\?/)
  return new URL(location, 'http://velo.test').searchParams
}

/** The browser's part up to the sign-in page: start, the provider, the callback; the sign-in page's query. */
async function reachSignInPage(t: TestApp, login: string, o: { start?: string; remoteAddress?: string } = {}) {
  const remoteAddress = o.remoteAddress ?? fromAddress()
  const started = await navigate(t, o.start ?? '/api/auth/oidc/start', remoteAddress)
  expect(started.status, started.body).toBe(302)
  expect(started.location.startsWith(`${issuer}/`), started.location).toBe(true)
  const callback = await atProvider(started.location, login)
  const back = await navigate(t, callback, remoteAddress)
  expect(back.status, back.body).toBe(302)
  return { query: pageQuery(back.location), callback, remoteAddress }
}

/** POST /login/sso with the page's code, as the sign-in page does (from the browser at that address, with its cookies). */
async function trade(t: TestApp, code: string, remoteAddress = fromAddress()) {
  const res = await t.app.inject({ method: 'POST', url: '/api/login/sso', payload: { code, withSession: true }, remoteAddress, headers: { cookie: cookieOf(remoteAddress) } })
  keepCookies(remoteAddress, res.headers['set-cookie'])
  const body = res.json() as { code: number; msg: string; data: SignInAnswer }
  return { status: res.statusCode, ...body }
}

/** A whole single sign-on as `login`: the answer of POST /login/sso. */
async function ssoSignIn(t: TestApp, login: string) {
  const { query, remoteAddress } = await reachSignInPage(t, login)
  const code = query.get('sso')
  expect(code, `ssoError=${query.get('ssoError')}`).toBeTruthy()
  return trade(t, code!, remoteAddress)
}

const lastLoginLog = async (t: TestApp) => t.app.services.db.selectFrom('sysLoginLog').selectAll().orderBy('infoId', 'desc').executeTakeFirstOrThrow()
const userByEmail = (t: TestApp, email: string) =>
  t.app.services.db
    .selectFrom('sysUser')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .execute()
const roleKeysOf = async (t: TestApp, userId: number) =>
  (await t.app.services.db.selectFrom('sysUserRole as ur').innerJoin('sysRole as r', 'r.roleId', 'ur.roleId').select('r.roleKey').where('ur.userId', '=', userId).execute()).map((r) => r.roleKey).sort()
async function setConfig(t: TestApp, key: string, value: string) {
  await t.app.services.db.updateTable('sysConfig').set({ configValue: value }).where('configKey', '=', key).execute()
}

describe('single sign-on against a real OpenID provider', () => {
  let t: TestApp
  /** Every line the app logged. */
  const logLines: string[] = []
  beforeAll(async () => {
    // Logged at trace level, request lines included.
    t = await createTestApp(oidcEnv({ LOG_LEVEL: 'trace' }), { logger: { level: 'trace', stream: { write: (line: string) => logLines.push(line) } } })
  })
  afterAll(() => t?.close())

  it('is offered on the sign-in page by name, without the provider’s addresses or client', async () => {
    const features = await t.call<AccountFeatures>({ url: '/api/common/features' })
    expect(features.data.sso).toEqual({ name: 'Velo ID', passwordSignIn: true })
    expect(JSON.stringify(features.data)).not.toContain(issuer)
    expect(JSON.stringify(features.data)).not.toContain(CLIENT_ID)
  })

  it('creates the account at the first sign-in, in the configured department and role, and signs it in', async () => {
    const sales = await deptId(t, 'Sales')
    await setConfig(t, 'sys.sso.newUserDeptId', String(sales))
    await setConfig(t, 'sys.sso.newUserRoleKey', 'common')
    accounts.set('alice', { email: 'Alice.Smith@velo.example', email_verified: true, name: 'Alice Smith', preferred_username: 'alice.smith' })

    const answer = await ssoSignIn(t, 'alice')
    expect(answer.status, answer.msg).toBe(200)
    expect(answer.data.token).toBeTruthy()
    expect(answer.data.userInfo?.user.username).toBe('alicesmith')
    expect(answer.data.routes?.length).toBeGreaterThan(0)

    const [user, ...more] = await userByEmail(t, 'alice.smith@velo.example')
    expect(more).toEqual([])
    expect(user).toMatchObject({ userName: 'alicesmith', nickName: 'Alice Smith', email: 'Alice.Smith@velo.example', deptId: sales, status: '0', createBy: 'sso' })
    expect(await roleKeysOf(t, user!.userId)).toEqual(['common'])

    const info = await t.call<UserInfo>({ url: '/api/getUserInfo', token: answer.data.token })
    expect(info.status).toBe(200)
    expect(info.data.user.username).toBe('alicesmith')
    expect(info.data.roles).toEqual(['common'])
    expect((await lastLoginLog(t)).msg).toBe('Signed in with single sign-on (Velo ID)')
    // The account made is on record, with who it is.
    const made = await t.app.services.db.selectFrom('sysOperLog').selectAll().where('title', '=', 'Single sign-on').where('operName', '=', 'alicesmith').executeTakeFirstOrThrow()
    expect(made.businessType).toBe('1')
    expect(made.operParam).toContain('alice.smith@velo.example'.replace('alice.smith', 'Alice.Smith'))
  })

  it('matches the account by e-mail at the next sign-in, whatever its case, and makes no second one', async () => {
    accounts.set('alice2', { email: 'ALICE.SMITH@VELO.EXAMPLE', email_verified: true, name: 'Alice', preferred_username: 'asmith' })
    const answer = await ssoSignIn(t, 'alice2')
    expect(answer.status, answer.msg).toBe(200)
    expect(answer.data.userInfo?.user.username).toBe('alicesmith')
    expect(await userByEmail(t, 'alice.smith@velo.example')).toHaveLength(1)
  })

  it('signs in an existing account made by hand, and gives a new one a free user name', async () => {
    await addUser(t, { userName: 'bobby', email: 'bob@velo.example' })
    accounts.set('bob', { email: 'bob@velo.example', email_verified: true, preferred_username: 'bobby' })
    expect((await ssoSignIn(t, 'bob')).data.userInfo?.user.username).toBe('bobby')
    // Another person whose provider user name is taken here: bobby2.
    accounts.set('bob-other', { email: 'robert@velo.example', preferred_username: 'bobby' })
    expect((await ssoSignIn(t, 'bob-other')).data.userInfo?.user.username).toBe('bobby2')
    // A name too short for a user name is lengthened: "jo" → "userjo".
    accounts.set('jo', { email: 'jo@velo.example' })
    expect((await ssoSignIn(t, 'jo')).data.userInfo?.user.username).toBe('userjo')
  })

  it('gives the roles the groups map to, takes them back when the groups no longer do, and keeps roles granted by hand', async () => {
    const mappedRole = await addRole(t, { roleKey: 'ssoengineers', dataScope: '5', perms: ['bike:bike:list'] })
    const handRole = await addRole(t, { roleKey: 'ssohand', dataScope: '5', perms: ['bike:bike:query'] })
    const added = await t.call({ method: 'POST', url: '/api/system/ssoGroup', token: await t.login(), body: { groupName: 'engineers', roleId: mappedRole } })
    expect(added.status, added.msg).toBe(200)

    accounts.set('carol', { email: 'carol@velo.example', email_verified: true, groups: ['engineers', 'unmapped-group'] })
    const first = await ssoSignIn(t, 'carol')
    expect(first.status, first.msg).toBe(200)
    const userId = first.data.userInfo!.user.userId
    expect(await roleKeysOf(t, userId)).toEqual(['common', 'ssoengineers'])
    expect(first.data.userInfo!.permissions).toContain('bike:bike:list')

    // An administrator grants another role by hand; the next sign-in leaves it.
    await t.app.services.db.insertInto('sysUserRole').values({ userId, roleId: handRole }).execute()
    accounts.set('carol', { email: 'carol@velo.example', email_verified: true, groups: ['engineers'] })
    await ssoSignIn(t, 'carol')
    expect(await roleKeysOf(t, userId)).toEqual(['common', 'ssoengineers', 'ssohand'])

    // Out of the group: the mapped role goes, the roles given otherwise (the default one, by hand) stay.
    accounts.set('carol', { email: 'carol@velo.example', email_verified: true, groups: ['sales'] })
    const after = await ssoSignIn(t, 'carol')
    expect(await roleKeysOf(t, userId)).toEqual(['common', 'ssohand'])
    expect(after.data.userInfo!.permissions).not.toContain('bike:bike:list')
    const change = await t.app.services.db.selectFrom('sysOperLog').selectAll().where('title', '=', 'Single sign-on').where('operName', '=', first.data.userInfo!.user.username).orderBy('operId', 'desc').executeTakeFirstOrThrow()
    expect(change.businessType).toBe('4')
    expect(JSON.parse(change.operParam).rolesRemoved).toEqual(['ssoengineers'])

    // A role a group maps to that the user already held by hand is not the mapping's to take back.
    await t.call({ method: 'POST', url: '/api/system/ssoGroup', token: await t.login(), body: { groupName: 'sales', roleId: handRole } })
    await ssoSignIn(t, 'carol')
    accounts.set('carol', { email: 'carol@velo.example', email_verified: true, groups: [] })
    await ssoSignIn(t, 'carol')
    expect(await roleKeysOf(t, userId)).toEqual(['common', 'ssohand'])

    // A provider that sends no groups claim at all changes nothing.
    accounts.set('carol', { email: 'carol@velo.example', email_verified: true, groups: ['engineers'] })
    await ssoSignIn(t, 'carol')
    accounts.set('carol', { email: 'carol@velo.example', email_verified: true })
    await ssoSignIn(t, 'carol')
    expect(await roleKeysOf(t, userId)).toEqual(['common', 'ssoengineers', 'ssohand'])

    // A mapped role cannot be deleted from under its mapping.
    const removal = await t.call({ method: 'DELETE', url: `/api/system/role/${mappedRole}`, token: await t.login() })
    expect(removal.status).toBe(409)
  })

  it('refuses a state that was tampered with, or used already', async () => {
    accounts.set('dave', { email: 'dave@velo.example', email_verified: true })
    const remoteAddress = fromAddress()
    const started = await navigate(t, '/api/auth/oidc/start', remoteAddress)
    const callback = await atProvider(started.location, 'dave')
    const tampered = callback.replace(/state=([^&]+)/, (_all, s: string) => `state=${s.slice(0, -2)}xy`)
    expect(pageQuery((await navigate(t, tampered, remoteAddress)).location).get('ssoError')).toBe('expired')
    const made = await navigate(t, callback, remoteAddress)
    expect(pageQuery(made.location).get('sso')).toBeTruthy()
    // The same answer of the provider again (a replay, the back button): its state is spent.
    const replayed = pageQuery((await navigate(t, callback, remoteAddress)).location)
    expect(replayed.get('sso')).toBeNull()
    expect(replayed.get('ssoError')).toBe('expired')
    expect((await lastLoginLog(t)).msg).toMatch(/^Single sign-on refused: This single sign-on ran out of time or was used already/)
  })

  it('trades the one-time code once', async () => {
    accounts.set('erin', { email: 'erin@velo.example', email_verified: true })
    const { query, remoteAddress } = await reachSignInPage(t, 'erin')
    const code = query.get('sso')!
    expect((await trade(t, code, remoteAddress)).status).toBe(200)
    const again = await trade(t, code, remoteAddress)
    expect(again.status).toBe(400)
    expect(again.msg).toBe('This single sign-on ran out of time or was used already: sign in again')
  })

  it('signs in only the browser that started it: a code or a callback sent to another browser signs nobody in', async () => {
    accounts.set('erin', { email: 'erin@velo.example', email_verified: true })
    // Erin's sign-in page address, sent to someone else's browser (a login CSRF): refused, and the code spent.
    const { query, remoteAddress } = await reachSignInPage(t, 'erin')
    const elsewhere = await trade(t, query.get('sso')!)
    expect(elsewhere.status).toBe(400)
    expect(elsewhere.msg).toBe('This single sign-on was started in another browser: start it again here')
    expect(elsewhere.data).toBeNull()
    expect((await trade(t, query.get('sso')!, remoteAddress)).status).toBe(400)
    expect(await lastLoginLog(t)).toMatchObject({ status: '1' })
    // The provider's answer finished in another browser than the one that started it: back to the sign-in page with no code.
    const started = await navigate(t, '/api/auth/oidc/start', fromAddress())
    const callback = await atProvider(started.location, 'erin')
    const other = pageQuery((await navigate(t, callback, fromAddress())).location)
    expect(other.get('sso')).toBeNull()
    expect(other.get('ssoError')).toBe('expired')
    // The cookie: for the API only, never for scripts.
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/start', remoteAddress: fromAddress() })
    expect(String(res.headers['set-cookie'])).toMatch(/^velo_sso=[\w-]{32}; Path=\/api; Max-Age=600; HttpOnly; SameSite=Lax$/)
  })

  it('refuses a disabled account, a deleted one, an unverified e-mail, no e-mail, and an e-mail two accounts share', async () => {
    await addUser(t, { userName: 'frank', email: 'frank@velo.example', status: '1' })
    accounts.set('frank', { email: 'frank@velo.example', email_verified: true })
    expect((await reachSignInPage(t, 'frank')).query.get('ssoError')).toBe('disabled')
    expect(await lastLoginLog(t)).toMatchObject({ userName: 'frank@velo.example', status: '1' })

    const gone = await addUser(t, { userName: 'gina', email: 'gina@velo.example' })
    await t.app.services.db.updateTable('sysUser').set({ delFlag: '2' }).where('userId', '=', gone).execute()
    accounts.set('gina', { email: 'gina@velo.example', email_verified: true })
    expect((await reachSignInPage(t, 'gina')).query.get('ssoError')).toBe('disabled')
    expect(await userByEmail(t, 'gina@velo.example')).toHaveLength(1)

    accounts.set('hank', { email: 'hank@velo.example', email_verified: false })
    expect((await reachSignInPage(t, 'hank')).query.get('ssoError')).toBe('emailUnverified')
    expect(await userByEmail(t, 'hank@velo.example')).toEqual([])

    accounts.set('ivan', { name: 'Ivan without mail' })
    expect((await reachSignInPage(t, 'ivan')).query.get('ssoError')).toBe('noEmail')

    await addUser(t, { userName: 'jack1', email: 'jack@velo.example' })
    await addUser(t, { userName: 'jack2', email: 'Jack@Velo.example' })
    accounts.set('jack', { email: 'jack@velo.example', email_verified: true })
    expect((await reachSignInPage(t, 'jack')).query.get('ssoError')).toBe('ambiguous')
    expect((await lastLoginLog(t)).msg).toContain('jack1, jack2')
  })

  it('keeps the page to open after signing in, and refuses one outside the console', async () => {
    accounts.set('kate', { email: 'kate@velo.example', email_verified: true })
    const { query } = await reachSignInPage(t, 'kate', { start: `/api/auth/oidc/start?redirect=${encodeURIComponent('/system/user?x=1')}` })
    expect(query.get('redirect')).toBe('/system/user?x=1')
    for (const target of ['https://evil.example/', '//evil.example/', '/\\evil.example', 'evil']) {
      const refused = await navigate(t, `/api/auth/oidc/start?redirect=${encodeURIComponent(target)}`, fromAddress())
      expect(refused.status, target).toBe(400)
    }
  })

  it('asks a user who holds a second factor for it, as a password sign-in does', async () => {
    accounts.set('lena', { email: 'lena@velo.example', email_verified: true })
    const token = (await ssoSignIn(t, 'lena')).data.token!
    const started = await t.call<{ secret: string }>({ method: 'POST', url: '/api/system/user/profile/totp/start', token })
    await t.call({ method: 'POST', url: '/api/system/user/profile/totp/confirm', token, body: { code: totpCode(started.data.secret), name: 'Phone' } })

    const answer = await ssoSignIn(t, 'lena')
    expect(answer.data.token).toBeUndefined()
    expect(answer.data.secondFactor?.ticket).toBeTruthy()
    const step = await t.call<SignInAnswer>({ method: 'POST', url: '/api/login/second-factor', body: { ticket: answer.data.secondFactor!.ticket, code: totpCode(started.data.secret, Date.now() + 30_000) } })
    expect(step.status, step.msg).toBe(200)
    expect(step.data.token).toBeTruthy()
  })

  it('holds mappings to the grant rule: no administrator role, no richer role, and a second proof', async () => {
    const mapper = await limitedUser(t, { userName: 'mapper1', perms: ['system:ssoGroup:list', 'system:ssoGroup:add', 'system:ssoGroup:edit', 'system:ssoGroup:remove'], dataScope: '1' })
    const adminRole = await idOf(t, 'role', 'admin')
    const toAdmin = await t.call({ method: 'POST', url: '/api/system/ssoGroup', token: mapper.token, body: { groupName: 'everyone', roleId: adminRole } })
    expect(toAdmin.status).toBe(403)
    expect(toAdmin.msg).toBe('Only an administrator can grant the administrator role')
    const richer = await addRole(t, { roleKey: 'ssorich', dataScope: '1', perms: ['system:user:remove'] })
    const toRicher = await t.call({ method: 'POST', url: '/api/system/ssoGroup', token: mapper.token, body: { groupName: 'everyone', roleId: richer } })
    expect(toRicher.status).toBe(403)
    expect(toRicher.msg).toBe('You cannot map a group to a role that holds rights you do not have yourself')
    expect(await t.app.services.db.selectFrom('sysSsoGroupRole').selectAll().where('groupName', '=', 'everyone').execute()).toEqual([])

    // Within the mapper's own rights it goes through, after a recent second proof.
    const modest = await addRole(t, { roleKey: 'ssomodest', dataScope: '1', perms: ['system:ssoGroup:list'] })
    await t.app.services.kv.delete(`proof:${hashToken(mapper.token)}`)
    const unproved = await t.call({ method: 'POST', url: '/api/system/ssoGroup', token: mapper.token, body: { groupName: 'everyone', roleId: modest } })
    expect(unproved.status).toBe(401)
    expect(unproved.code).toBe(ResultCode.STEP_UP_REQUIRED)
    const proof = await t.call({ method: 'POST', url: '/api/auth/step-up', token: mapper.token, body: { password: 'secret12' } })
    expect(proof.status, proof.msg).toBe(200)
    const mapped = await t.call<{ mappingId: number }>({ method: 'POST', url: '/api/system/ssoGroup', token: mapper.token, body: { groupName: 'everyone', roleId: modest } })
    expect(mapped.status, mapped.msg).toBe(200)
    // Nor moved onto a richer role afterwards.
    const moved = await t.call({ method: 'PUT', url: '/api/system/ssoGroup', token: mapper.token, body: { mappingId: mapped.data.mappingId, roleId: adminRole } })
    expect(moved.status).toBe(403)

    // A role whose scope follows each member's own department, by someone who does not see every department.
    const narrow = await limitedUser(t, { userName: 'mapper2', perms: ['system:ssoGroup:add', 'bike:bike:list'], dataScope: '5' })
    const byDepartment = await addRole(t, { roleKey: 'ssobydept', dataScope: '4', perms: ['bike:bike:list'] })
    const departmental = await t.call({ method: 'POST', url: '/api/system/ssoGroup', token: narrow.token, body: { groupName: 'sales-eu', roleId: byDepartment } })
    expect(departmental.status).toBe(403)
    expect(departmental.msg).toMatch(/^A role whose data scope follows the user's own department/)

    // The role of new accounts is a grant too.
    const configEditor = await limitedUser(t, { userName: 'configer1', perms: ['system:config:list', 'system:config:edit'], dataScope: '1' })
    const { configId } = await t.app.services.db.selectFrom('sysConfig').select('configId').where('configKey', '=', 'sys.sso.newUserRoleKey').executeTakeFirstOrThrow()
    const toAdminByConfig = await t.call({ method: 'PUT', url: '/api/system/config', token: configEditor.token, body: { configId, configValue: 'admin' } })
    expect(toAdminByConfig.status).toBe(403)
    const unknown = await t.call({ method: 'PUT', url: '/api/system/config', token: await t.login(), body: { configId, configValue: 'nosuchrole' } })
    expect(unknown.status).toBe(400)
  })

  it('never shows the client secret: not in an answer, the configuration, the logs, the SQL tool or the server log', async () => {
    // A code the provider refuses: the token request (which carries the secret) fails, and the failure is logged.
    accounts.set('mike', { email: 'mike@velo.example', email_verified: true })
    const remoteAddress = fromAddress()
    const started = await navigate(t, '/api/auth/oidc/start', remoteAddress)
    const callback = await atProvider(started.location, 'mike')
    const bogus = callback.replace(/code=([^&]+)/, 'code=not-a-code-the-provider-gave')
    expect(pageQuery((await navigate(t, bogus, remoteAddress)).location).get('ssoError')).toBe('failed')
    expect((await lastLoginLog(t)).msg).toMatch(/invalid_grant/)
    expect(logLines.some((l) => l.includes('single sign-on refused') && l.includes('invalid_grant'))).toBe(true)

    const admin = await t.login()
    const answers = [
      await t.call({ url: '/api/common/features' }),
      await t.call({ method: 'POST', url: '/api/system/config/list', token: admin, body: { pageNum: 1, pageSize: 100 } }),
      await t.call({ method: 'POST', url: '/api/system/config/export', token: admin, body: {} }),
      await t.call({ method: 'POST', url: '/api/monitor/logininfor/list', token: admin, body: { pageNum: 1, pageSize: 100 } }),
      await t.call({ method: 'POST', url: '/api/monitor/operlog/list', token: admin, body: { pageNum: 1, pageSize: 100 } }),
      await t.call({ method: 'POST', url: '/api/system/ssoGroup/list', token: admin, body: { pageNum: 1, pageSize: 100 } }),
      await t.call({ method: 'POST', url: '/api/tool/sql/run', token: admin, body: { sql: 'select * from sys_config' } }),
      await t.call({ method: 'POST', url: '/api/tool/sql/run', token: admin, body: { sql: 'select * from sys_login_log' } }),
      await t.call({ method: 'POST', url: '/api/tool/sql/run', token: admin, body: { sql: 'select * from sys_oper_log' } }),
      await t.call({ url: '/api/docs/json', token: admin }),
    ]
    for (const a of answers) {
      expect(a.status, a.msg).toBe(200)
      expect(a.raw.toString('latin1')).not.toContain(CLIENT_SECRET)
    }
    const tables = ['sysConfig', 'sysLoginLog', 'sysOperLog', 'sysCache', 'sysUser'] as const
    for (const table of tables) expect(JSON.stringify(await t.app.services.db.selectFrom(table).selectAll().execute())).not.toContain(CLIENT_SECRET)
    expect(logLines.length).toBeGreaterThan(10)
    expect(logLines.join('\n')).not.toContain(CLIENT_SECRET)
  })
})

describe('single sign-on as a public client (PKCE alone)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp(oidcEnv({ OIDC_CLIENT_ID: 'velo-public', OIDC_CLIENT_SECRET: '' }))
  })
  afterAll(() => t?.close())

  it('signs in without a client secret', async () => {
    accounts.set('pat', { email: 'pat@velo.example', email_verified: true })
    const answer = await ssoSignIn(t, 'pat')
    expect(answer.status, answer.msg).toBe(200)
    expect(answer.data.userInfo?.user.username).toBe('userpat')
  })
})

describe('password sign-in switched off (OIDC_PASSWORD_SIGN_IN=off)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp(oidcEnv({ OIDC_PASSWORD_SIGN_IN: 'off' }))
  })
  afterAll(() => t?.close())

  it('refuses a password to everyone but the break-glass administrator, whatever the password', async () => {
    await addUser(t, { userName: 'staff01', password: 'secret12' })
    const refused = await t.call({ method: 'POST', url: '/api/login', body: { username: 'staff01', password: 'secret12' } })
    expect(refused.status).toBe(403)
    expect(refused.msg).toBe('Signing in with a password is switched off: use single sign-on')
    expect((await t.call({ method: 'POST', url: '/api/login', body: { username: 'staff01', password: 'wrong-one' } })).status).toBe(403)
    expect(await lastLoginLog(t)).toMatchObject({ userName: 'staff01', status: '1' })
    expect((await lastLoginLog(t)).msg).toMatch(/password sign-in is switched off/)

    const admin = await t.call<SignInAnswer>({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD } })
    expect(admin.status, admin.msg).toBe(200)
    expect(admin.data.token).toBeTruthy()
  })

  it('refuses registration, tells the sign-in page, and still signs staff in through the provider', async () => {
    await t.app.services.db.updateTable('sysConfig').set({ configValue: 'true' }).where('configKey', '=', 'sys.account.registerUser').execute()
    const features = await t.call<AccountFeatures>({ url: '/api/common/features' })
    expect(features.data.sso).toEqual({ name: 'Velo ID', passwordSignIn: false })
    expect(features.data.registerEnabled).toBe(false)
    const registered = await t.call({ method: 'POST', url: '/api/register', body: { username: 'newbie1', password: 'secret12', confirmPassword: 'secret12' } })
    expect(registered.status).toBe(403)
    expect(await t.app.services.db.selectFrom('sysUser').select('userId').where('userName', '=', 'newbie1').executeTakeFirst()).toBeUndefined()

    accounts.set('olga', { email: 'olga@velo.example', email_verified: true })
    expect((await ssoSignIn(t, 'olga')).status).toBe(200)
  })

  it('mails a password reset code to the break-glass administrator only, with the same answer for everyone', async () => {
    const staff = await t.call({ method: 'POST', url: '/api/forgetPassword/sendCode', body: { email: 'staff01@example.com' } })
    const admin = await t.call({ method: 'POST', url: '/api/forgetPassword/sendCode', body: { email: 'admin@velo.local' } })
    expect([staff.status, staff.msg]).toEqual([admin.status, admin.msg])
    const deadline = Date.now() + 5000
    while (!sentMails(t).some((m) => m.to.includes('admin@velo.local')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    expect(sentMails(t).map((m) => m.to)).toEqual([expect.stringContaining('admin@velo.local')])
  })
})

describe('an identity provider that cannot be reached', () => {
  let t: TestApp
  beforeAll(async () => {
    // A port of ours nothing listens on.
    t = await createTestApp(oidcEnv({ OIDC_ISSUER: 'http://127.0.0.1:39499' }))
  })
  afterAll(() => t?.close())

  it('sends the browser back to the sign-in page with the reason, and logs it', async () => {
    const started = await navigate(t, '/api/auth/oidc/start', fromAddress())
    expect(started.status).toBe(302)
    expect(pageQuery(started.location).get('ssoError')).toBe('unavailable')
    expect((await lastLoginLog(t)).msg).toMatch(/^Single sign-on refused: The identity provider cannot be reached/)
    // The password sign-in is untouched.
    expect((await t.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD } })).status).toBe(200)
  })
})

describe('without single sign-on configured', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t?.close())

  it('offers and answers nothing of it', async () => {
    expect((await t.call<AccountFeatures>({ url: '/api/common/features' })).data).not.toHaveProperty('sso')
    expect((await navigate(t, '/api/auth/oidc/start', fromAddress())).status).toBe(404)
    expect((await navigate(t, '/api/auth/oidc/callback?state=x&code=y', fromAddress())).status).toBe(404)
    expect((await trade(t, 'a'.repeat(32))).status).toBe(404)
  })

  it('gives a database seeded by version 18 the page, its buttons and the new accounts’ keys (seed version 19)', async () => {
    const db = t.app.services.db
    const page = await db.selectFrom('sysMenu').select('menuId').where('component', '=', 'system/ssoGroup/index').executeTakeFirstOrThrow()
    await db.deleteFrom('sysMenu').where('parentId', '=', page.menuId).execute()
    await db.deleteFrom('sysMenu').where('menuId', '=', page.menuId).execute()
    await db.deleteFrom('sysConfig').where('configKey', 'like', 'sys.sso.%').execute()
    await db.updateTable('sysConfig').set({ configValue: '18' }).where('configKey', '=', 'sys.seed.version').execute()
    const upgraded = await createTestApp({}, { databaseUrl: t.databaseUrl })
    try {
      const db2 = upgraded.app.services.db
      const again = await db2.selectFrom('sysMenu').select(['menuId', 'menuName', 'perms']).where('component', '=', 'system/ssoGroup/index').executeTakeFirstOrThrow()
      expect(again).toMatchObject({ menuName: 'menu.system.ssoGroup', perms: 'system:ssoGroup:list' })
      const buttons = await db2.selectFrom('sysMenu').select('perms').where('parentId', '=', again.menuId).orderBy('orderNum').execute()
      expect(buttons.map((b) => b.perms)).toEqual(['system:ssoGroup:list', 'system:ssoGroup:query', 'system:ssoGroup:add', 'system:ssoGroup:edit', 'system:ssoGroup:remove', 'system:ssoGroup:export'])
      const keys = await db2.selectFrom('sysConfig').select(['configKey', 'configValue']).where('configKey', 'like', 'sys.sso.%').orderBy('configKey').execute()
      expect(keys).toEqual([
        { configKey: 'sys.sso.newUserDeptId', configValue: '0' },
        { configKey: 'sys.sso.newUserRoleKey', configValue: '-' },
      ])
    } finally {
      await upgraded.close()
    }
  })
})

describe('the OIDC_* configuration', () => {
  const base = { DATA_DIR: '/tmp/velo-sso-config' }
  it('needs the issuer and the client together, https (or a provider on this machine), and openid among the scopes', () => {
    expect(() => loadConfig({ ...base, OIDC_ISSUER: 'https://id.example.com/realms/velo' })).toThrow(/OIDC_CLIENT_ID/)
    expect(() => loadConfig({ ...base, OIDC_CLIENT_ID: 'velo' })).toThrow(/OIDC_ISSUER/)
    expect(() => loadConfig({ ...base, OIDC_ISSUER: 'http://id.example.com', OIDC_CLIENT_ID: 'velo' })).toThrow(/https/)
    expect(() => loadConfig({ ...base, OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_ID: 'velo', OIDC_SCOPES: 'email profile' })).toThrow(/openid/)
    expect(() => loadConfig({ ...base, OIDC_PASSWORD_SIGN_IN: 'off' })).toThrow(ConfigError)
    const config = loadConfig({ ...base, OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_ID: 'velo' })
    expect(config.oidc).toMatchObject({ scopes: 'openid email profile', groupsClaim: 'groups', passwordSignIn: true, breakGlassUsers: ['admin'] })
    expect(config.oidc?.name).toBeUndefined()
    expect(loadConfig(base).oidc).toBeUndefined()
  })

  it('does not repeat a bad client secret in its error', () => {
    const secret = `x${'s'.repeat(1100)}`
    expect(() => loadConfig({ ...base, OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_ID: 'velo', OIDC_CLIENT_SECRET: secret })).toThrow(/OIDC_CLIENT_SECRET=\(hidden\)/)
  })
})
