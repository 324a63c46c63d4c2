import { expect, type Page } from '@playwright/test'

/** Opens a page through the sidebar: its area, then its item; the address becomes the page's. */
export async function openFromSidebar(page: Page, area: string, item: string, url: RegExp): Promise<void> {
  const sidebar = page.getByTestId('sidebar')
  await sidebar.locator('.ant-menu-submenu-title').filter({ hasText: new RegExp(`^${area}$`) }).click()
  await sidebar.locator('.ant-menu-item').filter({ hasText: new RegExp(`^${item}$`) }).click()
  await expect(page).toHaveURL(url)
}
