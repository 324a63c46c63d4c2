import type { TelemetryPayload } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { UpMessage } from '../src/gateway/types'
import { geofencesOf } from '../src/modules/iot/geofence'
import { limitedUser, type Refusal, useTestApp } from './harness'
import { clearRetained, demoModelId, insertDevice, simulated, waitFor } from './iot-helpers'

// IoT › Geofences (issue 42 §3): the definition's checks at the edge, the rights, and positions as the
// gateway hands them to the telemetry handlers, raising and clearing the 'geofence' warning. Runs on
// SQLite, and on PostgreSQL with TEST_DATABASE_URL.

const t = useTestApp()
const db = () => t.app.services.db
const geofences = () => geofencesOf(t.app.services)

// Around Amsterdam's centre (~11 km by 11 km); points inside and outside it.
const AMSTERDAM = { type: 'Polygon', coordinates: [[[4.8, 52.32], [4.96, 52.32], [4.96, 52.42], [4.8, 52.42], [4.8, 52.32]]] }
const IN = { lat: 52.37012, lng: 4.8911 }
const OUT = { lat: 52.5, lng: 4.6 }

interface Fence {
  geofenceId: number
  shape: string
  geometry: string
}

let modelId = 0
let serial = 0
const add = (body: Record<string, unknown>, token = t.admin) => t.call<Fence & Refusal>({ method: 'POST', url: '/api/iot/geofence', token, body })
const fenceCount = async () => Number((await db().selectFrom('iotGeofence').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)

/** A fence added through the API (so this instance reloads at once). */
async function fence(o: Record<string, unknown>) {
  const r = await add({ name: `Fence ${++serial}`, geometry: JSON.stringify(AMSTERDAM), trigger: 'exit', allDevices: false, ...o })
  expect(r.status, JSON.stringify(r.data)).toBe(200)
  return r.data.geofenceId
}

/** A position as the gateway hands it to the telemetry handlers; the device's stored position follows, as the presence writer keeps it. */
async function report(d: { deviceId: number; sn: string; modelId?: number }, p: { lat: number; lng: number }) {
  const m: UpMessage<TelemetryPayload> = {
    device: { deviceId: d.deviceId, sn: d.sn, modelId: d.modelId ?? modelId },
    kind: 'telemetry',
    topic: `velo/${d.sn}/telemetry`,
    payload: { v: 1, gps: { lat: p.lat, lng: p.lng } },
    raw: '',
    receivedAt: Date.parse('2026-12-01T03:12:00Z'),
  }
  await geofences().onTelemetry(m)
  await geofences().settled()
  await db().updateTable('iotDevice').set({ latitude: p.lat, longitude: p.lng }).where('deviceId', '=', d.deviceId).execute()
}

const warnings = (deviceId: number) =>
  db().selectFrom('iotAlarm').select(['code', 'detail', 'latitude', 'longitude', 'state', 'count', 'activeKey']).where('deviceId', '=', deviceId).where('type', '=', 'geofence').orderBy('alarmId').execute()
const active = async (deviceId: number) => (await warnings(deviceId)).filter((w) => w.activeKey !== null)

const sims: ReturnType<typeof simulated>[] = []

beforeAll(async () => {
  modelId = await demoModelId(t)
})

afterAll(async () => {
  await Promise.all(sims.map((d) => d.disconnect().catch(() => {})))
  await clearRetained(
    t.app,
    sims.map((d) => d.sn),
  )
})

describe('the definition', () => {
  it('refuses what is not one polygon or circle within the limits, and writes nothing', async () => {
    const before = await fenceCount()
    const open = { type: 'Polygon', coordinates: [[[4.8, 52.32], [4.96, 52.32], [4.96, 52.42]]] }
    const notClosed = { type: 'Polygon', coordinates: [[[4.8, 52.32], [4.96, 52.32], [4.96, 52.42], [4.8, 52.42]]] }
    const many = { type: 'Polygon', coordinates: [[...Array.from({ length: 501 }, (_, i) => [4 + Math.cos(i / 80), 52 + Math.sin(i / 80)]), [4 + 1, 52]]] }
    const multi = { type: 'MultiPolygon', coordinates: [AMSTERDAM.coordinates] }
    const wide = { type: 'Point', coordinates: [4.9, 52.37], radius: 50_001 }
    const cases: [unknown, string][] = [
      ['{not json', 'not GeoJSON'],
      [JSON.stringify(open), 'at least 3 corners'],
      [JSON.stringify(notClosed), 'not closed'],
      [JSON.stringify(many), 'more than 500 corners'],
      [JSON.stringify(multi), 'MultiPolygon'],
      [JSON.stringify(wide), 'radius'],
      [JSON.stringify({ type: 'LineString', coordinates: [[4, 52], [5, 53]] }), 'Polygon or a circle'],
    ]
    for (const [geometry, words] of cases) {
      const r = await add({ name: 'Bad', geometry, trigger: 'exit' })
      expect(r.status, String(geometry).slice(0, 60)).toBe(400)
      expect(r.msg).toContain(words)
      expect(r.data.errors[0]?.field).toBe('geometry')
    }
    const zh = await t.call({ method: 'POST', url: '/api/iot/geofence', token: t.admin, lang: 'zh_CN', body: { name: 'Bad', geometry: JSON.stringify(multi), trigger: 'exit' } })
    expect(zh.msg).toContain('MultiPolygon')
    expect(zh.msg).toContain('电子围栏')
    expect(await fenceCount()).toBe(before)
  })

  it('sets the shape from the geometry, and keeps a Feature as its geometry', async () => {
    const circle = await add({ name: 'Depot', geometry: JSON.stringify({ type: 'Feature', properties: { radius: 300 }, geometry: { type: 'Point', coordinates: [4.9, 52.37] } }), trigger: 'both' })
    expect(circle.status).toBe(200)
    expect(circle.data.shape).toBe('circle')
    expect(JSON.parse(circle.data.geometry)).toEqual({ type: 'Point', coordinates: [4.9, 52.37], radius: 300 })
    const changed = await t.call<Fence>({ method: 'PUT', url: '/api/iot/geofence', token: t.admin, body: { geofenceId: circle.data.geofenceId, geometry: JSON.stringify(AMSTERDAM) } })
    expect(changed.status).toBe(200)
    expect(changed.data.shape).toBe('polygon')
    // The shape is the geometry's to say.
    const forced = await t.call<Fence>({ method: 'PUT', url: '/api/iot/geofence', token: t.admin, body: { geofenceId: circle.data.geofenceId, shape: 'circle' } })
    expect(forced.data.shape).toBe('polygon')
    await t.call({ method: 'DELETE', url: `/api/iot/geofence/${circle.data.geofenceId}`, token: t.admin })
  })

  it('lists what each fence applies to, the links named (the first 20 of a long list, and how many)', async () => {
    const devices = []
    for (let i = 0; i < 22; i++) devices.push(await insertDevice(t))
    const id = await fence({ name: 'Listed fence', modelIds: [modelId], deviceIds: devices.map((d) => d.deviceId) })
    const list = await t.call<{ rows: Record<string, unknown>[] }>({ method: 'POST', url: '/api/iot/geofence/list', token: t.admin, body: { pageNum: 1, pageSize: 10, name: 'Listed fence' } })
    const row = list.data.rows.find((r) => r.geofenceId === id)!
    expect(row).toMatchObject({ modelIds: [modelId], modelIdsTotal: 1, deviceIdsTotal: 22, countryIds: [], countryIdsTotal: 0 })
    expect(row.deviceIds).toEqual(devices.slice(0, 20).map((d) => d.deviceId))
    expect(row.deviceIdsLabels).toEqual(devices.slice(0, 20).map((d) => d.sn))
    // One row read by id: every link.
    const one = await t.call<{ deviceIds: number[] }>({ method: 'GET', url: `/api/iot/geofence/${id}`, token: t.admin })
    expect(one.data.deviceIds).toHaveLength(22)
    await t.call({ method: 'DELETE', url: `/api/iot/geofence/${id}`, token: t.admin })
  })

  it('needs the page rights', async () => {
    const reader = await limitedUser(t, { userName: 'fencereader', perms: ['iot:geofence:list', 'iot:geofence:query'], dataScope: '1' })
    expect((await t.call({ method: 'POST', url: '/api/iot/geofence/list', token: reader.token, body: {} })).status).toBe(200)
    expect((await t.call({ method: 'GET', url: '/api/iot/geofence/setup', token: reader.token })).status).toBe(200)
    const before = await fenceCount()
    expect((await add({ name: 'Nope', geometry: JSON.stringify(AMSTERDAM), trigger: 'exit' }, reader.token)).status).toBe(403)
    const nobody = await limitedUser(t, { userName: 'fencenobody', perms: ['iot:device:list'], dataScope: '1' })
    expect((await t.call({ method: 'POST', url: '/api/iot/geofence/list', token: nobody.token, body: {} })).status).toBe(403)
    expect((await t.call({ method: 'GET', url: '/api/iot/geofence/setup', token: nobody.token })).status).toBe(403)
    expect(await fenceCount()).toBe(before)
  })
})

describe('positions against the fences', () => {
  it('an exit fence raises on leaving, with the place and time, and clears on coming back', async () => {
    const d = await insertDevice(t)
    const id = await fence({ name: 'Depot Amsterdam', deviceIds: [d.deviceId], trigger: 'exit' })
    await report(d, IN)
    await report(d, { lat: IN.lat + 0.001, lng: IN.lng })
    expect(await warnings(d.deviceId)).toEqual([])
    await report(d, OUT)
    const [raised] = await active(d.deviceId)
    // The position is the rider's: in the alarm's location fields (masked, kept and erased as positions are), never in its text.
    expect(raised).toMatchObject({ code: String(id), detail: 'left Depot Amsterdam at 03:12 UTC', latitude: 52.5, longitude: 4.6 })
    // Staying out says nothing more.
    await report(d, { lat: OUT.lat + 0.01, lng: OUT.lng })
    expect((await active(d.deviceId))[0]?.count).toBe(1)
    await report(d, IN)
    expect(await active(d.deviceId)).toEqual([])
    expect((await warnings(d.deviceId))[0]?.state).toBe('clearedUnack')
  })

  it('an enter fence raises on coming in and clears on leaving; leaving alone raises nothing', async () => {
    const d = await insertDevice(t)
    const id = await fence({ deviceIds: [d.deviceId], trigger: 'enter' })
    await report(d, OUT)
    await report(d, IN)
    expect(await active(d.deviceId)).toMatchObject([{ code: String(id), detail: expect.stringMatching(/^entered Fence \d+ at 03:12 UTC$/) }])
    await report(d, OUT)
    expect(await active(d.deviceId)).toEqual([])
    expect(await warnings(d.deviceId)).toHaveLength(1)
  })

  it('each fence is its own warning', async () => {
    const d = await insertDevice(t)
    const a = await fence({ deviceIds: [d.deviceId] })
    const b = await fence({ deviceIds: [d.deviceId], geometry: JSON.stringify({ type: 'Point', coordinates: [IN.lng, IN.lat], radius: 2000 }) })
    await report(d, IN)
    await report(d, OUT)
    expect((await active(d.deviceId)).map((w) => w.code).sort()).toEqual([String(a), String(b)].sort())
  })

  it("a fence attached to a model applies to that model's devices only", async () => {
    const mine = await insertDevice(t)
    const other = { ...(await insertDevice(t)), modelId: modelId + 100_000 }
    const id = await fence({ modelIds: [modelId] })
    for (const d of [mine, other]) {
      await report(d, IN)
      await report(d, OUT)
    }
    expect(await active(mine.deviceId)).toHaveLength(1)
    expect(await active(other.deviceId)).toEqual([])
    // Every test's device is of this model.
    await t.call({ method: 'DELETE', url: `/api/iot/geofence/${id}`, token: t.admin })
  })

  it("a fence attached to a country applies to the devices of that country's riders", async () => {
    const country = async (code: string) => Number((await db().selectFrom('sysCountry').select('countryId').where('code', '=', code).executeTakeFirstOrThrow()).countryId)
    const [NL, DE] = [await country('NL'), await country('DE')]
    const ridden = async (countryId: number) => {
      const d = await insertDevice(t)
      const member = await db()
        .insertInto('memMember')
        .values({ email: `geo-${d.sn.toLowerCase()}@example.com`, firstName: 'Geo', lastName: d.sn, countryId, createBy: 'app', createTime: new Date().toISOString() })
        .returning('memberId')
        .executeTakeFirstOrThrow()
      await db()
        .insertInto('bikeBike')
        .values({ frameNumber: `GEOBIKE${d.sn}`, category: 'city', modelId: 1, colourId: 1, sizeId: 1, bindStatus: 'bound', memberId: member.memberId, iotDeviceId: d.deviceId, createBy: 'test', createTime: new Date().toISOString() })
        .execute()
      return d
    }
    const dutch = await ridden(NL)
    const german = await ridden(DE)
    const id = await fence({ countryIds: [NL] })
    for (const d of [dutch, german]) {
      await report(d, IN)
      await report(d, OUT)
    }
    expect(await active(dutch.deviceId)).toMatchObject([{ code: String(id) }])
    expect(await active(german.deviceId)).toEqual([])
    await t.call({ method: 'DELETE', url: `/api/iot/geofence/${id}`, token: t.admin })
  })

  it('every device, when the fence says so; none when it names nothing', async () => {
    const d = await insertDevice(t)
    const unattached = await fence({})
    const all = await fence({ allDevices: true })
    await report(d, IN)
    await report(d, OUT)
    const codes = (await active(d.deviceId)).map((w) => w.code)
    expect(codes).toContain(String(all))
    expect(codes).not.toContain(String(unattached))
    // Not left for the other tests' devices.
    await t.call({ method: 'DELETE', url: `/api/iot/geofence/${all}`, token: t.admin })
  })

  it('a disabled fence is ignored, and counts again once enabled', async () => {
    const d = await insertDevice(t)
    const id = await fence({ deviceIds: [d.deviceId], status: '1' })
    await report(d, IN)
    await report(d, OUT)
    expect(await active(d.deviceId)).toEqual([])
    expect((await t.call({ method: 'PUT', url: '/api/iot/geofence', token: t.admin, body: { geofenceId: id, status: '0' } })).status).toBe(200)
    await report(d, IN)
    await report(d, OUT)
    expect(await active(d.deviceId)).toHaveLength(1)
  })

  it('a restart does not raise for a device that stayed out, and still sees the next crossing', async () => {
    const d = await insertDevice(t)
    await fence({ deviceIds: [d.deviceId], trigger: 'both' })
    await report(d, IN)
    // What this instance knew of the device is gone: as after a restart.
    geofences().evaluator.forget()
    await report(d, IN)
    expect(await warnings(d.deviceId)).toEqual([])
    geofences().evaluator.forget()
    await report(d, OUT)
    expect(await active(d.deviceId)).toHaveLength(1)
  })

  it("another instance's change is seen by the periodic check", async () => {
    const d = await insertDevice(t)
    const now = new Date().toISOString()
    const row = await db()
      .insertInto('iotGeofence')
      .values({ name: `Elsewhere ${d.sn}`, shape: 'polygon', geometry: JSON.stringify(AMSTERDAM), trigger: 'exit', allDevices: 0, status: '0', createBy: 'other', createTime: now })
      .returning('geofenceId')
      .executeTakeFirstOrThrow()
    await db().insertInto('iotGeofenceDevice').values({ geofenceId: Number(row.geofenceId), deviceId: d.deviceId }).execute()
    await geofences().checkForChanges()
    await report(d, IN)
    await report(d, OUT)
    expect(await active(d.deviceId)).toMatchObject([{ code: String(row.geofenceId) }])
  })

  it('is wired where positions arrive: a device over the broker leaves the fence and the warning is raised', async () => {
    const d = await insertDevice(t)
    const id = await fence({ name: 'Broker depot', deviceIds: [d.deviceId], trigger: 'exit' })
    const sim = simulated(t.app, d, { lat: IN.lat, lng: IN.lng })
    sims.push(sim)
    await sim.connect()
    await sim.reportTelemetry({ gps: { lat: IN.lat, lng: IN.lng } })
    await waitFor(async () => (await db().selectFrom('iotDevice').select('latitude').where('deviceId', '=', d.deviceId).executeTakeFirst())?.latitude, 'the position stored')
    await sim.reportTelemetry({ gps: { lat: OUT.lat, lng: OUT.lng } })
    const raised = await waitFor(async () => (await active(d.deviceId))[0], 'the geofence warning')
    expect(raised).toMatchObject({ code: String(id), detail: expect.stringContaining('left Broker depot at '), latitude: 52.5, longitude: 4.6 })
  })
})
