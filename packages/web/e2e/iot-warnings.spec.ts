import { expect, test, type Page } from '@playwright/test'
import { SimulatedDevice } from '@velo/device-sim'
import { addDevice, apiLogin, brokerUrl, demoModel, openSignedIn, removeDevices } from './support/session'
import { saveScreen } from './support/screens'

// IoT › Warnings against the real server and its embedded broker: a simulated bike falls over, its
// fall warning appears in the open list without a reload, and is acknowledged and cleared in bulk
// with a reason.

const runId = String(Date.now() % 1_000_000).padStart(6, '0')
let device: { deviceId: number; sn: string; secret: string } | undefined
let sim: SimulatedDevice | undefined

const list = (page: Page) => page.getByTestId('entity-list-iotAlarm')
const alarmRow = (page: Page, sn: string) => list(page).getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ hasText: sn })
const dialog = (page: Page) => page.locator('.ant-modal:visible').filter({ has: page.getByTestId('operation-form') })

async function runBulk(page: Page, sn: string, action: 'acknowledge' | 'clear', reason: string) {
  await alarmRow(page, sn).locator('.ant-checkbox-input').check()
  await list(page).getByTestId(`crud-action-${action}`).click()
  await expect(dialog(page)).toBeVisible()
  await dialog(page).getByLabel('Reason').fill(reason)
  await dialog(page).getByTestId('operation-submit').click()
  await expect(dialog(page)).toHaveCount(0)
}

test.afterAll(async ({ request }) => {
  await sim?.disconnect().catch(() => {})
  // Clean-up only: a refusal here is not what this spec tests.
  if (device) await removeDevices(request, await apiLogin(request), [device.deviceId]).catch(() => {})
})

test('a fall from the simulator appears live, is acknowledged and cleared', async ({ page, request, baseURL }) => {
  const token = await apiLogin(request)
  const model = await demoModel(request, token)
  device = await addDevice(request, token, `${model.snPrefix}WRN${runId}`, model.modelId)
  sim = new SimulatedDevice({ url: await brokerUrl(request, token), sn: device.sn, secret: device.secret, heartbeatSeconds: 20, telemetrySeconds: 0, mqtt: { reconnectPeriod: 0 } })
  await sim.connect()

  await openSignedIn(page, baseURL!, '/iot/warning')
  await expect(list(page)).toBeVisible()
  await expect(page.getByTestId('warning-live')).toHaveAttribute('data-status', 'open')
  // A marker on the window: a reload would drop it.
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true))

  await sim.fall(85)
  const row = alarmRow(page, device.sn)
  await expect(row).toBeVisible()
  await expect(row).toContainText('Fall detected')
  await expect(row).toContainText('Critical')
  await expect(row).toContainText('Active, unacknowledged')
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
  await saveScreen(page, 'iot-warning-live')

  await runBulk(page, device.sn, 'acknowledge', 'Rider called: bike knocked over while parked')
  await expect(row).toContainText('Active, acknowledged')
  await expect(row).toContainText('admin')

  await runBulk(page, device.sn, 'clear', 'Bike upright again')
  await expect(row).toContainText('Cleared, acknowledged')
  await expect(list(page)).toContainText(/Cleared, acknowledged \(\d+\)/)
  await saveScreen(page, 'iot-warning-cleared')
})
