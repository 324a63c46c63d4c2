import { describe, expect, it } from 'vitest'
import { parseGeometry, type LngLat } from '@velo/shared'
import { alarmAction, FenceSet, GeofenceEvaluator, type FenceRow } from '../src/modules/iot/geofence/evaluator'
import { circleBbox, compileShape, inBbox, pointInRing } from '../src/modules/iot/geofence/math'
import { distanceMetres } from '../src/platform/geo'

// The geofence arithmetic (issue 42 §3): pure functions, no database.

const square: LngLat[] = [
  [4, 52],
  [5, 52],
  [5, 53],
  [4, 53],
  [4, 52],
]
// A U open to the north: the notch between x 4.4 and 4.6 above y 52.3 is outside.
const u: LngLat[] = [
  [4, 52],
  [5, 52],
  [5, 53],
  [4.6, 53],
  [4.6, 52.3],
  [4.4, 52.3],
  [4.4, 53],
  [4, 53],
  [4, 52],
]

describe('point in polygon (ray casting)', () => {
  it('inside and outside a square', () => {
    expect(pointInRing(52.5, 4.5, square)).toBe(true)
    expect(pointInRing(53.5, 4.5, square)).toBe(false)
    expect(pointInRing(52.5, 3.9, square)).toBe(false)
    expect(pointInRing(52.5, 5.0001, square)).toBe(false)
  })

  it('counts a point on an edge as inside', () => {
    expect(pointInRing(52, 4.5, square)).toBe(true)
    expect(pointInRing(52.5, 5, square)).toBe(true)
    expect(pointInRing(53, 4.25, square)).toBe(true)
  })

  it('counts a vertex as inside', () => {
    for (const [lng, lat] of square) expect(pointInRing(lat, lng, square)).toBe(true)
  })

  it('a ray through a vertex is counted once', () => {
    // Level with the U's inner corners (52.3), left of the polygon and inside its left arm.
    expect(pointInRing(52.3, 3.5, u)).toBe(false)
    expect(pointInRing(52.3, 4.2, u)).toBe(true)
  })

  it('a concave polygon: the notch is outside, the arms and the base inside', () => {
    expect(pointInRing(52.6, 4.5, u)).toBe(false)
    expect(pointInRing(52.6, 4.2, u)).toBe(true)
    expect(pointInRing(52.6, 4.8, u)).toBe(true)
    expect(pointInRing(52.1, 4.5, u)).toBe(true)
  })

  it('a hole is not supported: the geometry with an inner ring is refused', () => {
    const withHole = { type: 'Polygon', coordinates: [square, [[4.4, 52.4], [4.6, 52.4], [4.6, 52.6], [4.4, 52.4]]] }
    expect(parseGeometry(JSON.stringify(withHole))).toEqual({ ok: false, reason: 'hole' })
  })

  it('the antimeridian is not handled: a ring across ±180° is read the long way round the world', () => {
    const fiji: LngLat[] = [[179, -17], [-179, -17], [-179, -16], [179, -16], [179, -17]]
    // On the globe this point is inside the 2°-wide box; the plane's arithmetic says outside.
    expect(pointInRing(-16.5, 179.5, fiji)).toBe(false)
  })
})

describe('circle (haversine)', () => {
  it('measures a known distance (Amsterdam to Rotterdam ≈ 57 km)', () => {
    expect(distanceMetres(52.3676, 4.9041, 51.9244, 4.4777) / 1000).toBeCloseTo(57.4, 0)
  })

  it('the boundary is inside, a metre past it outside', () => {
    const centre = { lat: 52.37, lng: 4.89 }
    const edge = 52.37 + 1000 / 111_195.08
    const circle = compileShape({ type: 'Point', coordinates: [centre.lng, centre.lat], radius: distanceMetres(centre.lat, centre.lng, edge, centre.lng) })
    expect(circle.contains(edge, centre.lng)).toBe(true)
    expect(circle.contains(edge + 1 / 111_195, centre.lng)).toBe(false)
    expect(circle.contains(centre.lat, centre.lng)).toBe(true)
  })

  it('its bounding box holds the whole circle', () => {
    const box = circleBbox(60, 10, 50_000)
    for (let a = 0; a < 360; a += 15) {
      const lat = 60 + (Math.cos((a * Math.PI) / 180) * 50_000) / 111_195
      const lng = 10 + (Math.sin((a * Math.PI) / 180) * 50_000) / (111_195 * Math.cos((lat * Math.PI) / 180))
      expect(inBbox(box, lat, lng)).toBe(true)
    }
  })
})

describe('the evaluator', () => {
  const fence = (o: Partial<FenceRow> & { geofenceId: number }): FenceRow => ({
    name: `Fence ${o.geofenceId}`,
    geometry: JSON.stringify({ type: 'Polygon', coordinates: [square] }),
    trigger: 'exit',
    allDevices: true,
    modelIds: [],
    countryIds: [],
    deviceIds: [],
    ...o,
  })
  const device = { deviceId: 1, modelId: 7, countryId: null }

  it('says only changes, and nothing on first sight', () => {
    const e = new GeofenceEvaluator()
    e.load([fence({ geofenceId: 1 })])
    expect(e.move(device, 52.5, 4.5)).toEqual([])
    expect(e.move(device, 52.6, 4.6)).toEqual([])
    expect(e.move(device, 54, 4.6)).toEqual([{ fenceId: 1, name: 'Fence 1', trigger: 'exit', entered: false }])
    expect(e.move(device, 54.1, 4.6)).toEqual([])
    expect(e.move(device, 52.5, 4.5)).toEqual([{ fenceId: 1, name: 'Fence 1', trigger: 'exit', entered: true }])
  })

  it('a fence drawn around a parked device does not say it came in', () => {
    const e = new GeofenceEvaluator()
    e.load([])
    e.move(device, 52.5, 4.5)
    e.load([fence({ geofenceId: 2, trigger: 'enter' })])
    expect(e.move(device, 52.51, 4.5)).toEqual([])
  })

  it('applies to the devices, models and countries named only', () => {
    const set = new FenceSet([fence({ geofenceId: 1, allDevices: false, modelIds: [7] }), fence({ geofenceId: 2, allDevices: false, countryIds: [3] }), fence({ geofenceId: 3, allDevices: false })])
    expect(set.inside({ deviceId: 1, modelId: 7, countryId: null }, 52.5, 4.5)).toEqual([1])
    expect(set.inside({ deviceId: 1, modelId: 8, countryId: 3 }, 52.5, 4.5)).toEqual([2])
    expect(set.inside({ deviceId: 1, modelId: 8, countryId: null }, 52.5, 4.5)).toEqual([])
    expect(set.usesCountries).toBe(true)
  })

  it('the trigger decides raise or clear', () => {
    const c = (trigger: 'enter' | 'exit' | 'both', entered: boolean) => alarmAction({ fenceId: 1, name: '', trigger, entered })
    expect([c('exit', false), c('exit', true), c('enter', true), c('enter', false), c('both', true), c('both', false)]).toEqual(['raise', 'clear', 'raise', 'clear', 'raise', 'raise'])
  })

  it('a fence larger than the grid holds is still checked', () => {
    const huge: LngLat[] = [[-170, -80], [170, -80], [170, 80], [-170, 80], [-170, -80]]
    const set = new FenceSet([fence({ geofenceId: 9, geometry: JSON.stringify({ type: 'Polygon', coordinates: [huge] }) })])
    expect(set.inside(device, 10, 10)).toEqual([9])
  })
})
