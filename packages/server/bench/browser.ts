/**
 * Browser benchmark (part of `npm run bench`; alone with BENCH_ONLY=browser). The bundled server on a
 * fresh SQLite database serves the built web app (BENCH_WEB_DIR, default packages/web/dist: run
 * `npm run build` first) to headless Chromium (Debian's, as the e2e tests launch it, no display), and
 *
 *  1. the sign-in page is loaded BENCH_BROWSER_LOADS (10) times cold, each in a new browser context
 *     (empty cache, new connections), after one warm-up load of the server's files that is not
 *     counted: the time from navigation start to the first frame in which the password field is
 *     visible, read in the page (requestAnimationFrame, on performance.now()); the median is the
 *     figure, against 0.6 × vue-element-admin's 615 ms from issue 12's side-by-side run;
 *  2. one more visit signs in as a user does, and the JavaScript and CSS each step downloads are
 *     added up (gzip, as a compressing proxy would send them; the server sends them plain): the
 *     sign-in page, the console it preloads while the user types, then the first visit of the five
 *     most used pages (dashboard, then users, roles and the operation log opened in the app), each
 *     step waiting for the network to stay idle for 500 ms;
 *  3. from pressing Enter on the sign-in page (the console preloaded while typing, as a user's typing
 *     gives it time to) to the first row of System › Users: the time from the Enter key's event to the
 *     first frame in which the row is laid out, read in the page as the password field's is, the median
 *     of BENCH_BROWSER_SIGNINS (5) sign-ins each in a new context, against twice the password field's
 *     median of step 1 (issue 44); and the JavaScript the first of them downloads (target 300 KB in 15
 *     files). The time Playwright's locator reports is printed beside it: it also counts the page's
 *     work after the row (the department tree, the shell's job badge), done before the harness's next
 *     look at the page, which the user does not wait for to see the row;
 *  4. moving between two list pages both visited once (users ⇄ roles, as a menu click does): the time
 *     from the navigation to the first frame showing the other list's first row, read in the page;
 *     the median of BENCH_BROWSER_SWITCHES (10) moves, target 150 ms;
 *  5. IoT › Map with 12,000 devices: first paint and panning (bench/fleet-map.ts).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { type Browser, chromium, type Page } from '@playwright/test'
import { LAUNCH_OPTIONS } from '../../web/playwright.config'
import { onCleanup, onExit } from './cleanup'
import { fleetMapInBrowser } from './fleet-map'
import { freshDatabase, type Line, message } from './run'
import { ADMIN_PASSWORD, ServerProcess } from './server'
import { log, fmt, median } from './format'

export interface BrowserBench {
  loads: number
  switches: number
  signIns: number
}

/** Issue 12: vue-element-admin showed its password field in 615 ms; ours must take under 0.6 × that. */
const REFERENCE_MS = 615
const TARGET_MS = Math.round(REFERENCE_MS * 0.6)
const JS_BUDGET = 120 * 1024
const REQUEST_BUDGET = 6
const IDLE_MS = 500
const VIEWPORT = { width: 1400, height: 900 }
const WEB_DIST = join(dirname(fileURLToPath(import.meta.url)), '../../web/dist')

const kb = (bytes: number) => `${fmt(bytes / 1024, 1)} KB`
/** Issue 44's aims: Enter → first row within twice the password field's time, in 300 KB of JS in 15 files; list to list in 150 ms. */
const FIRST_ROW_FACTOR = 2
const FIRST_ROW_JS = 300 * 1024
const FIRST_ROW_FILES = 15
const SWITCH_TARGET_MS = 150

/** What the page scripts below use of the browser's globals (the server's types have no DOM). */
interface BrowserGlobals {
  history: { pushState(data: unknown, unused: string, url: string): void }
  dispatchEvent(event: unknown): boolean
  PopStateEvent: new (type: string) => unknown
  document: { querySelector(selectors: string): { getClientRects(): { length: number } } | null }
  requestAnimationFrame(callback: (time: number) => void): number
}

/**
 * Navigates in the app (as a menu click does) and answers the ms until the first frame in which the
 * list's first row is laid out in the page's view (a hidden view of a visited page has no boxes).
 */
async function firstRowAfterNavigation(page: Page, path: string, entity: string): Promise<number> {
  return page.evaluate(
    // No named functions inside: the bench runs through tsx, whose keepNames would wrap them in a
    // helper (__name) the page does not have.
    async ({ path, entity }) => {
      const w = globalThis as typeof globalThis & BrowserGlobals
      const started = w.performance.now()
      w.history.pushState(null, '', path)
      w.dispatchEvent(new w.PopStateEvent('popstate'))
      for (;;) {
        const row = w.document.querySelector(`[data-view="${path}"] [data-testid=entity-list-${entity}] .ant-table-row`)
        if (row && row.getClientRects().length > 0) return w.performance.now() - started
        if (w.performance.now() - started > 30_000) throw new Error(`no row of ${entity} at ${path} in 30 s`)
        await new Promise((frame) => w.requestAnimationFrame(frame))
      }
    },
    { path, entity },
  )
}

/** Marks the first animation frame in which the password field is laid out and visible. */
const WATCH_PASSWORD = `(() => {
  const look = () => {
    const el = document.querySelector('input[type=password]')
    const box = el && el.getBoundingClientRect()
    if (box && box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden') window.__passwordVisibleAt = performance.now()
    else requestAnimationFrame(look)
  }
  requestAnimationFrame(look)
})()`

/**
 * Marks, in the page, when Enter goes down in the sign-in form and the first animation frame after it
 * in which the first row of System › Users is laid out (the sign-in page's navigation to the console
 * keeps the document, so both land in one page's globals).
 */
const WATCH_FIRST_ROW = `(() => {
  addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || window.__enterAt) return
    window.__enterAt = performance.now()
    const look = () => {
      const row = document.querySelector('[data-testid=entity-list-user] .ant-table-row')
      if (row && row.getClientRects().length > 0) window.__firstRowAt = performance.now()
      else requestAnimationFrame(look)
    }
    requestAnimationFrame(look)
  }, true)
})()`

/** Signs in on a page showing the sign-in form (typed, the console preloaded) and answers Enter → first row: in the page, and as Playwright's locator saw it. */
async function signInToFirstRow(page: Page): Promise<{ inPage: number; harness: number }> {
  const pressed = performance.now()
  await page.locator('input[type=password]').press('Enter')
  await page.locator('[data-testid=entity-list-user] .ant-table-row').first().waitFor()
  const harness = performance.now() - pressed
  const handle = await page.waitForFunction(() => {
    const w = globalThis as { __enterAt?: number; __firstRowAt?: number }
    return w.__firstRowAt !== undefined && w.__enterAt !== undefined && w.__firstRowAt - w.__enterAt
  })
  return { inPage: (await handle.jsonValue()) as number, harness }
}

async function passwordVisibleMs(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext({ viewport: VIEWPORT })
  try {
    const page = await context.newPage()
    await page.addInitScript(WATCH_PASSWORD)
    await page.goto(url, { waitUntil: 'commit' })
    // Functions, not strings (the server's CSP forbids eval); this package is type-checked without the DOM.
    const handle = await page.waitForFunction(() => (globalThis as { __passwordVisibleAt?: number }).__passwordVisibleAt, undefined, { timeout: 30_000 })
    return (await handle.jsonValue()) as number
  } finally {
    await context.close()
  }
}

interface Step {
  js: number
  /** Scripts downloaded (each file once). */
  jsFiles: number
  css: number
  requests: number
}

/** What the page downloads, step by step; `step()` waits for the network to be idle and answers the step's share. */
function recorder(page: Page) {
  let current: Step = { js: 0, jsFiles: 0, css: 0, requests: 0 }
  let inflight = 0
  let lastActivity = performance.now()
  const reading = new Set<Promise<void>>()
  const touch = () => (lastActivity = performance.now())
  page.on('request', () => {
    inflight++
    current.requests++
    touch()
  })
  const done = () => {
    inflight = Math.max(0, inflight - 1)
    touch()
  }
  page.on('requestfinished', done)
  page.on('requestfailed', done)
  page.on('response', (response) => {
    const type = response.request().resourceType()
    if (type !== 'script' && type !== 'stylesheet') return
    const step = current
    if (type === 'script') step.jsFiles++
    const read = response
      .body()
      .then((body) => {
        step[type === 'script' ? 'js' : 'css'] += gzipSync(body, { level: 9 }).length
      })
      .catch(() => undefined)
      .finally(() => reading.delete(read))
    reading.add(read)
  })
  return {
    async step(): Promise<Step> {
      const deadline = performance.now() + 60_000
      while (inflight > 0 || performance.now() - lastActivity < IDLE_MS) {
        if (performance.now() > deadline) throw new Error('the network did not go idle in 60 s')
        await new Promise((r) => setTimeout(r, 50))
      }
      await Promise.all([...reading])
      const finished = current
      current = { js: 0, jsFiles: 0, css: 0, requests: 0 }
      return finished
    },
  }
}

/** In-app navigation, as a menu click does it (react-router follows popstate). */
async function openInApp(page: Page, path: string): Promise<void> {
  await page.evaluate((p) => {
    const w = globalThis as typeof globalThis & BrowserGlobals
    w.history.pushState(null, '', p)
    w.dispatchEvent(new w.PopStateEvent('popstate'))
  }, path)
  await page.waitForURL((u) => u.pathname === path)
}

export async function runBrowser(bench: BrowserBench, serverEntry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const lines: Line[] = []
  const notes: string[] = []
  const db = 'Chromium · SQLite'
  const add = (measure: string, value: string, extra: { target?: string; pass?: boolean } = {}) => lines.push({ db, measure, value, ...extra })
  const webDir = process.env.BENCH_WEB_DIR || WEB_DIST
  if (!existsSync(join(webDir, 'index.html'))) {
    notes.push(`Browser benchmark skipped: no built web app in ${webDir} (run \`npm run build\` first).`)
    return { lines, notes }
  }
  if (!existsSync(LAUNCH_OPTIONS.executablePath)) {
    notes.push(`Browser benchmark skipped: no Chromium at ${LAUNCH_OPTIONS.executablePath} (set CHROMIUM_PATH).`)
    return { lines, notes }
  }
  const dir = mkdtempSync(join(tmpdir(), 'velo-bench-browser-'))
  const forgetDir = onExit(() => rmSync(dir, { recursive: true, force: true }))
  const database = await freshDatabase({ name: 'SQLite', dialect: 'sqlite' }, dir)
  let server: ServerProcess | undefined
  let browser: Browser | undefined
  const cleanup = onCleanup(async () => {
    await browser?.close()
    await server?.stop()
    await database.drop()
    rmSync(dir, { recursive: true, force: true })
    forgetDir()
  })
  try {
    log(`browser: starting the server with the web app of ${webDir}`)
    server = await ServerProcess.start(serverEntry, { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), WEB_DIR: webDir })
    browser = await chromium.launch({ ...LAUNCH_OPTIONS, headless: true })
    const login = `${server.baseUrl}/login`
    notes.push(`Browser: headless Chromium ${browser.version()}, ${VIEWPORT.width}×${VIEWPORT.height}, web app from ${webDir}; bytes are gzip (level 9) of what the page downloaded.`)

    // BENCH_BROWSER_ONLY=map: the fleet map alone, for whoever works on it.
    if (process.env.BENCH_BROWSER_ONLY === 'map') {
      await fleetMapInBrowser(browser, login, database.config, VIEWPORT, add)
      return { lines, notes }
    }

    // --- the password field, cold
    log(`browser: ${bench.loads} cold loads of the sign-in page`)
    await passwordVisibleMs(browser, login) // warm-up: the server's first reads of the files
    const times: number[] = []
    for (let i = 0; i < bench.loads; i++) times.push(await passwordVisibleMs(browser, login))
    const sorted = [...times].sort((a, b) => a - b)
    const passwordMs = median(times)
    add(
      `sign-in page: password field visible (median of ${bench.loads} cold loads)`,
      `${fmt(passwordMs)} ms (min ${fmt(sorted[0]!)}, max ${fmt(sorted.at(-1)!)})`,
      { target: `< ${TARGET_MS} ms (0.6 × ${REFERENCE_MS} ms)`, pass: passwordMs < TARGET_MS },
    )

    // --- Enter → the first row of System › Users, then list to list
    {
      log('browser: from Enter to the first row of System › Users, then between two visited lists')
      const context = await browser.newContext({ viewport: VIEWPORT })
      const page = await context.newPage()
      await page.addInitScript(WATCH_FIRST_ROW)
      const rec = recorder(page)
      await page.goto(`${login}?redirect=%2Fsystem%2Fuser`)
      await page.waitForLoadState('networkidle')
      await rec.step() // the sign-in page itself
      await page.locator('input[autocomplete=username]').fill('admin')
      await page.locator('input[type=password]').fill(ADMIN_PASSWORD)
      const typing = await rec.step() // the console it preloads while the user types
      const firstRow = [await signInToFirstRow(page)]
      const flow = await rec.step()
      // More sign-ins, each in a context of its own (a new session, the browser's cache warm as a
      // returning user's is), for a median.
      for (let i = 1; i < bench.signIns; i++) {
        const again = await browser.newContext({ viewport: VIEWPORT })
        const other = await again.newPage()
        await other.addInitScript(WATCH_FIRST_ROW)
        await other.goto(`${login}?redirect=%2Fsystem%2Fuser`)
        await other.locator('input[autocomplete=username]').fill('admin')
        await other.locator('input[type=password]').fill(ADMIN_PASSWORD)
        await other.waitForLoadState('networkidle')
        firstRow.push(await signInToFirstRow(other))
        await again.close()
      }
      const inPage = firstRow.map((r) => r.inPage)
      const firstRowMs = median(inPage)
      add(
        `Enter → first row of System › Users, in the page (÷ the password field's median; median of ${firstRow.length})`,
        `${fmt(firstRowMs)} ms (${fmt(firstRowMs / passwordMs, 2)}×; min ${fmt(Math.min(...inPage))}, max ${fmt(Math.max(...inPage))})`,
        { target: `≤ ${FIRST_ROW_FACTOR}×`, pass: firstRowMs <= FIRST_ROW_FACTOR * passwordMs },
      )
      add('Enter → first row of System › Users, as Playwright\'s locator saw it (median)', `${fmt(median(firstRow.map((r) => r.harness)))} ms`)
      // As e2e/bundle.spec.ts counts it: what the console costs after the sign-in page, preloaded or not.
      const js = typing.js + flow.js
      const files = typing.jsFiles + flow.jsFiles
      add('sign-in page → first row of System › Users: JavaScript (gzip) after the sign-in page', `${kb(js)} in ${files} files (${kb(flow.js)} in ${flow.jsFiles} after Enter)`, {
        target: `≤ ${kb(FIRST_ROW_JS)} in ≤ ${FIRST_ROW_FILES} files`,
        pass: js <= FIRST_ROW_JS && files <= FIRST_ROW_FILES,
      })
      await firstRowAfterNavigation(page, '/system/role', 'role')
      await rec.step()
      const moves: number[] = []
      for (let i = 0; i < bench.switches; i++) {
        moves.push(await firstRowAfterNavigation(page, i % 2 ? '/system/role' : '/system/user', i % 2 ? 'role' : 'user'))
      }
      add(`list to list, both visited (median of ${bench.switches} moves users ⇄ roles)`, `${fmt(median(moves), 1)} ms (max ${fmt(Math.max(...moves), 1)})`, {
        target: `≤ ${SWITCH_TARGET_MS} ms`,
        pass: median(moves) <= SWITCH_TARGET_MS,
      })
      await context.close()
    }

    // --- bytes per page, signing in as a user does
    log('browser: signing in and opening the most used pages')
    const context = await browser.newContext({ viewport: VIEWPORT })
    const page = await context.newPage()
    const rec = recorder(page)
    await page.goto(login)
    await page.locator('input[type=password]').waitFor()
    const signIn = await rec.step()
    add('sign-in page: JavaScript, CSS (gzip), requests', `${kb(signIn.js)} JS + ${kb(signIn.css)} CSS, ${signIn.requests} requests`, {
      target: `≤ ${kb(JS_BUDGET)} JS, ≤ ${REQUEST_BUDGET} requests`,
      pass: signIn.js <= JS_BUDGET && signIn.requests <= REQUEST_BUDGET,
    })
    await page.locator('input[autocomplete=username]').fill('admin')
    await page.locator('input[type=password]').fill(ADMIN_PASSWORD)
    const typing = await rec.step()
    add('console preloaded while typing (antd, router, shell)', `${kb(typing.js)} JS + ${kb(typing.css)} CSS, ${typing.requests} requests`)
    await page.locator('button[type=submit]').click()
    await page.waitForURL((u) => u.pathname === '/dashboard')
    await page.locator('[data-testid=dashboard]').waitFor()
    const dashboard = await rec.step()
    add('first visit after sign-in: dashboard', `${kb(dashboard.js)} JS + ${kb(dashboard.css)} CSS, ${dashboard.requests} requests`)
    for (const [name, path, entity] of [
      ['system/user', '/system/user', 'user'],
      ['system/role', '/system/role', 'role'],
      ['monitor/operlog', '/monitor/operlog', 'operLog'],
    ] as const) {
      await openInApp(page, path)
      await page.locator(`[data-testid=entity-list-${entity}]`).waitFor()
      const visit = await rec.step()
      add(`first visit after sign-in: ${name}`, `${kb(visit.js)} JS + ${kb(visit.css)} CSS, ${visit.requests} requests`)
    }
    await context.close()

    // --- the fleet map
    await fleetMapInBrowser(browser, login, database.config, VIEWPORT, add)
  } catch (err) {
    add('browser benchmark', `failed: ${message(err, server)}`, { pass: false })
  } finally {
    await cleanup()
  }
  return { lines, notes }
}
