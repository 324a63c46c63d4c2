import type { Page } from '@playwright/test'
import { fileURLToPath } from 'node:url'

/** Saves a screenshot of a main screen under e2e/screenshots/ (gitignored) for review. */
export async function saveScreen(page: Page, name: string): Promise<void> {
  // The specs run with reduced motion, so nothing zooms in; this lets a list that an action refreshed settle.
  await page.waitForTimeout(500)
  await page.screenshot({ path: fileURLToPath(new URL(`../screenshots/${name}.png`, import.meta.url)) })
}
