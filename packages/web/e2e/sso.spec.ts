import { type ChildProcess, spawn } from 'node:child_process'
import type { Server } from 'node:http'
import { createServer } from 'node:http'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from '@playwright/test'
import Provider from 'oidc-provider'

// Single sign-on in the browser, through a real OpenID provider (oidc-provider, started here) and a
// server of its own started with the OIDC_* configuration: the sign-in page's button, the provider's
// sign-in and consent pages, and back into the console.

const SERVER_PORT = Number(process.env.E2E_SSO_PORT ?? 39410)
const PROVIDER_PORT = SERVER_PORT + 1
const ORIGIN = `http://localhost:${SERVER_PORT}`
const ISSUER = `http://127.0.0.1:${PROVIDER_PORT}`

let provider: Server | undefined
let server: ChildProcess | undefined

test.beforeAll(async () => {
  test.setTimeout(90_000)
  const oidc = new Provider(ISSUER, {
    clients: [{ client_id: 'velo-e2e', client_secret: 'e2e-client-secret-0123456789', redirect_uris: [`${ORIGIN}/api/auth/oidc/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub, email: `${sub}@velo.example`, email_verified: true, name: 'Sso Person', preferred_username: sub }) }),
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['e2e-sso-cookie-key'] },
  })
  provider = createServer(oidc.callback())
  await new Promise<void>((done) => provider!.listen(PROVIDER_PORT, '127.0.0.1', done))

  const web = resolve(dirname(fileURLToPath(import.meta.url)), '..')
  server = spawn(process.execPath, ['e2e/support/start-server.mjs'], {
    cwd: web,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      E2E_PORT: String(SERVER_PORT),
      E2E_MQTT_PORT: String(SERVER_PORT + 2),
      // No demo data: this server only signs people in.
      E2E_CAPTCHA: 'true',
      OIDC_ISSUER: ISSUER,
      OIDC_CLIENT_ID: 'velo-e2e',
      OIDC_CLIENT_SECRET: 'e2e-client-secret-0123456789',
      OIDC_NAME: 'Velo ID',
    },
  })
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${ORIGIN}/api/common/features`)).ok) break
    } catch {
      // not listening yet
    }
    if (i > 300) throw new Error('the single sign-on server did not start')
    await new Promise((r) => setTimeout(r, 100))
  }
})

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r))
    server.kill('SIGTERM')
    await exited
  }
  await new Promise((r) => (provider ? provider.close(r) : r(null)))
})

test('a staff member signs in with the identity provider, and lands in the console at the page they asked for', async ({ page }) => {
  await page.goto(`${ORIGIN}/login?redirect=%2Fuser%2Fprofile`)
  const button = page.getByTestId('login-sso')
  await expect(button).toHaveText('Sign in with Velo ID')
  await button.click()

  // The provider's own pages (oidc-provider's development sign-in and consent).
  await expect(page).toHaveURL(new RegExp(`^${ISSUER}/interaction/`))
  await page.locator('input[name=login]').fill('ssoperson')
  await page.locator('input[name=password]').fill('any-password')
  await page.locator('button[type=submit]').click()
  await page.locator('button[type=submit]').click()

  await expect(page.getByTestId('navbar')).toBeVisible()
  await expect(page).toHaveURL(`${ORIGIN}/user/profile`)
  // The one-time code is spent and gone from the history's address.
  expect(page.url()).not.toContain('sso=')
})
