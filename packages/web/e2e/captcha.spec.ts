import { expect, test } from '@playwright/test'
import { CAPTCHA_PORT } from '../playwright.config'
import { ADMIN } from './support/session'

// Against the second server, whose captcha is on.
test.use({ baseURL: `http://localhost:${CAPTCHA_PORT}` })

test('the captcha image shows, refreshes on click, and a wrong code shows the server message', async ({ page }) => {
  await page.goto('/login')
  const img = page.locator('img.captcha-img')
  await expect(img).toHaveAttribute('src', /^data:image\/svg\+xml;base64,/)
  const first = await img.getAttribute('src')
  await img.click()
  await expect(img).not.toHaveAttribute('src', first!)

  await page.getByPlaceholder('Username').fill(ADMIN.username)
  await page.getByPlaceholder('Password').fill(ADMIN.password)
  const beforeSubmit = await img.getAttribute('src')
  await page.locator('.captcha-row input').fill('999')
  await page.getByTestId('login-submit').click()
  await expect(page.getByTestId('auth-toast-error')).toContainText('The verification code is wrong')
  await expect(page).toHaveURL(/\/login$/)
  // A used captcha is gone on the server: the page fetches a fresh one.
  await expect(img).not.toHaveAttribute('src', beforeSubmit!)
})
