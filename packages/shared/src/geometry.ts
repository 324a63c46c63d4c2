// The `geometry` field kind (a geofence's shape): GeoJSON text, checked the same way by the server,
// the form and the import box. Two shapes only: a Polygon of one ring, and a circle, which GeoJSON
// has no type for, written as a Point with a `radius` member in metres (a foreign member, RFC 7946 §6.1).

/** What one geometry may hold: the evaluator checks every vertex of a fence a device is near. */
export const GEOMETRY_LIMITS = { maxVertices: 500, maxRadiusM: 50_000 } as const

export type LngLat = [lng: number, lat: number]
export type PolygonGeometry = { type: 'Polygon'; coordinates: [LngLat[]] }
export type CircleGeometry = { type: 'Point'; coordinates: LngLat; radius: number }
export type Geometry = PolygonGeometry | CircleGeometry

/** Why a text is not a geometry, for each side to say in its own words. */
export type GeometryReason =
  | 'json'
  | 'type'
  | 'multiPolygon'
  | 'severalFeatures'
  | 'hole'
  | 'notClosed'
  | 'tooFewVertices'
  | 'tooManyVertices'
  | 'coordinates'
  | 'radius'

export type GeometryResult = { ok: true; geometry: Geometry; shape: 'polygon' | 'circle' } | { ok: false; reason: GeometryReason }

const isPosition = (p: unknown): p is LngLat =>
  Array.isArray(p) && p.length >= 2 && typeof p[0] === 'number' && typeof p[1] === 'number' && Math.abs(p[0]) <= 180 && Math.abs(p[1]) <= 90

const refuse = (reason: GeometryReason): GeometryResult => ({ ok: false, reason })

/** A parsed GeoJSON value as one of the two shapes, or why not; a Feature or a one-feature collection is unwrapped. */
export function geometryOf(value: unknown): GeometryResult {
  if (!value || typeof value !== 'object') return refuse('type')
  const v = value as Record<string, unknown>
  if (v.type === 'FeatureCollection') {
    const features = Array.isArray(v.features) ? v.features : []
    if (features.length !== 1) return refuse(features.length ? 'severalFeatures' : 'type')
    return geometryOf(features[0])
  }
  if (v.type === 'Feature') {
    const g = v.geometry as Record<string, unknown> | null
    // A drawn circle exported as a Feature keeps its radius among the properties.
    const radius = (v.properties as Record<string, unknown> | null)?.radius
    return geometryOf(g && g.type === 'Point' && g.radius === undefined ? { ...g, radius } : g)
  }
  if (v.type === 'MultiPolygon') return refuse('multiPolygon')
  if (v.type === 'Polygon') {
    const rings = v.coordinates
    if (!Array.isArray(rings) || rings.length === 0 || !Array.isArray(rings[0])) return refuse('coordinates')
    if (rings.length > 1) return refuse('hole')
    const ring = rings[0] as unknown[]
    if (!ring.every(isPosition)) return refuse('coordinates')
    if (ring.length < 4) return refuse('tooFewVertices')
    const first = ring[0] as LngLat
    const last = ring[ring.length - 1] as LngLat
    if (first[0] !== last[0] || first[1] !== last[1]) return refuse('notClosed')
    if (ring.length - 1 > GEOMETRY_LIMITS.maxVertices) return refuse('tooManyVertices')
    return { ok: true, shape: 'polygon', geometry: { type: 'Polygon', coordinates: [ring.map((p) => [p[0], p[1]] as LngLat)] } }
  }
  if (v.type === 'Point') {
    if (!isPosition(v.coordinates)) return refuse('coordinates')
    const radius = v.radius
    if (typeof radius !== 'number' || !(radius > 0) || radius > GEOMETRY_LIMITS.maxRadiusM) return refuse('radius')
    return { ok: true, shape: 'circle', geometry: { type: 'Point', coordinates: [v.coordinates[0], v.coordinates[1]], radius } }
  }
  return refuse('type')
}

/** A geometry field's text, or an imported file's: GeoJSON of a Polygon, a circle, or a Feature (collection) of one. */
export function parseGeometry(text: string): GeometryResult {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return refuse('json')
  }
  return geometryOf(value)
}
