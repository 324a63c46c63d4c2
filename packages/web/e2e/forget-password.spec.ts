import { expect, test } from '@playwright/test'
import { newestMailTo } from './support/mail'
import { apiLogin, call, createUserWithoutMenus } from './support/session'

test('a forgotten password is reset with the mailed code, and the new one signs in', async ({ page, request }) => {
  const user = await createUserWithoutMenus(request)
  const email = `${user.username}@example.com`
  const own = await apiLogin(request, user)
  await call(request, 'PUT', '/system/user/profile', own, { nickName: user.username, email, phone: '+31201234567', sex: '2' })

  await page.goto('/login')
  await page.getByText('Forgot password?').click()
  await expect(page).toHaveURL(/\/forgetPassword$/)
  await page.getByPlaceholder('Email of your account').fill(email)
  await page.getByRole('button', { name: 'Send reset code' }).click()
  await expect(page.getByText(`Enter the code sent to ${email}`)).toBeVisible()

  // With no SMTP configured the mail is a file in MAIL_DIR; the outbox keeps only a masked copy.
  const code = /\b(\d{6})\b/.exec(await newestMailTo(email))![1]!
  const outbox = await call<{ rows: { body: string }[] }>(request, 'POST', '/monitor/outbox/list', await apiLogin(request), { mailTo: email })
  expect(outbox.rows[0]!.body).not.toContain(code)

  await page.getByPlaceholder('Reset code').fill(code)
  await page.getByPlaceholder('New password').fill('fresh-pass1')
  await page.getByPlaceholder('Confirm password').fill('fresh-pass1')
  await page.getByRole('button', { name: 'Reset password' }).click()
  await expect(page.getByTestId('auth-toast-success').filter({ hasText: 'Password reset' })).toBeVisible()
  await expect(page).toHaveURL(/\/login$/)

  await page.goto('/login')
  await page.getByPlaceholder('Username').fill(user.username)
  await page.getByPlaceholder('Password').fill('fresh-pass1')
  await page.getByTestId('login-submit').click()
  // No menus for this user: signed in, the no-access dialog greets them.
  await expect(page.getByRole('dialog')).toBeVisible()
})
