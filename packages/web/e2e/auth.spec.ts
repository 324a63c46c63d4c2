import { expect, test } from '@playwright/test'
import { ADMIN, apiLogin, createUserWithoutMenus, openSignedIn, setRegistration, TOKEN_COOKIE, useToken } from './support/session'
import { saveScreen } from './support/screens'

test('without a token a page sends you to sign in, and signing in lands on that page', async ({ page }) => {
  await page.goto('/system/dict?status=0')
  await expect(page).toHaveURL(/\/login\?redirect=%2Fsystem%2Fdict%3Fstatus%3D0$/)
  await expect(page).toHaveTitle('Sign in - Velo Admin')
  await saveScreen(page, 'login')

  await page.getByPlaceholder('Username').fill(`  ${ADMIN.username} `) // trimmed before sending
  await page.getByPlaceholder('Password').fill(ADMIN.password)
  await page.getByTestId('login-submit').click()

  await expect(page).toHaveURL(/\/system\/dict\?status=0$/)
  await expect(page).toHaveTitle('Dictionaries - Velo Admin')
  // No page module: the generic list of the dictionary definition.
  await expect(page.getByTestId('entity-list-dictType')).toBeVisible()
  const cookies = await page.context().cookies()
  expect(cookies.find((c) => c.name === TOKEN_COOKIE)?.value).toBeTruthy()
})

test('a wrong password shows the server message', async ({ page }) => {
  await page.goto('/login')
  await page.getByPlaceholder('Username').fill(ADMIN.username)
  await page.getByPlaceholder('Password').fill('not-the-password')
  await page.getByTestId('login-submit').click()
  await expect(page.getByTestId('auth-toast-error')).toContainText(/password is incorrect/i)
  await expect(page).toHaveURL(/\/login$/)
  // A good sign-in afterwards resets the failure count.
  await apiLogin(page.request)
})

test('remember me keeps the username', async ({ page }) => {
  await page.goto('/login')
  await page.getByPlaceholder('Username').fill(ADMIN.username)
  await page.getByPlaceholder('Password').fill(ADMIN.password)
  await page.getByText('Remember me').click()
  await page.getByTestId('login-submit').click()
  await expect(page).toHaveURL(/\/dashboard$/)
  await page.evaluate(() => document.cookie.split(';').forEach((c) => (document.cookie = `${c.split('=')[0]}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`)))
  await page.goto('/login')
  await expect(page.getByPlaceholder('Username')).toHaveValue(ADMIN.username)
})

test('a signed-in user opening /login goes to the dashboard', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await page.goto('/login')
  await expect(page).toHaveURL(/\/dashboard$/)
  await expect(page.getByTestId('dashboard')).toBeVisible()
})

test('logout ends the session and offers to come back to the page', async ({ page, baseURL }) => {
  const token = await openSignedIn(page, baseURL!, '/user/profile')
  await page.getByTestId('avatar-menu').click()
  await page.getByRole('menuitem', { name: 'Logout' }).click()
  await expect(page).toHaveURL(/\/login\?redirect=%2Fuser%2Fprofile$/)
  const cookies = await page.context().cookies()
  expect(cookies.find((c) => c.name === TOKEN_COOKIE)).toBeUndefined()
  // The server forgot the token too.
  const info = await page.request.get('/api/getUserInfo', { headers: { Authorization: token } })
  expect((await info.json()).code).toBe(50008)
})

test('an ended session offers Confirm logout: cancel stays, Re-Login signs in again', async ({ page, baseURL, context }) => {
  // The dashboard's data and the shell's jobs badge are answered with the valid token, so the dialog
  // below is the one the click on the name brings, not one a late first request raised (the badge
  // may ask before the dashboard's cards do, now that the page's code comes earlier).
  const answered = (path: string) => page.waitForResponse((r) => new URL(r.url()).pathname === path)
  const firstRequests = Promise.all([answered('/api/monitor/job/list'), answered('/api/analytics/home')])
  await openSignedIn(page, baseURL!)
  await firstRequests
  // The server no longer knows this token (as after an expiry or a sign-out elsewhere).
  await useToken(context, baseURL!, 'expired-token')
  await page.getByTestId('navbar-nickname').click()

  const dialog = page.locator('.ant-modal-confirm')
  await expect(dialog).toContainText('Confirm logout')
  await expect(dialog).toContainText('You have been logged out, you can cancel to stay on this page, or log in again')
  await expect(page.locator('.ant-modal-confirm')).toHaveCount(1)
  await saveScreen(page, 'confirm-logout')
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(dialog).toBeHidden()
  await expect(page).toHaveURL(/\/user\/profile$/)

  await expect(page.getByTestId('navbar')).toBeVisible()

  await page.reload()
  // On reload the guard's user-info call fails: local logout, the dialog, and the sign-in page.
  await expect(page).toHaveURL(/\/login\?redirect=/)
  await page.locator('.ant-modal-confirm').getByRole('button', { name: 'Re-Login' }).click()
  await expect(page).toHaveURL(/\/login/)
  await expect(page.getByTestId('login-form')).toBeVisible()
})

test('a user without menus gets the no-access dialog', async ({ page }) => {
  const user = await createUserWithoutMenus(page.request)
  await page.goto('/login')
  await page.getByPlaceholder('Username').fill(user.username)
  await page.getByPlaceholder('Password').fill(user.password)
  await page.getByTestId('login-submit').click()

  const dialog = page.locator('.ant-modal-confirm')
  await expect(dialog).toContainText('System Prompt')
  await expect(dialog).toContainText('You have no access rights yet')
  await saveScreen(page, 'no-access')
  await dialog.getByRole('button', { name: 'Re-Login' }).click()
  await expect(page).toHaveURL(/\/login/)
  await expect(page.getByTestId('login-form')).toBeVisible()
})

test('register and forgot-password pages follow the server switches', async ({ page }) => {
  await page.goto('/register')
  await expect(page).toHaveURL(/\/login$/) // registration is off by default
  await expect(page.getByRole('link', { name: 'Register now' })).toHaveCount(0)

  await setRegistration(page.request, true)
  try {
    await page.goto('/login')
    await page.getByRole('link', { name: 'Register now' }).click()
    await expect(page).toHaveURL(/\/register$/)
    await expect(page.getByRole('heading', { name: 'Create an account' })).toBeVisible()
    const username = `reg${Date.now() % 1_000_000}`
    await page.getByPlaceholder('Username').fill(username)
    await page.getByPlaceholder('Password', { exact: true }).fill('secret123')
    await page.getByPlaceholder('Confirm password').fill('secret123')
    await page.getByRole('button', { name: 'Register' }).click()
    await expect(page.getByTestId('auth-toast-success')).toContainText(username)
    await expect(page).toHaveURL(/\/login$/)
  } finally {
    await setRegistration(page.request, false)
  }

  await page.getByRole('link', { name: 'Forgot password?' }).click()
  await expect(page).toHaveURL(/\/forgetPassword$/)
  await expect(page.getByRole('heading', { name: 'Reset password' })).toBeVisible()
  await expect(page.getByRole('button', { name: 'Send reset code' })).toBeVisible()
})

test('a reload right after signing in keeps the session', async ({ page }) => {
  // The page's session requests are cancelled by the reload: that must not be read as a sign-out.
  for (const waitMs of [0, 10, 30, 60, 100, 150]) {
    await page.context().clearCookies()
    await page.goto('/login?redirect=%2Fsystem%2Fuser')
    await page.getByPlaceholder('Username').fill(ADMIN.username)
    await page.getByPlaceholder('Password').fill(ADMIN.password)
    await page.getByTestId('login-submit').click()
    await expect(page).toHaveURL(/\/system\/user$/)
    await page.waitForTimeout(waitMs)
    await page.reload()
    await expect(page, `reloaded ${waitMs} ms after the sign-in`).toHaveURL(/\/system\/user$/)
    await expect(page.getByTestId('entity-list-user')).toBeVisible()
  }
})
