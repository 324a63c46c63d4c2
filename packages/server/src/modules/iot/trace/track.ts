import { TRACE_STOP_METRES, TRACE_STOP_SECONDS, type TraceSummary } from '@velo/shared'
import { distanceMetres } from '../../../platform/geo'

// The arithmetic of a trace, apart from the database: distances on the sphere, stops, the top speed,
// and which points a long trace keeps.

/** A report with a position, oldest first; time in epoch milliseconds, speed in km/h. */
export interface TrackPoint {
  time: number
  lat: number
  lng: number
  speed: number | null
}

/** Great-circle distance in metres between two reports. */
export const haversineMetres = (a: { lat: number; lng: number }, b: { lat: number; lng: number }) => distanceMetres(a.lat, a.lng, b.lat, b.lng)

/** Metres along the points in their order. */
export function pathMetres(points: readonly TrackPoint[]): number {
  let sum = 0
  for (let i = 1; i < points.length; i++) sum += haversineMetres(points[i - 1]!, points[i]!)
  return sum
}

/** A stop by the indexes of its first and last report. */
export interface StopRun {
  first: number
  last: number
}

/**
 * Where the device stayed: a run of reports all within `metres` of the run's first one, spanning at
 * least `seconds`. A device that parks and falls silent is a stop too: its report before and after
 * the gap are at the same place, far apart in time. GPS jitter of a few metres stays inside the radius.
 */
export function findStops(points: readonly TrackPoint[], metres = TRACE_STOP_METRES, seconds = TRACE_STOP_SECONDS): StopRun[] {
  const stops: StopRun[] = []
  let i = 0
  while (i < points.length) {
    let j = i
    while (j + 1 < points.length && haversineMetres(points[i]!, points[j + 1]!) <= metres) j++
    if (points[j]!.time - points[i]!.time >= seconds * 1000) {
      stops.push({ first: i, last: j })
      i = j + 1
    } else i++
  }
  return stops
}

/** The index of the highest reported speed (the first of equals), or -1 when no report gave one. */
export function topSpeedIndex(points: readonly TrackPoint[]): number {
  let best = -1
  for (let i = 0; i < points.length; i++) {
    const s = points[i]!.speed
    if (s !== null && (best < 0 || s > points[best]!.speed!)) best = i
  }
  return best
}

/**
 * The indexes a trace of `count` points keeps when it may draw `max`: evenly spread over the reports
 * (so time along the line stays even), plus every one in `keep` (the ends of stops, the fastest
 * point), in order. At most max + keep.size, all of them when count ≤ max.
 */
export function thinIndexes(count: number, max: number, keep: ReadonlySet<number> = new Set()): number[] {
  if (count <= max) return Array.from({ length: count }, (_, i) => i)
  const chosen = new Set<number>([0, count - 1])
  const step = (count - 1) / Math.max(1, max - 1)
  for (let k = 0; k < max; k++) chosen.add(Math.round(k * step))
  for (const i of keep) if (i >= 0 && i < count) chosen.add(i)
  return [...chosen].sort((a, b) => a - b)
}

const iso = (ms: number) => new Date(ms).toISOString()
const round = (v: number, decimals: number) => Math.round(v * 10 ** decimals) / 10 ** decimals

/** The summary of a whole trace, and the indexes a thinned drawing of it must keep. */
export function summarise(points: readonly TrackPoint[]): { summary: TraceSummary; keep: Set<number> } {
  const stopRuns = findStops(points)
  const top = topSpeedIndex(points)
  const keep = new Set<number>(stopRuns.flatMap((s) => [s.first, s.last]))
  if (top >= 0) keep.add(top)
  const stops = stopRuns.map(({ first, last }) => {
    const run = points.slice(first, last + 1)
    return {
      // The run's middle: the reports around a parked bike scatter by a few metres.
      lat: round(run.reduce((s, p) => s + p.lat, 0) / run.length, 6),
      lng: round(run.reduce((s, p) => s + p.lng, 0) / run.length, 6),
      from: iso(points[first]!.time),
      to: iso(points[last]!.time),
      seconds: Math.round((points[last]!.time - points[first]!.time) / 1000),
    }
  })
  const best = top >= 0 ? points[top]! : null
  return {
    summary: {
      distanceKm: round(pathMetres(points) / 1000, 3),
      durationSeconds: points.length ? Math.round((points.at(-1)!.time - points[0]!.time) / 1000) : 0,
      topSpeed: best ? { speed: best.speed!, time: iso(best.time), lat: best.lat, lng: best.lng } : null,
      stops,
    },
    keep,
  }
}
