import { useEffect, useRef, useState } from 'react'
import { type GeoJSONSource, Map as MapLibre, type MapGeoJSONFeature, prewarm, setWorkerUrl } from 'maplibre-gl'
// MapLibre 6 finds its worker beside its own file, which a bundle does not keep: Vite builds the
// worker (with the module it imports) as a file of the console's, so no blob: URL is needed either,
// and the pages' content security policy stays as it is.
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?worker&url'
import 'maplibre-gl/dist/maplibre-gl.css'
import { type MapDevices, STATUS_COLOURS, toFeatureCollection } from './mapData'
import { worldStyle } from './worldStyle'

// The map itself, in a chunk of its own with MapLibre: the map page loads it only once it knows the
// caller may see positions and the browser can draw them.

setWorkerUrl(workerUrl)
// The workers (their own large script) start as this chunk arrives, while the page still asks for
// its setup and the base map: on a first visit they were the map's longest wait.
prewarm()

export interface FleetMapProps {
  devices: MapDevices
  /** MAP_STYLE_URL; absent: the world map shipped with the console. */
  styleUrl?: string
  onOpen: (deviceId: number) => void
  /** The map could not start (no WebGL after all, a style that does not load). */
  onFailed: (reason: string) => void
}

const SOURCE = 'devices'
const { offline, online, alarm, stolen } = STATUS_COLOURS

export default function FleetMap({ devices, styleUrl, onOpen, onFailed }: FleetMapProps) {
  const container = useRef<HTMLDivElement>(null)
  const mapRef = useRef<MapLibre | null>(null)
  const [ready, setReady] = useState(false)
  const fitted = useRef(false)
  const open = useRef(onOpen)
  open.current = onOpen
  const failed = useRef(onFailed)
  failed.current = onFailed

  useEffect(() => {
    let cancelled = false
    let map: MapLibre | null = null
    setReady(false)
    fitted.current = false
    void (async () => {
      const style = styleUrl ?? (await worldStyle())
      if (cancelled || !container.current) return
      map = new MapLibre({ container: container.current, style, center: [10, 35], zoom: 1.4, dragRotate: false, pitchWithRotate: false, touchPitch: false })
      mapRef.current = map
      map.on('error', (e) => {
        // A tile that fails is the base map's business; a style that never loads leaves no map.
        if (!map?.isStyleLoaded()) failed.current(e.error?.message ?? 'map error')
      })
      map.on('load', () => {
        const m = map!
        m.addSource(SOURCE, {
          type: 'geojson',
          data: { type: 'FeatureCollection', features: [] },
          cluster: true,
          clusterRadius: 48,
          clusterMaxZoom: 14,
          // A cluster is purple when any device in it is reported stolen, red when any has a warning, green when any is online.
          clusterProperties: {
            stolen: ['+', ['case', ['==', ['get', 's'], 3], 1, 0]],
            alarm: ['+', ['case', ['==', ['get', 's'], 2], 1, 0]],
            online: ['+', ['case', ['==', ['get', 's'], 1], 1, 0]],
          },
        })
        m.addLayer({
          id: 'clusters',
          type: 'circle',
          source: SOURCE,
          filter: ['has', 'point_count'],
          paint: {
            'circle-color': ['case', ['>', ['get', 'stolen'], 0], stolen, ['>', ['get', 'alarm'], 0], alarm, ['>', ['get', 'online'], 0], online, offline],
            'circle-radius': ['step', ['get', 'point_count'], 12, 10, 16, 100, 21, 1000, 27],
            'circle-opacity': 0.8,
            'circle-stroke-width': 2,
            'circle-stroke-color': '#ffffff',
          },
        })
        m.addLayer({
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
        })
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
        for (const layer of ['clusters', 'points']) {
          m.on('mouseenter', layer, () => (m.getCanvas().style.cursor = 'pointer'))
          m.on('mouseleave', layer, () => (m.getCanvas().style.cursor = ''))
        }
        // What is drawn, for tests and for whoever inspects the page: points and clusters on screen.
        m.on('idle', () => {
          if (container.current) container.current.dataset.rendered = String(m.queryRenderedFeatures({ layers: ['clusters', 'points'] }).length)
        })
        setReady(true)
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
    if (!ready || !map) return
    ;(map.getSource(SOURCE) as GeoJSONSource | undefined)?.setData(toFeatureCollection(devices))
    if (container.current) container.current.dataset.points = String(devices.ids.length)
    // The first devices frame the view; after that the user's pan and zoom stay.
    if (!fitted.current && devices.ids.length) {
      fitted.current = true
      let [w, s, e, n] = [180, 90, -180, -90]
      devices.ids.forEach((_, i) => {
        w = Math.min(w, devices.lng[i]!)
        e = Math.max(e, devices.lng[i]!)
        s = Math.min(s, devices.lat[i]!)
        n = Math.max(n, devices.lat[i]!)
      })
      map.fitBounds([w, s, e, n], { padding: 48, maxZoom: 11, duration: 0 })
    }
  }, [devices, ready])

  return <div ref={container} className="iot-map-canvas" data-testid="fleet-map" data-ready={ready} />
}
