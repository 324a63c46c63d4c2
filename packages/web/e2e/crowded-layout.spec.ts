import { expect, test, type Locator, type Page } from '@playwright/test'
import { LAUNCH_OPTIONS } from '../playwright.config'
import { apiLogin, call, openSignedIn } from './support/session'
import { saveScreen } from './support/screens'

// A new admin's first hour on a laptop (1440 px) and a small window (900 px), in both languages:
// every column of a list can be scrolled into view beside the fixed Actions column and none is
// squeezed narrower than its content, no floating button covers the table, a row shows at most two
// actions and a More menu, a cut sidebar title reads in full on hover, and Search always reloads.
// The screenshots (e2e/screenshots/layout-<page>-<width>-<lang>.png) are for review; Chromium draws
// its scrollbars here, as a desktop browser does, so a table that scrolls shows it.

test.use({ launchOptions: { ...LAUNCH_OPTIONS, ignoreDefaultArgs: ['--hide-scrollbars'] } })

/** `fits`: the whole table shows without scrolling at 1440 px (the users' table, beside the department tree, scrolls). */
const PAGES = [
  { name: 'operlog', path: '/monitor/operlog', entity: 'operLog', fits: true },
  { name: 'roles', path: '/system/role', entity: 'role', fits: true },
  { name: 'users', path: '/system/user', entity: 'user', fits: false },
] as const
const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 900, height: 800 },
] as const
const LANGUAGES = [
  { lang: 'en_US', short: 'en', more: 'More', roles: 'Roles' },
  { lang: 'zh_CN', short: 'zh', more: '更多', roles: '角色管理' },
] as const

const table = (page: Page, entity: string) => page.getByTestId(`entity-list-${entity}`).getByTestId('crud-table')
const rows = (page: Page, entity: string) => table(page, entity).locator('tbody tr.ant-table-row')

/** Entries in the operation log, whose rows have the widest columns. */
test.beforeAll(async ({ request }) => {
  const token = await apiLogin(request)
  const configs = await call<{ rows: Record<string, unknown>[] }>(request, 'POST', '/system/config/list', token, { pageNum: 1, pageSize: 1 })
  await call(request, 'PUT', '/system/config', token, { configId: configs.rows[0]!.configId, remark: 'touched by crowded-layout.spec' })
})

interface ColumnReach {
  title: string
  /** Whether some scroll position shows the whole header cell between the fixed columns. */
  reachable: boolean
  /** Header or first-row cell narrower than what it holds. */
  squeezed: boolean
}

/**
 * Scrolls each non-fixed header cell into the part of the table that the fixed columns leave free
 * and reports whether it shows whole there, and whether its header or first body cell is narrower
 * than its content.
 */
async function reachColumns(tableLocator: Locator): Promise<ColumnReach[]> {
  return tableLocator.evaluate((root) => {
    const scroller = root.querySelector<HTMLElement>('.ant-table-content, .ant-table-body')!
    const headers = [...root.querySelectorAll<HTMLElement>('thead th')]
    const fixedLeft = headers.filter((th) => th.classList.contains('ant-table-cell-fix-left') || th.classList.contains('ant-table-cell-fix-start'))
    const fixedRight = headers.filter((th) => th.classList.contains('ant-table-cell-fix-right') || th.classList.contains('ant-table-cell-fix-end'))
    const free = headers.filter((th) => !fixedLeft.includes(th) && !fixedRight.includes(th) && !th.classList.contains('ant-table-selection-column'))
    const firstRow = root.querySelector<HTMLElement>('tbody tr.ant-table-row')
    const report = free.map((th) => {
      const box = () => th.getBoundingClientRect()
      const view = scroller.getBoundingClientRect()
      const left = Math.max(view.left, ...fixedLeft.map((f) => f.getBoundingClientRect().right))
      scroller.scrollLeft += box().left - left
      const right = Math.min(view.right, ...fixedRight.map((f) => f.getBoundingClientRect().left))
      const reachable = box().left >= left - 1 && box().right <= right + 1
      const cell = firstRow?.children[headers.indexOf(th)] as HTMLElement | undefined
      // Narrower than its content: it overflows, or a text in it wraps onto a second line.
      const wraps = (el: HTMLElement) => {
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT)
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          if (!node.textContent?.trim()) continue
          const range = document.createRange()
          range.selectNodeContents(node)
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)))
          if (tops.size > 1) return true
        }
        return false
      }
      const squeezed = [th, cell].some((el) => !!el && (el.scrollWidth > el.clientWidth + 1 || wraps(el)))
      return { title: th.textContent ?? '', reachable, squeezed }
    })
    scroller.scrollLeft = 0
    return report
  })
}

/**
 * Nothing floats over the table: no button of a fixed layer (a settings handle) lies over the page's
 * content area, and the points along the table's edges belong to the table.
 */
async function expectNothingOver(tableLocator: Locator) {
  const over = await tableLocator.evaluate((root) => {
    const r = root.getBoundingClientRect()
    const content = document.querySelector('.app-main')!.getBoundingClientRect()
    const isFixed = (el: Element | null): boolean => !!el && el !== document.body && (getComputedStyle(el).position === 'fixed' || isFixed(el.parentElement))
    const buttons = [...document.querySelectorAll('button, [role=button], a')].filter((el) => !root.contains(el) && isFixed(el))
    const floating = buttons
      .filter((el) => {
        const b = el.getBoundingClientRect()
        return b.width > 0 && b.height > 0 && b.left < content.right && content.left < b.right && b.top < content.bottom && content.top < b.bottom
      })
      .map((el) => `${el.tagName}.${el.className} over the page`)
    const points: Array<[number, number]> = []
    const bottom = Math.min(r.bottom, window.innerHeight) - 2
    for (let y = r.top + 2; y < bottom; y += 16) points.push([r.right - 3, y], [r.left + 3, y])
    const covering = points
      .map(([x, y]) => document.elementFromPoint(x, y))
      .filter((el) => el && !root.contains(el))
      .map((el) => `${el!.tagName}.${el!.className} covers the table's edge`)
    return [...new Set([...floating, ...covering])]
  })
  expect(over, 'elements over the table').toEqual([])
}

for (const { lang, short, more } of LANGUAGES) {
  for (const viewport of VIEWPORTS) {
    test(`lists at ${viewport.width} px in ${short}: no hidden column, nothing over the table, at most two row actions and More`, async ({ page, baseURL }) => {
      await page.setViewportSize(viewport)
      await openSignedIn(page, baseURL!)
      await page.evaluate((l) => localStorage.setItem('user_lang', l), lang)
      for (const { name, path, entity, fits } of PAGES) {
        await page.goto(path)
        await rows(page, entity).first().waitFor()
        // The first fetch of the dictionaries and references settles the cells' widths.
        await page.waitForLoadState('networkidle')
        const tableLocator = table(page, entity)
        await saveScreen(page, `layout-${name}-${viewport.width}-${short}`)

        const columns = await reachColumns(tableLocator)
        expect(columns.length).toBeGreaterThan(3)
        expect(columns.filter((c) => !c.reachable).map((c) => c.title), `${name}: columns hidden under a fixed column`).toEqual([])
        expect(columns.filter((c) => c.squeezed).map((c) => c.title), `${name}: columns narrower than their content`).toEqual([])

        await expectNothingOver(tableLocator)
        // The page itself does not scroll sideways: a wide table scrolls inside its own box.
        const page_ = await page.locator('.main-container').evaluate((m) => ({ content: m.scrollWidth, visible: m.clientWidth }))
        expect(page_.content, `${name}: the page is wider than the window`).toBeLessThanOrEqual(page_.visible + 1)

        // The fixed Actions column leaves the table its room, and a laptop shows whole lists.
        const widths = await tableLocator.evaluate((root) => {
          const scroller = root.querySelector<HTMLElement>('.ant-table-content, .ant-table-body')!
          const actions = root.querySelector<HTMLElement>('thead th.ant-table-cell-fix-right, thead th.ant-table-cell-fix-end')
          return { visible: scroller.clientWidth, content: scroller.scrollWidth, actions: actions?.getBoundingClientRect().width ?? 0 }
        })
        expect(widths.actions, `${name}: the Actions column's share of the table`).toBeLessThanOrEqual(widths.visible / 3)
        if (fits && viewport.width >= 1440) expect(widths.content, `${name}: the table fits at ${viewport.width} px`).toBeLessThanOrEqual(widths.visible)

        // Row actions: at most two buttons and More.
        const actionCells = rows(page, entity).locator('td.ant-table-cell-fix-right, td.ant-table-cell-fix-end')
        for (const cell of await actionCells.all()) {
          const controls = await cell.locator('button:visible, a:visible').count()
          expect(controls, `${name}: controls in a row's actions`).toBeLessThanOrEqual(3)
          if (controls === 3) await expect(cell.getByTestId('row-more')).toHaveText(more)
        }
      }
    })
  }
}

test('a cut sidebar title reads in full on hover, open and collapsed', async ({ page, baseURL }) => {
  await page.setViewportSize({ width: 1440, height: 900 })
  await openSignedIn(page, baseURL!, '/system/i18n')
  const sidebar = page.getByTestId('sidebar')
  const title = sidebar.locator('.ant-menu-title-content').filter({ hasText: /^Internationalisation data$/ })
  await expect(title).toBeVisible()
  // It is cut: the text is wider than its place.
  expect(await title.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true)
  await title.hover()
  await expect(page.locator('.ant-tooltip:visible')).toHaveText('Internationalisation data')
  await saveScreen(page, 'layout-sidebar-tooltip')
  await page.mouse.move(800, 500)
  await expect(page.locator('.ant-tooltip:visible')).toHaveCount(0)

  // Collapsed: the folder opens as a popup whose titles read in full (or show a tooltip where cut).
  await page.getByTestId('hamburger').click()
  await expect(sidebar).toHaveCSS('width', '54px')
  await sidebar.locator('.ant-menu-submenu-title').filter({ has: page.locator('[data-icon=setting]') }).first().hover()
  const popupTitle = page.locator('.ant-menu-submenu-popup:visible .ant-menu-title-content').filter({ hasText: /^Internationalisation data$/ })
  await expect(popupTitle).toBeVisible()
  const cut = await popupTitle.evaluate((el) => el.scrollWidth > el.clientWidth)
  if (cut) {
    await popupTitle.hover()
    await expect(page.locator('.ant-tooltip:visible')).toHaveText('Internationalisation data')
  }
  await saveScreen(page, 'layout-sidebar-collapsed')
  await page.getByTestId('hamburger').click()
})

test('Search always reloads the list, from the first page', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!, '/monitor/operlog')
  await rows(page, 'operLog').first().waitFor()
  await page.waitForLoadState('networkidle')
  const lists: string[] = []
  page.on('request', (request) => {
    if (request.url().endsWith('/monitor/operlog/list')) lists.push(request.postData() ?? '')
  })
  const search = page.getByTestId('crud-search-submit')
  await search.click()
  await expect.poll(() => lists.length).toBe(1)
  await search.click()
  await expect.poll(() => lists.length).toBe(2)
  expect(JSON.parse(lists[1]!)).toMatchObject({ pageNum: 1 })
})
