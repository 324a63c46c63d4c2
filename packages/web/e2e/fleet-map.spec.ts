import { expect, test, type Page } from '@playwright/test'
import { SimulatedDevice } from '@velo/device-sim'
import { addDevice, apiLogin, brokerUrl, call, demoModel, openSignedIn, removeDevices } from './support/session'
import { saveScreen } from './support/screens'
import { blockOutside } from './support/network'

// IoT › Map against the real server and its embedded broker, with every request to another origin
// blocked: the base map is the world map shipped with the console. Simulated bikes report positions;
// the page shows them (on the map where the headless browser has WebGL, and in the list beside it
// always), keeps the filters in the URL, follows a bike's move live and opens a device's drawer.

const runId = String(Date.now() % 1_000_000).padStart(6, '0')
/** Where the bikes stand: Amsterdam, Berlin, Paris; the last one goes offline. */
const PLACES = [
  { lat: 52.3702, lng: 4.8952 },
  { lat: 52.52, lng: 13.405 },
  { lat: 48.8566, lng: 2.3522 },
]
const devices: { deviceId: number; sn: string; secret: string }[] = []
/** What our SNs start with: the list beside the map shows 100 devices, and other specs add theirs. */
let ours = ''
const sims: SimulatedDevice[] = []

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ request }) => {
  const token = await apiLogin(request)
  const url = await brokerUrl(request, token)
  const model = await demoModel(request, token)
  ours = `${model.snPrefix}MAP${runId}`
  for (const [i, place] of PLACES.entries()) {
    const device = await addDevice(request, token, `${ours}${i}`, model.modelId)
    devices.push(device)
    const sim = new SimulatedDevice({ url, sn: device.sn, secret: device.secret, heartbeatSeconds: 20, telemetrySeconds: 0, firmwareVersion: '3.2.1', ...place, mqtt: { reconnectPeriod: 0 } })
    sims.push(sim)
    await sim.connect()
    await sim.reportTelemetry({ gps: { ...place, speed: 0, satellites: 9 } })
  }
  await sims[2]!.disconnect()
  // The gateway writes device states in batches: the map's own call says when all three stand where they should.
  await expect
    .poll(async () => {
      const map = await call<{ ids: number[]; status: number[] }>(request, 'GET', '/iot/map/devices', token)
      return devices.map((d) => map.status[map.ids.indexOf(d.deviceId)] ?? -1)
    })
    .toEqual([1, 1, 0])
})

test.afterAll(async ({ request }) => {
  await Promise.all(sims.map((s) => s.disconnect().catch(() => {})))
  if (devices.length) await removeDevices(request, await apiLogin(request), devices.map((d) => d.deviceId)).catch(() => {})
})

const row = (page: Page, sn: string) => page.getByTestId(`map-device-${sn}`)
/** Narrows the list to this spec's devices. */
const findOurs = (page: Page) => page.getByPlaceholder('Find an SN').fill(ours)

test('shows every device with the network blocked, on the map where WebGL is, and follows a move live', async ({ page, baseURL }) => {
  const outside = await blockOutside(page, baseURL!)
  const failures: string[] = []
  // The console's own files (its code, the world map, MapLibre's worker): none may fail.
  page.on('requestfailed', (r) => {
    if (new URL(r.url()).pathname.startsWith('/assets/')) failures.push(r.url())
  })
  await openSignedIn(page, baseURL!, '/iot/map')
  await expect(page).toHaveTitle('Map - Velo Admin')
  await expect(page.getByTestId('iot-map-page')).toBeVisible()
  await findOurs(page)
  for (const d of devices) await expect(row(page, d.sn)).toBeVisible()
  await expect(row(page, devices[0]!.sn)).toHaveAttribute('data-status', 'online')
  await expect(row(page, devices[2]!.sn)).toHaveAttribute('data-status', 'offline')
  await expect.poll(async () => Number(await page.getByTestId('map-summary').getAttribute('data-count'))).toBeGreaterThanOrEqual(3)
  await expect(page.getByTestId('map-shown')).toContainText(/\d+ devices shown/)
  await expect(page.getByTestId('iot-live')).toHaveAttribute('data-status', 'open')

  // The map, or where the browser has no WebGL 2 a message saying so (the list above is the same data).
  const map = page.getByTestId('fleet-map')
  await expect(map.or(page.getByTestId('map-no-webgl')).or(page.getByTestId('map-failed'))).toBeVisible()
  const drawn = await map.isVisible()
  if (drawn) {
    await expect(map).toHaveAttribute('data-ready', 'true', { timeout: 30_000 })
    await expect.poll(async () => Number(await map.getAttribute('data-points'))).toBeGreaterThanOrEqual(3)
    await expect.poll(async () => Number(await map.getAttribute('data-rendered')), { timeout: 30_000 }).toBeGreaterThan(0)
  }
  await saveScreen(page, 'iot-map')

  // The Berlin bike rides to Potsdam: the page follows without a reload.
  await sims[1]!.reportTelemetry({ gps: { lat: 52.3906, lng: 13.0645, speed: 22, satellites: 10 } })
  await expect(row(page, devices[1]!.sn)).toHaveAttribute('data-lat', '52.3906')
  await expect(row(page, devices[1]!.sn)).toHaveAttribute('data-lng', '13.0645')
  if (drawn) await expect.poll(async () => Number(await map.getAttribute('data-points'))).toBeGreaterThanOrEqual(3)

  // Nothing left the console's origin, and nothing it asked for failed.
  expect(outside).toEqual([])
  expect(failures).toEqual([])
})

test('keeps the filters in the URL and opens a device from the list', async ({ page, baseURL }) => {
  await blockOutside(page, baseURL!)
  await openSignedIn(page, baseURL!, '/iot/map?state=offline&firmwareVersion=3.2.1')
  await findOurs(page)
  await expect(row(page, devices[2]!.sn)).toBeVisible()
  await expect(row(page, devices[0]!.sn)).toHaveCount(0)
  await expect(page.getByTestId('map-filter-state')).toContainText('Offline')

  // Choosing in the form writes the URL: the online ones instead.
  await page.getByTestId('map-filter-reset').click()
  await expect(page).toHaveURL(/\/iot\/map$/)
  await expect(row(page, devices[0]!.sn)).toBeVisible()
  await page.getByTestId('map-filter-state').click()
  await page.locator('.ant-select-item-option').filter({ hasText: /^Online$/ }).click()
  await page.keyboard.press('Escape')
  await expect(page).toHaveURL(/state=online/)
  await expect(row(page, devices[2]!.sn)).toHaveCount(0)
  await page.reload()
  await findOurs(page)
  await expect(row(page, devices[1]!.sn)).toBeVisible()
  await expect(row(page, devices[2]!.sn)).toHaveCount(0)

  await row(page, devices[0]!.sn).getByText(devices[0]!.sn).click()
  await expect(page.getByTestId('device-drawer')).toBeVisible()
  await expect(page.getByTestId('device-drawer')).toContainText(devices[0]!.sn)
})
