import type { Trace } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import { limitedUser, useTestApp } from './harness'
import { insertDevice } from './iot-helpers'

// A device's trace (issue 42 §2, §5): positions from the telemetry history over a range, for a
// device, its bike or one ride, with distance, stops and top speed; only for who may see positions,
// within the device list's scope, every look logged without a position. Runs on SQLite, and on
// PostgreSQL + Redis + Mosquitto with the TEST_* variables.

const t = useTestApp()
const db = () => t.app.services.db
const iso = (ms: number) => new Date(ms).toISOString()

const trace = (token: string, body: object) => t.call<Trace>({ method: 'POST', url: '/api/iot/trace', token, body })

/** A degree of longitude at 52.37° N, in metres (the mean sphere). */
const LNG_M = 111_195.08 * Math.cos((52.37 * Math.PI) / 180)
const east = (metres: number) => 4.9 + metres / LNG_M

/** The known drive: 400 m east, the top speed on the way, a stop of 3½ minutes with GPS jitter, 390 m on. */
const DRIVE: [second: number, metresEast: number, speed: number][] = [
  [0, 0, 12],
  [30, 100, 12],
  [60, 200, 14],
  [90, 300, 31.5],
  [120, 400, 12],
  [150, 410, 0],
  [210, 412, 0],
  [270, 408, 0],
  [330, 410, 0],
  [360, 600, 22],
  [390, 800, 24],
]

const countryId = async (code: string) => Number((await db().selectFrom('sysCountry').select('countryId').where('code', '=', code).executeTakeFirstOrThrow()).countryId)

let serial = 0
/** A device on a bike of a member of the country; answers the device, the bike and the member. */
async function fitted(country: number) {
  const d = await insertDevice(t)
  const n = ++serial
  const member = await db()
    .insertInto('memMember')
    .values({ email: `trace${n}-${d.sn.toLowerCase()}@example.com`, firstName: 'Trace', lastName: `T${n}`, countryId: country, createBy: 'app', createTime: iso(Date.now()) })
    .returning('memberId')
    .executeTakeFirstOrThrow()
  const bike = await db()
    .insertInto('bikeBike')
    .values({ frameNumber: `TRACEBIKE${d.sn}`, category: 'city', modelId: 1, colourId: 1, sizeId: 1, bindStatus: 'bound', memberId: member.memberId, iotDeviceId: d.deviceId, createBy: 'test', createTime: iso(Date.now()) })
    .returning('bikeId')
    .executeTakeFirstOrThrow()
  return { ...d, bikeId: Number(bike.bikeId), memberId: Number(member.memberId) }
}

const T0 = Date.now() - 2 * 3_600_000
let dutch: Awaited<ReturnType<typeof fitted>>
let german: Awaited<ReturnType<typeof fitted>>
let rideId = 0
const range = { from: iso(T0 - 60_000), to: iso(T0 + 600_000) }

beforeAll(async () => {
  dutch = await fitted(await countryId('NL'))
  german = await fitted(await countryId('DE'))
  const rows = DRIVE.map(([s, m, speed]) => ({ deviceId: dutch.deviceId, receivedAt: iso(T0 + s * 1000), latitude: 52.37, longitude: east(m), speed, battery: 80 }))
  // A report without a position (no fix, or emptied by retention) is no point of the trace; nor is another device's.
  rows.push({ deviceId: dutch.deviceId, receivedAt: iso(T0 + 420_000), latitude: null as unknown as number, longitude: null as unknown as number, speed: 5, battery: 80 })
  rows.push({ deviceId: german.deviceId, receivedAt: iso(T0 + 30_000), latitude: 52.52, longitude: 13.405, speed: 50, battery: 80 })
  await db().insertInto('iotTelemetry').values(rows).execute()
  // The ride the app uploaded 30 s after the last report, 200 s long: its window is 160 s … 480 s of the drive.
  const ride = await db()
    .insertInto('memRide')
    .values({ memberId: dutch.memberId, bikeId: dutch.bikeId, uploadTime: iso(T0 + 420_000), distance: 0.4, duration: 200, avgSpeed: 10, maxSpeed: 24 })
    .returning('rideId')
    .executeTakeFirstOrThrow()
  rideId = Number(ride.rideId)
})

describe("a device's trace", () => {
  it('answers the positions as columns, oldest first, with distance, duration, top speed and stops of the known drive', async () => {
    const res = await trace(t.admin, { deviceId: dutch.deviceId, ...range })
    expect(res.status, res.msg).toBe(200)
    const c = res.data
    expect(c.deviceId).toBe(dutch.deviceId)
    expect(c.sn).toBe(dutch.sn)
    expect(c.positionCount).toBe(DRIVE.length)
    expect(c.times).toEqual(DRIVE.map(([s]) => T0 + s * 1000))
    for (const column of [c.lat, c.lng, c.speed]) expect(column).toHaveLength(DRIVE.length)
    expect(c.lat.every((v) => v === 52.37)).toBe(true)
    expect(c.speed).toEqual(DRIVE.map(([, , s]) => s))
    const { summary } = c
    // 400 + 10 + 2 + 4 + 2 + 190 + 200 m.
    expect(summary.distanceKm).toBeCloseTo(0.808, 2)
    expect(summary.durationSeconds).toBe(390)
    expect(summary.topSpeed).toMatchObject({ speed: 31.5, time: iso(T0 + 90_000), lat: 52.37 })
    expect(summary.topSpeed!.lng).toBeCloseTo(east(300), 6)
    // From the report at 400 m (within 30 m of the parked ones) to the last parked one.
    expect(summary.stops).toHaveLength(1)
    expect(summary.stops[0]).toMatchObject({ from: iso(T0 + 120_000), to: iso(T0 + 330_000), seconds: 210 })
    expect(summary.stops[0]!.lat).toBeCloseTo(52.37, 5)
  })

  it('says from when positions are kept (privacy.retention.positionDays): an older range is empty, and the answer says why', async () => {
    const res = await trace(t.admin, { deviceId: dutch.deviceId, from: iso(Date.now() - 100 * 86_400_000), to: iso(Date.now() - 95 * 86_400_000) })
    expect(res.status, res.msg).toBe(200)
    expect(res.data.positionCount).toBe(0)
    expect(res.data.times).toEqual([])
    expect(res.data.summary).toEqual({ distanceKm: 0, durationSeconds: 0, topSpeed: null, stops: [] })
    const kept = Date.parse(res.data.retainedFrom)
    expect(Math.abs(kept - (Date.now() - 90 * 86_400_000))).toBeLessThan(60_000)
  })

  it("puts positions a device sent late where it took them (its own time, within a day), and ignores a clock far ahead", async () => {
    const late = await fitted(await countryId('NL'))
    const sent = T0 + 300_000
    // Out of coverage from T0: three positions taken a minute apart, all received at `sent`; then one whose clock is a day ahead.
    await db()
      .insertInto('iotTelemetry')
      .values([
        { deviceId: late.deviceId, receivedAt: iso(sent), deviceTime: iso(T0 + 120_000), latitude: 52.37, longitude: east(200), speed: 20, battery: 80 },
        { deviceId: late.deviceId, receivedAt: iso(sent), deviceTime: iso(T0), latitude: 52.37, longitude: east(0), speed: 20, battery: 80 },
        { deviceId: late.deviceId, receivedAt: iso(sent), deviceTime: iso(T0 + 60_000), latitude: 52.37, longitude: east(100), speed: 20, battery: 80 },
        { deviceId: late.deviceId, receivedAt: iso(sent + 60_000), deviceTime: iso(sent + 86_400_000), latitude: 52.37, longitude: east(300), speed: 20, battery: 80 },
      ])
      .execute()
    const res = await trace(t.admin, { deviceId: late.deviceId, ...range })
    expect(res.status, res.msg).toBe(200)
    expect(res.data.times).toEqual([T0, T0 + 60_000, T0 + 120_000, sent + 60_000])
    expect(res.data.lng.map((v) => Math.round((v - 4.9) * LNG_M))).toEqual([0, 100, 200, 300])
    expect(res.data.summary.durationSeconds).toBe(360)
  })

  it('refuses a range longer than 7 days, backwards, or without a device, bike or ride (400, nothing read)', async () => {
    const long = await trace(t.admin, { deviceId: dutch.deviceId, from: iso(T0 - 8 * 86_400_000), to: iso(T0) })
    expect(long.status).toBe(400)
    expect(long.msg).toMatch(/7 days/)
    expect((await trace(t.admin, { deviceId: dutch.deviceId, from: range.to, to: range.from })).status).toBe(400)
    expect((await trace(t.admin, range)).status).toBe(400)
    expect((await trace(t.admin, { deviceId: dutch.deviceId, bikeId: dutch.bikeId, ...range })).status).toBe(400)
    expect((await trace(t.admin, { deviceId: dutch.deviceId })).status).toBe(400)
    expect((await trace(t.admin, { deviceId: dutch.deviceId, from: 'yesterday', to: range.to })).status).toBe(400)
    expect((await trace(t.admin, { deviceId: 99_999_999, ...range })).status).toBe(404)
  })
})

describe("a bike's and a ride's trace", () => {
  it("is the trace of the device fitted to the bike", async () => {
    const res = await trace(t.admin, { bikeId: dutch.bikeId, ...range })
    expect(res.status, res.msg).toBe(200)
    expect(res.data.deviceId).toBe(dutch.deviceId)
    expect(res.data.positionCount).toBe(DRIVE.length)
  })

  it("is the bike's device over the ride's time: its duration before the upload, a minute's margin each side", async () => {
    const res = await trace(t.admin, { rideId })
    expect(res.status, res.msg).toBe(200)
    expect(res.data.deviceId).toBe(dutch.deviceId)
    expect(res.data.from).toBe(iso(T0 + 160_000))
    expect(res.data.to).toBe(iso(T0 + 480_000))
    expect(res.data.times).toEqual([210, 270, 330, 360, 390].map((s) => T0 + s * 1000))
    expect((await trace(t.admin, { rideId: 99_999_999 })).status).toBe(404)
  })

  it('a bike without a device has no trace: a clear 400', async () => {
    const bare = await db()
      .insertInto('bikeBike')
      .values({ frameNumber: `TRACEBARE${Date.now()}`, category: 'city', modelId: 1, colourId: 1, sizeId: 1, bindStatus: 'unbound', createBy: 'test', createTime: iso(Date.now()) })
      .returning('bikeId')
      .executeTakeFirstOrThrow()
    const res = await trace(t.admin, { bikeId: Number(bare.bikeId), ...range })
    expect(res.status).toBe(400)
    expect(res.msg).toMatch(/no IoT device/)
  })
})

describe('who sees a trace', () => {
  it('needs the right to see positions: a 403 naming member:pii:location, in both languages', async () => {
    const blind = await limitedUser(t, { userName: 'tracenolocation', perms: ['iot:device:query', 'iot:device:list'], dataScope: '1' })
    const res = await trace(blind.token, { deviceId: dutch.deviceId, ...range })
    expect(res.status).toBe(403)
    expect(res.msg).toContain('member:pii:location')
    expect(res.data).toBeNull()
    const zh = await t.call({ method: 'POST', url: '/api/iot/trace', token: blind.token, lang: 'zh_CN', body: { rideId } })
    expect(zh.status).toBe(403)
    expect(zh.msg).toContain('member:pii:location')
  })

  it("needs the device list's query right too", async () => {
    const noDevices = await limitedUser(t, { userName: 'tracenodevice', perms: ['member:pii:location', 'iot:map:list'], dataScope: '1' })
    expect((await trace(noDevices.token, { deviceId: dutch.deviceId, ...range })).status).toBe(403)
  })

  it("keeps to the device list's scope: a Benelux desk gets the Dutch bike's trace, and a 404 for the German one by device, bike or ride", async () => {
    const [NL, BE] = [await countryId('NL'), await countryId('BE')]
    const dept = await t.call({ method: 'POST', url: '/api/system/dept', token: t.admin, body: { deptName: 'Trace Benelux desk', parentId: 0, orderNum: 5, countryIds: [NL, BE] } })
    expect(dept.status, dept.msg).toBe(200)
    const desk = await limitedUser(t, { userName: 'traceregional', perms: ['iot:device:query', 'member:pii:location'], dataScope: '4', dept: 'Trace Benelux desk' })
    const own = await trace(desk.token, { deviceId: dutch.deviceId, ...range })
    expect(own.status, own.msg).toBe(200)
    expect(own.data.positionCount).toBe(DRIVE.length)
    const other = await trace(desk.token, { deviceId: german.deviceId, ...range })
    expect(other.status).toBe(404)
    expect(other.data).toBeNull()
    expect((await trace(desk.token, { bikeId: german.bikeId, ...range })).status).toBe(404)
    const germanRide = await db()
      .insertInto('memRide')
      .values({ memberId: german.memberId, bikeId: german.bikeId, uploadTime: iso(T0 + 100_000), distance: 1, duration: 60, avgSpeed: 10, maxSpeed: 50 })
      .returning('rideId')
      .executeTakeFirstOrThrow()
    expect((await trace(desk.token, { rideId: Number(germanRide.rideId) })).status).toBe(404)
  })

  it('logs every look in the operation log: who, which device, bike or ride and range, and never a position', async () => {
    const last = await db().selectFrom('sysOperLog').select((eb) => eb.fn.max('operId').as('id')).executeTakeFirstOrThrow()
    const seen = await trace(t.admin, { deviceId: dutch.deviceId, ...range })
    expect(seen.status).toBe(200)
    expect((await trace(t.admin, { rideId })).status).toBe(200)
    const rows = await db().selectFrom('sysOperLog').selectAll().where('operUrl', '=', '/api/iot/trace').where('operId', '>', Number(last.id ?? 0)).orderBy('operId').execute()
    expect(rows).toHaveLength(2)
    const [byDevice, byRide] = rows
    expect(byDevice!.operName).toBe('admin')
    expect(byDevice!.title).toBe('IoT trace')
    expect(byDevice!.status).toBe('0')
    expect(JSON.parse(byDevice!.operParam)).toEqual({ body: { deviceId: dutch.deviceId, ...range } })
    expect(JSON.parse(byRide!.operParam)).toEqual({ body: { rideId } })
    for (const row of rows) {
      const text = `${row.operParam} ${row.jsonResult} ${row.errorMsg ?? ''}`
      // A position is a number of its own (not the seconds of a logged time, as in 04:11:54.995).
      expect(text).not.toMatch(/(?<![\d.])(?:52\.37|4\.9)/)
      expect(JSON.parse(row.jsonResult).data.deviceId).toBe(dutch.deviceId)
    }
    // A refused look is logged too.
    const blind = await limitedUser(t, { userName: 'tracelogged', perms: ['iot:device:query'], dataScope: '1' })
    expect((await trace(blind.token, { deviceId: dutch.deviceId, ...range })).status).toBe(403)
    const refused = await db().selectFrom('sysOperLog').select(['operName', 'status']).where('operUrl', '=', '/api/iot/trace').where('operName', '=', 'tracelogged').execute()
    expect(refused).toEqual([{ operName: 'tracelogged', status: '1' }])
  })
})
