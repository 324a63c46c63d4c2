import type { Geometry, LngLat } from '@velo/shared'
import { distanceMetres, EARTH_RADIUS_M, toRadians } from '../../../platform/geo'

// Geofence arithmetic on longitude/latitude as plain numbers (issue 42 §3), pure and unit-tested
// (test/geofence-math.test.ts). Polygons are taken as drawn on the map's plane: a fence is a few
// kilometres, where a straight edge on the map and on the globe are the same to the metre.
// Not handled: a fence across the antimeridian (±180°) — its ring would wrap the other way round the
// world — and polygons with holes (the geometry field refuses inner rings).

const M_PER_DEGREE_LAT = (Math.PI * EARTH_RADIUS_M) / 180

export interface Bbox {
  minLat: number
  maxLat: number
  minLng: number
  maxLng: number
}

export const inBbox = (b: Bbox, lat: number, lng: number) => lat >= b.minLat && lat <= b.maxLat && lng >= b.minLng && lng <= b.maxLng

export function ringBbox(ring: readonly LngLat[]): Bbox {
  const b = { minLat: Infinity, maxLat: -Infinity, minLng: Infinity, maxLng: -Infinity }
  for (const [lng, lat] of ring) {
    if (lat < b.minLat) b.minLat = lat
    if (lat > b.maxLat) b.maxLat = lat
    if (lng < b.minLng) b.minLng = lng
    if (lng > b.maxLng) b.maxLng = lng
  }
  return b
}

/** The box that holds every point within `radiusM` of a centre (a little wider: it only prefilters). */
export function circleBbox(lat: number, lng: number, radiusM: number): Bbox {
  const dLat = (radiusM / M_PER_DEGREE_LAT) * 1.001
  const widest = Math.min(89.9, Math.abs(lat) + dLat)
  const dLng = Math.min(180, dLat / Math.cos(toRadians(widest)))
  return { minLat: lat - dLat, maxLat: lat + dLat, minLng: lng - dLng, maxLng: lng + dLng }
}

/** Within this (degrees², ~1 mm at these sizes) a point is on an edge: the cross product's rounding. */
const ON_EDGE = 1e-12

/**
 * Whether a point is in a closed ring (first point repeated last), by ray casting: a ray east of the
 * point crosses the ring's edges an odd number of times when inside. A point on an edge or a vertex
 * counts as inside: a bike parked on the depot's fence line is at the depot, and a point exactly on
 * the line does not flicker between the two answers as the ray's rounding would have it.
 */
export function pointInRing(lat: number, lng: number, ring: readonly LngLat[]): boolean {
  let inside = false
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const xi = ring[i]![0]
    const yi = ring[i]![1]
    const xj = ring[j]![0]
    const yj = ring[j]![1]
    // On the segment: collinear and within its box.
    const cross = (xj - xi) * (lat - yi) - (yj - yi) * (lng - xi)
    if (Math.abs(cross) <= ON_EDGE && lng >= Math.min(xi, xj) && lng <= Math.max(xi, xj) && lat >= Math.min(yi, yj) && lat <= Math.max(yi, yj)) return true
    // Half-open in latitude: a vertex on the ray's line is counted once, not twice.
    if (yi > lat !== yj > lat && lng < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside
  }
  return inside
}

/** Whether a point is within a circle (its boundary included), by the haversine distance to the centre. */
export const pointInCircle = (lat: number, lng: number, centreLat: number, centreLng: number, radiusM: number) => distanceMetres(lat, lng, centreLat, centreLng) <= radiusM

/** A geometry ready to test points against: its box, and the test itself. */
export interface CompiledShape {
  bbox: Bbox
  contains(lat: number, lng: number): boolean
}

export function compileShape(g: Geometry): CompiledShape {
  if (g.type === 'Point') {
    const [lng, lat] = g.coordinates
    const radius = g.radius
    return { bbox: circleBbox(lat, lng, radius), contains: (pLat, pLng) => pointInCircle(pLat, pLng, lat, lng, radius) }
  }
  const ring = g.coordinates[0]
  const bbox = ringBbox(ring)
  return { bbox, contains: (pLat, pLng) => inBbox(bbox, pLat, pLng) && pointInRing(pLat, pLng, ring) }
}
