import { describe, expect, it } from 'vitest'
import { findStops, haversineMetres, pathMetres, summarise, thinIndexes, topSpeedIndex, type TrackPoint } from '../src/modules/iot/trace/track'

// The arithmetic of a trace (modules/iot/trace/track.ts): distances, stops, top speed, thinning.

/** One degree along the equator or a meridian on the mean sphere. */
const DEGREE_M = 111_195.08
const at = (second: number, lat: number, lng: number, speed: number | null = 18): TrackPoint => ({ time: second * 1000, lat, lng, speed })
/** A point `metres` east of (52.37, 4.9), Amsterdam, where a degree of longitude is ~67.9 km. */
const east = (metres: number) => 4.9 + metres / (DEGREE_M * Math.cos((52.37 * Math.PI) / 180))

describe('haversine', () => {
  it('measures a degree on the equator, Paris–London, and nothing between a point and itself', () => {
    expect(haversineMetres({ lat: 0, lng: 0 }, { lat: 0, lng: 1 })).toBeCloseTo(DEGREE_M, 0)
    expect(haversineMetres({ lat: 10, lng: 20 }, { lat: 11, lng: 20 })).toBeCloseTo(DEGREE_M, 0)
    const parisLondon = haversineMetres({ lat: 48.8566, lng: 2.3522 }, { lat: 51.5074, lng: -0.1278 })
    expect(parisLondon / 1000).toBeGreaterThan(343)
    expect(parisLondon / 1000).toBeLessThan(344.5)
    expect(haversineMetres({ lat: 52.37, lng: 4.9 }, { lat: 52.37, lng: 4.9 })).toBe(0)
  })

  it('adds the legs of a path in order (there and back is twice the way)', () => {
    const there = [at(0, 52.37, east(0)), at(60, 52.37, east(500)), at(120, 52.37, east(1000))]
    expect(pathMetres(there)).toBeCloseTo(1000, 0)
    expect(pathMetres([...there, at(180, 52.37, east(0))])).toBeCloseTo(2000, 0)
    expect(pathMetres([])).toBe(0)
  })
})

describe('stops', () => {
  it('finds where the device stayed within 30 m for 2 minutes, GPS jitter and all', () => {
    const points = [
      at(0, 52.37, east(0)),
      at(30, 52.37, east(150)),
      // At the lights and on: 20 s is no stop.
      at(50, 52.37, east(152)),
      at(80, 52.37, east(300)),
      // A stop of 3 minutes, wandering by a few metres.
      at(110, 52.37, east(500)),
      at(170, 52.37002, east(508)),
      at(230, 52.36998, east(495)),
      at(290, 52.37, east(503)),
      at(320, 52.37, east(700)),
    ]
    expect(findStops(points)).toEqual([{ first: 4, last: 7 }])
  })

  it('counts a silent parked device as a stop, and not a slow crawl that never stays', () => {
    const parked = [at(0, 52.37, east(0)), at(20, 52.37, east(100)), at(3620, 52.37, east(105)), at(3640, 52.37, east(300))]
    expect(findStops(parked)).toEqual([{ first: 1, last: 2 }])
    // 25 m a minute for ten minutes: always moving on past the radius.
    const crawl = Array.from({ length: 11 }, (_, i) => at(i * 60, 52.37, east(i * 25)))
    expect(findStops(crawl)).toEqual([])
    expect(findStops([])).toEqual([])
  })
})

describe('top speed', () => {
  it('is the first highest reported speed; reports without one do not count', () => {
    expect(topSpeedIndex([at(0, 0, 0, 12), at(1, 0, 0, null), at(2, 0, 0, 27.5), at(3, 0, 0, 27.5), at(4, 0, 0, 3)])).toBe(2)
    expect(topSpeedIndex([at(0, 0, 0, null)])).toBe(-1)
  })
})

describe('thinning', () => {
  it('keeps all when they fit, else an even spread with both ends and every point it must keep', () => {
    expect(thinIndexes(5, 10)).toEqual([0, 1, 2, 3, 4])
    const kept = thinIndexes(100_000, 2000, new Set([12_345, 99_998]))
    expect(kept.length).toBeLessThanOrEqual(2002)
    expect(kept.length).toBeGreaterThan(1900)
    expect(kept[0]).toBe(0)
    expect(kept.at(-1)).toBe(99_999)
    expect(kept).toContain(12_345)
    expect(kept).toContain(99_998)
    expect([...kept].sort((a, b) => a - b)).toEqual(kept)
    expect(new Set(kept).size).toBe(kept.length)
  })
})

describe('the summary', () => {
  it('gives distance, duration, the top speed where and when, the stops, and what a thinned drawing keeps', () => {
    const points = [at(0, 52.37, east(0), 10), at(60, 52.37, east(400), 24.4), at(120, 52.37, east(800), 20), at(300, 52.37, east(805), 0), at(360, 52.37, east(1200), 22)]
    const { summary, keep } = summarise(points)
    expect(summary.distanceKm).toBeCloseTo(1.2, 2)
    expect(summary.durationSeconds).toBe(360)
    expect(summary.topSpeed).toEqual({ speed: 24.4, time: new Date(60_000).toISOString(), lat: 52.37, lng: east(400) })
    expect(summary.stops).toHaveLength(1)
    expect(summary.stops[0]).toMatchObject({ from: new Date(120_000).toISOString(), to: new Date(300_000).toISOString(), seconds: 180 })
    expect([...keep].sort()).toEqual([1, 2, 3])
    expect(summarise([]).summary).toEqual({ distanceKm: 0, durationSeconds: 0, topSpeed: null, stops: [] })
  })
})
