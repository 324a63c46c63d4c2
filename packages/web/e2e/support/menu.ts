import { expect, type Page } from '@playwright/test'

/**
 * Opens a page through the sidebar: its area, then its item, until the address is the page's. A
 * click while the area's submenu still slides open can land beside the item on a busy machine, so
 * the item is clicked again until the page opens (a second click on a menu item is harmless).
 */
export async function openFromSidebar(page: Page, area: string, item: string, url: RegExp): Promise<void> {
  const sidebar = page.getByTestId('sidebar')
  await sidebar.locator('.ant-menu-submenu-title').filter({ hasText: new RegExp(`^${area}$`) }).click()
  await expect(async () => {
    await sidebar.locator('.ant-menu-item').filter({ hasText: new RegExp(`^${item}$`) }).click({ timeout: 2_000 })
    await expect(page).toHaveURL(url, { timeout: 2_000 })
  }).toPass({ timeout: 20_000 })
}
