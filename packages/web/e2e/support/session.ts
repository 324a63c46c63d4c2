import { expect, type APIRequestContext, type BrowserContext, type Page } from '@playwright/test'

// Signing in and the accounts the specs need. Everything that depends on server-side admin APIs
// lives here so a change in those APIs touches one file.

export const ADMIN = { username: 'admin', password: 'admin123' }
export const TOKEN_COOKIE = 'Admin-Token#'

interface Envelope<T> {
  code: number
  msg: string
  data: T
}

export async function call<T>(request: APIRequestContext, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, token?: string, data?: unknown): Promise<T> {
  const response = await request.fetch(`/api${path}`, {
    method,
    headers: token ? { Authorization: token } : {},
    data,
  })
  const body = (await response.json()) as Envelope<T>
  expect(body.code, `${method} ${path}: ${body.msg}`).toBe(200)
  return body.data
}

/** The admin's session, shared by the specs while it lives: /login allows 30 calls a minute per address. */
let adminToken: string | undefined

async function isLive(request: APIRequestContext, token: string): Promise<boolean> {
  const response = await request.get('/api/getUserInfo', { headers: { Authorization: token } })
  const body = (await response.json().catch(() => null)) as Envelope<unknown> | null
  return body?.code === 200
}

/** A token for the user; the admin's is reused until a spec ends it (logout, force logout). */
export async function apiLogin(request: APIRequestContext, user = ADMIN): Promise<string> {
  const admin = user.username === ADMIN.username && user.password === ADMIN.password
  if (admin && adminToken && (await isLive(request, adminToken))) return adminToken
  const { token } = await call<{ token: string }>(request, 'POST', '/login', undefined, { ...user, code: '', uuid: '' })
  if (admin) adminToken = token
  return token
}

/** Puts a session cookie in the browser, as the sign-in form would, without using the form. */
export async function useToken(context: BrowserContext, baseURL: string, token: string): Promise<void> {
  await context.addCookies([{ name: TOKEN_COOKIE, value: token, url: baseURL }])
}

/** Signs in as admin through the API and opens `path` in the shell. */
export async function openSignedIn(page: Page, baseURL: string, path = '/dashboard'): Promise<string> {
  const token = await apiLogin(page.request)
  await useToken(page.context(), baseURL, token)
  await page.goto(path)
  await expect(page.getByTestId('navbar')).toBeVisible()
  return token
}

/** Sets a system configuration value (sys_config) through the API, as the configuration page does. */
export async function setConfig(request: APIRequestContext, token: string, key: string, value: string): Promise<void> {
  const page = await call<{ rows: Array<Record<string, unknown>> }>(request, 'POST', '/system/config/list', token, {
    pageNum: 1,
    pageSize: 100,
    configKey: key,
  })
  const row = page.rows.find((r) => r.configKey === key)
  expect(row, `config ${key}`).toBeTruthy()
  await call(request, 'PUT', '/system/config', token, { ...row, configValue: value })
}

/** Turns self-registration on or off (config key sys.account.registerUser). */
export async function setRegistration(request: APIRequestContext, enabled: boolean): Promise<void> {
  await setConfig(request, await apiLogin(request), 'sys.account.registerUser', String(enabled))
}

/**
 * A user with no role, hence no menus: registered through the public endpoint. Returns the
 * credentials to sign in with.
 */
export async function createUserWithoutMenus(request: APIRequestContext): Promise<{ username: string; password: string }> {
  const user = { username: `nomenu${Date.now() % 1_000_000}`, password: 'nomenu123' }
  await setRegistration(request, true)
  await call(request, 'POST', '/register', undefined, { ...user, confirmPassword: user.password, code: '', uuid: '' })
  await setRegistration(request, false)
  return user
}

// ---- IoT -------------------------------------------------------------------------------------

export interface GatewayInfo {
  protocolVersion: number
  embedded: boolean
  port: number | null
  connected: boolean
  devicesOnline: number
}

/** Where simulated devices connect: the embedded broker's port from GET /iot/gateway. */
export async function brokerUrl(request: APIRequestContext, token: string): Promise<string> {
  const gateway = await call<GatewayInfo>(request, 'GET', '/iot/gateway', token)
  expect(gateway.embedded, 'the e2e server runs the embedded broker').toBe(true)
  expect(gateway.port, 'the embedded broker port').toBeTruthy()
  return `mqtt://127.0.0.1:${gateway.port}`
}

/** The demo model seeded at first start (product VELO-4G, SN prefix VL). */
export async function demoModel(request: APIRequestContext, token: string): Promise<{ modelId: number; name: string; snPrefix: string }> {
  const page = await call<{ rows: Array<{ modelId: number; name: string; snPrefix: string; productId: string }> }>(request, 'POST', '/iot/model/list', token, {
    pageNum: 1,
    pageSize: 10,
    productId: 'VELO-4G',
  })
  const model = page.rows.find((m) => m.productId === 'VELO-4G')
  expect(model, 'the demo IoT model').toBeTruthy()
  return model!
}

/** Adds a device as the console's add form does; the answer carries its secret, once. */
export async function addDevice(request: APIRequestContext, token: string, sn: string, modelId: number): Promise<{ deviceId: number; sn: string; secret: string }> {
  const device = await call<{ deviceId: number; sn: string; secret: string }>(request, 'POST', '/iot/device', token, { sn, modelId })
  expect(device.secret, `the secret of ${sn}`).toBeTruthy()
  return device
}

export async function removeDevices(request: APIRequestContext, token: string, ids: number[]): Promise<void> {
  if (ids.length) await call(request, 'DELETE', `/iot/device/${ids.join(',')}`, token)
}
