import { GEOMETRY_LIMITS, type Geometry, type LngLat } from '@velo/shared'

// A geometry field's value on the map and back: what the drawing map shows of a stored shape, and
// the shape a drawn feature stands for. Pure, so it is tested without a map (geometryShapes.test.ts).

const M_PER_DEG = 111_195
const round6 = (v: number) => Math.round(v * 1e6) / 1e6

/** A circle as the polygon the map draws (the map has no circles): `segments` corners around it. */
export function circleRing(centre: LngLat, radiusM: number, segments = 64): LngLat[] {
  const [lng, lat] = centre
  const ring: LngLat[] = []
  for (let i = 0; i < segments; i++) {
    const a = (i / segments) * 2 * Math.PI
    ring.push([lng + (Math.sin(a) * radiusM) / (M_PER_DEG * Math.cos((lat * Math.PI) / 180)), lat + (Math.cos(a) * radiusM) / M_PER_DEG])
  }
  ring.push(ring[0]!)
  return ring
}

/** The polygon ring the map shows for a geometry. */
export const ringOf = (g: Geometry): LngLat[] => (g.type === 'Point' ? circleRing(g.coordinates, g.radius) : g.coordinates[0])

/** A drawn circle (terra-draw's polygon with its radius in km) as the field's circle: its centre and radius in metres. */
export function drawnCircle(ring: readonly LngLat[], radiusKilometers: number): Geometry {
  const corners = ring.slice(0, -1)
  const lng = corners.reduce((s, p) => s + p[0], 0) / corners.length
  const lat = corners.reduce((s, p) => s + p[1], 0) / corners.length
  const radius = Math.min(GEOMETRY_LIMITS.maxRadiusM, Math.max(1, Math.round(radiusKilometers * 1000)))
  return { type: 'Point', coordinates: [round6(lng), round6(lat)], radius }
}

/** A drawn polygon as the field's, its corners rounded to ~10 cm. */
export const drawnPolygon = (ring: readonly LngLat[]): Geometry => ({ type: 'Polygon', coordinates: [ring.map(([lng, lat]) => [round6(lng), round6(lat)] as LngLat)] })
