import type { StyleSpecification } from 'maplibre-gl'

// The base map a `geometry` field's drawing map shows: a page registers its own (IoT › Geofences:
// MAP_STYLE_URL or the world map the fleet map ships), so the engine names no area's code. Without
// one, a plain background: the shapes still draw, and nothing is asked of any server.

type BaseMap = () => Promise<StyleSpecification | string>

let registered: BaseMap | null = null

export function setGeometryBaseMap(load: BaseMap): void {
  registered = load
}

export const BLANK_STYLE: StyleSpecification = { version: 8, sources: {}, layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#eef2f6' } }] }

export const geometryBaseMap = (): Promise<StyleSpecification | string> => (registered ? registered() : Promise.resolve(BLANK_STYLE))
