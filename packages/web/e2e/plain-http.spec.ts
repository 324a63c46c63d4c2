import { expect, type Page, test } from '@playwright/test'
import { LAUNCH_OPTIONS } from '../playwright.config'
import { apiLogin, TOKEN_COOKIE } from './support/session'

// Chromium trusts localhost and 127.0.0.0/8 as if they were https, which hid a blank console for
// anyone opening the server by its network address over plain HTTP. A made-up name resolved to
// loopback looks like such an address to the browser while the traffic stays on this machine
// (no proxy, so nothing else resolves it).
const LAN_HOST = 'velo-lan.test'

test.use({
  launchOptions: { ...LAUNCH_OPTIONS, args: [...LAUNCH_OPTIONS.args, `--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1`, '--no-proxy-server'] },
})

/** The page at `path` as someone on the network opens it, with the requests that failed on the way. */
async function openOverLan(page: Page, baseURL: string | undefined, path: string): Promise<string[]> {
  const lan = new URL(path, baseURL)
  lan.hostname = LAN_HOST
  const failed: string[] = []
  page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`))
  await page.goto(lan.href)
  return failed
}

test('the console opened by a network address over plain HTTP shows the sign-in page', async ({ page, baseURL }) => {
  const failed = await openOverLan(page, baseURL, '/login')
  await expect(page.getByPlaceholder('Password')).toBeVisible()
  await expect(page).toHaveTitle('Sign in - Velo Admin')
  expect(new URL(page.url()).protocol).toBe('http:')
  expect(failed).toEqual([])
})

test('the API documentation opened the same way renders', async ({ page, baseURL }) => {
  // For signed-in staff only: the console's session cookie on that address, as signing in there leaves it.
  const lan = new URL(baseURL!)
  lan.hostname = LAN_HOST
  await page.context().addCookies([{ name: TOKEN_COOKIE, value: await apiLogin(page.request), url: lan.origin }])
  const failed = await openOverLan(page, baseURL, '/api/docs')
  await expect(page.locator('.swagger-ui .info .title')).toContainText('Velo Admin API')
  expect(failed).toEqual([])
})
