import { useEffect, useRef, useState } from 'react'
import { type GeoJSONSource, Map as MapLibre, type MapLayerMouseEvent, Marker, Popup, setWorkerUrl } from 'maplibre-gl'
// The worker as one of the console's files, as the fleet map has it (map/FleetMap.tsx says why).
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?worker&url'
import 'maplibre-gl/dist/maplibre-gl.css'
import type { Trace } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { worldStyle } from '../map/worldStyle'
import { bounds, formatSeconds, lineSegments, reportPoints, TIME_COLOURS } from './traceData'

// The trace on a map, in the chunk of MapLibre (loaded with the trace panel's first map only): the
// line coloured by time, every report a dot (hover or click: its time and speed), the stops and the
// top speed as labelled markers — HTML, since the offline base map has no glyphs for map text.

setWorkerUrl(workerUrl)

export interface TraceMapProps {
  trace: Trace
  /** MAP_STYLE_URL; absent: the world map shipped with the console. */
  styleUrl?: string
  onFailed: (reason: string) => void
}

const TIME_TIME = 'HH:mm:ss'
const byTime = ['interpolate', ['linear'], ['get', 't'], 0, TIME_COLOURS.start, 0.5, TIME_COLOURS.middle, 1, TIME_COLOURS.end] as const

function label(className: string, text: string, testId: string): HTMLElement {
  const el = document.createElement('div')
  el.className = `trace-marker ${className}`
  el.textContent = text
  el.dataset.testid = testId
  return el
}

export default function TraceMap({ trace, styleUrl, onFailed }: TraceMapProps) {
  // Through a ref: i18next hands out a new t when texts are added, which must not rebuild the map.
  const { t: translate } = useTranslation()
  const tr = useRef(translate)
  tr.current = translate
  const container = useRef<HTMLDivElement>(null)
  const mapRef = useRef<MapLibre | null>(null)
  const [ready, setReady] = useState(false)
  const failed = useRef(onFailed)
  failed.current = onFailed
  const current = useRef(trace)
  current.current = trace

  useEffect(() => {
    let cancelled = false
    let map: MapLibre | null = null
    setReady(false)
    void (async () => {
      const style = styleUrl ?? (await worldStyle())
      if (cancelled || !container.current) return
      map = new MapLibre({ container: container.current, style, center: [10, 35], zoom: 1.4, dragRotate: false, pitchWithRotate: false, touchPitch: false })
      mapRef.current = map
      map.on('error', (e) => {
        if (!map?.isStyleLoaded()) failed.current(e.error?.message ?? 'map error')
      })
      map.on('load', () => {
        const m = map!
        m.addSource('trace-line', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } })
        m.addSource('trace-points', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } })
        m.addLayer({ id: 'trace-line', type: 'line', source: 'trace-line', layout: { 'line-cap': 'round', 'line-join': 'round' }, paint: { 'line-color': byTime as never, 'line-width': 4 } })
        m.addLayer({
          id: 'trace-points',
          type: 'circle',
          source: 'trace-points',
          paint: { 'circle-color': byTime as never, 'circle-radius': 3.5, 'circle-stroke-width': 1, 'circle-stroke-color': '#ffffff' },
        })
        const popup = new Popup({ closeButton: false, closeOnClick: false, offset: 8 })
        const show = (e: MapLayerMouseEvent) => {
          const t = tr.current
          const i = Number(e.features?.[0]?.properties.i)
          const c = current.current
          if (!Number.isInteger(i) || i >= c.times.length) return
          const speed = c.speed[i]
          const box = document.createElement('div')
          box.dataset.testid = 'trace-point-popup'
          for (const [name, value] of [
            [t('iot.trace.pointTime'), dayjs(c.times[i]).format('YYYY-MM-DD HH:mm:ss')],
            [t('iot.trace.pointSpeed'), speed === null || speed === undefined ? '–' : t('iot.trace.kmh', { value: speed })],
          ]) {
            const line = document.createElement('div')
            line.textContent = `${name}: ${value}`
            box.append(line)
          }
          popup.setLngLat([c.lng[i]!, c.lat[i]!]).setDOMContent(box).addTo(m)
        }
        m.on('mousemove', 'trace-points', (e) => {
          m.getCanvas().style.cursor = 'pointer'
          show(e)
        })
        m.on('click', 'trace-points', show)
        m.on('mouseleave', 'trace-points', () => {
          m.getCanvas().style.cursor = ''
          popup.remove()
        })
        // How close the view is, for tests and for whoever inspects the page: a trace is framed at street level.
        m.on('idle', () => {
          if (!container.current) return
          container.current.dataset.zoom = m.getZoom().toFixed(1)
          // What WebGL drew of the trace (line pieces and dots on screen): the markers are HTML and show without it.
          container.current.dataset.rendered = String(m.queryRenderedFeatures({ layers: ['trace-line', 'trace-points'] }).length)
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
    ;(map.getSource('trace-line') as GeoJSONSource | undefined)?.setData(lineSegments(trace))
    ;(map.getSource('trace-points') as GeoJSONSource | undefined)?.setData(reportPoints(trace))
    const t = tr.current
    const markers: Marker[] = []
    const n = trace.times.length
    if (n) {
      markers.push(new Marker({ element: label('trace-marker-start', t('iot.trace.start'), 'trace-start'), anchor: 'bottom', offset: [0, -6] }).setLngLat([trace.lng[0]!, trace.lat[0]!]))
      if (n > 1) markers.push(new Marker({ element: label('trace-marker-end', t('iot.trace.end'), 'trace-end'), anchor: 'bottom', offset: [0, -6] }).setLngLat([trace.lng[n - 1]!, trace.lat[n - 1]!]))
    }
    for (const s of trace.summary.stops) {
      const text = `${dayjs(s.from).format(TIME_TIME)} · ${formatSeconds(s.seconds)}`
      markers.push(new Marker({ element: label('trace-marker-stop', text, 'trace-stop-marker'), anchor: 'top', offset: [0, 6] }).setLngLat([s.lng, s.lat]))
    }
    const top = trace.summary.topSpeed
    if (top) markers.push(new Marker({ element: label('trace-marker-top', t('iot.trace.kmh', { value: top.speed }), 'trace-top-marker'), anchor: 'left', offset: [8, 0] }).setLngLat([top.lng, top.lat]))
    for (const marker of markers) marker.addTo(map)
    const box = bounds(trace)
    if (box) map.fitBounds(box, { padding: 56, maxZoom: 16, duration: 0 })
    if (container.current) {
      container.current.dataset.points = String(n)
      container.current.dataset.stops = String(trace.summary.stops.length)
    }
    return () => {
      for (const marker of markers) marker.remove()
    }
  }, [trace, ready])

  return <div ref={container} className="trace-map-canvas" data-testid="trace-map" data-ready={ready} />
}
