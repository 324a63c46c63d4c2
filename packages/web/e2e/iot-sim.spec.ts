import { expect, test } from '@playwright/test'
import { SimulatedDevice } from '@velo/device-sim'
import { withLuhnDigit } from '@velo/shared'
import { addDevice, apiLogin, brokerUrl, call, demoModel, openSignedIn, removeDevices } from './support/session'
import { saveScreen } from './support/screens'

// IoT › SIM cards against the real server and its embedded broker: a simulated bike reports its SIM
// usage, the card appears in use and linked to the bike, and once the usage crosses the card's
// threshold the list shows the warning flow state.

const runId = String(Date.now() % 1_000_000).padStart(6, '0')
// 19 digits ending with the Luhn check digit, as the server requires.
const iccid = withLuhnDigit(`893107${runId}000000`)
let device: { deviceId: number; sn: string; secret: string } | undefined
let sim: SimulatedDevice | undefined

test.afterAll(async ({ request }) => {
  await sim?.disconnect().catch(() => {})
  // Clean-up only: a refusal here is not what this spec tests.
  const token = await apiLogin(request)
  const found = await call<{ rows: { simId: number }[] }>(request, 'POST', '/iot/sim/list', token, { pageNum: 1, pageSize: 10, iccid }).catch(() => ({ rows: [] }))
  if (found.rows.length) await call(request, 'DELETE', `/iot/sim/${found.rows.map((r) => r.simId).join(',')}`, token).catch(() => {})
  if (device) await removeDevices(request, token, [device.deviceId]).catch(() => {})
})

test('a SIM card crossing its usage threshold shows the warning flow state', async ({ page, request, baseURL }) => {
  const token = await apiLogin(request)
  const model = await demoModel(request, token)
  device = await addDevice(request, token, `${model.snPrefix}SIM${runId}`, model.modelId)
  sim = new SimulatedDevice({ url: await brokerUrl(request, token), sn: device.sn, secret: device.secret, heartbeatSeconds: 20, telemetrySeconds: 0, iccid, simUsedMb: 100, simLimitMb: 1000, mqtt: { reconnectPeriod: 0 } })
  await sim.connect()

  await openSignedIn(page, baseURL!, '/iot/sim')
  const list = page.getByTestId('entity-list-iotSim')
  const row = list.getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ hasText: iccid })
  // The card is the server's record of what the bike reported, and the list is not live for its own
  // fields: once the server has it, Search reads the list again.
  const card = async () => (await call<{ rows: { status: string; flowState: string; deviceId: number | null }[] }>(request, 'POST', '/iot/sim/list', token, { pageNum: 1, pageSize: 10, iccid })).rows[0]
  await expect.poll(async () => ((c) => c && { status: c.status, deviceId: c.deviceId })(await card())).toEqual({ status: 'inUse', deviceId: device.deviceId })
  await list.getByTestId('crud-search-submit').click()
  await expect(row).toContainText('In use')
  await expect(row).toContainText('Normal')
  await expect(row).toContainText(device.sn)

  // 85 % of the package: past the default threshold of 80 %.
  await sim.useData(850)
  await expect.poll(async () => (await card())?.flowState).toBe('warning')
  await list.getByTestId('crud-search-submit').click()
  await expect(row).toContainText('Warning')
  await expect(row).toContainText('150')
  await saveScreen(page, 'iot-sim-warning')
})
