import { expect, test, type Page } from '@playwright/test'
import { SimulatedDevice } from '@velo/device-sim'
import { addDevice, apiLogin, brokerUrl, call, demoModel, openSignedIn, removeDevices } from './support/session'
import { clickRowAction } from './support/rows'
import { saveScreen } from './support/screens'
import { blockOutside } from './support/network'

// Stolen mode (issue 42 §4) against the real server and its embedded broker, every request to another
// origin blocked: a simulated bike running a template is reported stolen from the IoT list, receives
// the tracking configuration, shows as stolen on the map, and gets its template back when Recovered.

const runId = String(Date.now() % 1_000_000).padStart(6, '0')
const REASON = `Taken from the rack at Centraal ${runId}`
const AMSTERDAM = { lat: 52.3702, lng: 4.8952 }
let device: { deviceId: number; sn: string; secret: string }
let sim: SimulatedDevice

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ request }) => {
  const token = await apiLogin(request)
  const url = await brokerUrl(request, token)
  const model = await demoModel(request, token)
  device = await addDevice(request, token, `${model.snPrefix}STL${runId}`, model.modelId)
  sim = new SimulatedDevice({ url, sn: device.sn, secret: device.secret, heartbeatSeconds: 20, telemetrySeconds: 0, ...AMSTERDAM, mqtt: { reconnectPeriod: 0 } })
  await sim.connect()
  await sim.reportTelemetry({ gps: { ...AMSTERDAM, speed: 0, satellites: 9 } })
  // It runs a template reporting its position every 45 s: what Recovered must put back.
  const template = await call<{ configId: number }>(request, 'POST', '/iot/config', token, { name: `E2E stolen ${runId}`, gpsReportSeconds: 45, traceReportSeconds: 20, traceReportMeters: 40 })
  await call(request, 'POST', `/iot/config/${template.configId}/action/push`, token, { deviceIds: [device.deviceId] })
  await expect.poll(() => sim.config.gpsReportSeconds, { timeout: 20_000 }).toBe(45)
})

test.afterAll(async ({ request }) => {
  await sim?.disconnect().catch(() => {})
  if (device) await removeDevices(request, await apiLogin(request), [device.deviceId]).catch(() => {})
})

const deviceRow = (page: Page) => page.getByTestId('entity-list-iotDevice').getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ hasText: device.sn })
const dialog = (page: Page) => page.locator('.ant-modal:visible').filter({ has: page.getByTestId('operation-form') })
const mapRow = (page: Page) => page.getByTestId(`map-device-${device.sn}`)

async function runAction(page: Page, action: 'reportStolen' | 'recovered', reason: string) {
  await clickRowAction(deviceRow(page), `row-action-${action}`)
  const d = dialog(page)
  await expect(d).toBeVisible()
  await expect(d.getByTestId('operation-note')).toBeVisible()
  await d.getByLabel('Reason').fill(reason)
  await d.getByTestId('operation-submit').click()
  await expect(dialog(page)).toHaveCount(0)
}

async function mapStatus(page: Page, baseURL: string) {
  await openSignedIn(page, baseURL, '/iot/map')
  await page.getByPlaceholder('Find an SN').fill(device.sn)
  await expect(mapRow(page)).toBeVisible()
  return mapRow(page)
}

test('report a bike stolen from the IoT list, see it tracked and on the map, then recover it', async ({ page, baseURL }) => {
  // Two configuration pushes to the simulator, two sign-ins and the map: a minute on a loaded machine.
  test.setTimeout(120_000)
  const outside = await blockOutside(page, baseURL!)
  await openSignedIn(page, baseURL!, '/iot/device')
  await expect(deviceRow(page)).toBeVisible()
  // Not stolen: Recovered is not offered.
  await expect(deviceRow(page).getByTestId('row-action-recovered')).toHaveCount(0)

  await runAction(page, 'reportStolen', REASON)
  // The simulator receives the tracking configuration through the configuration push.
  await expect.poll(() => sim.config.gpsReportSeconds, { timeout: 20_000 }).toBe(5)
  expect(sim.config).toMatchObject({ traceReportSeconds: 5, traceReportMeters: 10 })
  await expect(deviceRow(page)).toContainText('Stolen')
  await saveScreen(page, 'iot-stolen-list')

  // The drawer's history: who reported it and why.
  await page.getByTestId(`device-sn-${device.sn}`).click()
  const drawer = page.getByTestId('device-drawer')
  await drawer.getByRole('tab', { name: 'Theft reports' }).click()
  await expect(drawer.getByTestId('device-thefts')).toContainText(REASON)
  await expect(drawer.getByTestId('device-thefts')).toContainText('admin')
  await page.keyboard.press('Escape')

  // The map marks it apart from warnings (the list beside the map carries each device's status).
  const marked = await mapStatus(page, baseURL!)
  await expect(marked).toHaveAttribute('data-status', 'stolen')
  await expect(marked).toContainText('Reported stolen')
  await expect(page.getByTestId('map-stolen-count')).toBeVisible()
  await saveScreen(page, 'iot-stolen-map')

  await openSignedIn(page, baseURL!, '/iot/device')
  await expect(deviceRow(page).getByTestId('row-action-reportStolen')).toHaveCount(0)
  await runAction(page, 'recovered', 'Found by the police')
  // The configuration it ran before comes back.
  await expect.poll(() => sim.config.gpsReportSeconds, { timeout: 20_000 }).toBe(45)
  expect(sim.config).toMatchObject({ traceReportSeconds: 20, traceReportMeters: 40 })
  await expect(deviceRow(page)).toContainText('Not reported')

  const back = await mapStatus(page, baseURL!)
  await expect(back).toHaveAttribute('data-status', 'online')
  expect(outside).toEqual([])
})
