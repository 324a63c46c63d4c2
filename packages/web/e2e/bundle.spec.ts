import { expect, test } from '@playwright/test'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { writeFileSync, mkdirSync } from 'node:fs'

// Budget: the JavaScript a first visit to the sign-in page downloads stays under 350 KB gzip.
const BUDGET_BYTES = 350 * 1024

test('the sign-in page loads under 350 KB of gzipped JavaScript', async ({ page }) => {
  const scripts = new Map<string, number>()
  page.on('response', async (response) => {
    if (response.request().resourceType() !== 'script') return
    const body = await response.body().catch(() => null)
    if (body) scripts.set(new URL(response.url()).pathname, gzipSync(body, { level: 9 }).length)
  })
  await page.goto('/login')
  await expect(page.getByTestId('login-form')).toBeVisible()
  await page.waitForLoadState('networkidle')

  const total = [...scripts.values()].reduce((a, b) => a + b, 0)
  const report = [...scripts].sort((a, b) => b[1] - a[1]).map(([path, size]) => `${(size / 1024).toFixed(1).padStart(7)} KB  ${path}`)
  mkdirSync(fileURLToPath(new URL('./screenshots', import.meta.url)), { recursive: true })
  writeFileSync(fileURLToPath(new URL('./screenshots/login-bundle.txt', import.meta.url)), `${report.join('\n')}\n${(total / 1024).toFixed(1).padStart(7)} KB  total (gzip)\n`)
  console.log(`login page JavaScript: ${(total / 1024).toFixed(1)} KB gzip in ${scripts.size} files`)
  // The shell (layout, menus, tags view) must not be part of it.
  expect([...scripts.keys()].some((p) => /Shell/.test(p))).toBe(false)
  expect(total).toBeLessThan(BUDGET_BYTES)
})
