import type { Trace } from '@velo/shared'

// The trace page's arithmetic apart from the map: the preset ranges, the line as GeoJSON coloured by
// time, and the figures as people read them.

export type TracePreset = 'hour' | 'today' | 'day' | 'week'
export const TRACE_PRESETS: readonly TracePreset[] = ['hour', 'today', 'day', 'week']

const HOUR = 3_600_000

/** A preset's range ending now: today starts at local midnight, the others count back from now. */
export function presetRange(preset: TracePreset, now = Date.now()): { from: string; to: string } {
  const to = new Date(now)
  let from: Date
  if (preset === 'today') {
    from = new Date(now)
    from.setHours(0, 0, 0, 0)
  } else from = new Date(now - (preset === 'hour' ? 1 : preset === 'day' ? 24 : 7 * 24) * HOUR)
  return { from: from.toISOString(), to: to.toISOString() }
}

/** Where a report sits between the first and the last, 0 … 1: what its colour says. */
export const timeShare = (times: readonly number[], i: number) => {
  const span = times.at(-1)! - times[0]!
  return span > 0 ? (times[i]! - times[0]!) / span : 0
}

type Feature<G> = { type: 'Feature'; geometry: G; properties: Record<string, number | null> }

/** The line as one segment per leg, each with the share of time at its start (t): the map colours it by that. */
export function lineSegments(c: Pick<Trace, 'times' | 'lat' | 'lng'>) {
  const features: Feature<{ type: 'LineString'; coordinates: [number, number][] }>[] = []
  for (let i = 1; i < c.times.length; i++) {
    features.push({
      type: 'Feature',
      geometry: { type: 'LineString', coordinates: [[c.lng[i - 1]!, c.lat[i - 1]!], [c.lng[i]!, c.lat[i]!]] },
      properties: { t: timeShare(c.times, i - 1) },
    })
  }
  return { type: 'FeatureCollection' as const, features }
}

/** The reports as points with their index, time share and speed (hover and click read them). */
export function reportPoints(c: Pick<Trace, 'times' | 'lat' | 'lng' | 'speed'>) {
  return {
    type: 'FeatureCollection' as const,
    features: c.times.map(
      (_, i): Feature<{ type: 'Point'; coordinates: [number, number] }> => ({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [c.lng[i]!, c.lat[i]!] },
        properties: { i, t: timeShare(c.times, i), speed: c.speed[i] ?? null },
      }),
    ),
  }
}

/** The box around the trace [west, south, east, north], or null without points. */
export function bounds(c: Pick<Trace, 'lat' | 'lng'>): [number, number, number, number] | null {
  if (!c.lat.length) return null
  return [Math.min(...c.lng), Math.min(...c.lat), Math.max(...c.lng), Math.max(...c.lat)]
}

/** Seconds as "1 h 05 min", "12 min", "45 s". */
export function formatSeconds(seconds: number): string {
  const s = Math.round(seconds)
  if (s < 60) return `${s} s`
  const minutes = Math.round(s / 60)
  if (minutes < 60) return `${minutes} min`
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`
}

/** Whether the range reaches back before positions are kept: an empty stretch there is retention's doing. */
export const reachesPastRetention = (c: Pick<Trace, 'from' | 'retainedFrom'>) => Date.parse(c.from) < Date.parse(c.retainedFrom)

/** The colours of time along the line: the start cool, the end warm. */
export const TIME_COLOURS = { start: '#2f54eb', middle: '#13c2c2', end: '#fa541c' } as const
