import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Trace } from '@velo/shared'
import { CompiledQuery } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config'
import { createDatabase, type Db } from '../src/db/database'
import { runDemo } from '../src/demo'
import { CITIES } from '../src/demo/dashboards'
import { TRACK_DAYS } from '../src/demo/tracks'
import { haversineMetres } from '../src/modules/iot/trace/track'
import { ADMIN_PASSWORD, createTestApp, freshDatabase } from './harness'

// The demo's ride positions (src/demo/tracks.ts): believable tracks in the cities of the riders'
// markets, at riding speeds, and devices standing where their last ride ended. SQLite, or
// PostgreSQL with TEST_DATABASE_URL.

const END = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()))
let db: Db
let url = ''
let close = async () => {}
let reports = 0
let dialect = ''

const rows = async <R>(sql: string) => (await db.executeQuery<R>(CompiledQuery.raw(sql))).rows

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'velo-tracks-'))
  const database = await freshDatabase(dir)
  url = database.url
  const config = loadConfig({ DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), ADMIN_PASSWORD, LOG_LEVEL: 'silent' })
  const created = createDatabase(config.database)
  db = created.db
  close = async () => {
    await db.destroy()
    await database.drop()
    rmSync(dir, { recursive: true, force: true })
  }
  dialect = created.dialect
  const result = await runDemo({ db, dialect: created.dialect, config }, { seed: 3, scale: 0.01, force: false, end: END })
  reports = result.rows.iot_telemetry!
}, 120_000)

afterAll(() => close())

type Report = { deviceId: number; receivedAt: string; latitude: number; longitude: number; speed: number }
const reportsOf = async () =>
  (await rows<{ deviceId: number; receivedAt: string | Date; latitude: number; longitude: number; speed: number }>('select device_id, received_at, latitude, longitude, speed from iot_telemetry order by device_id, received_at')).map(
    (r): Report => ({ deviceId: Number(r.deviceId), receivedAt: new Date(r.receivedAt).toISOString(), latitude: Number(r.latitude), longitude: Number(r.longitude), speed: Number(r.speed) }),
  )

describe('the demo ride positions', () => {
  it('gives the busiest bikes of the last 30 days reports every 10–30 s at riding speeds, with no jumps', async () => {
    expect(reports).toBeGreaterThan(1000)
    const all = await reportsOf()
    expect(all).toHaveLength(reports)
    const devices = new Set(all.map((r) => r.deviceId))
    expect(devices.size).toBeGreaterThanOrEqual(10)
    const first = Math.min(...all.map((r) => Date.parse(r.receivedAt)))
    expect(first).toBeGreaterThanOrEqual(END.getTime() - TRACK_DAYS * 86_400_000)
    const moving = all.filter((r) => r.speed > 0).map((r) => r.speed).sort((a, b) => a - b)
    expect(moving.length).toBeGreaterThan(all.length / 2)
    const median = moving[Math.floor(moving.length / 2)]!
    expect(median).toBeGreaterThanOrEqual(12)
    expect(median).toBeLessThanOrEqual(25)
    expect(moving.at(-1)!).toBeLessThanOrEqual(45)
    // Within a ride (reports under a minute apart), no leg is faster than a fast e-bike.
    let legs = 0
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1]!, all[i]!]
      const seconds = (Date.parse(b.receivedAt) - Date.parse(a.receivedAt)) / 1000
      if (a.deviceId !== b.deviceId || seconds > 60) continue
      legs++
      expect(seconds).toBeGreaterThanOrEqual(5)
      const kmh = haversineMetres({ lat: a.latitude, lng: a.longitude }, { lat: b.latitude, lng: b.longitude }) / 1000 / (seconds / 3600)
      expect(kmh).toBeLessThan(46)
    }
    expect(legs).toBeGreaterThan(all.length / 2)
  })

  it("puts each device where its last report was, in a city of its rider's market", async () => {
    const all = await reportsOf()
    const lastOf = new Map(all.map((r) => [r.deviceId, r]))
    const devices = await rows<{ deviceId: number; latitude: number; longitude: number; lastSeenAt: string | Date; code: string }>(
      `select d.device_id, d.latitude, d.longitude, d.last_seen_at, c.code from iot_device d join bike_bike b on b.iot_device_id = d.device_id join mem_member m on m.member_id = b.member_id join sys_country c on c.country_id = m.country_id where d.device_id in (${[...lastOf.keys()].join(',')})`,
    )
    expect(devices).toHaveLength(lastOf.size)
    for (const d of devices) {
      const last = lastOf.get(Number(d.deviceId))!
      expect([Number(d.latitude), Number(d.longitude)]).toEqual([last.latitude, last.longitude])
      expect(new Date(d.lastSeenAt).getTime()).toBeGreaterThanOrEqual(Date.parse(last.receivedAt))
      const cities = CITIES[d.code] ?? CITIES.NL!
      const nearest = Math.min(...cities.map(([lat, lng]) => haversineMetres({ lat, lng }, { lat: last.latitude, lng: last.longitude })))
      expect(nearest, `${d.code} device ${d.deviceId}`).toBeLessThan(15_000)
    }
  })

  it('PostgreSQL: writes each report into its day’s partition, none into the default one', async (ctx) => {
    if (dialect !== 'postgres') return ctx.skip()
    const [counts] = await rows<{ total: number; fallback: number; days: number }>(
      `select (select count(*)::int from iot_telemetry) as total, (select count(*)::int from iot_telemetry_default) as fallback, (select count(distinct tableoid)::int from iot_telemetry) as days`,
    )
    expect(counts).toEqual({ total: reports, fallback: 0, days: expect.any(Number) })
    expect(counts!.days).toBeGreaterThan(20)
  })

  it("answers a demo ride's trace through the API, about as long as the ride", async () => {
    const [ride] = await rows<{ rideId: number; distance: number }>(
      `select r.ride_id, r.distance from mem_ride r join bike_bike b on b.bike_id = r.bike_id where b.iot_device_id in (select device_id from iot_telemetry) and r.distance > 2 order by r.upload_time desc limit 1`,
    )
    expect(ride).toBeTruthy()
    const t = await createTestApp({}, { databaseUrl: url })
    try {
      const res = await t.call<Trace>({ method: 'POST', url: '/api/iot/trace', token: await t.login(), body: { rideId: Number(ride!.rideId) } })
      expect(res.status, res.msg).toBe(200)
      expect(res.data.positionCount).toBeGreaterThan(5)
      // Lights and the spread of speeds make it differ a little from the app's figure.
      expect(res.data.summary.distanceKm).toBeGreaterThan(Number(ride!.distance) * 0.6)
      expect(res.data.summary.distanceKm).toBeLessThan(Number(ride!.distance) * 1.3)
    } finally {
      await t.close()
    }
  })
})
