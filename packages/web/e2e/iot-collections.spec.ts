import { expect, test } from '@playwright/test'
import { SimulatedDevice } from '@velo/device-sim'
import { addDevice, apiLogin, brokerUrl, call, demoModel, openSignedIn, removeDevices } from './support/session'
import { saveScreen } from './support/screens'

// IoT › collections against the real server and its embedded broker: a simulated bike reports
// telemetry, the page picks the device, charts its day and lists the raw points, keeps the choice in
// the URL across a reload, and speaks Chinese.

const runId = String(Date.now() % 1_000_000).padStart(6, '0')
let device: { deviceId: number; sn: string; secret: string }
let sim: SimulatedDevice | undefined

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ request }) => {
  const token = await apiLogin(request)
  const url = await brokerUrl(request, token)
  const model = await demoModel(request, token)
  device = await addDevice(request, token, `${model.snPrefix}TEL${runId}`, model.modelId)
  sim = new SimulatedDevice({ url, sn: device.sn, secret: device.secret, heartbeatSeconds: 20, telemetrySeconds: 0, mqtt: { reconnectPeriod: 0 } })
  await sim.connect()
  await sim.reportTelemetry({ battery: 87, signal: -65, gps: { lat: 52.52, lng: 13.4, speed: 21.5, satellites: 10 } })
  await sim.reportTelemetry({ battery: 86, signal: -75, gps: { lat: 52.53, lng: 13.41, speed: 14.5, satellites: 9 } })
  // The server stores telemetry in one-second batches: no page shows it yet, so its API is asked.
  await expect
    .poll(async () => (await call<{ total: number }>(request, 'POST', '/iot/collection/list', token, { deviceId: device.deviceId, pageNum: 1, pageSize: 1 })).total)
    .toBeGreaterThanOrEqual(3)
})

test.afterAll(async ({ request }) => {
  await sim?.disconnect().catch(() => {})
  if (device) await removeDevices(request, await apiLogin(request), [device.deviceId]).catch(() => {})
})

test("picks a device, charts its last 24 hours, lists its points and keeps them in the URL", async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!, '/iot/collection')
  await expect(page).toHaveTitle('IoT collections - Velo Admin')
  await expect(page.getByTestId('telemetry-choose-device')).toBeVisible()

  const picker = page.getByTestId('telemetry-device').locator('.ant-select')
  await picker.click()
  await page.keyboard.type(device.sn)
  await page.locator('.ant-select-item-option').filter({ hasText: device.sn }).click()
  await expect(page).toHaveURL(new RegExp(`device=${device.deviceId}`))

  await expect(page.getByTestId('telemetry-charts')).toBeVisible()
  for (const chart of ['battery', 'speed', 'positions', 'signal']) await expect(page.getByTestId(`telemetry-chart-${chart}`).locator('canvas')).toBeVisible()
  const rows = page.getByTestId('entity-list-iotTelemetry').locator('tbody tr.ant-table-row')
  await expect(rows.filter({ hasText: '87' }).first()).toBeVisible()
  await expect(rows.filter({ hasText: '21.5' }).first()).toBeVisible()
  await saveScreen(page, 'iot-collections')

  // A reload (or a shared link) shows the same device and range.
  const shared = page.url()
  expect(shared).toMatch(/from=.*to=/)
  await page.reload()
  await expect(page.getByTestId('telemetry-device')).toContainText(device.sn)
  await expect(rows.filter({ hasText: '86' }).first()).toBeVisible()
})

test('a range without reports says so, in Chinese too', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await page.evaluate(() => localStorage.setItem('user_lang', 'zh_CN'))
  await page.goto(`/iot/collection?device=${device.deviceId}&from=2020-01-01T00:00:00.000Z&to=2020-01-02T00:00:00.000Z`)
  await expect(page).toHaveTitle('数据采集 - Velo Admin')
  await expect(page.getByTestId('telemetry-no-data')).toContainText('该时间范围内没有采集数据')
  await expect(page.getByTestId('entity-list-iotTelemetry')).toBeVisible()
  await expect(page.locator('.ant-message-error')).toHaveCount(0)
})
