/**
 * Geofence benchmark (issue 42 §3; `npm run bench`'s geofence part, BENCH_ONLY=geofence): positions
 * per second checked against BENCH_GEOFENCES (1,000) fences — polygons of 20 to 100 corners and
 * circles, a few kilometres across, spread over Europe — for BENCH_GEOFENCE_DEVICES (12,000) devices
 * moving about 30 m a position near them (so that crossings happen: each one is counted).
 *
 *  1. the evaluator alone (modules/iot/geofence/evaluator.ts: the grid, the boxes, the exact tests),
 *     in this process, for BENCH_SECONDS;
 *  2. end to end through the telemetry handler (Geofences.onTelemetry, as the gateway calls it) on a
 *     fresh database of each target holding the devices and the fences: the first position of every
 *     device (each reads its stored position once, as after a start), then steady positions. The
 *     alarms the crossings raise are counted, not written: the alarm store's cost is the alarm storm's
 *     row (bench/iot-alarms.ts), and MQTT parsing is the telemetry part's.
 *
 * The fleet's rate to compare with: every device reporting its position every 30 s (the GPS report
 * default) is 400 positions a second for 12,000 devices.
 */
import type { TelemetryPayload } from '@velo/shared'
import type { Db } from '../src/db/database'
import { createDatabase } from '../src/db/database'
import { migrateToLatest } from '../src/db/migrate'
import type { UpMessage } from '../src/gateway/types'
import { type FenceRow, GeofenceEvaluator } from '../src/modules/iot/geofence/evaluator'
import { Geofences } from '../src/modules/iot/geofence'
import { newDeviceRow } from '../src/modules/iot/devices'
import { setAlarms } from '../src/modules/iot/warnings/alarms'
import type { Services } from '../src/platform/services'
import { fmt, log } from './format'
import { type Line, results, scratch, type Target } from './run'

export interface GeofenceBench {
  fences: number
  devices: number
  seconds: number
}

const REPORT_SECONDS = 30
/** Ten times the fleet's rate: the check must leave the handler's time to everything else. */
const TARGET_FACTOR = 10
const M_PER_DEG = 111_195

/** A seeded generator: the same fences and walks every run. */
function mulberry32(seed: number) {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Walker {
  deviceId: number
  lat: number
  lng: number
  heading: number
}

/** Fences over Europe (lat 36–60, lng -9–30): 60 % polygons of 20–100 corners, 40 % circles; 0.3–3 km across. */
export function benchFences(count: number, rnd: () => number): { rows: FenceRow[]; centres: [number, number][] } {
  const rows: FenceRow[] = []
  const centres: [number, number][] = []
  for (let i = 0; i < count; i++) {
    const lat = 36 + rnd() * 24
    const lng = -9 + rnd() * 39
    const radiusM = 300 + rnd() * 2700
    centres.push([lat, lng])
    let geometry: string
    if (rnd() < 0.6) {
      const corners = 20 + Math.floor(rnd() * 81)
      const ring: [number, number][] = []
      for (let k = 0; k < corners; k++) {
        const a = (k / corners) * 2 * Math.PI
        const r = radiusM * (0.6 + rnd() * 0.4)
        ring.push([lng + (Math.sin(a) * r) / (M_PER_DEG * Math.cos((lat * Math.PI) / 180)), lat + (Math.cos(a) * r) / M_PER_DEG])
      }
      ring.push(ring[0]!)
      geometry = JSON.stringify({ type: 'Polygon', coordinates: [ring] })
    } else {
      geometry = JSON.stringify({ type: 'Point', coordinates: [lng, lat], radius: Math.round(radiusM) })
    }
    rows.push({ geofenceId: i + 1, name: `Bench fence ${i + 1}`, geometry, trigger: (['enter', 'exit', 'both'] as const)[i % 3]!, allDevices: true, modelIds: [], countryIds: [], deviceIds: [] })
  }
  return { rows, centres }
}

/** Devices starting within ~4 km of a fence's centre, each walking on with its own heading. */
function walkers(devices: number, centres: readonly [number, number][], rnd: () => number, firstId = 1): Walker[] {
  return Array.from({ length: devices }, (_, i) => {
    const [lat, lng] = centres[i % centres.length]!
    return { deviceId: firstId + i, lat: lat + ((rnd() - 0.5) * 8000) / M_PER_DEG, lng: lng + ((rnd() - 0.5) * 8000) / M_PER_DEG, heading: rnd() * 2 * Math.PI }
  })
}

/** ~30 m on, turning a little: a bike in town between two reports. */
function step(w: Walker, rnd: () => number) {
  w.heading += (rnd() - 0.5) * 0.6
  w.lat += (Math.cos(w.heading) * 30) / M_PER_DEG
  w.lng += (Math.sin(w.heading) * 30) / (M_PER_DEG * Math.cos((w.lat * Math.PI) / 180))
}

const rate = (positions: number, ms: number) => `${fmt((positions / ms) * 1000)} positions/s`

/** The evaluator alone, in this process. */
export function runEvaluatorAlone(bench: GeofenceBench): { lines: Line[]; notes: string[] } {
  const { lines, notes, add } = results({ name: '(in process)', dialect: 'sqlite' })
  const rnd = mulberry32(42)
  const { rows, centres } = benchFences(bench.fences, rnd)
  const evaluator = new GeofenceEvaluator()
  const c0 = performance.now()
  evaluator.load(rows)
  add(`geofences: ${fmt(bench.fences)} fences compiled`, `${fmt(performance.now() - c0, 1)} ms`)
  const fleet = walkers(bench.devices, centres, rnd)
  for (const w of fleet) evaluator.move({ deviceId: w.deviceId, modelId: 1, countryId: null }, w.lat, w.lng)
  log(`geofence: evaluator alone, ${fmt(bench.devices)} devices against ${fmt(bench.fences)} fences for ${bench.seconds} s`)
  let positions = 0
  let crossings = 0
  const t0 = performance.now()
  const until = t0 + bench.seconds * 1000
  while (performance.now() < until) {
    for (const w of fleet) {
      step(w, rnd)
      crossings += evaluator.move({ deviceId: w.deviceId, modelId: 1, countryId: null }, w.lat, w.lng).length
    }
    positions += fleet.length
  }
  const elapsed = performance.now() - t0
  const fleetRate = bench.devices / REPORT_SECONDS
  add(`geofences: positions checked against ${fmt(bench.fences)} fences, evaluator alone (${fmt(bench.devices)} devices)`, `${rate(positions, elapsed)} (${fmt(crossings)} crossings in ${fmt(positions)})`, {
    target: `> ${fmt(fleetRate * TARGET_FACTOR)} positions/s`,
    pass: (positions / elapsed) * 1000 > fleetRate * TARGET_FACTOR,
  })
  return { lines, notes }
}

/** Through Geofences.onTelemetry on a database of the target. */
export async function runGeofenceHandler(target: Target, bench: GeofenceBench): Promise<{ lines: Line[]; notes: string[] }> {
  const { lines, notes, add } = results(target)
  let db: Db | null = null
  const { database, cleanup } = await scratch(target, 'geofence', async () => {
    await db?.destroy()
  })
  try {
    const opened = createDatabase(database.config)
    db = opened.db
    await migrateToLatest(db, opened.dialect)
    const rnd = mulberry32(7)
    const { rows, centres } = benchFences(bench.fences, rnd)
    const now = new Date().toISOString()
    const model = await db
      .insertInto('iotModel')
      .values({ productId: 'BENCH-GEO', name: 'Bench geofence model', provider: '', tag: '', productCode: 'BG', snPrefix: 'VLG', registrationSerials: '', supportsAudio: 0, bikeModels: '', status: '0', registrationKey: 'x'.repeat(64), createBy: 'bench', createTime: now })
      .returning('modelId')
      .executeTakeFirstOrThrow()
    const modelId = Number(model.modelId)
    const fleet = walkers(bench.devices, centres, rnd, 0)
    log(`${target.name}: geofence handler, writing ${fmt(bench.devices)} devices and ${fmt(bench.fences)} fences`)
    for (let i = 0; i < fleet.length; i += 500) {
      const chunk = fleet.slice(i, i + 500)
      const ids = await db
        .insertInto('iotDevice')
        .values(chunk.map((w, k) => ({ ...newDeviceRow({ sn: `VLG${String(i + k).padStart(7, '0')}`, modelId, secretHash: 'x', createBy: 'bench' }), latitude: w.lat, longitude: w.lng })))
        .returning('deviceId')
        .execute()
      chunk.forEach((w, k) => (w.deviceId = Number(ids[k]!.deviceId)))
    }
    for (let i = 0; i < rows.length; i += 200) {
      await db
        .insertInto('iotGeofence')
        .values(rows.slice(i, i + 200).map((r) => ({ name: r.name, shape: r.geometry.includes('Polygon') ? 'polygon' : 'circle', geometry: r.geometry, trigger: r.trigger, allDevices: 1, status: '0', createBy: 'bench', createTime: now })))
        .execute()
    }
    const services = {} as Services
    let raised = 0
    let cleared = 0
    setAlarms(services, { raise: async () => void raised++, clear: async () => void cleared++ })
    const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} } as unknown as ConstructorParameters<typeof Geofences>[2]
    const geofences = new Geofences(db, services, quiet)
    await geofences.reload()
    const message = (w: Walker): UpMessage<TelemetryPayload> => ({
      device: { deviceId: w.deviceId, sn: '', modelId },
      kind: 'telemetry',
      topic: '',
      payload: { v: 1, gps: { lat: w.lat, lng: w.lng } },
      raw: '',
      receivedAt: Date.now(),
    })
    // First sight: each device's stored position read once (a start with the fleet reporting).
    for (const w of fleet) step(w, rnd)
    const f0 = performance.now()
    await Promise.all(fleet.map((w) => geofences.onTelemetry(message(w))))
    const firstMs = performance.now() - f0
    add(`geofences: first position of ${fmt(bench.devices)} devices after a start (reads each stored position)`, rate(fleet.length, firstMs), {
      target: `> ${fmt((bench.devices / REPORT_SECONDS) * TARGET_FACTOR)} positions/s`,
      pass: (fleet.length / firstMs) * 1000 > (bench.devices / REPORT_SECONDS) * TARGET_FACTOR,
    })
    log(`${target.name}: geofence handler, steady positions for ${bench.seconds} s`)
    let positions = 0
    const t0 = performance.now()
    const until = t0 + bench.seconds * 1000
    while (performance.now() < until) {
      for (const w of fleet) step(w, rnd)
      await Promise.all(fleet.map((w) => geofences.onTelemetry(message(w))))
      positions += fleet.length
    }
    await geofences.settled()
    const elapsed = performance.now() - t0
    const fleetRate = bench.devices / REPORT_SECONDS
    add(`geofences: positions through the telemetry handler against ${fmt(bench.fences)} fences`, `${rate(positions, elapsed)} (${fmt(raised)} raised, ${fmt(cleared)} cleared)`, {
      target: `> ${fmt(fleetRate * TARGET_FACTOR)} positions/s`,
      pass: (positions / elapsed) * 1000 > fleetRate * TARGET_FACTOR,
    })
  } catch (err) {
    add('geofences: telemetry handler', `failed: ${err instanceof Error ? err.message : String(err)}`, { pass: false })
  } finally {
    await cleanup()
  }
  return { lines, notes }
}
