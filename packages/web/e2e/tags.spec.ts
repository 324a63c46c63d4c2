import { expect, test, type Page } from '@playwright/test'
import { openSignedIn } from './support/session'
import { saveScreen } from './support/screens'

const tabs = (page: Page) => page.getByTestId('tags-view').locator('.tags-view-item')
const tab = (page: Page, name: string) => tabs(page).filter({ hasText: name })

async function openFromMenu(page: Page, folder: string, item: string) {
  const sidebar = page.getByTestId('sidebar')
  const entry = sidebar.getByRole('menuitem').filter({ has: page.getByText(item, { exact: true }) })
  if (!(await entry.isVisible())) await sidebar.getByText(folder, { exact: true }).click()
  await entry.click()
  await expect(tab(page, item)).toHaveClass(/active/)
}

async function contextMenu(page: Page, name: string, action: string) {
  await tab(page, name).click({ button: 'right' })
  await page.locator('.ant-dropdown:visible').getByRole('menuitem', { name: action, exact: true }).click()
}

test('tabs open per page, keep their state, and survive a reload', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await expect(tabs(page)).toHaveText(['Home'])

  await page.getByTestId('navbar-nickname').click()
  // A navigation commits once its page has loaded; a menu click before that would replace it.
  await expect(tab(page, 'Personal Center')).toHaveClass(/active/)
  await openFromMenu(page, 'System', 'Dictionaries')
  await openFromMenu(page, 'System', 'Roles')
  await openFromMenu(page, 'System', 'Dictionaries') // same path: no second tab
  await expect(tabs(page)).toHaveText(['Home', 'Personal Center', 'Dictionaries', 'Roles'])
  await expect(tab(page, 'Dictionaries')).toHaveClass(/active/)

  // A cached page keeps unsaved input when you come back to its tab.
  await tab(page, 'Personal Center').click()
  const nick = page.getByTestId('profile-form').getByLabel('Nickname')
  await nick.fill('Draft nickname')
  await tab(page, 'Roles').click()
  await expect(page.getByTestId('profile-form')).toBeHidden()
  await tab(page, 'Personal Center').click()
  await expect(nick).toHaveValue('Draft nickname')
  await saveScreen(page, 'tags-view')

  // ...and its scroll position (on a short window, where the page scrolls).
  await page.setViewportSize({ width: 1400, height: 420 })
  const scroller = page.locator('.main-container')
  await scroller.evaluate((el) => el.scrollTo(0, 150))
  await expect.poll(() => scroller.evaluate((el) => el.scrollTop)).toBe(150)
  await tab(page, 'Roles').click()
  await expect.poll(() => scroller.evaluate((el) => el.scrollTop)).toBe(0)
  await tab(page, 'Personal Center').click()
  await expect.poll(() => scroller.evaluate((el) => el.scrollTop)).toBe(150)
  await page.setViewportSize({ width: 1400, height: 900 })

  // Refresh drops the kept state.
  await contextMenu(page, 'Personal Center', 'Refresh')
  await expect(page).toHaveURL(/\/user\/profile$/)
  await expect(page.getByTestId('profile-form').getByLabel('Nickname')).toHaveValue('Administrator')

  await page.reload()
  await expect(tabs(page)).toHaveText(['Home', 'Personal Center', 'Dictionaries', 'Roles'])
})

test('close, close others, close all', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await openFromMenu(page, 'System', 'Dictionaries')
  await openFromMenu(page, 'System', 'Roles')
  await openFromMenu(page, 'System', 'Menus')
  await expect(tabs(page)).toHaveText(['Home', 'Dictionaries', 'Roles', 'Menus'])

  // The pinned Home tab has no close button and no Close item.
  await expect(tab(page, 'Home').locator('.tags-view-close')).toHaveCount(0)
  await tab(page, 'Home').click({ button: 'right' })
  await expect(page.locator('.ant-dropdown:visible').getByRole('menuitem', { name: 'Close', exact: true })).toHaveCount(0)
  await page.keyboard.press('Escape')
  await page.mouse.click(700, 500)

  // Closing the active tab goes to the last remaining one.
  await tab(page, 'Menus').locator('.tags-view-close').click()
  await expect(tabs(page)).toHaveText(['Home', 'Dictionaries', 'Roles'])
  await expect(page).toHaveURL(/\/system\/role$/)

  // Closing an inactive tab stays put.
  await contextMenu(page, 'Dictionaries', 'Close')
  await expect(tabs(page)).toHaveText(['Home', 'Roles'])
  await expect(page).toHaveURL(/\/system\/role$/)

  await openFromMenu(page, 'System', 'Dictionaries')
  await openFromMenu(page, 'System', 'Menus')
  await contextMenu(page, 'Dictionaries', 'Close Others')
  await expect(tabs(page)).toHaveText(['Home', 'Dictionaries'])
  await expect(page).toHaveURL(/\/system\/dict$/)

  await contextMenu(page, 'Dictionaries', 'Close All')
  await expect(tabs(page)).toHaveText(['Home'])
  await expect(page).toHaveURL(/\/dashboard$/)
})
