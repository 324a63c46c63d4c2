import { expect, test } from '@playwright/test'
import { SimulatedDevice } from '@velo/device-sim'
import { addDevice, apiLogin, brokerUrl, call, demoModel, openSignedIn, removeDevices } from './support/session'
import { saveScreen } from './support/screens'
import { blockOutside } from './support/network'

// A device's trace (issue 42 §2) against the real server and its embedded broker, with every request
// to another origin blocked: a simulated bike that was out of coverage sends what it rode over the
// last three minutes at once, each position with the time it was taken (as a real one does when it
// is back): 400 m east through Amsterdam, two minutes parked (a stop needs that long), and on. The
// device drawer's Trace tab shows the line, the distance, the top speed and the stop.

const runId = String(Date.now() % 1_000_000).padStart(6, '0')
/** Metres east of the Dam at its latitude. */
const LNG_M = 111_195.08 * Math.cos((52.3731 * Math.PI) / 180)
const at = (metres: number) => ({ lat: 52.3731, lng: Math.round((4.8926 + metres / LNG_M) * 1e6) / 1e6 })
/** [seconds after the start, metres east, km/h]: parked from 40 s to 165 s. */
const DRIVE: [number, number, number][] = [[0, 0, 14], [10, 100, 18], [20, 200, 27.5], [30, 300, 16], [40, 400, 0], [165, 405, 0], [175, 600, 20], [185, 800, 21]]
/** The ride ended this long before the bike sends it. */
const SENT_AFTER_MS = 15_000

let device: { deviceId: number; sn: string; secret: string }
let sim: SimulatedDevice
/** The trace as the server answers it (the simulator's own report on connecting, a few metres off the start, is in it too). */
let expected: { positionCount: number; summary: { distanceKm: number } }

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ request }) => {
  test.setTimeout(90_000)
  const token = await apiLogin(request)
  const url = await brokerUrl(request, token)
  const model = await demoModel(request, token)
  device = await addDevice(request, token, `${model.snPrefix}TRC${runId}`, model.modelId)
  // Where the ride ends: the simulator's own report on connecting adds no distance there.
  sim = new SimulatedDevice({ url, sn: device.sn, secret: device.secret, heartbeatSeconds: 20, telemetrySeconds: 0, ...at(800), mqtt: { reconnectPeriod: 0 } })
  await sim.connect()
  const start = Date.now() - DRIVE.at(-1)![0] * 1000 - SENT_AFTER_MS
  for (const [second, metres, speed] of DRIVE) {
    await sim.publish('telemetry', { ts: start + second * 1000, gps: { ...at(metres), speed, satellites: 9 } })
  }
  // The gateway writes telemetry in batches: the trace's own call says when all of it is in.
  const from = new Date(Date.now() - 3_600_000).toISOString()
  const read = () => call<typeof expected>(request, 'POST', '/iot/trace', token, { deviceId: device.deviceId, from, to: new Date(Date.now() + 60_000).toISOString() })
  await expect.poll(async () => (await read()).positionCount).toBeGreaterThanOrEqual(DRIVE.length)
  expected = await read()
  // 400 m, 5 m of the parked bike's jitter, 395 m.
  expect(expected.summary.distanceKm).toBeGreaterThanOrEqual(0.79)
  expect(expected.summary.distanceKm).toBeLessThan(0.9)
})

test.afterAll(async ({ request }) => {
  await sim?.disconnect().catch(() => {})
  if (device) await removeDevices(request, await apiLogin(request), [device.deviceId]).catch(() => {})
})

test("shows the device's trace in its drawer: the line, distance, top speed and the stop, with the network blocked", async ({ page, baseURL }) => {
  const outside = await blockOutside(page, baseURL!)
  const failures: string[] = []
  page.on('requestfailed', (r) => {
    if (new URL(r.url()).pathname.startsWith('/assets/')) failures.push(r.url())
  })
  await openSignedIn(page, baseURL!, '/iot/map')
  await page.getByPlaceholder('Find an SN').fill(device.sn)
  await page.getByTestId(`map-device-${device.sn}`).getByText(device.sn).click()
  await expect(page.getByTestId('device-drawer')).toBeVisible()
  await page.getByRole('tab', { name: 'Trace' }).click()

  const summary = page.getByTestId('trace-summary')
  await expect(summary).toBeVisible()
  const distance = `${expected.summary.distanceKm.toFixed(2)} km`
  await expect(page.getByTestId('trace-distance')).toContainText(distance)
  await expect(page.getByTestId('trace-top-speed')).toContainText('27.5 km/h')
  await expect(page.getByTestId('trace-stops')).toContainText('1')
  await expect(page.getByTestId('trace-stop-list')).toContainText(/\(2 min\)/)
  await expect(page.getByTestId('trace-panel')).toContainText('written to the operation log')

  // The map, or where the browser has no WebGL 2 a message saying so (the figures above are the same data).
  const map = page.getByTestId('trace-map')
  const drawn = await map.isVisible().catch(() => false)
  if (drawn) {
    await expect(map).toHaveAttribute('data-ready', 'true', { timeout: 30_000 })
    await expect(map).toHaveAttribute('data-points', String(expected.positionCount))
    await expect(map).toHaveAttribute('data-stops', '1')
    // Framed at street level, not the whole world.
    await expect.poll(async () => Number(await map.getAttribute('data-zoom')), { timeout: 30_000 }).toBeGreaterThan(12)
    // The line and the dots are drawn, not only the labels.
    await expect.poll(async () => Number(await map.getAttribute('data-rendered')), { timeout: 30_000 }).toBeGreaterThan(expected.positionCount)
    await expect(page.getByTestId('trace-stop-marker')).toBeVisible()
    await expect(page.getByTestId('trace-top-marker')).toContainText('27.5 km/h')
  }
  await saveScreen(page, 'iot-trace')

  // Another preset asks again: the last hour holds the whole drive.
  await page.getByTestId('trace-presets').getByText('Last hour').click()
  await expect(page.getByTestId('trace-distance')).toContainText(distance)

  expect(outside).toEqual([])
  expect(failures).toEqual([])
  await expect(page.locator('.ant-message-error')).toHaveCount(0)
})
