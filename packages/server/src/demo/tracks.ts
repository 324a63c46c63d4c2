import type { Db, Dialect } from '../db/database'
import { ensureTelemetryPartitions } from '../modules/iot/collections/partitions'
import { CITIES, type PlannedDevice } from './dashboards'
import { DAY, type RideRow } from './generate'
import { clamp, random, round } from './random'
import { TableWriter } from './write'

// The positions of the demo's rides (issue 42 §2): the busiest bikes of the last TRACK_DAYS days
// report every 10–30 s while ridden, in a city of their rider's market, so their traces have
// something to show. Plausible paths at plausible speeds, not streets: a random walk that keeps its
// heading, is drawn back home when it strays, rides at the ride's average speed with some spread and
// stops at the odd light. Each ride starts where the last one ended; the device's last position is
// where its last ride ended (the map and the traces agree).

/** The telemetry history keeps 30 days (iot.telemetry.retentionDays): the demo's tracks cover as much. */
export const TRACK_DAYS = 30
/** Bikes with tracks at full scale (12,000 bikes): a few hundred, about half a million reports (~100 MB on SQLite with their indexes). */
const TRACKED_AT_FULL_SIZE = 300
const TRACKED_AT_LEAST = 10
/** The app uploads a ride this long after its last report (as demo/dashboards.ts reads the rides too). */
const UPLOAD_AFTER_MS = 30_000
const METRES_PER_DEGREE = 111_195
/** Past this from home a rider turns back towards it, a little at each report. */
const HOME_RADIUS_M = 3500

type RideOfBike = [begin: number, end: number, avgSpeed: number, maxSpeed: number]

/** The rides of the tracked days per bike, collected as writeRides streams them, in time order. */
export class RideTracks {
  readonly byBike = new Map<number, RideOfBike[]>()
  constructor(readonly from: number) {}

  add(rows: readonly RideRow[]) {
    for (const [, bikeId, upload, , duration, avg, max] of rows) {
      const end = upload - UPLOAD_AFTER_MS
      const begin = end - duration * 1000
      if (begin < this.from) continue
      let list = this.byBike.get(bikeId)
      if (!list) this.byBike.set(bikeId, (list = []))
      list.push([begin, end, avg, max])
    }
  }
}

export interface Tracks {
  rows: number
  /** Device id → where and when its last report was. */
  last: Map<number, { lat: number; lng: number; time: number }>
}

/** The devices with tracks: the bikes ridden most in the tracked days (ties by id, so a seed gives the same ones). */
export function trackedDevices(devices: readonly PlannedDevice[], rides: RideTracks, scale: number): PlannedDevice[] {
  const wanted = Math.max(TRACKED_AT_LEAST, Math.round(TRACKED_AT_FULL_SIZE * Math.min(1, scale)))
  return devices
    .filter((d) => d.bike.member && rides.byBike.has(d.bike.id))
    .sort((a, b) => rides.byBike.get(b.bike.id)!.length - rides.byBike.get(a.bike.id)!.length || a.id - b.id)
    .slice(0, wanted)
}

/** Writes iot_telemetry: the reports of the tracked devices' rides. */
export async function writeTracks(tx: Db, dialect: Dialect, devices: readonly PlannedDevice[], rides: RideTracks, o: { seed: number; scale: number }): Promise<Tracks> {
  if (dialect === 'postgres') {
    // The keeper makes today's partition and the days ahead; the tracks' past days get theirs here,
    // or every row would land in the default partition and no day could be dropped whole.
    let last = rides.from
    for (const list of rides.byBike.values()) for (const [, end] of list) last = Math.max(last, end)
    await ensureTelemetryPartitions(tx, rides.from, last)
  }
  const r = random((o.seed ^ 0x7ac35) >>> 0)
  const w = new TableWriter(tx, dialect, 'iot_telemetry', [
    'telemetry_id', 'device_id', 'received_at', 'device_time', 'battery', 'speed', 'latitude', 'longitude', 'satellites', 'signal', 'odometer', 'locked', 'tilt', 'vibration',
  ])
  const last = new Map<number, { lat: number; lng: number; time: number }>()
  let id = 0
  for (const d of trackedDevices(devices, rides, o.scale)) {
    const [cityLat, cityLng] = r.pick(CITIES[d.bike.member!.market.code] ?? CITIES.NL!)
    const home = { lat: cityLat + r.between(-0.03, 0.03), lng: cityLng + r.between(-0.045, 0.045) }
    const everySeconds = Math.round(r.between(10, 30))
    let odometer = round(r.between(300, 6000), 1)
    let lat = home.lat
    let lng = home.lng
    let time = 0
    for (const [begin, end, avg, max] of rides.byBike.get(d.bike.id)!) {
      let heading = r.between(0, 2 * Math.PI)
      let battery = r.between(40, 100)
      let waiting = 0
      const signal = Math.round(r.between(-100, -65))
      const report = async (t: number, speed: number) => {
        const at = new Date(t).toISOString()
        await w.add(++id, d.id, at, at, Math.round(battery), speed, round(lat, 6), round(lng, 6), 7 + r.int(6), signal, odometer, false, null, null)
        time = t
      }
      await report(begin, 0)
      for (let t = begin + everySeconds * 1000; t < end; t += everySeconds * 1000) {
        let speed = 0
        if (waiting > 0) waiting -= everySeconds
        else if (r.chance(0.05)) waiting = r.between(15, 60) - everySeconds
        else {
          heading += r.normal(0, 0.25)
          const cosLat = Math.cos((lat * Math.PI) / 180)
          const north = (home.lat - lat) * METRES_PER_DEGREE
          const eastward = (home.lng - lng) * METRES_PER_DEGREE * cosLat
          if (Math.hypot(north, eastward) > HOME_RADIUS_M) {
            // Turn a third of the way towards home, the short way round.
            const towards = Math.atan2(eastward, north)
            heading += 0.33 * Math.atan2(Math.sin(towards - heading), Math.cos(towards - heading))
          }
          speed = round(clamp(r.normal(avg, avg * 0.15), 6, max), 1)
          const metres = (speed / 3.6) * everySeconds
          lat += (metres * Math.cos(heading)) / METRES_PER_DEGREE
          lng += (metres * Math.sin(heading)) / (METRES_PER_DEGREE * cosLat)
          odometer = round(odometer + metres / 1000, 2)
          battery = Math.max(5, battery - metres / 1500)
        }
        await report(t, speed)
      }
      // Arrived: the last report, unless the one before was just now.
      if (end - time >= (everySeconds * 1000) / 2) await report(end, 0)
    }
    last.set(d.id, { lat: round(lat, 6), lng: round(lng, 6), time })
  }
  await w.flush()
  return { rows: w.written, last }
}

/** The first day of the tracks, for data that ends at `end`. */
export const tracksFrom = (end: number) => end - TRACK_DAYS * DAY
