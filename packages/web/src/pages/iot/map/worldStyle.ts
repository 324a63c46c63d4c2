import type { StyleSpecification } from 'maplibre-gl'
import { feature } from 'topojson-client'
import type { GeometryCollection, Topology } from 'topojson-specification'
// Natural Earth's countries at 1:110m (~100 KB), shipped as one of the console's own files: the map
// works with no base map configured and no network, and asks nothing of anyone else.
import worldUrl from 'world-atlas/countries-110m.json?url'

type World = Topology<{ countries: GeometryCollection; land: GeometryCollection }>
type Line = number[][]

/** Antarctica (ISO 3166 numeric 010): no bikes there, and its outline runs along the map's edges. */
const ANTARCTICA = '010'

/**
 * A ring that crosses the antimeridian jumps from 180° to -180°, which a flat map fills as a band
 * across the whole world (Russia, Fiji): each jump is undone, so the ring goes on past 180°.
 */
function unwrap(ring: Line): Line {
  const out: Line = []
  let shift = 0
  for (const p of ring) {
    const prev = out.at(-1)
    if (prev) {
      const d = p[0]! + shift - prev[0]!
      if (d > 180) shift -= 360
      else if (d < -180) shift += 360
    }
    out.push([p[0]! + shift, p[1]!])
  }
  return out
}

/** Countries are polygons and multipolygons only (world-atlas' countries object). */
type Geometry = { type: string; coordinates?: unknown }
function unwrapped<G extends Geometry>(g: G): G {
  const c = g.coordinates
  if (g.type === 'Polygon') return { ...g, coordinates: (c as Line[]).map(unwrap) }
  if (g.type === 'MultiPolygon') return { ...g, coordinates: (c as Line[][]).map((poly) => poly.map(unwrap)) }
  return g
}

let shapes: Promise<GeoJSON.FeatureCollection> | undefined

/**
 * The world's countries, read and converted once a visit of the console: every map after the first
 * (the fleet map again, a trace, a geofence) starts without the download and the conversion.
 */
function worldShapes() {
  shapes ??= (async () => {
    const res = await fetch(worldUrl)
    if (!res.ok) throw new Error(`world map: HTTP ${res.status}`)
    const world = (await res.json()) as World
    const countries = feature(world, { ...world.objects.countries, geometries: world.objects.countries.geometries.filter((g) => g.id !== ANTARCTICA) })
    return { ...countries, features: countries.features.map((f) => ({ ...f, geometry: f.geometry && unwrapped(f.geometry) })) }
  })()
  // A failed read is tried again next time, not remembered.
  shapes.catch(() => (shapes = undefined))
  return shapes
}

/**
 * The base map when MAP_STYLE_URL is not set: sea, land, and the countries' outlines (borders and
 * coasts alike) from the shipped world map. One source for both layers, cut into tiles no deeper
 * than zoom 5 (at 1:110m there is nothing finer to show; closer views scale those tiles up): on a
 * browser drawing without a GPU the base map's tiling was most of the map's first second. No
 * labels: they would need glyphs from a server, and the points say what matters.
 */
export async function worldStyle(): Promise<StyleSpecification> {
  const countries = await worldShapes()
  return {
    version: 8,
    sources: { countries: { type: 'geojson', data: countries, maxzoom: 5 } },
    layers: [
      { id: 'sea', type: 'background', paint: { 'background-color': '#dcebf7' } },
      { id: 'land', type: 'fill', source: 'countries', paint: { 'fill-color': '#f7f5ef' } },
      { id: 'outline', type: 'line', source: 'countries', paint: { 'line-color': '#b5b9c0', 'line-width': 0.7 } },
    ],
  }
}
