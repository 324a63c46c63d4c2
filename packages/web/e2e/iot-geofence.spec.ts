import { expect, test, type Page } from '@playwright/test'
import { SimulatedDevice } from '@velo/device-sim'
import { addDevice, apiLogin, brokerUrl, call, demoModel, openSignedIn, removeDevices } from './support/session'
import { saveScreen } from './support/screens'
import { blockOutside } from './support/network'

// IoT › Geofences against the real server and its embedded broker, with every request to another
// origin blocked: a geofence is made in the form from imported GeoJSON (a MultiPolygon is refused
// first), attached to a simulated bike, and the bike leaving it shows the warning in IoT › Warnings.

const runId = String(Date.now() % 1_000_000).padStart(6, '0')
const NAME = `Depot E2E ${runId}`
// Around Amsterdam's centre; the bike stands inside, then rides out to the north-west.
const DEPOT = { type: 'Polygon', coordinates: [[[4.8, 52.32], [4.96, 52.32], [4.96, 52.42], [4.8, 52.42], [4.8, 52.32]]] }
const INSIDE = { lat: 52.37012, lng: 4.8911 }
const OUTSIDE = { lat: 52.5, lng: 4.6 }

let device: { deviceId: number; sn: string; secret: string } | undefined
let sim: SimulatedDevice | undefined

const form = (page: Page) => page.getByTestId('entity-form')
const listOf = (page: Page, key: string) => page.getByTestId(`entity-list-${key}`)
const rowsOf = (page: Page, key: string) => listOf(page, key).getByTestId('crud-table').locator('tbody tr.ant-table-row')
const geoJsonFile = (name: string, value: unknown) => ({ name, mimeType: 'application/geo+json', buffer: Buffer.from(JSON.stringify(value)) })

test.describe.configure({ mode: 'serial' })

test.afterAll(async ({ request }) => {
  await sim?.disconnect().catch(() => {})
  const token = await apiLogin(request)
  // Clean-up only: a refusal here is not what this spec tests.
  const fences = await call<{ rows: { geofenceId: number }[] }>(request, 'POST', '/iot/geofence/list', token, { name: `Depot E2E ${runId}` }).catch(() => ({ rows: [] }))
  if (fences.rows.length) await call(request, 'DELETE', `/iot/geofence/${fences.rows.map((r) => r.geofenceId).join(',')}`, token).catch(() => {})
  if (device) await removeDevices(request, token, [device.deviceId]).catch(() => {})
})

test('a geofence made from imported GeoJSON warns when a bike leaves it', async ({ page, request, baseURL }) => {
  const token = await apiLogin(request)
  const model = await demoModel(request, token)
  device = await addDevice(request, token, `${model.snPrefix}GEO${runId}`, model.modelId)
  sim = new SimulatedDevice({ url: await brokerUrl(request, token), sn: device.sn, secret: device.secret, heartbeatSeconds: 20, telemetrySeconds: 0, ...INSIDE, mqtt: { reconnectPeriod: 0 } })
  await sim.connect()

  const outside = await blockOutside(page, baseURL!)
  await openSignedIn(page, baseURL!, '/iot/geofence')
  await expect(page).toHaveTitle('Geofences - Velo Admin')
  await listOf(page, 'iotGeofence').getByTestId('crud-add').click()
  await expect(form(page)).toBeVisible()
  await form(page).getByLabel('Name').fill(NAME)

  // One polygon per fence: a MultiPolygon is refused with the reason, and nothing is taken.
  const file = form(page).getByTestId('geometry-import-file')
  await file.setInputFiles(geoJsonFile('two-depots.geojson', { type: 'MultiPolygon', coordinates: [DEPOT.coordinates] }))
  await expect(form(page).getByTestId('geometry-import-problem')).toContainText('MultiPolygon')
  await expect(form(page).getByTestId('geometry-text')).toHaveValue('')

  await file.setInputFiles(geoJsonFile('depot.geojson', { type: 'FeatureCollection', features: [{ type: 'Feature', properties: { name: 'Depot' }, geometry: DEPOT }] }))
  await expect(form(page).getByTestId('geometry-summary')).toHaveText('Polygon, 4 corners')
  await expect(form(page).getByTestId('geometry-import-problem')).toHaveCount(0)
  await form(page).getByTestId('geometry-geometry').scrollIntoViewIfNeeded()
  await saveScreen(page, 'iot-geofence-imported')

  // Attached to this bike alone; warned on leaving (the default).
  const devices = form(page).getByLabel('Devices')
  await devices.click()
  await devices.fill(device.sn)
  await page.locator('.ant-select-item-option').filter({ hasText: device.sn }).click()
  await page.keyboard.press('Escape')
  await saveScreen(page, 'iot-geofence-form')
  await page.getByTestId('entity-form-save').click()
  await expect(page.locator('.ant-message-success').filter({ hasText: 'Added successfully' })).toBeVisible()
  const row = rowsOf(page, 'iotGeofence').filter({ hasText: NAME })
  await expect(row).toContainText('Polygon')
  await expect(row).toContainText('Leaving')
  await expect(row).toContainText(device.sn)

  // Inside, then out: the gateway stores the first position before the bike moves.
  await sim.reportTelemetry({ gps: { ...INSIDE, speed: 0, satellites: 9 } })
  await expect
    .poll(async () => (await call<{ latitude: number | null }>(request, 'GET', `/iot/device/${device!.deviceId}`, token)).latitude)
    .toBeCloseTo(INSIDE.lat, 3)
  await sim.reportTelemetry({ gps: { ...OUTSIDE, speed: 18, satellites: 9 } })

  await page.goto('/iot/warning')
  const warning = rowsOf(page, 'iotAlarm').filter({ hasText: device.sn })
  await expect(warning).toBeVisible()
  await expect(warning).toContainText('Geofence entered or left')
  await expect(warning).toContainText(`left ${NAME} at `)
  await saveScreen(page, 'iot-geofence-warning')
  expect(outside).toEqual([])
})

test('a polygon and a circle drawn on the map, on the world map with the network blocked; the circle is the fence', async ({ page, baseURL }) => {
  const outside = await blockOutside(page, baseURL!)
  const failures: string[] = []
  page.on('requestfailed', (r) => {
    if (new URL(r.url()).pathname.startsWith('/assets/')) failures.push(r.url())
  })
  await openSignedIn(page, baseURL!, '/iot/geofence')
  await listOf(page, 'iotGeofence').getByTestId('crud-add').click()
  await form(page).getByLabel('Name').fill(`${NAME} circle`)
  const field = form(page).getByTestId('geometry-geometry')
  await field.scrollIntoViewIfNeeded()
  const drawCircle = field.getByTestId('geometry-draw-circle')
  test.skip((await field.getByText('The map could not start here').count()) > 0, 'no WebGL in this browser: the import above is the way in')
  await expect(drawCircle).toBeEnabled()
  const canvas = field.locator('canvas.maplibregl-canvas')
  const box = (await canvas.boundingBox())!
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 }
  // A triangle: three corners, then the first again closes it.
  await field.getByTestId('geometry-draw-polygon').click()
  const corners = [
    { x: centre.x - 80, y: centre.y + 60 },
    { x: centre.x + 80, y: centre.y + 60 },
    { x: centre.x, y: centre.y - 80 },
    { x: centre.x - 80, y: centre.y + 60 },
  ]
  for (const c of corners) {
    await page.mouse.move(c.x, c.y, { steps: 4 })
    await page.mouse.click(c.x, c.y)
  }
  await expect(field.getByTestId('geometry-summary')).toHaveText('Polygon, 3 corners')
  // Drawn again as a circle: the new shape replaces the triangle.
  await drawCircle.click()
  await page.mouse.click(centre.x, centre.y)
  for (let dx = 10; dx <= 60; dx += 10) await page.mouse.move(centre.x + dx, centre.y)
  await page.mouse.click(centre.x + 60, centre.y)
  await expect(field.getByTestId('geometry-summary')).toHaveText(/^Circle, radius [\d,]+ m$/)
  const drawn = JSON.parse(await field.getByTestId('geometry-text').inputValue()) as { type: string; radius: number }
  expect(drawn.type).toBe('Point')
  expect(drawn.radius).toBeGreaterThan(0)
  await saveScreen(page, 'iot-geofence-drawn')
  await page.getByTestId('entity-form-save').click()
  await expect(page.locator('.ant-message-success').filter({ hasText: 'Added successfully' })).toBeVisible()
  await expect(rowsOf(page, 'iotGeofence').filter({ hasText: `${NAME} circle` })).toContainText('Circle')
  expect(outside).toEqual([])
  expect(failures).toEqual([])
})
