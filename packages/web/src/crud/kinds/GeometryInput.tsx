import { useEffect, useRef, useState } from 'react'
import { Alert, Button, Input, Space, Typography } from 'antd'
import { GEOMETRY_LIMITS, type GeometryReason, parseGeometry } from '@velo/shared'
import { type GeoJSONSource, LngLatBounds, Map as MapLibre, setWorkerUrl } from 'maplibre-gl'
// As the fleet map: MapLibre's worker built as a file of the console's (no blob: URL, same content security policy).
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?worker&url'
import 'maplibre-gl/dist/maplibre-gl.css'
import { TerraDraw, TerraDrawCircleMode, TerraDrawPolygonMode } from 'terra-draw'
import { TerraDrawMapLibreGLAdapter } from 'terra-draw-maplibre-gl-adapter'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import { controlProps } from './inputs'
import type { InputProps } from './types'
import { geometryBaseMap } from './geometryBaseMap'
import { drawnCircle, drawnPolygon, ringOf } from './geometryShapes'
import './inputTexts'

// The `geometry` kind's input, in a chunk of its own with MapLibre and terra-draw (loaded with a form
// that has such a field, never with a list): the shape on a map, drawn anew as a polygon or a circle,
// or imported as GeoJSON from a file or pasted into the text box, which is the value itself.

setWorkerUrl(workerUrl)

const SOURCE = 'velo-geometry'

function webglAvailable(): boolean {
  try {
    const gl = document.createElement('canvas').getContext('webgl2')
    gl?.getExtension('WEBGL_lose_context')?.loseContext()
    return !!gl
  } catch {
    return false
  }
}

export function GeometryInput(props: InputProps) {
  const { t } = useTranslation()
  const { value, onChange, disabled, id } = controlProps<string>(props)
  const label = localized(props.field.label)
  const container = useRef<HTMLDivElement>(null)
  const mapRef = useRef<MapLibre | null>(null)
  const drawRef = useRef<TerraDraw | null>(null)
  const fileRef = useRef<HTMLInputElement>(null)
  const [mapReady, setMapReady] = useState(false)
  const [mapFailed, setMapFailed] = useState(() => !webglAvailable())
  const [importProblem, setImportProblem] = useState<string | null>(null)
  const change = useRef(onChange)
  change.current = onChange

  const parsed = typeof value === 'string' && value.trim() ? parseGeometry(value) : null
  const reasonText = (reason: GeometryReason) => t(`crud.geometry.${reason}`, { label, max: GEOMETRY_LIMITS.maxVertices, km: GEOMETRY_LIMITS.maxRadiusM / 1000 })

  useEffect(() => {
    if (mapFailed) return
    let cancelled = false
    let map: MapLibre | null = null
    void (async () => {
      const style = await geometryBaseMap().catch(() => undefined)
      if (cancelled || !container.current || !style) {
        if (!style) setMapFailed(true)
        return
      }
      map = new MapLibre({ container: container.current, style, center: [10, 50], zoom: 3, dragRotate: false, pitchWithRotate: false, touchPitch: false })
      mapRef.current = map
      map.on('error', () => {
        if (!map?.isStyleLoaded()) setMapFailed(true)
      })
      map.on('load', () => {
        const m = map!
        m.addSource(SOURCE, { type: 'geojson', data: { type: 'FeatureCollection', features: [] } })
        m.addLayer({ id: `${SOURCE}-fill`, type: 'fill', source: SOURCE, paint: { 'fill-color': '#1677ff', 'fill-opacity': 0.15 } })
        m.addLayer({ id: `${SOURCE}-line`, type: 'line', source: SOURCE, paint: { 'line-color': '#1677ff', 'line-width': 2 } })
        const draw = new TerraDraw({ adapter: new TerraDrawMapLibreGLAdapter({ map: m }), modes: [new TerraDrawPolygonMode(), new TerraDrawCircleMode()] })
        draw.start()
        // A finished shape becomes the value; the map then shows it from the value like any other.
        draw.on('finish', (featureId) => {
          const feature = draw.getSnapshotFeature(featureId)
          draw.clear()
          draw.setMode('static')
          if (!feature || feature.geometry.type !== 'Polygon') return
          const ring = feature.geometry.coordinates[0] as [number, number][]
          const radiusKm = feature.properties.radiusKilometers
          const geometry = feature.properties.mode === 'circle' && typeof radiusKm === 'number' ? drawnCircle(ring, radiusKm) : drawnPolygon(ring)
          setImportProblem(null)
          change.current?.(JSON.stringify(geometry))
        })
        drawRef.current = draw
        setMapReady(true)
      })
    })()
    return () => {
      cancelled = true
      drawRef.current?.stop()
      drawRef.current = null
      map?.remove()
      mapRef.current = null
      setMapReady(false)
    }
  }, [mapFailed])

  // The value on the map, framed.
  const shown = parsed?.ok ? JSON.stringify(parsed.geometry) : ''
  useEffect(() => {
    const map = mapRef.current
    if (!mapReady || !map) return
    const source = map.getSource(SOURCE) as GeoJSONSource | undefined
    if (!shown) {
      source?.setData({ type: 'FeatureCollection', features: [] })
      return
    }
    const ring = ringOf(JSON.parse(shown))
    source?.setData({ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } })
    const bounds = ring.reduce((b, p) => b.extend(p), new LngLatBounds(ring[0], ring[0]))
    map.fitBounds(bounds, { padding: 40, maxZoom: 16, duration: 0 })
  }, [mapReady, shown])

  const drawMode = (mode: 'polygon' | 'circle') => {
    drawRef.current?.clear()
    drawRef.current?.setMode(mode)
  }

  const importText = (text: string) => {
    const result = parseGeometry(text)
    if (!result.ok) {
      setImportProblem(reasonText(result.reason))
      return
    }
    setImportProblem(null)
    onChange?.(JSON.stringify(result.geometry))
  }

  const summary =
    parsed?.ok &&
    (parsed.geometry.type === 'Point'
      ? t('crud.geometrySummaryCircle', { radius: parsed.geometry.radius.toLocaleString() })
      : t('crud.geometrySummaryPolygon', { corners: parsed.geometry.coordinates[0].length - 1 }))

  return (
    <div className="crud-geometry" data-testid={`geometry-${props.field.name}`}>
      {!disabled && (
        <Space wrap style={{ marginBottom: 8 }}>
          {!mapFailed && (
            <>
              <Button size="small" disabled={!mapReady} onClick={() => drawMode('polygon')} data-testid="geometry-draw-polygon">
                {t('crud.geometryPolygon')}
              </Button>
              <Button size="small" disabled={!mapReady} onClick={() => drawMode('circle')} data-testid="geometry-draw-circle">
                {t('crud.geometryCircle')}
              </Button>
            </>
          )}
          <Button size="small" onClick={() => fileRef.current?.click()} data-testid="geometry-import">
            {t('crud.geometryImport')}
          </Button>
          <Button size="small" disabled={!value} onClick={() => onChange?.('')}>
            {t('crud.geometryClear')}
          </Button>
          <input
            ref={fileRef}
            type="file"
            accept=".geojson,.json,application/geo+json,application/json"
            style={{ display: 'none' }}
            data-testid="geometry-import-file"
            onChange={(e) => {
              const file = e.target.files?.[0]
              e.target.value = ''
              if (file) void file.text().then(importText)
            }}
          />
        </Space>
      )}
      {mapFailed ? (
        <Alert type="info" showIcon title={t('crud.geometryNoMap')} style={{ marginBottom: 8 }} />
      ) : (
        <>
          <div ref={container} style={{ height: 320, borderRadius: 6, overflow: 'hidden', border: '1px solid rgba(5, 5, 5, 0.06)' }} />
          {!disabled && <Typography.Text type="secondary">{t('crud.geometryHint')}</Typography.Text>}
        </>
      )}
      {summary && (
        <div data-testid="geometry-summary">
          <Typography.Text strong>{summary}</Typography.Text>
        </div>
      )}
      {importProblem && <Alert type="error" showIcon title={importProblem} style={{ margin: '8px 0' }} data-testid="geometry-import-problem" />}
      {/* Text typed or pasted that is no shape: which rule it breaks (the form's own message only says it is wrong). */}
      {!importProblem && parsed && !parsed.ok && <Alert type="warning" showIcon title={reasonText(parsed.reason)} style={{ margin: '8px 0' }} data-testid="geometry-problem" />}
      <Input.TextArea
        id={id}
        aria-label={t('crud.geometryText')}
        placeholder={t('crud.geometryText')}
        autoSize={{ minRows: 2, maxRows: 6 }}
        disabled={disabled}
        value={value ?? ''}
        onChange={(e) => {
          setImportProblem(null)
          onChange?.(e.target.value)
        }}
        style={{ marginTop: 8, fontFamily: 'monospace', fontSize: 12 }}
        data-testid="geometry-text"
      />
    </div>
  )
}
