/**
 * The fleet map in the browser (issue 42 §1; part of the browser benchmark, bench/browser.ts): the
 * server's database gets BENCH_MAP_DEVICES (12,000) devices with positions spread over Europe, then,
 * BENCH_MAP_VISITS (5) times, a signed-in user in a new browser context (empty cache, as a first
 * visit of the page is) opens IoT › Map from System › Users as a menu click does:
 *
 *  - first paint: from the navigation to the first frame after the map drew its points (the map sets
 *    data-points when it has the devices and data-rendered on each idle frame: both set, the
 *    second non-zero), read in the page; the median, against one second;
 *  - panning: the mouse drags the map for a second; the frames the page drew meanwhile, and the
 *    longest gap between two, read in the page.
 *
 * And the floor under both in the same browser: MapLibre alone on a blank page (its own files, a
 * background-only style, no devices, no console), from the page's start to its first drawn frame,
 * and dragged the same way. Without a GPU Chromium draws WebGL in software (SwiftShader), and that
 * floor is most of each figure.
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Browser, Page } from '@playwright/test'
import { createDatabase } from '../src/db/database'
import type { DatabaseTarget } from '../src/config'
import { fmt, log, median } from './format'
import { ADMIN_PASSWORD } from './server'

const PAINT_TARGET_MS = 1000
/** 60 frames a second is 16.7 ms between frames; a gap over 50 ms is a stutter a user sees. */
const PAN_GAP_TARGET_MS = 50

type Add = (measure: string, value: string, extra?: { target?: string; pass?: boolean }) => void

interface PageGlobals {
  history: { pushState(data: unknown, unused: string, url: string): void }
  dispatchEvent(event: unknown): boolean
  PopStateEvent: new (type: string) => unknown
  document: { querySelector(selectors: string): { dataset: Record<string, string | undefined> } | null }
  requestAnimationFrame(callback: (time: number) => void): number
  __frames?: number[]
}

/** Writes the devices straight into the server's database: online, offline and a few with no position, as a fleet is. */
async function writeDevices(config: DatabaseTarget, count: number): Promise<number> {
  const { db } = createDatabase(config)
  try {
    const model = await db.selectFrom('iotModel').select('modelId').orderBy('modelId').executeTakeFirst()
    if (!model) throw new Error('the seed has no device model')
    const createTime = new Date().toISOString()
    for (let from = 0; from < count; from += 500) {
      const rows = Array.from({ length: Math.min(500, count - from) }, (_, k) => {
        const i = from + k
        return {
          sn: `VLMAP${String(i).padStart(7, '0')}`,
          uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          modelId: Number(model.modelId),
          state: i % 3 ? 'online' : 'offline',
          online: i % 3 ? 1 : 0,
          firmwareVersion: '1.0.0',
          latitude: 36 + ((i * 7919) % 2400) / 100,
          longitude: -9 + ((i * 104_729) % 3300) / 100,
          createBy: 'bench',
          createTime,
        }
      })
      await db.insertInto('iotDevice').values(rows).execute()
    }
    const located = await db.selectFrom('iotDevice').select((eb) => eb.fn.countAll<number>().as('n')).where('latitude', 'is not', null).executeTakeFirstOrThrow()
    return Number(located.n)
  } finally {
    await db.destroy()
  }
}

async function signedIn(browser: Browser, login: string, viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  await page.goto(`${login}?redirect=%2Fsystem%2Fuser`)
  await page.locator('input[autocomplete=username]').fill('admin')
  await page.locator('input[type=password]').fill(ADMIN_PASSWORD)
  await page.locator('input[type=password]').press('Enter')
  await page.locator('[data-testid=entity-list-user] .ant-table-row').first().waitFor()
  return page
}

/** Menu click to IoT › Map, and the ms until the first frame after the map drew `count` devices. */
async function firstPaint(page: Page, count: number): Promise<{ ms: number; at: Record<string, number> }> {
  return page.evaluate(
    // No named functions inside: tsx's keepNames would wrap them in a helper the page does not have.
    async ({ count }) => {
      const w = globalThis as typeof globalThis & PageGlobals
      const started = w.performance.now()
      w.history.pushState(null, '', '/iot/map')
      w.dispatchEvent(new w.PopStateEvent('popstate'))
      const at: Record<string, number> = {}
      for (;;) {
        const map = w.document.querySelector('[data-testid=fleet-map]')
        const now = w.performance.now() - started
        if (map) at.container ??= now
        if (map?.dataset.ready === 'true') at.ready ??= now
        if (map && Number(map.dataset.points) >= count) at.points ??= now
        if (map && Number(map.dataset.points) >= count && Number(map.dataset.rendered) > 0) {
          const ms = w.performance.now() - started
          // When each of the page's requests for the map came back, from the click.
          for (const e of w.performance.getEntriesByType('resource')) {
            const name = ['map/setup', 'map/devices', 'FleetMap', 'maplibre-gl-worker', 'maplibre-gl-', 'countries-110m'].find((n) => e.name.includes(n))
            if (name && e.startTime >= started) at[name] ??= (e as unknown as { responseEnd: number }).responseEnd - started
          }
          return { ms, at }
        }
        if (w.performance.now() - started > 60_000) throw new Error(`the map did not draw ${count} devices in 60 s`)
        await new Promise((frame) => w.requestAnimationFrame(frame))
      }
    },
    { count },
  )
}

/** Drags the map for about a second; answers the frames drawn meanwhile and the longest gap between two. */
async function pan(page: Page): Promise<{ frames: number; longestGap: number; seconds: number }> {
  const box = await page.locator('[data-testid=fleet-map]').boundingBox()
  if (!box) throw new Error('the map has no box')
  await page.evaluate(() => {
    const w = globalThis as typeof globalThis & PageGlobals
    const frames: number[] = []
    w.__frames = frames
    // No named functions: tsx's keepNames would wrap them in a helper the page does not have.
    void (async () => {
      while (w.__frames === frames) frames.push(await new Promise<number>((frame) => w.requestAnimationFrame(frame)))
    })()
  })
  const y = box.y + box.height / 2
  await page.mouse.move(box.x + box.width * 0.7, y)
  await page.mouse.down()
  for (let step = 1; step <= 60; step++) {
    await page.mouse.move(box.x + box.width * (0.7 - (0.4 * step) / 60), y + Math.sin(step / 6) * 40)
    await page.waitForTimeout(16)
  }
  await page.mouse.up()
  const frames = await page.evaluate(() => {
    const w = globalThis as typeof globalThis & PageGlobals
    const all = w.__frames ?? []
    w.__frames = undefined
    return all
  })
  let longestGap = 0
  for (let i = 1; i < frames.length; i++) longestGap = Math.max(longestGap, frames[i]! - frames[i - 1]!)
  return { frames: frames.length, longestGap, seconds: frames.length > 1 ? (frames.at(-1)! - frames[0]!) / 1000 : 0 }
}

const FLOOR_ORIGIN = 'http://maplibre-floor.test'

/**
 * MapLibre alone, as the floor of the map's figures: a blank page with its script, a background-only
 * style, from the page's start to the first frame drawn; then dragged as the fleet map is.
 */
async function floor(browser: Browser, viewport: { width: number; height: number }): Promise<{ ms: number; pan: Awaited<ReturnType<typeof pan>> }> {
  const dist = dirname(createRequire(import.meta.url).resolve('maplibre-gl/package.json'))
  const context = await browser.newContext({ viewport })
  try {
    await context.route(`${FLOOR_ORIGIN}/**`, (route) => {
      const file = new URL(route.request().url()).pathname.slice(1)
      if (file === '') {
        return route.fulfill({
          contentType: 'text/html',
          body: `<!doctype html><html><head><link rel="stylesheet" href="/maplibre-gl.css"><style>html,body,#map{margin:0;height:100%}</style></head><body><div id="map" data-testid="fleet-map"></div>
<script type="module">
const started = performance.now()
const { Map, setWorkerUrl } = await import('/maplibre-gl.mjs')
setWorkerUrl('/maplibre-gl-worker.mjs')
const map = new Map({ container: 'map', style: { version: 8, sources: {}, layers: [{ id: 'sea', type: 'background', paint: { 'background-color': '#dcebf7' } }] }, center: [10, 45], zoom: 4 })
map.once('load', () => requestAnimationFrame(() => { window.__floor = performance.now() - started }))
</script></body></html>`,
        })
      }
      return route.fulfill({ path: join(dist, 'dist', file), contentType: file.endsWith('.css') ? 'text/css' : 'text/javascript' })
    })
    const page = await context.newPage()
    await page.goto(`${FLOOR_ORIGIN}/`)
    const ms = await page.waitForFunction(() => (globalThis as { __floor?: number }).__floor, undefined, { timeout: 60_000 }).then((h) => h.jsonValue() as Promise<number>)
    return { ms, pan: await pan(page) }
  } finally {
    await context.close()
  }
}

export async function fleetMapInBrowser(browser: Browser, login: string, database: DatabaseTarget, viewport: { width: number; height: number }, add: Add): Promise<void> {
  const count = Number(process.env.BENCH_MAP_DEVICES || 12_000)
  const visits = Math.max(1, Number(process.env.BENCH_MAP_VISITS || 5))
  log(`browser: the fleet map with ${fmt(count)} devices, ${visits} first visits`)
  const located = await writeDevices(database, count)
  const paints: number[] = []
  const pans: Awaited<ReturnType<typeof pan>>[] = []
  for (let i = 0; i < visits; i++) {
    const page = await signedIn(browser, login, viewport)
    try {
      const paint = await firstPaint(page, located)
      // Where the time went, for whoever looks into the figure: the page's container, the map's style loaded, the devices handed to it.
      log(`browser: map painted in ${fmt(paint.ms)} ms (${Object.entries(paint.at).map(([k, v]) => `${k} ${fmt(v)}`).join(', ')})`)
      paints.push(paint.ms)
      pans.push(await pan(page))
    } finally {
      await page.context().close()
    }
  }
  const paint = median(paints)
  add(`IoT › Map, first visit: menu click → ${fmt(located)} devices drawn, in the page (median of ${visits}, map chunk downloaded)`, `${fmt(paint)} ms (min ${fmt(Math.min(...paints))}, max ${fmt(Math.max(...paints))})`, {
    target: `< ${PAINT_TARGET_MS} ms`,
    pass: paint < PAINT_TARGET_MS,
  })
  const gap = median(pans.map((p) => p.longestGap))
  const fps = median(pans.map((p) => (p.seconds > 0 ? (p.frames - 1) / p.seconds : 0)))
  add(`IoT › Map, dragging the map for ~1 s over ${fmt(located)} devices: frames per second, longest gap between frames (medians of ${visits})`, `${fmt(fps)} fps, ${fmt(gap)} ms`, {
    target: `longest gap ≤ ${PAN_GAP_TARGET_MS} ms`,
    pass: gap <= PAN_GAP_TARGET_MS,
  })
  log(`browser: the floor, MapLibre alone on a blank page, ${visits} times`)
  const floors: Awaited<ReturnType<typeof floor>>[] = []
  for (let i = 0; i < visits; i++) floors.push(await floor(browser, viewport))
  const floorMs = floors.map((f) => f.ms)
  add(`floor: MapLibre alone (background only, no devices), page start → first frame (median of ${visits})`, `${fmt(median(floorMs))} ms (min ${fmt(Math.min(...floorMs))}, max ${fmt(Math.max(...floorMs))})`)
  add(`floor: MapLibre alone, dragged the same way (medians of ${visits})`, `${fmt(median(floors.map((f) => (f.pan.seconds > 0 ? (f.pan.frames - 1) / f.pan.seconds : 0))))} fps, ${fmt(median(floors.map((f) => f.pan.longestGap)))} ms`)
}
