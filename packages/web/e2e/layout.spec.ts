import { expect, test, type Page } from '@playwright/test'
import { openSignedIn } from './support/session'
import { saveScreen } from './support/screens'
import { openFromSidebar } from './support/menu'
import { clickRowAction } from './support/rows'

const cookie = async (page: Page, name: string) => (await page.context().cookies()).find((c) => c.name === name)?.value

test('the dashboard and the navbar items', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await expect(page).toHaveTitle('Home - Velo Admin')
  await expect(page.getByTestId('dashboard')).toContainText('User engagement')
  await saveScreen(page, 'dashboard')

  // Documentation and source links are the operator's (SOURCE_URL, API_DOCS_URL): none by default.
  expect((await (await page.request.get('/api/common/features')).json()).data).not.toHaveProperty('sourceUrl')
  await expect(page.getByTestId('size-select')).toBeVisible()
  await expect(page.getByTestId('api-docs-link')).toHaveCount(0)
  await expect(page.getByTestId('source-link')).toHaveCount(0)

  // Fullscreen: either it toggles, or the browser says it cannot.
  await page.getByTestId('fullscreen-toggle').click()
  const entered = await page.waitForFunction(() => document.fullscreenElement !== null, null, { timeout: 3000 }).then(
    () => true,
    () => false,
  )
  if (entered) {
    await page.getByTestId('fullscreen-toggle').click()
    await page.waitForFunction(() => document.fullscreenElement === null)
  } else {
    await expect(page.locator('.ant-message-warning')).toContainText('you browser can not work')
  }

  // Nickname → personal centre.
  await page.getByTestId('navbar-nickname').click()
  await expect(page).toHaveURL(/\/user\/profile$/)
  await expect(page.getByTestId('profile-page')).toContainText('admin')

  // Avatar menu: Home, Profile, Layout setting (Logout is covered in auth.spec).
  await page.getByTestId('avatar-menu').click()
  // The sidebar has a Home item too: the avatar menu's.
  await page.locator('.ant-dropdown:visible').getByRole('menuitem', { name: 'Home' }).click()
  await expect(page).toHaveURL(/\/dashboard$/)
  await page.getByTestId('avatar-menu').click()
  await page.getByRole('menuitem', { name: 'Profile' }).click()
  await expect(page).toHaveURL(/\/user\/profile$/)
  await saveScreen(page, 'profile')
  await page.getByTestId('avatar-menu').click()
  await page.getByRole('menuitem', { name: 'Layout setting' }).click()
  await expect(page.locator('.ant-drawer-title')).toHaveText('Page style setting')
})

test('the size selector stores the size and says so', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  expect(await cookie(page, 'size')).toBeUndefined()
  await page.getByTestId('size-select').click()
  await page.getByRole('menuitem', { name: 'Small' }).click()
  await expect(page.locator('.ant-message-success')).toContainText('Switch Size Success')
  expect(await cookie(page, 'size')).toBe('small')
  await expect(page).toHaveURL(/\/dashboard$/) // refreshed through /redirect and back
  await page.reload()
  await page.getByTestId('size-select').click()
  await expect(page.getByRole('menuitem', { name: 'Small' })).toHaveAttribute('aria-disabled', 'true')
  await page.getByRole('menuitem', { name: 'Medium' }).click()
  expect(await cookie(page, 'size')).toBe('medium')
})

test('collapsing the sidebar is remembered in the sidebarStatus cookie', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  const sidebar = page.getByTestId('sidebar')
  await expect(sidebar).toHaveCSS('width', '190px')
  await expect(sidebar).toHaveCSS('background-color', 'rgb(48, 65, 86)') // #304156
  // Active item in #409eff, others in #bfcbd9.
  await expect(sidebar.locator('.ant-menu-item-selected')).toHaveCSS('color', 'rgb(64, 158, 255)')
  await expect(sidebar.locator('.ant-menu-submenu-title').first()).toHaveCSS('color', 'rgb(191, 203, 217)')

  await page.getByTestId('hamburger').click()
  await expect(sidebar).toHaveCSS('width', '54px')
  expect(await cookie(page, 'sidebarStatus')).toBe('0')
  await page.reload()
  await expect(page.getByTestId('sidebar')).toHaveCSS('width', '54px')
  await page.getByTestId('hamburger').click()
  await expect(page.getByTestId('sidebar')).toHaveCSS('width', '190px')
  expect(await cookie(page, 'sidebarStatus')).toBe('1')
})

test('under 992 px the sidebar becomes a drawer that closes on the overlay and on navigation', async ({ page, baseURL }) => {
  await page.setViewportSize({ width: 800, height: 900 })
  await openSignedIn(page, baseURL!)
  const wrapper = page.getByTestId('app-wrapper')
  await expect(wrapper).toHaveClass(/mobile/)
  await expect(wrapper).toHaveClass(/hideSidebar/)
  await expect(page.getByTestId('sidebar')).not.toBeInViewport()

  await page.getByTestId('hamburger').click()
  await expect(page.getByTestId('sidebar')).toBeInViewport()
  await saveScreen(page, 'mobile-sidebar')
  await page.getByTestId('sidebar-overlay').click({ position: { x: 700, y: 400 } })
  await expect(wrapper).toHaveClass(/hideSidebar/)

  await page.getByTestId('hamburger').click()
  await openFromSidebar(page, 'System', 'Dictionaries', /\/system\/dict$/)
  await expect(wrapper).toHaveClass(/hideSidebar/)

  await page.setViewportSize({ width: 1300, height: 900 })
  await expect(wrapper).not.toHaveClass(/mobile/)
})

test('breadcrumb: dashboard first, folders as text, links where there is somewhere to go', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  const crumbs = page.getByTestId('breadcrumb')
  await expect(crumbs.locator('li')).toHaveCount(1)
  await expect(crumbs).toHaveText('Home')
  await expect(crumbs.locator('a')).toHaveCount(0)

  await openFromSidebar(page, 'System', 'Dictionaries', /\/system\/dict$/)
  await expect(crumbs.locator('li:not(.ant-breadcrumb-separator)')).toHaveText(['Home', 'System', 'Dictionaries'])
  await expect(crumbs.locator('a')).toHaveText(['Home'])
  await saveScreen(page, 'breadcrumb')
  await crumbs.getByRole('link', { name: 'Home' }).click()
  await expect(page).toHaveURL(/\/dashboard$/)
})

test('menu search finds a page by title and opens it', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await page.getByTestId('menu-search-toggle').click()
  const box = page.getByTestId('menu-search').getByRole('combobox')
  await expect(page.getByTestId('menu-search')).toContainText('Search menu')
  await box.fill('dictonaries') // a typo still matches
  await expect(page.locator('.ant-select-item-option').first()).toHaveText('System > Dictionaries')
  await saveScreen(page, 'menu-search')
  await box.press('Enter')
  await expect(page).toHaveURL(/\/system\/dict$/)
})

test('settings drawer: the theme colour applies everywhere and is kept; click outside closes', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  const activeTag = page.locator('.tags-view-item.active')
  await expect(activeTag).toHaveCSS('background-color', 'rgb(24, 144, 255)') // #1890ff

  await page.getByTestId('avatar-menu').click()
  await page.getByRole('menuitem', { name: 'Layout setting' }).click()
  const drawer = page.locator('.ant-drawer-section')
  await expect(drawer).toContainText('Page style setting')
  await page.getByTestId('setting-themeColor').click()
  // The sixth preset is #f5222d.
  await page.locator('.ant-color-picker-presets-color').nth(5).click()
  await expect(activeTag).toHaveCSS('background-color', 'rgb(245, 34, 45)')
  // antd components follow too: the drawer's checked switches.
  await expect(drawer.locator('.ant-switch-checked').first()).toHaveCSS('background-color', 'rgb(245, 34, 45)')
  await saveScreen(page, 'settings-drawer')

  await page.keyboard.press('Escape') // close the colour popup
  await page.mouse.click(200, 450) // outside the drawer
  await expect(drawer).toBeHidden()
  await page.reload()
  await expect(page.locator('.tags-view-item.active')).toHaveCSS('background-color', 'rgb(245, 34, 45)')

  // Dark mode, then back; the navbar's gear opens the drawer too (nothing floats over the page).
  await page.getByTestId('settings-button').click()
  await expect(drawer).toContainText('Tags view')
  await expect(drawer).toContainText('Fixed header')
  await expect(drawer).toContainText('Sidebar logo')
  await page.getByTestId('setting-darkMode').click()
  await expect(page.getByTestId('navbar')).toHaveCSS('background-color', 'rgb(20, 20, 20)')
  await page.getByTestId('setting-darkMode').click()
  await expect(page.getByTestId('navbar')).toHaveCSS('background-color', 'rgb(255, 255, 255)')
  // Sidebar logo and fixed header.
  await page.getByTestId('setting-sidebarLogo').click()
  await expect(page.locator('.sidebar-logo')).toHaveCount(0)
  await page.getByTestId('setting-sidebarLogo').click()
  await expect(page.locator('.sidebar-logo')).toBeVisible()
  await expect(page.getByTestId('header')).toHaveCSS('position', 'sticky')
  await page.getByTestId('setting-fixedHeader').click()
  await expect(page.getByTestId('header')).toHaveCSS('position', 'static')
  await page.getByTestId('setting-fixedHeader').click()
  // Tags view off and on.
  await page.getByTestId('setting-tagsView').click()
  await expect(page.getByTestId('tags-view')).toHaveCount(0)
  await page.getByTestId('setting-tagsView').click()
  await expect(page.getByTestId('tags-view')).toBeVisible()
  await page.evaluate(() => localStorage.removeItem('velo.layoutSettings'))
})

/** Starts noting the CSS animations that run from now on (antd's zoom, fade, slide keyframes), by name without the theme's hash. */
async function recordMotion(page: Page) {
  await page.evaluate(() => {
    const seen = new Set<string>()
    ;(window as unknown as { motionSeen: Set<string> }).motionSeen = seen
    // Fired for every animation that runs, even one a busy page starts and ends between two frames.
    document.addEventListener('animationstart', (e) => seen.add(e.animationName.replace(/^css-[\w-]+?-(?=ant)/, '')), true)
  })
}
const motionSeen = (page: Page) => page.evaluate(() => [...(window as unknown as { motionSeen: Set<string> }).motionSeen])

test('with less motion asked of the system, a dialog opens without zooming in; with motion, it zooms', async ({ page, baseURL }) => {
  // The config asks for reduced motion, as staff may: the dialog is there at once.
  await openSignedIn(page, baseURL!, '/system/config')
  const firstRow = page.getByTestId('crud-table').locator('tbody tr.ant-table-row').first()
  await expect(firstRow).toBeVisible()
  const openDelete = async () => {
    await clickRowAction(firstRow, 'row-delete')
    await expect(page.locator('.ant-modal-confirm')).toBeVisible()
  }
  const transitions = () => page.evaluate(() => getComputedStyle(document.querySelector('.ant-btn')!).transitionDuration)
  await expect.poll(transitions).toMatch(/^0s(, 0s)*$/)
  await recordMotion(page)
  await openDelete()
  expect(await motionSeen(page)).toEqual([])
  await page.locator('.ant-modal-confirm').getByRole('button', { name: 'Cancel' }).click()
  await expect(page.locator('.ant-modal-confirm')).toHaveCount(0)

  // The setting changed while the page is open: the next dialog animates, without a reload. The
  // theme takes the change at its next render: its buttons' transitions (motion durations, 0 s
  // without motion) say when, and a dialog opened before then would rightly not zoom.
  await page.emulateMedia({ reducedMotion: 'no-preference' })
  await expect.poll(transitions).not.toMatch(/^0s(, 0s)*$/)
  await recordMotion(page)
  await openDelete()
  await expect.poll(() => motionSeen(page)).toContain('antZoomIn')
  await page.locator('.ant-modal-confirm').getByRole('button', { name: 'Cancel' }).click()
  await expect(page.locator('.ant-modal-confirm')).toHaveCount(0)
})

test('language switch to Chinese and back', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await page.getByTestId('navbar').getByTestId('language-select').click()
  await page.getByRole('menuitem', { name: '中文' }).click()
  await expect(page.getByTestId('sidebar')).toContainText('系统管理')
  await expect(page).toHaveTitle('首页 - Velo Admin')
  expect(await page.evaluate(() => localStorage.getItem('user_lang'))).toBe('zh_CN')
  await page.getByTestId('menu-search-toggle').click()
  await expect(page.getByTestId('menu-search')).toContainText('搜索菜单')
  await page.keyboard.press('Escape')
  await page.getByTestId('avatar-menu').click()
  await expect(page.getByRole('menuitem', { name: '布局设置' })).toBeVisible()
  await page.getByRole('menuitem', { name: '布局设置' }).click()
  await expect(page.locator('.ant-drawer-title')).toHaveText('系统布局配置')
  await expect(page.locator('.ant-drawer-section')).toContainText('显示标签栏')
  await expect(page.locator('.ant-drawer-section')).toContainText('固定头部')
  await saveScreen(page, 'chinese')
  await page.keyboard.press('Escape')

  await page.getByTestId('navbar').getByTestId('language-select').click()
  await page.getByRole('menuitem', { name: 'English' }).click()
  await expect(page.getByTestId('sidebar')).toContainText('System')
  await expect(page).toHaveTitle('Home - Velo Admin')
})
