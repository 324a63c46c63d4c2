import { expect, test, type Page } from '@playwright/test'
import { SimulatedDevice } from '@velo/device-sim'
import { addDevice, apiLogin, brokerUrl, call, demoModel, openSignedIn, removeDevices } from './support/session'
import { clickRowAction } from './support/rows'
import { saveScreen } from './support/screens'

// IoT › configuration (issue 17): a template pushed to three simulated bikes — one online, one
// offline, one that refuses while riding — shows two acknowledged, the offline one queued and then
// acknowledged when it connects, and the refusal with the device's reason; a bike whose
// configuration is changed on the bike itself shows up in the template's drift.

const runId = String(Date.now() % 1_000_000).padStart(6, '0')
const TEMPLATE = `E2E template ${runId}`
const REASON = 'Riding: try again when parked'
const sims: SimulatedDevice[] = []
const devices: Record<'ok' | 'offline' | 'refusing', { deviceId: number; sn: string; secret: string }> = {} as never
let url = ''
let configId = 0

const templates = (page: Page) => page.getByTestId('entity-list-iotConfig')
const templateRow = (page: Page) => templates(page).getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ hasText: TEMPLATE })
const dialog = (page: Page) => page.locator('.ant-modal:visible').filter({ has: page.getByTestId('operation-form') })
const drawer = (page: Page) => page.locator('.ant-drawer:visible')

/** Each device's push status of the template, as the server has it. */
async function pushStatuses(page: Page, token: string): Promise<Record<number, string>> {
  const { rows } = await call<{ rows: { deviceId: number; status: string }[] }>(page.request, 'POST', '/iot/configPush/list', token, { pageNum: 1, pageSize: 10, configId })
  return Object.fromEntries(rows.map((r) => [r.deviceId, r.status]))
}

function simulate(d: { sn: string; secret: string }, behaviour: Partial<ConstructorParameters<typeof SimulatedDevice>[0]> = {}) {
  const sim = new SimulatedDevice({ url, sn: d.sn, secret: d.secret, heartbeatSeconds: 20, telemetrySeconds: 0, keepalive: 5, mqtt: { reconnectPeriod: 0 }, ...behaviour })
  sims.push(sim)
  return sim
}

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ request }) => {
  const token = await apiLogin(request)
  url = await brokerUrl(request, token)
  const model = await demoModel(request, token)
  devices.ok = await addDevice(request, token, `${model.snPrefix}CFA${runId}`, model.modelId)
  devices.offline = await addDevice(request, token, `${model.snPrefix}CFB${runId}`, model.modelId)
  devices.refusing = await addDevice(request, token, `${model.snPrefix}CFC${runId}`, model.modelId)
  const template = await call<{ configId: number }>(request, 'POST', '/iot/config', token, { name: TEMPLATE, fallAngle: 65, vibrationSensitivity: 4, lowBatteryPercent: 18 })
  configId = template.configId
})

test.afterAll(async ({ request }) => {
  for (const sim of sims) await sim.disconnect().catch(() => {})
  // Clean-up only: a refusal here is not what this spec tests.
  await removeDevices(request, await apiLogin(request), Object.values(devices).map((d) => d.deviceId)).catch(() => {})
})

test('push a template to 3 devices, follow each answer, and see a local change as drift', async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  const ok = simulate(devices.ok)
  const refusing = simulate(devices.refusing, { refuseConfig: REASON })
  const offline = simulate(devices.offline)
  await ok.connect()
  await refusing.connect()
  const isOnline = async (deviceId: number) => (await call<{ online?: boolean; state: string }>(page.request, 'GET', `/iot/device/${deviceId}`, token)).state
  await expect.poll(() => isOnline(devices.ok.deviceId)).toBe('online')
  await expect.poll(() => isOnline(devices.refusing.deviceId)).toBe('online')

  await openSignedIn(page, baseURL!, '/iot/config')
  await expect(templateRow(page)).toBeVisible()

  // The push dialog: the ticked devices, and what it would do before it is confirmed.
  await clickRowAction(templateRow(page), 'row-action-push')
  const d = dialog(page)
  await expect(d).toBeVisible()
  const picker = d.getByLabel('Devices')
  for (const sn of [devices.ok.sn, devices.offline.sn, devices.refusing.sn]) {
    await picker.click()
    await picker.fill(sn)
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: sn }).click()
    await expect(d.locator('.ant-select-selection-item').filter({ hasText: sn })).toBeVisible()
  }
  const preview = d.getByTestId('operation-preview')
  await expect(preview).toContainText('Devices3')
  await expect(preview).toContainText('Online now (sent at once)2')
  await expect(d.getByTestId('operation-preview-warning')).toContainText('Pushes to 3 devices: 2 now, 1 when they connect')
  await saveScreen(page, 'iot-config-push')
  await d.getByTestId('operation-submit').click()
  await expect(dialog(page)).toHaveCount(0)

  // The pushes, in the template's details: the status bar counts them.
  await clickRowAction(templateRow(page), 'row-details')
  await drawer(page).getByRole('tab', { name: 'Pushes' }).click()
  const pushes = drawer(page).getByTestId('entity-list-iotConfigPush')
  await expect(pushes).toBeVisible()
  const refusedRow = pushes.locator('tbody tr.ant-table-row').filter({ hasText: devices.refusing.sn })
  // The devices answer the server and the list is not live: once the server has both answers, the
  // list is read again.
  const answered = { [devices.ok.deviceId]: 'acknowledged', [devices.offline.deviceId]: 'queued', [devices.refusing.deviceId]: 'refused' }
  await expect.poll(() => pushStatuses(page, token)).toEqual(answered)
  await pushes.getByTestId('crud-refresh').click()
  await expect(pushes).toContainText('Acknowledged (1)')
  await expect(pushes).toContainText('Refused (1)')
  await expect(refusedRow).toContainText(REASON)
  await expect(pushes).toContainText('Queued (1)')
  await saveScreen(page, 'iot-config-pushes')

  // The offline bike connects: its queued push goes out and is acknowledged.
  await offline.connect()
  const offlineRow = pushes.locator('tbody tr.ant-table-row').filter({ hasText: devices.offline.sn })
  await expect.poll(async () => (await pushStatuses(page, token))[devices.offline.deviceId]).toBe('acknowledged')
  await pushes.getByTestId('crud-refresh').click()
  await expect(pushes).toContainText('Acknowledged (2)')
  await expect(offlineRow).toContainText('Acknowledged')
  await expect(pushes).toContainText('Queued (0)')

  // A service tool changes the fall angle on the bike itself: the template's drift shows it.
  await ok.changeConfigLocally({ fallAngle: 80 }, 'local')
  await drawer(page).getByRole('tab', { name: 'Drift' }).click()
  const drift = drawer(page).getByTestId('entity-list-iotConfigDrift')
  const driftRow = drift.locator('tbody tr.ant-table-row').filter({ hasText: devices.ok.sn })
  const drifted = async () => (await call<{ rows: { field: string }[] }>(page.request, 'POST', '/iot/configDrift/list', token, { pageNum: 1, pageSize: 10, configId, deviceId: devices.ok.deviceId })).rows
  await expect.poll(async () => (await drifted()).map((r) => r.field)).toContain('fallAngle')
  await drift.getByTestId('crud-refresh').click()
  await expect(driftRow).toContainText('Fall detection angle')
  await expect(driftRow).toContainText('65')
  await expect(driftRow).toContainText('80')
  await saveScreen(page, 'iot-config-drift')
})

test('the IoT list pushes a template to the ticked devices', async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  const other = `${TEMPLATE} B`
  const { configId } = await call<{ configId: number }>(page.request, 'POST', '/iot/config', token, { name: other, fallAngle: 50 })
  await openSignedIn(page, baseURL!, '/iot/device')
  const list = page.getByTestId('entity-list-iotDevice')
  const row = list.getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ hasText: devices.ok.sn })
  await row.locator('.ant-checkbox-input').check()
  await list.getByTestId('device-push-config').click()
  const d = page.locator('.ant-modal:visible').filter({ hasText: 'Push a configuration to 1 selected device' })
  await d.getByTestId('push-config-template').click()
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: other }).click()
  await expect(d.getByTestId('push-config-preview')).toContainText('Devices1')
  await d.getByTestId('push-config-ok').click()
  // The bike answers the server: no page here shows the push's status.
  await expect
    .poll(async () => (await call<{ rows: { status: string }[] }>(page.request, 'POST', '/iot/configPush/list', token, { configId, deviceId: devices.ok.deviceId })).rows[0]?.status)
    .toBe('acknowledged')
})
