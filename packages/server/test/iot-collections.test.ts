import type { SimulatedDevice } from '@velo/device-sim'
import type { Paged } from '@velo/shared'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { telemetryRecorderOf } from '../src/modules/iot/collections'
import { ensureTelemetryPartitions, keepTelemetryPartitions, partitionName, startOfDay } from '../src/modules/iot/collections/partitions'
import { limitedUser, readWorkbook, useTestApp } from './harness'
import { clearRetained, insertDevice, simulated, waitFor } from './iot-helpers'

// The telemetry history (issue 17): reports a simulated device sends over real MQTT are stored, the
// chart's buckets are computed in SQL, old rows are swept, and every read names a device or a short
// window. Runs on SQLite, and on PostgreSQL + Redis + Mosquitto with the TEST_* variables.

const t = useTestApp()
const db = () => t.app.services.db
const recorder = () => telemetryRecorderOf(t.app.services)
const devices: SimulatedDevice[] = []
const sns: string[] = []
const HOUR = 3_600_000
const DAY = 24 * HOUR

/** Rows at chosen times, as the recorder writes them. */
async function insertPoints(deviceId: number, points: Record<string, unknown>[]) {
  await db()
    .insertInto('iotTelemetry')
    .values(points.map((p) => ({ deviceId, receivedAt: new Date().toISOString(), ...p })))
    .execute()
}

const rowsOf = (deviceId: number) => db().selectFrom('iotTelemetry').selectAll().where('deviceId', '=', deviceId).orderBy('receivedAt').execute()

const series = (body: Record<string, unknown>, token = t.admin) => t.call<{ bucketSeconds: number; points: unknown[] }>({ method: 'POST', url: '/api/iot/collection/series', token, body })
/** A row of the telemetry list, as far as the tests read it. */
type Listed = { deviceId: number; deviceIdLabel: string; battery: number | null; locked: boolean | null }
const list = (body: Record<string, unknown>, token = t.admin) => t.call<Paged<Listed>>({ method: 'POST', url: '/api/iot/collection/list', token, body })

afterAll(async () => {
  await Promise.all(devices.map((d) => d.disconnect().catch(() => {})))
  await clearRetained(t.app, sns)
})

describe('storing', () => {
  it("stores a simulated device's reports with the server's receive time", async () => {
    const reg = await insertDevice(t)
    sns.push(reg.sn)
    const device = simulated(t.app, reg)
    devices.push(device)
    const before = Date.now()
    await device.connect()
    await device.reportTelemetry({ battery: 77, signal: -71.6, gps: { lat: 52.5, lng: 13.4, speed: 18.5, satellites: 11 }, odometer: 1234.5, locked: false, tilt: 3, vibration: 1, ts: 1_700_000_000_000 })
    const rows = await waitFor(async () => {
      await recorder().flush()
      const stored = await rowsOf(reg.deviceId)
      return stored.some((r) => Number(r.battery) === 77) ? stored : null
    }, 'the report stored')
    const row = rows.find((r) => Number(r.battery) === 77)!
    expect(Number(row.speed)).toBe(18.5)
    expect(Number(row.latitude)).toBe(52.5)
    expect(Number(row.longitude)).toBe(13.4)
    expect(Number(row.satellites)).toBe(11)
    expect(Number(row.signal)).toBe(-72)
    expect(Number(row.odometer)).toBe(1234.5)
    expect(Boolean(row.locked)).toBe(false)
    expect(Number(row.tilt)).toBe(3)
    expect(Number(row.vibration)).toBe(1)
    expect(new Date(row.deviceTime!).getTime()).toBe(1_700_000_000_000)
    const received = new Date(row.receivedAt).getTime()
    expect(received).toBeGreaterThanOrEqual(before - 1000)
    expect(received).toBeLessThanOrEqual(Date.now())

    // Read back through the list of that device, newest first.
    const res = await list({ deviceId: reg.deviceId, pageNum: 1, pageSize: 10 })
    expect(res.status, res.msg).toBe(200)
    expect(res.data.total).toBe(rows.length)
    expect(res.data.rows[0]!.deviceIdLabel).toBe(reg.sn)
    expect(res.data.rows.some((r) => r.battery === 77 && r.locked === false)).toBe(true)
  })
})

describe('the chart', () => {
  let deviceId = 0
  const from = new Date('2026-03-01T00:00:00.000Z')
  const at = (minutes: number, seconds = 0) => new Date(from.getTime() + minutes * 60_000 + seconds * 1000).toISOString()

  beforeAll(async () => {
    deviceId = (await insertDevice(t)).deviceId
    const other = (await insertDevice(t)).deviceId
    await insertPoints(deviceId, [
      // 00:00 bucket: two reports, one without a position.
      { receivedAt: at(0, 5), battery: 80, speed: 10, latitude: 1, longitude: 2, signal: -70 },
      { receivedAt: at(0, 40), battery: 78, speed: 20, signal: -80 },
      // 00:02 bucket (00:01 has nothing).
      { receivedAt: at(2, 0), battery: 70, speed: 0, latitude: 1, longitude: 2 },
      // Outside the range: the instant `to` itself and before `from`.
      { receivedAt: at(60), battery: 1, speed: 99 },
      { receivedAt: new Date(from.getTime() - 1000).toISOString(), battery: 1, speed: 99 },
    ])
    // Another device's report in the same minute is not this device's.
    await insertPoints(other, [{ receivedAt: at(0, 10), battery: 5, speed: 50 }])
  })

  it('answers one point per bucket with reports, computed from the rows', async () => {
    const res = await series({ deviceId, from: from.toISOString(), to: at(60) })
    expect(res.status, res.msg).toBe(200)
    // One hour / 500 points: one-minute buckets.
    expect(res.data.bucketSeconds).toBe(60)
    expect(res.data.points).toEqual([
      { time: at(0), count: 2, battery: 79, speed: 15, maxSpeed: 20, positions: 1, signal: -75 },
      { time: at(2), count: 1, battery: 70, speed: 0, maxSpeed: 0, positions: 1, signal: null },
    ])
  })

  it('widens the bucket with the range so a month stays under 500 points', async () => {
    const res = await series({ deviceId, from: from.toISOString(), to: new Date(from.getTime() + 31 * DAY).toISOString() })
    expect(res.status, res.msg).toBe(200)
    expect(res.data.bucketSeconds).toBe(7200)
    expect(res.data.points).toEqual([{ time: at(0), count: 4, battery: 57.25, speed: 32.25, maxSpeed: 99, positions: 2, signal: -75 }])
  })

  it('refuses a bad range or an unknown device with 400', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ deviceId, from: at(10), to: at(10) }, /before/],
      [{ deviceId, from: at(10), to: at(5) }, /before/],
      [{ deviceId, from: from.toISOString(), to: new Date(from.getTime() + 32 * DAY).toISOString() }, /31 days/],
      [{ deviceId: 987_654_321, from: at(0), to: at(60) }, /987654321/],
      [{ deviceId, from: 'yesterday', to: at(60) }, /from/i],
      [{ from: at(0), to: at(60) }, /deviceId/],
    ]
    for (const [body, message] of cases) {
      const res = await series(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.msg).toMatch(message)
    }
    const zh = await t.call({ method: 'POST', url: '/api/iot/collection/series', token: t.admin, lang: 'zh_CN', body: { deviceId, from: at(10), to: at(5) } })
    expect(zh.msg).toBe('开始时间必须早于结束时间')
  })

  it('takes the right to list the history', async () => {
    const reader = await limitedUser(t, { userName: 'telemetryreader', perms: ['iot:collection:list'], dataScope: '1' })
    const nobody = await limitedUser(t, { userName: 'telemetrynobody', perms: ['iot:device:list'], dataScope: '1' })
    expect((await series({ deviceId, from: at(0), to: at(60) }, reader.token)).status).toBe(200)
    expect((await series({ deviceId, from: at(0), to: at(60) }, nobody.token)).status).toBe(403)
    expect((await list({ deviceId }, nobody.token)).status).toBe(403)
  })

  it('lists and exports one device within a range, oldest rows excluded', async () => {
    const res = await list({ deviceId, receivedAt: [from.toISOString(), at(59)], pageNum: 1, pageSize: 10 })
    expect(res.status, res.msg).toBe(200)
    expect(res.data.total).toBe(3)
    expect(res.data.rows.map((r) => r.battery)).toEqual([70, 78, 80])
    const exported = await t.call({ method: 'POST', url: '/api/iot/collection/export', token: t.admin, body: { deviceId, receivedAt: [from.toISOString(), at(59)] } })
    expect(exported.status).toBe(200)
    const sheet = await readWorkbook(exported.raw)
    expect(sheet.header).toContain('Battery %')
    expect(sheet.rows).toHaveLength(3)
  })
})

describe('reads without a device', () => {
  it('keeps a list without a device to the fleet’s last hour', async () => {
    const { deviceId } = await insertDevice(t)
    await insertPoints(deviceId, [
      { receivedAt: new Date(Date.now() - 2 * HOUR).toISOString(), battery: 11 },
      { receivedAt: new Date(Date.now() - 60_000).toISOString(), battery: 12 },
    ])
    const res = await list({ pageNum: 1, pageSize: 500 })
    expect(res.status, res.msg).toBe(200)
    const mine = res.data.rows.filter((r) => r.deviceId === deviceId)
    expect(mine.map((r) => r.battery)).toEqual([12])
    // A request without a body is held to the same window.
    const bodiless = await t.call<Paged<Listed>>({ method: 'POST', url: '/api/iot/collection/list', token: t.admin })
    expect(bodiless.status, bodiless.msg).toBe(200)
    expect(bodiless.data.rows.filter((r) => r.deviceId === deviceId).map((r) => r.battery)).toEqual([12])
  })

  it('refuses a wider fleet window, a whole day and a summary without a device', async () => {
    const now = Date.now()
    const bodies = [
      { receivedAt: [new Date(now - 2 * HOUR).toISOString(), new Date(now).toISOString()] },
      { receivedAt: [new Date(now - 2 * HOUR).toISOString(), null] },
      { receivedAt: ['2026-03-01', '2026-03-01'] },
    ]
    for (const body of bodies) {
      const res = await list(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.msg).toBe('Choose a device, or a time range of 60 minutes at most')
      const exported = await t.call({ method: 'POST', url: '/api/iot/collection/export', token: t.admin, body })
      expect(exported.status).toBe(400)
      const job = await t.call({ method: 'POST', url: '/api/iot/collection/export/job', token: t.admin, body })
      expect(job.status).toBe(400)
    }
    const jobs = await db().selectFrom('sysJob').select('jobId').where('kind', '=', 'export').execute()
    expect(jobs).toHaveLength(0)
    const summary = await t.call({ method: 'POST', url: '/api/iot/collection/summary', token: t.admin, body: { receivedAt: 'time', bucket: 'day', from: '2026-03-01', to: '2026-03-02' } })
    expect(summary.status).toBe(400)
    expect(summary.msg).toMatch(/Choose a device/)
    // A window of an hour or less across the fleet is fine.
    expect((await list({ receivedAt: [new Date(now - HOUR).toISOString(), new Date(now).toISOString()] })).status).toBe(200)
  })
})

describe('retention', () => {
  const setRetention = (days: string) => db().updateTable('sysConfig').set({ configValue: days }).where('configKey', '=', 'iot.telemetry.retentionDays').execute()

  it('deletes only rows older than iot.telemetry.retentionDays, and again finds nothing', async () => {
    const { deviceId } = await insertDevice(t)
    const now = Date.now()
    const ages = [45, 31, 29, 10, 1]
    await insertPoints(deviceId, ages.map((days) => ({ receivedAt: new Date(now - days * DAY).toISOString(), battery: days })))
    const seeded = await db().selectFrom('sysConfig').select('configValue').where('configKey', '=', 'iot.telemetry.retentionDays').executeTakeFirst()
    expect(seeded?.configValue).toBe('30')

    expect(await recorder().sweep(now)).toBeGreaterThanOrEqual(2)
    expect((await rowsOf(deviceId)).map((r) => Number(r.battery))).toEqual([29, 10, 1])
    // A second sweep (another instance's, or the next hour's) has nothing left to do.
    expect(await recorder().sweep(now)).toBe(0)

    await setRetention('7')
    try {
      await recorder().sweep(now)
      expect((await rowsOf(deviceId)).map((r) => Number(r.battery))).toEqual([1])
    } finally {
      await setRetention('30')
    }
  })

  // PostgreSQL keeps a partition per day (issue 43): a day past retention goes whole.
  const partitionsOf = async (deviceId: number) =>
    (await sql<{ partition: string; n: number }>`select tableoid::regclass::text as partition, count(*)::int as n from iot_telemetry where device_id = ${deviceId} group by 1 order by 1`.execute(db().withoutPlugins())).rows
  const partitionExists = async (name: string) => (await sql`select 1 from pg_class where relname = ${name}`.execute(db().withoutPlugins())).rows.length > 0

  it('PostgreSQL: drops the partition of rows 40 days old whole, keeps today’s, and again finds nothing', async (ctx) => {
    if (t.app.services.dialect !== 'postgres') return ctx.skip()
    const { deviceId } = await insertDevice(t)
    const now = Date.now()
    const old = now - 40 * DAY
    const oldDay = partitionName(startOfDay(old))
    const today = partitionName(startOfDay(now))
    // The keeper makes today and the days ahead; a day past gets its partition as the migration and the demo make them.
    await keepTelemetryPartitions(db(), now)
    await ensureTelemetryPartitions(db(), old, old)
    await insertPoints(deviceId, [
      { receivedAt: new Date(startOfDay(old) + 1000).toISOString(), battery: 40 },
      { receivedAt: new Date(old).toISOString(), battery: 41 },
      { receivedAt: new Date(now).toISOString(), battery: 1 },
    ])
    expect(await partitionsOf(deviceId)).toEqual([
      { partition: oldDay, n: 2 },
      { partition: today, n: 1 },
    ])

    expect(await recorder().sweep(now)).toBeGreaterThanOrEqual(2)
    expect(await partitionExists(oldDay)).toBe(false)
    expect(await partitionExists(today)).toBe(true)
    expect((await rowsOf(deviceId)).map((r) => Number(r.battery))).toEqual([1])
    expect(await recorder().sweep(now)).toBe(0)
  })

  it('PostgreSQL: makes partitions once however often and by however many it runs; a day without one lands in the default partition until it has one', async (ctx) => {
    if (t.app.services.dialect !== 'postgres') return ctx.skip()
    const now = Date.now()
    expect(await keepTelemetryPartitions(db(), now)).toEqual([])
    // Two instances at once, on days nobody made yet.
    const from = now + 20 * DAY
    const [a, b] = await Promise.all([ensureTelemetryPartitions(db(), from, from + 2 * DAY), ensureTelemetryPartitions(db(), from, from + 2 * DAY)])
    expect([...a, ...b].sort()).toEqual([0, 1, 2].map((d) => partitionName(startOfDay(from) + d * DAY)))

    // A clock far off: the row is kept, in the default partition, and the day's partition made later takes it.
    const { deviceId } = await insertDevice(t)
    const far = now + 400 * DAY
    await insertPoints(deviceId, [{ receivedAt: new Date(far).toISOString(), battery: 5 }])
    expect(await partitionsOf(deviceId)).toEqual([{ partition: 'iot_telemetry_default', n: 1 }])
    expect(await ensureTelemetryPartitions(db(), far, far)).toEqual([partitionName(startOfDay(far))])
    expect(await partitionsOf(deviceId)).toEqual([{ partition: partitionName(startOfDay(far)), n: 1 }])
    // Attached with the table's indexes.
    const indexes = await sql<{ n: number }>`select count(*)::int as n from pg_indexes where tablename = ${partitionName(startOfDay(far))}`.execute(db().withoutPlugins())
    expect(indexes.rows[0]!.n).toBe(3)
  })
})
