import { createHash } from 'node:crypto'
import { expect, test, type Page } from '@playwright/test'
import Database from 'better-sqlite3'
import { call, createUserWithoutMenus, TOKEN_COOKIE } from './support/session'
import { databaseFile } from './support/server'

// Passkeys (issue 40) in Chromium, through its virtual authenticator (the DevTools protocol's
// WebAuthn domain): a platform authenticator with a resident key and user verification, as a
// laptop's Windows Hello or Touch ID would be. The server checks its real signatures.

const database = () => new Database(databaseFile(), { fileMustExist: true })

async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  })
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  }
}

async function signOutOfTheBrowser(page: Page) {
  await page.context().clearCookies()
  await page.goto('/login')
  await expect(page.getByTestId('login-form')).toBeVisible()
}

test('a user adds a passkey in the profile, signs in with it alone, uses it as the second step and as a second proof', async ({ page, request }) => {
  const authenticator = await virtualAuthenticator(page)
  const user = await createUserWithoutMenus(request)
  // A user without menus is told so when the console opens; the profile is theirs all the same.
  const noRights = page.getByRole('dialog', { name: 'System Prompt' })
  await page.addLocatorHandler(noRights, async () => noRights.getByRole('button', { name: 'Cancel' }).click())

  // Signed in with the password (no factor yet), the user adds a passkey on the Security tab.
  await page.goto('/login')
  await page.getByPlaceholder('Username').fill(user.username)
  await page.getByPlaceholder('Password').fill(user.password)
  await page.getByTestId('login-submit').click()
  await expect(page.getByTestId('navbar')).toBeVisible()
  await page.goto('/user/profile?tab=security')
  await page.getByTestId('passkey-add').click()
  await expect(page.getByTestId('passkey-add-dialog')).toBeVisible()
  await page.getByTestId('passkey-name').fill('Test laptop')
  await page.getByTestId('passkey-create').click()
  // The first factor brings the recovery codes, shown once.
  await expect(page.getByTestId('recovery-codes-list').locator('li')).toHaveCount(10)
  await page.getByTestId('recovery-codes-done').click()
  await expect(page.getByTestId('factors-table')).toContainText('Test laptop')
  await expect(page.getByTestId('factors-table')).toContainText('Passkey')
  expect(await authenticator.credentials()).toHaveLength(1)

  // Signed out, the passkey alone signs in: no user name, no password.
  await signOutOfTheBrowser(page)
  await page.getByTestId('login-passkey').click()
  await expect(page.getByTestId('navbar')).toBeVisible()

  // With the password, the passkey is the second step.
  await signOutOfTheBrowser(page)
  await page.getByPlaceholder('Username').fill(user.username)
  await page.getByPlaceholder('Password').fill(user.password)
  await page.getByTestId('login-submit').click()
  await expect(page.getByTestId('second-factor-form')).toBeVisible()
  await expect(page.getByText('Confirm with your passkey. Lost it?')).toBeVisible()
  await page.getByTestId('second-factor-passkey').click()
  await expect(page.getByTestId('navbar')).toBeVisible()

  // Removing it is a dangerous action: once the sign-in's proof has run out, the passkey gives another.
  const token = (await page.context().cookies()).find((c) => c.name === TOKEN_COOKIE)!.value
  const db = database()
  try {
    db.prepare('delete from sys_cache where cache_key = ?').run(`proof:${createHash('sha256').update(decodeURIComponent(token)).digest('hex')}`)
  } finally {
    db.close()
  }
  await page.goto('/user/profile?tab=security')
  const factorId = (await call<{ factors: { factorId: number }[] }>(request, 'GET', '/system/user/profile/security', decodeURIComponent(token))).factors[0]!.factorId
  await page.getByTestId(`factor-remove-${factorId}`).click()
  await page.locator('.ant-popconfirm').getByRole('button', { name: 'Remove' }).click()
  await expect(page.getByTestId('step-up-passkey')).toBeVisible()
  await page.getByTestId('step-up-passkey').click()
  await expect(page.getByTestId('factors-table')).toContainText('No second factor yet')
})
