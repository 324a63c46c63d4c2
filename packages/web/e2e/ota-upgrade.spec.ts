import { randomBytes } from 'node:crypto'
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test'
import { SimulatedDevice } from '@velo/device-sim'
import { addDevice, apiLogin, brokerUrl, call, demoModel, openSignedIn, removeDevices, useToken } from './support/session'
import { clickRowAction } from './support/rows'
import { saveScreen } from './support/screens'

// IoT › IoT upgrade (issue 18, "done when"): a firmware image uploaded, a campaign for 50 simulated
// bikes made in the form with a 10 % canary, approved by a second person, passing its canary and
// finishing in the live view; a second campaign whose bikes fail 30 % pauses itself after the
// canary with the reason shown, and finishes once the bikes are fixed and the failed retried; a
// third is cancelled. Each campaign's bikes have a hardware revision of their own, which is how the
// campaign's form targets exactly them.
//
// The long waits below are for the rollout itself, which runs on the server: 80 bikes connect and
// report their versions, then each wave's bikes are offered the image on the engine's tick,
// download it block by block over MQTT and report their install, the canary's outcome awaited
// before the next wave. That takes tens of seconds, minutes for a whole campaign on a busy machine.

const runId = String(Date.now() % 1_000_000).padStart(6, '0')
const PATH = '/iot/upgrade'
const FIRMWARE = `E2E core ${runId}`
const TARGET_VERSION = '2.0.0'
/** Two blocks of the default 4 KB: every bike's download is quick. */
const IMAGE = randomBytes(6 * 1024)
const APPROVER = { username: `otaapprover${runId}`, password: 'approver123' }
const GROUPS = {
  smooth: { hardware: `HA${runId}`, count: 50, campaign: `E2E rollout ${runId}` },
  failing: { hardware: `HB${runId}`, count: 20, campaign: `E2E failing ${runId}` },
  cancelled: { hardware: `HC${runId}`, count: 10, campaign: `E2E cancelled ${runId}` },
} as const
type Group = keyof typeof GROUPS
/** The failing campaign's bikes that fail to install (every third one by SN): 30 %, two of its five canary bikes. */
const FAILS = (i: number) => i % 10 === 0 || i % 10 === 3 || i % 10 === 6
const INSTALL_FAILURE = 'E_FLASH_WRITE'

interface Device {
  deviceId: number
  sn: string
  secret: string
}
const devices: Record<Group, Device[]> = { smooth: [], failing: [], cancelled: [] }
const sims: SimulatedDevice[] = []
let url = ''
/** Where a device fetches the OTA keys it trusts (its registration would give them: these bikes were added, not registered). */
let otaKeysUrl = ''
let firmwareId = 0
let approvalBefore: { row: Record<string, unknown>; value: string } | null = null

const campaigns = (page: Page) => page.getByTestId(`entity-list-iotUpgrade`)
const campaignRow = (page: Page, name: string) => campaigns(page).getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ hasText: name })
const drawer = (page: Page) => page.getByTestId('ota-campaign-drawer')
const confirmDialog = (page: Page) => page.locator('.ant-modal-confirm:visible')

function simulate(d: Device, hardwareVersion: string, behaviour: Partial<ConstructorParameters<typeof SimulatedDevice>[0]> = {}) {
  const sim = new SimulatedDevice({ url, sn: d.sn, secret: d.secret, hardwareVersion, heartbeatSeconds: 30, telemetrySeconds: 0, keepalive: 10, otaKeysUrl, ...behaviour })
  sims.push(sim)
  return sim
}

/** The config value's row, to set it and put it back as it was. */
async function configRow(request: APIRequestContext, token: string, key: string): Promise<Record<string, unknown>> {
  const { rows } = await call<{ rows: Record<string, unknown>[] }>(request, 'POST', '/system/config/list', token, { pageNum: 1, pageSize: 10, configKey: key })
  const row = rows.find((r) => r.configKey === key)
  expect(row, `config ${key}`).toBeTruthy()
  return row!
}

async function setApproval(request: APIRequestContext, required: boolean) {
  const token = await apiLogin(request)
  const row = await configRow(request, token, 'ota.approvalRequired')
  await call(request, 'PUT', '/system/config', token, { ...row, configValue: String(required) })
}

/** A campaign made through the API as the form would, for the campaigns whose form the first one already tried. */
async function addCampaign(request: APIRequestContext, token: string, group: Group, values: Record<string, unknown>): Promise<number> {
  const row = await call<{ campaignId: number }>(request, 'POST', PATH, token, { name: GROUPS[group].campaign, payload: 'firmware', firmwareId, hardwareRevision: GROUPS[group].hardware, ...values })
  return row.campaignId
}

/** Confirms what a step or action without input asks: its OK button is named after it. */
async function confirm(page: Page) {
  await confirmDialog(page).locator('.ant-modal-confirm-btns .ant-btn-primary').click()
  await expect(confirmDialog(page)).toHaveCount(0)
}

async function confirmStep(page: Page, row: Locator, testId: string) {
  await clickRowAction(row, testId)
  await confirm(page)
}

/** Devices of a group that have reported what they run (the targets are resolved from it). */
async function reported(request: APIRequestContext, token: string, group: Group): Promise<number> {
  const ids = new Set(devices[group].map((d) => d.deviceId))
  const { rows } = await call<{ rows: { deviceId: number; firmwareVersion: string | null; hardwareVersion: string | null }[] }>(request, 'POST', '/iot/device/list', token, {
    pageNum: 1,
    pageSize: 100,
    sn: `${runId}${group.slice(0, 1).toUpperCase()}`,
  })
  return rows.filter((r) => ids.has(r.deviceId) && r.firmwareVersion && r.hardwareVersion === GROUPS[group].hardware).length
}

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ request, baseURL }) => {
  test.setTimeout(180_000)
  const token = await apiLogin(request)
  url = await brokerUrl(request, token)
  otaKeysUrl = `${baseURL}/api/iot/ota-keys`
  const model = await demoModel(request, token)

  // The catalogue: a supplier, its product, and the firmware image with its digests.
  const supplier = await call<{ supplierId: number }>(request, 'POST', '/ota/iotpart/supplier', token, { name: `E2E supplier ${runId}`, supplierCode: 'EE', iotCode: 'EE' })
  const product = await call<{ productId: number }>(request, 'POST', '/ota/iotpart/product', token, {
    supplierId: supplier.supplierId,
    name: `E2E module ${runId}`,
    productCode: 'EM',
    hardwareRevision: GROUPS.smooth.hardware,
  })
  const uploaded = await request.post('/api/iot/firmware/file/file', {
    headers: { Authorization: token },
    multipart: { file: { name: `core-${runId}.bin`, mimeType: 'application/octet-stream', buffer: IMAGE } },
  })
  const upload = (await uploaded.json()) as { code: number; msg: string; data: { fileName: string; sha256: string } }
  expect(upload.code, upload.msg).toBe(200)
  const firmware = await call<{ firmwareId: number; sha256: string }>(request, 'POST', '/iot/firmware', token, {
    name: FIRMWARE,
    code: `E2E-CORE-${runId}`,
    supplierId: supplier.supplierId,
    productId: product.productId,
    customVersion: TARGET_VERSION,
    hardwareRevisions: Object.values(GROUPS)
      .map((g) => g.hardware)
      .join(','),
    file: upload.data.fileName,
  })
  expect(firmware.sha256).toBe(upload.data.sha256)
  firmwareId = firmware.firmwareId

  // A second person who may approve: the admin role.
  const { rows: roles } = await call<{ rows: { roleId: number; roleKey: string }[] }>(request, 'POST', '/system/role/list', token, { pageNum: 1, pageSize: 10, roleKey: 'admin' })
  const depts = await call<{ value: number }[]>(request, 'GET', '/system/dept/options', token)
  await call(request, 'POST', '/system/user', token, {
    userName: APPROVER.username,
    nickName: 'Release approver',
    deptId: depts[0]!.value,
    password: APPROVER.password,
    email: `${APPROVER.username}@example.com`,
    phonenumber: '+31 20 555 0188',
    roleIds: [roles.find((r) => r.roleKey === 'admin')!.roleId],
  })
  const approval = await configRow(request, token, 'ota.approvalRequired')
  approvalBefore = { row: approval, value: String(approval.configValue) }
  await setApproval(request, true)

  // The bikes: each group's own hardware revision, all running 1.0.0.
  for (const group of Object.keys(GROUPS) as Group[]) {
    for (let i = 0; i < GROUPS[group].count; i++) {
      const sn = `${model.snPrefix}${runId}${group.slice(0, 1).toUpperCase()}${String(i).padStart(2, '0')}`
      devices[group].push(await addDevice(request, token, sn, model.modelId))
    }
  }
  const connecting: Promise<void>[] = []
  // The simulator's defaults download as fast as the blocks come and install in milliseconds.
  devices.smooth.forEach((d) => connecting.push(simulate(d, GROUPS.smooth.hardware).connect()))
  devices.failing.forEach((d, i) => connecting.push(simulate(d, GROUPS.failing.hardware, FAILS(i) ? { otaInstallFailCode: INSTALL_FAILURE } : {}).connect()))
  const offline = devices.cancelled.map((d) => simulate(d, GROUPS.cancelled.hardware))
  offline.forEach((sim) => connecting.push(sim.connect()))
  await Promise.all(connecting)
  for (const group of Object.keys(GROUPS) as Group[]) {
    await expect.poll(() => reported(request, token, group), { timeout: 60_000, message: `the ${group} bikes' versions` }).toBe(GROUPS[group].count)
  }
  // The third campaign's bikes have said what they run and gone: their upgrades wait for them.
  for (const sim of offline) await sim.disconnect()
})

test.afterAll(async ({ request }) => {
  for (const sim of sims) await sim.disconnect().catch(() => {})
  // Clean-up only: a refusal here is not what this spec tests.
  const token = await apiLogin(request)
  if (approvalBefore) await call(request, 'PUT', '/system/config', token, { ...approvalBefore.row, configValue: approvalBefore.value }).catch(() => {})
  await removeDevices(request, token, Object.values(devices).flatMap((g) => g.map((d) => d.deviceId))).catch(() => {})
})

test('a campaign for 50 bikes with a 10 % canary, approved by a second person, passes its canary and finishes live', async ({ page, baseURL, browser }) => {
  test.setTimeout(240_000)
  const group = GROUPS.smooth
  await openSignedIn(page, baseURL!, PATH)
  await expect(campaigns(page)).toBeVisible()

  // The form: the firmware, the bikes of one hardware revision, a 10 % canary.
  await campaigns(page).getByTestId('crud-add').click()
  const form = page.getByTestId('entity-form')
  await form.getByLabel('Campaign name').fill(group.campaign)
  await form.getByRole('combobox', { name: 'Firmware' }).click()
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: FIRMWARE }).click()
  await form.getByLabel('Hardware revision').fill(group.hardware)
  await form.getByLabel('Canary (%)').fill('10')
  await page.getByTestId('entity-form-save').click()
  await expect(page.locator('.ant-message-success').filter({ hasText: 'Added successfully' })).toBeVisible()
  const row = campaignRow(page, group.campaign)
  await expect(row).toContainText('Draft')

  // Submitted: it waits for someone else's approval.
  await confirmStep(page, row, 'row-step-submit')
  await expect(row).toContainText('Awaiting approval')
  await expect(row.getByTestId('row-step-start')).toHaveCount(0)

  // The approver, in a browser of their own.
  const context = await browser.newContext({ baseURL })
  const approverPage = await context.newPage()
  await useToken(context, baseURL!, await apiLogin(approverPage.request, APPROVER))
  await approverPage.goto(PATH)
  const approverRow = campaignRow(approverPage, group.campaign)
  await expect(approverRow).toContainText('Awaiting approval')
  await confirmStep(approverPage, approverRow, 'row-step-approve')
  await expect(approverRow).toContainText('Scheduled')
  await context.close()

  // Started by hand; the live view follows it to the end without a reload.
  await campaigns(page).getByTestId('crud-refresh').click()
  await expect(row).toContainText('Scheduled')
  await confirmStep(page, row, 'row-step-start')
  await row.getByTestId('ota-campaign-open').click()
  const live = drawer(page)
  await expect(live.getByTestId('ota-live')).toHaveAttribute('data-status', 'open')
  await expect(live.getByTestId('ota-total')).toHaveText('50 devices')
  await expect(live.getByTestId('ota-wave-0')).toContainText('of 5')
  await expect(live.getByTestId('ota-wave-0')).toHaveAttribute('data-status', 'passed', { timeout: 90_000 })
  await expect(live.getByTestId('ota-count-succeeded')).toHaveText('Succeeded 50', { timeout: 150_000 })
  await expect(live.getByTestId('ota-overview')).toHaveAttribute('data-status', 'finished', { timeout: 20_000 })
  await expect(live.getByTestId('ota-failed')).toContainText('No device has failed')
  await expect(live.getByTestId('ota-timeline')).toBeVisible()
  await saveScreen(page, 'ota-upgrade-finished')
  for (const sim of sims.filter((s) => devices.smooth.some((d) => d.sn === s.sn))) expect(sim.behaviour.firmwareVersion).toBe(TARGET_VERSION)
})

test('a campaign whose bikes fail 30 % pauses itself after the canary, and finishes once they are fixed and retried', async ({ page, baseURL }) => {
  test.setTimeout(240_000)
  const group = GROUPS.failing
  const token = await apiLogin(page.request)
  // Approval was tried once: this one goes straight to scheduled on submit.
  await setApproval(page.request, false)
  // In SN order (not random), so the canary of five holds two of the failing bikes.
  await addCampaign(page.request, token, 'failing', { canaryPercent: 25, waveCount: 1, errorPercent: 10, errorMinFinished: 5, randomOrder: false, retries: 0 })

  await openSignedIn(page, baseURL!, PATH)
  const row = campaignRow(page, group.campaign)
  await expect(row).toContainText('Draft')
  await confirmStep(page, row, 'row-step-submit')
  await expect(row).toContainText('Scheduled')
  await confirmStep(page, row, 'row-step-start')
  await row.getByTestId('ota-campaign-open').click()
  const live = drawer(page)

  // It stops itself and says why; the failed bikes are listed with their code.
  const reason = live.getByTestId('ota-pause-reason')
  await expect(reason).toBeVisible({ timeout: 90_000 })
  await expect(live.getByTestId('ota-overview')).toHaveAttribute('data-status', 'paused')
  await expect(live.getByTestId('ota-wave-0')).toHaveAttribute('data-status', 'stopped')
  await expect(live.getByTestId('ota-wave-1')).toHaveAttribute('data-status', 'waiting')
  await expect(live.getByTestId('ota-failed').locator('tbody tr.ant-table-row').filter({ hasText: INSTALL_FAILURE })).toHaveCount(2)
  await expect(live.getByTestId('ota-count-failed')).toHaveText('Failed 2')
  await saveScreen(page, 'ota-upgrade-paused')
  // Every bike of the campaign, its states counted.
  await live.getByTestId('ota-show-devices').click()
  const perDevice = live.getByTestId('entity-list-iotUpgradeDevice')
  await expect(perDevice.getByTestId('state-filter')).toContainText('Failed (2)')
  await expect(perDevice.getByTestId('state-filter')).toContainText('Queued (15)')
  await live.getByRole('tab', { name: 'Live view' }).click()

  // Fixed: the bikes install again; the failed are queued again and the campaign resumed.
  for (const sim of sims.filter((s) => devices.failing.some((d) => d.sn === s.sn))) sim.behaviour.otaInstallFailCode = ''
  await live.getByTestId('campaign-row-action-retryFailed').click()
  await confirm(page)
  await live.getByTestId('campaign-row-step-resume').click()
  await confirm(page)
  await expect(reason).toHaveCount(0, { timeout: 20_000 })
  await expect(live.getByTestId('ota-count-succeeded')).toHaveText('Succeeded 20', { timeout: 150_000 })
  await expect(live.getByTestId('ota-overview')).toHaveAttribute('data-status', 'finished', { timeout: 20_000 })
  await expect(live.getByTestId('ota-count-failed')).toHaveCount(0)
})

test('a running campaign is cancelled: the bikes still waiting for it are cancelled', async ({ page, baseURL }) => {
  test.setTimeout(120_000)
  const group = GROUPS.cancelled
  const token = await apiLogin(page.request)
  const id = await addCampaign(page.request, token, 'cancelled', { canaryPercent: 10 })
  await call(page.request, 'POST', `${PATH}/${id}/submit`, token, {})
  await call(page.request, 'POST', `${PATH}/${id}/start`, token, {})

  await openSignedIn(page, baseURL!, PATH)
  const row = campaignRow(page, group.campaign)
  await expect(row).toContainText('Running')
  await clickRowAction(row, 'row-step-cancel')
  const dialog = page.locator('.ant-modal:visible').filter({ has: page.getByTestId('operation-form') })
  await dialog.getByLabel('Reason').fill('Wrong image for these bikes')
  await dialog.getByTestId('operation-submit').click()
  await expect(dialog).toHaveCount(0)
  await expect(row).toContainText('Cancelled')

  await row.getByTestId('ota-campaign-open').click()
  const live = drawer(page)
  await expect(live.getByTestId('ota-overview')).toHaveAttribute('data-status', 'cancelled')
  await expect(live.getByTestId('ota-count-cancelled')).toHaveText(`Cancelled ${group.count}`)
  await live.getByRole('tab', { name: 'Details and history' }).click()
  await expect(live.getByTestId('transition-timeline')).toContainText('Wrong image for these bikes')
})
