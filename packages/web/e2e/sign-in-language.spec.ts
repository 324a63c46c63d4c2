import { expect, test } from '@playwright/test'

// The light sign-in page (no antd) keeps the console's language switch and validation messages.
test('the sign-in page switches language and validates in Chinese, with no space in 登录', async ({ page }) => {
  await page.goto('/login')
  await page.getByTestId('language-select').click()
  await page.getByRole('menuitem', { name: '中文' }).click()
  await expect(page.getByPlaceholder('账号')).toBeVisible()
  await expect(page).toHaveTitle('登录 - Velo Admin')
  await expect(page.getByTestId('login-submit')).toHaveText('登录')

  await page.getByTestId('login-submit').click()
  await expect(page.getByText('请输入您的账号')).toBeVisible()
  await expect(page.getByText('请输入您的密码')).toBeVisible()
  await page.getByPlaceholder('账号').fill('admin')
  await expect(page.getByText('请输入您的账号')).toBeHidden()

  await page.getByTestId('language-select').click()
  await expect(page.getByRole('menuitem', { name: '中文' })).toHaveAttribute('aria-disabled', 'true')
  await page.getByRole('menuitem', { name: 'English' }).click()
  await expect(page.getByPlaceholder('Username')).toBeVisible()
  await expect(page.getByTestId('login-submit')).toHaveText('Sign in')
})
