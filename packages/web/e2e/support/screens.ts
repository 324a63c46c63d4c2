import type { Page } from '@playwright/test'

/** Saves a screenshot of a main screen under e2e/screenshots/ (gitignored) for review. */
export async function saveScreen(page: Page, name: string): Promise<void> {
  // Let antd's open/close animations (dialogs, drawers, messages) settle first.
  await page.waitForTimeout(500)
  await page.screenshot({ path: `e2e/screenshots/${name}.png` })
}
