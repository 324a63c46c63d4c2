import { useEffect, useRef, useState } from 'react'
import { type GeoJSONSource, type GeoJSONSourceSpecification, type LayerSpecification, Map as MapLibre, type MapGeoJSONFeature, prewarm, setWorkerUrl } from 'maplibre-gl'
// MapLibre 6 finds its worker beside its own file, which a bundle does not keep: Vite builds the
// worker (with the module it imports) as a file of the console's, so no blob: URL is needed either,
// and the pages' content security policy stays as it is.
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?worker&url'
import 'maplibre-gl/dist/maplibre-gl.css'
import { EMPTY, type MapDevices, STATUS_COLOURS, toFeatureCollection } from './mapData'
import { worldStyle } from './worldStyle'

// The map itself, in a chunk of its own with MapLibre: the map page loads it only once it knows the
// caller may see positions and the browser can draw them.

setWorkerUrl(workerUrl)
// The workers (their own large script) start as this chunk arrives, while the page still asks for
// its setup and the base map: on a first visit they were the map's longest wait.
prewarm()

export interface FleetMapProps {
  /** Undefined while they are still asked: the map starts meanwhile and takes them when they come. */
  devices: MapDevices | undefined
  /** MAP_STYLE_URL; absent: the world map shipped with the console. */
  styleUrl?: string
  onOpen: (deviceId: number) => void
  /** The map could not start (no WebGL after all, a style that does not load). */
  onFailed: (reason: string) => void
}

const SOURCE = 'devices'
const { offline, online, alarm, stolen } = STATUS_COLOURS
/** How the devices frame the first view: a little room at the edges, never closer than a district. */
const FRAMING = { padding: 48, maxZoom: 11 }

function devicesSource(devices: MapDevices): GeoJSONSourceSpecification {
  return {
    type: 'geojson',
    data: toFeatureCollection(devices),
    cluster: true,
    clusterRadius: 48,
    clusterMaxZoom: 14,
    // A cluster's colour is its most urgent device's: the status codes rank (stolen 3, a warning 2,
    // online 1, offline 0), so one maximum says it. One reduction rather than a count per status
    // is a third of the clustering worker's work over 12,000 points.
    clusterProperties: { top: ['max', ['get', 's']] },
  }
}

const deviceLayers: LayerSpecification[] = [
  {
    id: 'clusters',
    type: 'circle',
    source: SOURCE,
    filter: ['has', 'point_count'],
    paint: {
      'circle-color': ['match', ['get', 'top'], 3, stolen, 2, alarm, 1, online, offline],
      'circle-radius': ['step', ['get', 'point_count'], 12, 10, 16, 100, 21, 1000, 27],
      'circle-opacity': 0.8,
      'circle-stroke-width': 2,
      'circle-stroke-color': '#ffffff',
    },
  },
  {
    id: 'points',
    type: 'circle',
    source: SOURCE,
    filter: ['!', ['has', 'point_count']],
    paint: {
      'circle-color': ['match', ['get', 's'], 3, stolen, 2, alarm, 1, online, offline],
      // A stolen bike stands out among thousands.
      'circle-radius': ['case', ['==', ['get', 's'], 3], 9, 6],
      'circle-stroke-width': 1.5,
      'circle-stroke-color': '#ffffff',
    },
  },
]
const DEVICE_LAYERS = deviceLayers.map((l) => l.id)

/** West, south, east, north of the devices; none without devices. */
function extent(devices: MapDevices): [number, number, number, number] | undefined {
  if (!devices.ids.length) return undefined
  let [w, s, e, n] = [180, 90, -180, -90]
  devices.ids.forEach((_, i) => {
    w = Math.min(w, devices.lng[i]!)
    e = Math.max(e, devices.lng[i]!)
    s = Math.min(s, devices.lat[i]!)
    n = Math.max(n, devices.lat[i]!)
  })
  return [w, s, e, n]
}

export default function FleetMap({ devices, styleUrl, onOpen, onFailed }: FleetMapProps) {
  const container = useRef<HTMLDivElement>(null)
  const mapRef = useRef<MapLibre | null>(null)
  const [loaded, setLoaded] = useState(false)
  /** The devices the map's source holds, so the same ones are not handed to it twice. */
  const drawn = useRef<MapDevices | undefined>(undefined)
  /** Whether the devices framed the view: once, then the user's pan and zoom stay. */
  const framed = useRef(false)
  const latest = useRef(devices)
  latest.current = devices
  const open = useRef(onOpen)
  open.current = onOpen
  const failed = useRef(onFailed)
  failed.current = onFailed

  useEffect(() => {
    let cancelled = false
    let map: MapLibre | null = null
    setLoaded(false)
    drawn.current = undefined
    framed.current = false
    void (async () => {
      const base = styleUrl ?? (await worldStyle())
      if (cancelled || !container.current) return
      // Devices known already (the usual case: they are asked while the map's chunk and the base map
      // load) are part of the first style and frame the first view, so the map tiles the world once,
      // where they are, with them, instead of drawing it, then them, then again at their extent.
      const first = latest.current
      const frame = first && extent(first)
      const withDevices = first && typeof base !== 'string'
      const style = withDevices ? { ...base, sources: { ...base.sources, [SOURCE]: devicesSource(first) }, layers: [...base.layers, ...deviceLayers] } : base
      if (withDevices) drawn.current = first
      framed.current = !!frame
      const view = frame ? { bounds: frame, fitBoundsOptions: FRAMING } : { center: [10, 35] as [number, number], zoom: 1.4 }
      map = new MapLibre({ container: container.current, style, ...view, dragRotate: false, pitchWithRotate: false, touchPitch: false })
      mapRef.current = map
      map.on('error', (e) => {
        // A tile that fails is the base map's business; a style that never loads leaves no map.
        if (!map?.isStyleLoaded()) failed.current(e.error?.message ?? 'map error')
      })
      map.on('load', () => {
        const m = map!
        // A style of the operator's (a URL) gets the devices once it is in; the shipped one has them.
        if (!m.getSource(SOURCE)) {
          drawn.current = latest.current
          m.addSource(SOURCE, devicesSource(drawn.current ?? EMPTY))
          for (const layer of deviceLayers) m.addLayer(layer)
        }
        m.on('click', 'clusters', (e) => {
          const cluster = e.features?.[0] as MapGeoJSONFeature | undefined
          if (!cluster) return
          const center = (cluster.geometry as unknown as { coordinates: [number, number] }).coordinates
          void (m.getSource(SOURCE) as GeoJSONSource).getClusterExpansionZoom(Number(cluster.properties.cluster_id)).then((zoom) => m.easeTo({ center, zoom }))
        })
        m.on('click', 'points', (e) => {
          const id = Number(e.features?.[0]?.properties.id)
          if (id) open.current(id)
        })
        for (const layer of DEVICE_LAYERS) {
          m.on('mouseenter', layer, () => (m.getCanvas().style.cursor = 'pointer'))
          m.on('mouseleave', layer, () => (m.getCanvas().style.cursor = ''))
        }
        // What is drawn, for tests and for whoever inspects the page: points and clusters on screen.
        m.on('idle', () => {
          if (container.current) container.current.dataset.rendered = String(m.queryRenderedFeatures({ layers: DEVICE_LAYERS }).length)
        })
        setLoaded(true)
      })
    })().catch((err: unknown) => {
      if (!cancelled) failed.current(err instanceof Error ? err.message : String(err))
    })
    return () => {
      cancelled = true
      mapRef.current = null
      map?.remove()
    }
  }, [styleUrl])

  useEffect(() => {
    const map = mapRef.current
    if (!loaded || !map || !devices) return
    if (drawn.current !== devices) {
      ;(map.getSource(SOURCE) as GeoJSONSource).setData(toFeatureCollection(devices))
      drawn.current = devices
    }
    // Devices that came after the map started frame the view then.
    const frame = !framed.current && extent(devices)
    if (frame) {
      framed.current = true
      map.fitBounds(frame, { ...FRAMING, duration: 0 })
    }
    if (container.current) container.current.dataset.points = String(devices.ids.length)
  }, [devices, loaded])

  return <div ref={container} className="iot-map-canvas" data-testid="fleet-map" data-ready={loaded} />
}
