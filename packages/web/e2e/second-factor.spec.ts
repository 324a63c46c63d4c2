import { createHash } from 'node:crypto'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import Database from 'better-sqlite3'
import { generateSync } from 'otplib'
import { ADMIN, apiLogin, call, createUserWithoutMenus, useToken } from './support/session'
import { clickRowAction } from './support/rows'
import { databaseFile } from './support/server'

// Staff identity (issue 40) in the browser: the sign-in's second step, the enrolment a role requires,
// and the second proof a dangerous action asks for. Codes come from the same library the server uses.

const rows = (page: Page, entity: string) => page.getByTestId(`entity-list-${entity}`).getByTestId('crud-table').locator('tbody tr.ant-table-row')
const database = () => new Database(databaseFile(), { fileMustExist: true })
/** A code of the app a step (30 s) ahead: the step now may have been used by the enrolment. */
const codeOf = (secret: string, stepsAhead = 1) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * stepsAhead })

/** Adds an authenticator app to the user through their own session, as the profile page does. */
async function enrol(request: APIRequestContext, token: string): Promise<string> {
  const { secret } = await call<{ secret: string }>(request, 'POST', '/system/user/profile/totp/start', token)
  await call(request, 'POST', '/system/user/profile/totp/confirm', token, { code: generateSync({ secret }) })
  return secret
}

async function signInWithForm(page: Page, username: string, password: string) {
  await page.goto('/login')
  await page.getByPlaceholder('Username').fill(username)
  await page.getByPlaceholder('Password').fill(password)
  await page.getByTestId('login-submit').click()
}

test('a user with an authenticator app signs in with its code after the password; a wrong code is refused', async ({ page, request }) => {
  const user = await createUserWithoutMenus(request)
  const { token } = await call<{ token: string }>(request, 'POST', '/login', undefined, { ...user, code: '', uuid: '' })
  const secret = await enrol(request, token)

  await signInWithForm(page, user.username, user.password)
  await expect(page.getByTestId('second-factor-form')).toBeVisible()
  await expect(page.getByText('Two-factor sign-in')).toBeVisible()
  await page.getByTestId('second-factor-code').fill('000000')
  await page.getByTestId('second-factor-submit').click()
  await expect(page.getByTestId('auth-toast-error').last()).toContainText('The code is wrong, or it has been used already')
  await page.getByTestId('second-factor-code').fill(codeOf(secret))
  await page.getByTestId('second-factor-submit').click()
  await expect(page.getByTestId('navbar')).toBeVisible()
})

test('a role that requires a second factor leads its user to set one up at sign-in, then shows the recovery codes once', async ({ page, request }) => {
  const admin = await apiLogin(request)
  const user = await createUserWithoutMenus(request)
  // Short names: the roles list, which later specs measure, stays as narrow as the demo's.
  const suffix = user.username.slice(-4)
  const role = await call<{ roleId: number }>(request, 'POST', '/system/role', admin, { roleName: `2FA ${suffix}`, roleKey: `mfa${suffix}`, roleSort: 9, dataScope: '5', status: '0', menuIds: [], secondFactor: 'always' })
  const found = await call<{ rows: { userId: number }[] }>(request, 'POST', '/system/user/list', admin, { pageNum: 1, pageSize: 10, userName: user.username })
  await call(request, 'PUT', '/system/user', admin, { userId: found.rows[0]!.userId, roleIds: [role.roleId] })
  // Its grace period is over.
  const db = database()
  try {
    db.prepare('update sys_user set second_factor_due = ? where user_name = ?').run('2000-01-01T00:00:00.000Z', user.username)
  } finally {
    db.close()
  }

  await signInWithForm(page, user.username, user.password)
  await expect(page.getByTestId('enrol-form')).toBeVisible()
  await expect(page.getByText('Set up two-factor sign-in')).toBeVisible()
  await expect(page.getByTestId('enrol-qr')).toBeVisible()
  const secret = (await page.getByTestId('enrol-secret').innerText()).replace(/\s/g, '')
  await page.getByTestId('enrol-code').fill(generateSync({ secret }))
  await page.getByTestId('enrol-submit').click()
  await expect(page.getByTestId('recovery-codes')).toBeVisible()
  await expect(page.getByTestId('recovery-codes').locator('li')).toHaveCount(10)
  await page.getByTestId('recovery-codes-continue').click()
  await expect(page.getByTestId('navbar')).toBeVisible()
})

test('resetting a password asks the admin for their password again, then goes through', async ({ page, baseURL, request }) => {
  const target = await createUserWithoutMenus(request)
  // A session of its own: the specs' shared one keeps its proof.
  const { token } = await call<{ token: string }>(request, 'POST', '/login', undefined, { ...ADMIN, code: '', uuid: '' })
  const db = database()
  try {
    db.prepare('delete from sys_cache where cache_key = ?').run(`proof:${createHash('sha256').update(token).digest('hex')}`)
  } finally {
    db.close()
  }
  await useToken(page.context(), baseURL!, token)
  await page.goto(`/system/user?userName=${target.username}`)
  const row = rows(page, 'user').filter({ hasText: target.username })
  await clickRowAction(row, 'row-reset-password')
  await page.getByTestId('reset-password-form').getByLabel('New password').fill('changed123')
  await page.getByTestId('reset-password-form').getByLabel('Confirm password').fill('changed123')
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click()

  const ask = page.getByRole('dialog').filter({ hasText: 'Confirm it is you' })
  await expect(ask).toBeVisible()
  await expect(ask).toContainText('This action asks for your password again.')
  await ask.getByTestId('step-up-input').fill('not-the-password')
  await ask.getByTestId('step-up-confirm').click()
  await expect(page.locator('.ant-message-error')).toContainText('The code, the passkey or the password was not accepted')
  await ask.getByTestId('step-up-input').fill(ADMIN.password)
  await ask.getByTestId('step-up-confirm').click()
  await expect(ask).toBeHidden()
  await expect(page.locator('.ant-message-success')).toBeVisible()
  // The new password works.
  const { token: theirs } = await call<{ token: string }>(request, 'POST', '/login', undefined, { username: target.username, password: 'changed123', code: '', uuid: '' })
  expect(theirs).toBeTruthy()
})
