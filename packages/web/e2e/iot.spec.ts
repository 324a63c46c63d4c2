import { expect, test, type Page } from '@playwright/test'
import { SimulatedDevice } from '@velo/device-sim'
import { addDevice, apiLogin, brokerUrl, call, demoModel, openSignedIn, removeDevices } from './support/session'
import { clickRowAction } from './support/rows'
import { saveScreen } from './support/screens'

// The IoT pages against the real server and its embedded MQTT broker, with simulated bikes from
// @velo/device-sim: the IoT list follows a device's state live, a reboot reaches the device, the
// command test shows the reply and its round trip, and every IoT page opens in both languages.

const PAGES = [
  { path: '/iot/device', en: 'IoT list', zh: '设备列表', testId: 'entity-list-iotDevice' },
  { path: '/iot/model', en: 'IoT models', zh: '设备型号', testId: 'entity-list-iotModel' },
  { path: '/iot/function', en: 'IoT functions', zh: '设备功能', testId: 'entity-list-iotFunction' },
  { path: '/iot/commandTest', en: 'IoT command test', zh: '指令测试', testId: 'command-test' },
  { path: '/iot/mqDebug', en: 'Message-queue debugging', zh: '消息队列调试', testId: 'mq-debug' },
] as const

/** One SN per run (upper-case letters and digits, the demo model's prefix first). */
const runId = String(Date.now() % 1_000_000).padStart(6, '0')
let url = ''
let device: { deviceId: number; sn: string; secret: string }
const sims: SimulatedDevice[] = []

function simulate(): SimulatedDevice {
  // No periodic telemetry: the test decides what the device reports. A short keepalive so a kill is noticed soon anyway.
  const sim = new SimulatedDevice({ url, sn: device.sn, secret: device.secret, heartbeatSeconds: 20, telemetrySeconds: 0, keepalive: 5, mqtt: { reconnectPeriod: 0 } })
  sims.push(sim)
  return sim
}

const deviceRow = (page: Page) =>
  page.getByTestId('entity-list-iotDevice').getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ hasText: device.sn })

async function openDeviceList(page: Page, baseURL: string) {
  await openSignedIn(page, baseURL, '/iot/device')
  await expect(deviceRow(page)).toBeVisible()
  // The live stream is open before the device does anything.
  await expect(page.getByTestId('iot-live')).toHaveAttribute('data-status', 'open')
}

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ request }) => {
  const token = await apiLogin(request)
  url = await brokerUrl(request, token)
  const model = await demoModel(request, token)
  device = await addDevice(request, token, `${model.snPrefix}E2E${runId}`, model.modelId)
})

test.afterAll(async ({ request }) => {
  for (const sim of sims) await sim.disconnect().catch(() => {})
  // Clean-up only: a refusal here is not what this spec tests.
  if (device) await removeDevices(request, await apiLogin(request), [device.deviceId]).catch(() => {})
})

test('the IoT list shows a device coming online and going offline live, without reloading', async ({ page, baseURL }) => {
  await openDeviceList(page, baseURL!)
  const row = deviceRow(page)
  await expect(row).toContainText('Inactive')
  // A marker on the window: a reload would drop it.
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true))

  const sim = simulate()
  await sim.connect()
  await expect(row).toContainText('Online')
  // The status the simulator sends on connect patches the row too (its firmware version).
  await expect(row).toContainText('1.0.0')
  await expect(page.getByTestId('iot-gateway')).toContainText(/[1-9]\d* devices? online/)
  await saveScreen(page, 'iot-list-online')

  // A power cut: the socket just closes and the broker publishes the device's last will.
  sim.kill()
  await expect(row).toContainText('Offline')
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)

  // The drawer of the device: its fields and recent telemetry.
  await row.getByTestId(`device-sn-${device.sn}`).click()
  await expect(page.getByTestId('device-details')).toContainText(device.sn)
  await page.getByRole('tab', { name: 'Telemetry' }).click()
  await expect(page.getByTestId('device-telemetry').locator('tbody tr.ant-table-row').first()).toBeVisible()
  await saveScreen(page, 'iot-device-drawer')
  await expect(page.locator('.ant-message-error')).toHaveCount(0)
})

test('rebooting the selected device, after a confirmation, shows "Reboot command sent" and reaches the device', async ({ page, baseURL }) => {
  const sim = simulate()
  await sim.connect()
  await openDeviceList(page, baseURL!)
  const row = deviceRow(page)
  await expect(row).toContainText('Online')
  await row.locator('.ant-checkbox-input').check()
  const received = sim.nextCommand('reboot', 20_000)
  await page.getByTestId('device-reboot').click()
  const dialog = page.getByRole('dialog').filter({ hasText: 'Reboot 1 selected device?' })
  await expect(dialog).toBeVisible()
  await dialog.getByRole('button', { name: 'OK' }).click()
  await expect(page.locator('.ant-message-success')).toContainText('Reboot command sent')
  expect((await received).name).toBe('reboot')
  await sim.disconnect()
})

test('the command test sends a ping and shows the reply and the round trip', async ({ page, baseURL }) => {
  const sim = simulate()
  await sim.connect()
  await openSignedIn(page, baseURL!, '/iot/commandTest')
  const deviceInput = page.getByLabel('Device')
  await deviceInput.click()
  await deviceInput.fill(device.sn)
  await page.locator('.ant-select-dropdown:visible').getByText(device.sn, { exact: true }).click()
  await page.getByLabel('Command').click()
  await page.locator('.ant-select-dropdown:visible').getByText('Ping', { exact: true }).click()
  await expect(page.getByTestId('command-test-params')).toHaveValue('{}')
  await page.getByTestId('command-test-send').click()
  await expect(page.getByTestId('command-result')).toContainText('Succeeded')
  await expect(page.getByTestId('command-rtt')).toHaveText(/^\d+ ms$/)
  await expect(page.getByTestId('command-reply')).toContainText('"pong"')
  await expect(page.getByTestId('command-test-history').locator('tbody tr.ant-table-row')).toHaveCount(1)
  await saveScreen(page, 'iot-command-test')
  await sim.disconnect()
})

test('every IoT page opens in English; the registration key and the message-queue debugger work', async ({ page, baseURL }) => {
  const token = await openSignedIn(page, baseURL!)
  for (const p of PAGES) {
    await page.goto(p.path)
    await expect(page.getByTestId(p.testId)).toBeVisible()
    await expect(page).toHaveTitle(`${p.en} - Velo Admin`)
    await expect(page.locator('.ant-message-error')).toHaveCount(0)
    await expect(page.locator('.status-panel-error, .ant-result-error')).toHaveCount(0)
  }

  // Models: the demo model's registration key, as the API has it.
  const model = await demoModel(page.request, token)
  const { registrationKey } = await call<{ registrationKey: string }>(page.request, 'GET', `/iot/model/${model.modelId}/registrationKey`, token)
  await page.goto('/iot/model')
  await clickRowAction(page.getByTestId('entity-list-iotModel').locator('tbody tr.ant-table-row').filter({ hasText: model.name }), 'row-registration-key')
  await expect(page.getByTestId('registration-key')).toHaveText(registrationKey)
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).last().click()

  // The debugger sees what a device says as it connects (its status report is not retained, so it is new).
  await page.goto('/iot/mqDebug')
  await page.getByTestId('mq-subscribe').click()
  await expect(page.getByTestId('iot-live')).toHaveAttribute('data-status', 'open')
  const sim = simulate()
  await sim.connect()
  await expect(page.getByTestId('mq-messages')).toContainText(`velo/v1/${device.sn}/up/status`)
  await saveScreen(page, 'iot-mq-debug')
  await sim.disconnect()
})

test('every IoT page opens in Chinese', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await page.evaluate(() => localStorage.setItem('user_lang', 'zh_CN'))
  for (const p of PAGES) {
    await page.goto(p.path)
    await expect(page.getByTestId(p.testId)).toBeVisible()
    await expect(page).toHaveTitle(`${p.zh} - Velo Admin`)
    await expect(page.locator('.ant-message-error')).toHaveCount(0)
    await expect(page.locator('.status-panel-error, .ant-result-error')).toHaveCount(0)
  }
  await page.goto('/iot/device')
  await expect(page.getByTestId('iot-live')).toContainText('实时')
  await expect(page.getByTestId('device-reboot')).toContainText('重启')
})
