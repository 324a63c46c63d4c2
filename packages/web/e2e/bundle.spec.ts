import { expect, test, type Page, type Request } from '@playwright/test'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { mkdirSync, writeFileSync } from 'node:fs'
import { ADMIN, openSignedIn } from './support/session'

// The sign-in page's budget (issue 12): the first visit paints the form from one small chunk, with
// no antd, router or i18next, and the console loads after it. Every request the page makes until
// the form is usable and the network is idle counts (HTML, scripts, styles, fonts, images, API calls).
const JS_BUDGET_BYTES = 120 * 1024
const REQUEST_BUDGET = 6
/** How long no code may be requested or answered before the network counts as quiet. */
const QUIET_MS = 500
/** The console's chunk: app/console.ts with the shell and the list kit (build/consoleChunk.ts). */
const CONSOLE_CHUNK = /\/assets\/console-[\w-]+\.js$/

interface Loaded {
  path: string
  type: string
  /** Gzip size of the body for scripts and styles (the server sends them uncompressed). */
  gzip: number
}

/** Records what the page downloads; `since()` gives what came after a mark. */
function recorder(page: Page) {
  const requests: string[] = []
  const loaded: Loaded[] = []
  const pending = new Set<Promise<void>>()
  const seen = new Set<string>()
  const inFlight = new Set<Request>()
  let lastActivity = Date.now()
  const isCode = (request: Request) => ['script', 'stylesheet'].includes(request.resourceType())
  page.on('request', (request) => {
    requests.push(`${request.resourceType()} ${new URL(request.url()).pathname}`)
    if (isCode(request)) inFlight.add(request)
    lastActivity = Date.now()
  })
  const finished = (request: Request) => {
    inFlight.delete(request)
    lastActivity = Date.now()
  }
  page.on('requestfinished', finished)
  page.on('requestfailed', finished)
  page.on('response', (response) => {
    const type = response.request().resourceType()
    if (type !== 'script' && type !== 'stylesheet') return
    // Chromium may report a file twice when a modulepreload link and an import() ask for it: the
    // second comes from its memory cache. A file counts once, where it was first loaded.
    const path = new URL(response.url()).pathname
    if (seen.has(path)) return
    seen.add(path)
    const done = response
      .body()
      .then((body) => void loaded.push({ path, type, gzip: gzipSync(body, { level: 9 }).length }))
      .catch(() => undefined)
      .finally(() => pending.delete(done))
    pending.add(done)
  })
  return {
    requests,
    loaded,
    /** Waits for the bodies still being read. */
    settle: async () => void (await Promise.all([...pending])),
    /**
     * Waits until no script or style has been requested or answered for QUIET_MS (networkidle's own
     * rule, for code only), then for their bodies: a chunk's CSS, or the imports it asks for once it
     * runs, may still be on the way when the chunk itself has arrived.
     */
    quiet: async () => {
      await expect.poll(() => inFlight.size === 0 && Date.now() - lastActivity >= QUIET_MS, { timeout: 15_000 }).toBe(true)
      await Promise.all([...pending])
    },
    mark: () => ({ requests: requests.length, loaded: loaded.length }),
    since: (m: { requests: number; loaded: number }) => ({ requests: requests.slice(m.requests), loaded: loaded.slice(m.loaded) }),
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
const bytesOf = (items: Loaded[], type: string) => items.filter((l) => l.type === type).reduce((a, l) => a + l.gzip, 0)

function report(name: string, lines: string[]): void {
  const dir = fileURLToPath(new URL('./screenshots', import.meta.url))
  mkdirSync(dir, { recursive: true })
  writeFileSync(`${dir}/${name}`, `${lines.join('\n')}\n`)
}

test('the sign-in page loads in at most 6 requests and 120 KB of gzipped JavaScript, without the console', async ({ page }) => {
  const rec = recorder(page)
  await page.goto('/login')
  await expect(page.getByTestId('login-form')).toBeVisible()
  await expect(page.getByPlaceholder('Password')).toBeVisible()
  await page.waitForLoadState('networkidle')
  await rec.settle()

  const js = bytesOf(rec.loaded, 'script')
  const css = bytesOf(rec.loaded, 'stylesheet')
  report('login-bundle.txt', [
    ...rec.loaded.map((l) => `${kb(l.gzip).padStart(9)}  ${l.path}`),
    `${kb(js).padStart(9)}  JavaScript (gzip)`,
    `${kb(css).padStart(9)}  CSS (gzip)`,
    `${String(rec.requests.length).padStart(9)}  requests:`,
    ...rec.requests.map((r) => `           ${r}`),
  ])
  console.log(`sign-in page: ${kb(js)} JavaScript + ${kb(css)} CSS (gzip) in ${rec.requests.length} requests`)

  expect(rec.requests.length, rec.requests.join('\n')).toBeLessThanOrEqual(REQUEST_BUDGET)
  expect(js).toBeLessThanOrEqual(JS_BUDGET_BYTES)
  // Neither the console (layout, menus, list kit) nor antd: antd writes its styles at run time.
  expect(rec.loaded.filter((l) => CONSOLE_CHUNK.test(l.path))).toEqual([])
  expect(await page.locator('style[data-css-hash], style[data-rc-order], [class*="ant-"]').count()).toBe(0)
})

test('typing in the form preloads the console; after sign-in each page adds only its own chunk', async ({ page }) => {
  const rec = recorder(page)
  await page.goto('/login')
  await expect(page.getByTestId('login-form')).toBeVisible()
  await page.waitForLoadState('networkidle')
  await rec.settle()
  const signIn = rec.loaded.slice()

  // The console starts loading when the user starts filling the form, before they submit.
  const typing = rec.mark()
  await page.getByPlaceholder('Username').fill(ADMIN.username)
  await page.getByPlaceholder('Password').fill(ADMIN.password)
  // waitForLoadState('networkidle') answers at once once the page has been idle, so wait for the
  // file itself: the console, which holds the shell and the list kit.
  await expect.poll(() => rec.loaded.some((l) => CONSOLE_CHUNK.test(l.path))).toBe(true)
  await rec.quiet()
  const preloaded = rec.since(typing).loaded

  const submit = rec.mark()
  await page.getByTestId('login-submit').click()
  await expect(page).toHaveURL(/\/dashboard$/)
  await expect(page.getByTestId('dashboard')).toBeVisible()
  await page.waitForLoadState('networkidle')
  await rec.settle()
  const dashboard = rec.since(submit).loaded

  // Another page, opened from the menu (in-app navigation, as the user does).
  const users = rec.mark()
  await page.evaluate(() => {
    window.history.pushState(null, '', '/system/user')
    window.dispatchEvent(new PopStateEvent('popstate'))
  })
  await expect(page.getByTestId('entity-list-user')).toBeVisible()
  await page.waitForLoadState('networkidle')
  await rec.settle()
  const userPage = rec.since(users).loaded

  const line = (name: string, items: Loaded[]) =>
    `${name.padEnd(34)} ${kb(bytesOf(items, 'script')).padStart(9)} JS ${kb(bytesOf(items, 'stylesheet')).padStart(8)} CSS  ${items.length} files`
  report('page-bytes.txt', [
    line('sign-in page', signIn),
    line('preloaded while typing (console)', preloaded),
    line('dashboard (first page)', dashboard),
    line('system/user (first visit)', userPage),
    '',
    'system/user loaded:',
    ...userPage.map((l) => `${kb(l.gzip).padStart(9)}  ${l.path}`),
  ])

  expect(preloaded.some((l) => CONSOLE_CHUNK.test(l.path))).toBe(true)
  // The console (with its shell and list kit) came with the preload, not with a page.
  expect([...dashboard, ...userPage].filter((l) => CONSOLE_CHUNK.test(l.path))).toEqual([])
  // The page's own chunk is among what its first visit added.
  expect(userPage.some((l) => /\/assets\/user-[\w-]+\.js$/.test(l.path))).toBe(true)
})

/**
 * From the sign-in page to the first row of System › Users (issue 44): what the console costs a user
 * who signs in. 595 KB in 43 files before the list stopped loading its form, import dialog, details and
 * large inputs up front; 554 KB in 57 after; 519 KB in 58 once an English page stopped loading the
 * Chinese texts and the shell's panels stopped carrying antd Result's illustrations; 493 KB in 55 once
 * zod stayed out until a form checks a value and the icons came as one file; 456 KB in 6 once the
 * console, the shell and the list kit with everything they import came as one chunk
 * (build/consoleChunk.ts); 445 KB in 6 once the rows as cards (antd's Card, with its Tabs and
 * Skeleton) loaded only on a phone; 435 KB in 6 once antd's Image loaded with a list's first image;
 * 405 KB in 7 once a step's dialog, the video player, the jobs list, the tree select and the user's
 * password dialog loaded when first opened and the list's links and the shell's panels were drawn
 * without antd's Typography (the status column's Switch now comes with the user page); 375 KB in 7
 * once the browser's registry of definitions started empty and a page loaded its areas' definitions
 * (src/entities/areas.ts): System › Users brings the system area's, not all fifteen areas'; 326 KB in 8
 * once the list's search form was a plain form (antd's form kit loads with a form), four antd imports
 * of a whole package for one export were pointed at the module holding it (build/antdEntries.ts) and
 * antd's messages and dialogs loaded on first use (lib/feedback.tsx); 313 KB in 8 once the Chinese
 * locales and the areas' texts came with their pages (routes/pageTexts.ts) and an icon one page alone
 * uses stayed in its chunk; 299 KB in 8 once the menu's icons came as one SVG sprite, a cached file no
 * script runs (build/menuIconSprite.ts). The budget holds the issue's aim of 300 KB (react-router,
 * i18next, TanStack Query and antd's table, select, tree and menu are most of what is left).
 */
const FLOW_JS_BUDGET_BYTES = 300 * 1024
const FLOW_FILE_BUDGET = 15

test('from the sign-in page to the first row of System › Users: at most 300 KB of gzipped JavaScript in 15 files', async ({ page }) => {
  const rec = recorder(page)
  await page.goto('/login?redirect=%2Fsystem%2Fuser')
  await expect(page.getByPlaceholder('Password')).toBeVisible()
  await page.waitForLoadState('networkidle')
  await rec.settle()
  const start = rec.mark()
  // When each request went out and came back, by path (the first time): the order the page asks in.
  const sent = new Map<string, number>()
  const answered = new Map<string, number>()
  const pathOf = (request: Request) => new URL(request.url()).pathname
  page.on('request', (r) => void (sent.has(pathOf(r)) || sent.set(pathOf(r), Date.now())))
  page.on('requestfinished', (r) => void (answered.has(pathOf(r)) || answered.set(pathOf(r), Date.now())))
  await page.getByPlaceholder('Username').fill(ADMIN.username)
  await page.getByPlaceholder('Password').fill(ADMIN.password)
  // The page the sign-in opens (?redirect=) loads while the user types, with the console.
  const userPageCode = /\/assets\/user-[\w-]+\.js$/
  await expect.poll(() => [...answered.keys()].some((path) => userPageCode.test(path)), { message: "the user page's code loads before Enter" }).toBe(true)
  const began = Date.now()
  await page.getByPlaceholder('Password').press('Enter')
  await expect(page.getByTestId('entity-list-user').locator('.ant-table-row').first()).toBeVisible()
  const firstRowMs = Date.now() - began
  await rec.quiet()
  const flow = rec.since(start).loaded.filter((l) => l.type === 'script')
  const js = bytesOf(flow, 'script')
  report('sign-in-to-users.txt', [
    ...flow.map((l) => `${kb(l.gzip).padStart(9)}  ${l.path}`),
    `${kb(js).padStart(9)}  JavaScript (gzip) in ${flow.length} files; first row ${firstRowMs} ms after Enter`,
  ])
  console.log(`sign-in → first row of users: ${kb(js)} JavaScript (gzip) in ${flow.length} files, ${firstRowMs} ms after Enter`)
  // The rows are asked for the moment the routes are in; the shell's own request (the jobs badge) waits
  // until the page is idle, so it never shares the rows' start.
  expect(sent.get('/api/system/user/list'), 'the user list was asked for').toBeGreaterThan(began)
  await expect.poll(() => sent.has('/api/monitor/job/list')).toBe(true)
  expect(sent.get('/api/monitor/job/list')!).toBeGreaterThanOrEqual(answered.get('/api/system/user/list')!)
  // An English page loads the English texts only; the Chinese catalogue is a chunk of its own, and so are
  // the areas' Chinese texts (texts-iot.zh_CN-….js).
  expect(flow.filter((l) => /\/assets\/(texts-[\w-]+\.)?zh_CN-/.test(l.path))).toEqual([])
  // System › Users' words are the console's: no area's texts come with it (src/routes/pageTexts.ts).
  expect(flow.filter((l) => /\/assets\/texts-/.test(l.path))).toEqual([])
  expect(flow.length, flow.map((l) => l.path).join('\n')).toBeLessThanOrEqual(FLOW_FILE_BUDGET)
  expect(js, flow.map((l) => `${kb(l.gzip)} ${l.path}`).join('\n')).toBeLessThanOrEqual(FLOW_JS_BUDGET_BYTES)
})

/** What a list page's first screen is drawn with, element by element: the styles antd's rules decide. */
async function firstScreenLooks(page: Page): Promise<Record<string, Record<string, string> | null>> {
  const list = page.getByTestId('entity-list-user')
  await expect(list.locator('.ant-table-row').first()).toBeVisible()
  await expect(page.getByTestId('navbar')).toBeVisible()
  await expect(page.locator('.ant-tree-treenode:not([aria-hidden])').first()).toBeVisible()
  return page.evaluate(() => {
    const selectors = [
      '[data-testid=sidebar] .ant-menu-item',
      '[data-testid=sidebar] .ant-menu-submenu-title',
      '.ant-breadcrumb-link',
      '[data-testid=entity-list-user] form .ant-input',
      '[data-testid=entity-list-user] form .ant-select',
      '[data-testid=entity-list-user] .ant-btn-primary',
      '[data-testid=entity-list-user] .ant-btn-default',
      '[data-testid=entity-list-user] .ant-table-thead th',
      '[data-testid=entity-list-user] .ant-table-row td',
      '[data-testid=entity-list-user] .ant-checkbox',
      '[data-testid=entity-list-user] .ant-switch',
      '[data-testid=entity-list-user] .ant-pagination-item',
      '.ant-tree-node-content-wrapper',
      '.ant-avatar',
    ]
    const properties = ['display', 'color', 'background-color', 'font-size', 'line-height', 'padding', 'margin', 'border', 'border-radius', 'height', 'width', 'box-shadow', 'cursor']
    return Object.fromEntries(
      selectors.map((selector) => {
        const element = document.querySelector(selector)
        if (!element) return [selector, null]
        const style = getComputedStyle(element)
        return [selector, Object.fromEntries(properties.map((p) => [p, style.getPropertyValue(p)]))]
      }),
    )
  })
}

test("antd's styles for the first screens come made from the build: the page makes none of them, and looks as if it had", async ({ browser, baseURL }) => {
  // The default theme, and a user's own (dark, another colour): antd writes those as CSS variables, which the file leaves to it.
  for (const settings of [null, { darkMode: true, themeColor: '#13c2c2' }]) {
    const open = async (refuseFile: boolean) => {
      const context = await browser.newContext({ baseURL, viewport: { width: 1400, height: 900 } })
      if (settings) await context.addInitScript((saved) => localStorage.setItem('velo.layoutSettings', saved), JSON.stringify(settings))
      const page = await context.newPage()
      if (refuseFile) await page.route('**/assets/antd-*.css', (route) => route.abort())
      await openSignedIn(page, baseURL!, '/system/user')
      return { context, page, looks: await firstScreenLooks(page) }
    }
    const made = await open(false)
    const runtime = await open(true)
    try {
      expect(await made.page.locator('head > link[rel=stylesheet][href*="/assets/antd-"]').count()).toBe(1)
      // What antd still makes in the page is the theme's CSS variables (colours, sizes: the user's
      // settings); no component's rules. A component new to the first screens fails here until
      // build/antdStaticStyles.ts draws it too.
      const componentStyles = await made.page.evaluate(() =>
        [...document.querySelectorAll('style[data-css-hash]')].map((s) => s.textContent ?? '').filter((css) => css && !/^\.css-var-[\w-]+(\.[\w-]+)?\{--/.test(css)),
      )
      expect(componentStyles.map((css) => css.slice(0, 120))).toEqual([])
      // With the file refused antd makes every rule in the page, as it did before the file, and the page looks the same.
      expect(await runtime.page.locator('style[data-css-hash]').evaluateAll((styles) => styles.some((s) => s.textContent?.includes('.ant-table')))).toBe(true)
      for (const [selector, looks] of Object.entries(runtime.looks)) expect(looks, selector).not.toBeNull()
      expect(made.looks, JSON.stringify(settings)).toEqual(runtime.looks)
    } finally {
      await made.context.close()
      await runtime.context.close()
    }
  }
})
