import { expect, test, type Page } from '@playwright/test'
import { SimulatedDevice } from '@velo/device-sim'
import { clickRowAction } from './support/rows'
import { brokerUrl, call, demoModel, openSignedIn } from './support/session'

// The tool system: a tool user added in the console (the form says what it requires), who then signs
// in to the tool API, registers a device on the line and tests it against a simulated module; the
// Tool-system IoT page lists the device with its result, production apart from test devices.

const runId = String(Date.now() % 1_000_000).padStart(6, '0')
const email = `line${runId}@tool.example.com`
const PASSWORD = 'line-pass1'

const list = (page: Page, key: string) => page.getByTestId(`entity-list-${key}`)
const rows = (page: Page, key: string) => list(page, key).getByTestId('crud-table').locator('tbody tr.ant-table-row')

test('a tool user is added with the required fields, and the device they test on the line is listed with its result', async ({ page, baseURL }) => {
  const token = await openSignedIn(page, baseURL!, '/tool/user')
  await list(page, 'toolUser').getByTestId('crud-add').click()
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByTestId('entity-form')).toBeVisible()
  await page.getByTestId('entity-form-save').click()
  await expect(dialog.getByText('Company name is required')).toBeVisible()
  await expect(dialog.getByText('Email is required')).toBeVisible()
  await dialog.getByLabel('Company name').fill('Line Works')
  await dialog.getByLabel('Email').fill(email)
  await dialog.getByLabel('Password').fill(PASSWORD)
  await page.getByTestId('entity-form-save').click()
  await expect(page.locator('.ant-message-success')).toBeVisible()
  await expect(rows(page, 'toolUser').filter({ hasText: email })).toBeVisible()

  // The factory's tool, through its own API.
  const login = await page.request.post('/api/tool-api/v1/auth/login', { data: { email, password: PASSWORD } })
  const toolToken = ((await login.json()) as { data: { token: string } }).data.token
  const model = await demoModel(page.request, token)
  const sn = `${model.snPrefix}TL${runId}`
  const registered = await page.request.post('/api/tool-api/v1/devices', { headers: { Authorization: toolToken }, data: { sn, productId: 'VELO-4G' } })
  const { secret } = ((await registered.json()) as { data: { secret: string } }).data
  const sim = new SimulatedDevice({ url: await brokerUrl(page.request, token), sn, secret, heartbeatSeconds: 20, telemetrySeconds: 0, keepalive: 5, mqtt: { reconnectPeriod: 0 } })
  try {
    await sim.connect()
    // The test pings the bike: wait until the server has it online (its hello is handled after the
    // connection), else the ping would only be queued and the test fail.
    const state = async () => (await call<{ rows: { sn: string; state: string }[] }>(page.request, 'POST', '/iot/device/list', token, { pageNum: 1, pageSize: 10, sn })).rows.find((r) => r.sn === sn)?.state
    await expect.poll(state).toBe('online')
    const tested = await page.request.post(`/api/tool-api/v1/devices/${sn}/test`, { headers: { Authorization: toolToken } })
    expect(((await tested.json()) as { data: { testResult: string } }).data.testResult).toBe('passed')

    await page.goto('/tool/iot')
    const row = rows(page, 'toolDevice').filter({ hasText: sn })
    await expect(row).toContainText('Passed')
    await expect(row).toContainText(email)
    await expect(row).toContainText('Production')
    // Test accounts' devices are listed apart: this production device is not among them.
    await list(page, 'toolDevice').getByTestId('tool-device-kind').getByText('Test devices').click()
    await expect(row).toHaveCount(0)
  } finally {
    await sim.disconnect().catch(() => {})
  }
  // The console's own list carries what the tool recorded.
  const recorded = await call<{ rows: Array<{ sn: string; testResult: string }> }>(page.request, 'POST', '/tool/iot/list', token, { pageNum: 1, pageSize: 10, sn })
  expect(recorded.rows[0]?.testResult).toBe('passed')

  // The operator forgot the password: an admin sets a new one, and the tool signs in with it only.
  await page.goto('/tool/user')
  const userRow = rows(page, 'toolUser').filter({ hasText: email })
  await expect(userRow).toBeVisible()
  await clickRowAction(userRow, 'row-action-resetPassword')
  const reset = page.getByRole('dialog').filter({ has: page.getByTestId('operation-form') })
  await reset.getByLabel('New password').fill('new-line-pass2')
  await reset.getByTestId('operation-submit').click()
  await expect(page.locator('.ant-message-success').filter({ hasText: 'Reset password: done' })).toBeVisible()
  expect((await page.request.post('/api/tool-api/v1/auth/login', { data: { email, password: PASSWORD } })).status()).toBe(400)
  expect((await page.request.post('/api/tool-api/v1/auth/login', { data: { email, password: 'new-line-pass2' } })).status()).toBe(200)

  // The operation log names the tool's operator compactly (a staff list must still fit a laptop), the address on hover.
  await page.goto('/monitor/operlog')
  const operator = page.getByTestId('operator-tool').filter({ hasText: `line${runId}` }).first()
  await expect(operator).toContainText('Tool')
  await expect(operator).not.toContainText('@')
  await operator.hover()
  await expect(page.locator('.ant-tooltip').filter({ hasText: email })).toBeVisible()
})
