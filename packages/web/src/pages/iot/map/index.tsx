import { lazy, Suspense, useEffect, useMemo, useState } from 'react'
import { Alert, Button, Input, Result, Select, Space, Spin, Tag, Typography } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { iotEntities, personalDataRight } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router'
import { failureMessage } from '../../../api/errors'
import { eventData, useEventStream } from '../../../api/eventStream'
import { http } from '../../../api/http'
import { localized } from '../../../i18n'
import { useFeedback } from '../../../lib/feedback'
import { useAccess } from '../../../session/Access'
import { LiveIndicator } from '../LiveIndicator'
import { applyUpdate, countByStatus, EMPTY, filtersFromUrl, filtersToQuery, listed, type MapDevices, type MapFilters, STATUS_COLOURS, STATUS_NAMES, webglAvailable } from './mapData'
import '../iot.css'
import './map.css'

// MapLibre and the shipped world map come in their own chunk, only where a map is drawn.
const loadFleetMap = () => import('./FleetMap')
const FleetMap = lazy(loadFleetMap)
// The drawer (its tabs, charts and actions) only once a device is opened: the map comes first.
const DeviceDrawer = lazy(() => import('../device/DeviceDrawer').then((m) => ({ default: m.DeviceDrawer })))

interface MapSetup {
  positions: boolean
  styleUrl?: string
  models: { value: number; label: string }[]
  countries: { value: number; label: string }[]
  firmwareVersions: string[]
}

const stateField = iotEntities.iotDevice.fieldMap.get('state') as { options: readonly { value: string; label: { en_US: string; zh_CN: string } }[] }
const STATES = stateField.options.map((o) => o.value)
/** How many devices the list beside the map shows: enough to find one, not 12,000 rows. */
const LIST_LIMIT = 100

const devicesKey = (filters: MapFilters) => ['iot', 'map', 'devices', filtersToQuery(filters)] as const

/**
 * IoT › Map: every device's last position on a map, clustered and coloured by state (online,
 * offline, a warning), following the devices live (GET /iot/map/stream). The IoT list's filters live
 * in the URL (?modelId=…&state=online,activated&firmwareVersion=…&countryId=…). A device opens its
 * drawer. Positions are the riders' personal data: without the right to see them the page says so.
 * A browser without WebGL gets the same devices as a list, live too.
 */
export default function FleetMapPage() {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const queryClient = useQueryClient()
  const [search, setSearch] = useSearchParams()
  const filters = useMemo(() => filtersFromUrl(search, STATES), [search])
  const query = filtersToQuery(filters)
  const mayQuery = useAccess({ permissions: ['iot:device:query'] })
  // Whether the session's rights let the caller see positions: the devices and the base map are asked
  // at once, beside the setup, rather than one round trip after it. The setup's answer (the server's
  // word) decides from then on.
  const mayLocate = useAccess({ permissions: [personalDataRight('location')] })
  const [shownId, setShownId] = useState<number | null>(null)
  const [needle, setNeedle] = useState('')
  const [canDraw] = useState(webglAvailable)
  const [mapFailure, setMapFailure] = useState<string | null>(null)

  // The map's chunk downloads while the setup is asked (a first visit's longest wait), not after it.
  useEffect(() => {
    if (canDraw) void loadFleetMap().catch(() => undefined)
  }, [canDraw])
  const setup = useQuery({ queryKey: ['iot', 'map', 'setup'], queryFn: () => http.get<MapSetup>('/iot/map/setup'), staleTime: 60_000 })
  const positions = setup.data ? setup.data.positions : mayLocate
  // The shipped base map is read and converted while the map's chunk and the devices arrive.
  const shippedBaseMap = canDraw && positions && !setup.data?.styleUrl
  useEffect(() => {
    if (shippedBaseMap) void import('./worldStyle').then((m) => m.worldStyle()).catch(() => undefined)
  }, [shippedBaseMap])
  const devices = useQuery({
    queryKey: devicesKey(filters),
    queryFn: () => http.get<MapDevices>('/iot/map/devices', query, { silent: true }),
    enabled: positions,
    staleTime: Infinity,
  })
  const live = useEventStream('/iot/map/stream', {
    params: query,
    enabled: positions,
    onEvent: (event) => {
      if (event.event !== 'positions' && event.event !== 'gone') return
      const data = eventData<MapDevices | number[]>(event)
      if (!data) return
      queryClient.setQueryData<MapDevices>(devicesKey(filters), (current) =>
        current ? (Array.isArray(data) ? applyUpdate(current, null, data) : applyUpdate(current, data)) : current,
      )
    },
    // Back after a drop: what moved meanwhile is loaded once.
    onOpen: (again) => {
      if (again) void queryClient.invalidateQueries({ queryKey: devicesKey(filters) })
    },
  })

  const setFilters = (next: Partial<MapFilters>) => setSearch(new URLSearchParams(filtersToQuery({ ...filters, ...next })), { replace: true })
  const shown = devices.data ?? EMPTY
  const counts = countByStatus(shown)
  const rows = useMemo(() => listed(shown, needle, LIST_LIMIT), [shown, needle])
  // Cut at the limit: the map shows them all, the list only what a person reads.
  const cut = rows.length >= LIST_LIMIT && counts.total > LIST_LIMIT
  const openDevice = (id: number) => {
    if (mayQuery) setShownId(id)
    else void message.info(t('iot.map.noDetails'))
  }

  if (setup.isPending) return <Spin className="iot-map-loading" />
  if (setup.isError) return <Alert type="error" showIcon className="iot-page" title={t('iot.map.loadFailed')} description={failureMessage(setup.error)} />
  if (!positions) {
    return (
      <div data-testid="map-no-positions">
        <Result status="403" title={t('iot.map.noPositions')} subTitle={t('iot.map.noPositionsDetail')} />
      </div>
    )
  }
  const { models, countries, firmwareVersions, styleUrl } = setup.data

  return (
    <div className="iot-page iot-map-page" data-testid="iot-map-page">
      <Space wrap className="iot-map-filters">
        <span data-testid="map-filter-model">
          <Select
            allowClear
            showSearch={{ optionFilterProp: 'label' }}
            className="iot-map-filter"
            placeholder={t('iot.map.model')}
            options={models}
            value={filters.modelId}
            onChange={(modelId?: number) => setFilters({ modelId })}
          />
        </span>
        <span data-testid="map-filter-country">
          <Select
            allowClear
            showSearch={{ optionFilterProp: 'label' }}
            className="iot-map-filter"
            placeholder={t('iot.map.country')}
            options={countries}
            value={filters.countryId}
            onChange={(countryId?: number) => setFilters({ countryId })}
          />
        </span>
        <span data-testid="map-filter-state">
          <Select
            mode="multiple"
            allowClear
            className="iot-map-filter iot-map-filter-wide"
            placeholder={t('iot.map.state')}
            options={stateField.options.map((o) => ({ value: o.value, label: localized(o.label) }))}
            value={filters.state}
            onChange={(state: string[]) => setFilters({ state })}
          />
        </span>
        <span data-testid="map-filter-firmware">
          <Select
            allowClear
            showSearch
            className="iot-map-filter"
            placeholder={t('iot.map.firmware')}
            options={firmwareVersions.map((v) => ({ value: v, label: v }))}
            value={filters.firmwareVersion}
            onChange={(firmwareVersion?: string) => setFilters({ firmwareVersion })}
          />
        </span>
        <Button onClick={() => setSearch(new URLSearchParams(), { replace: true })} data-testid="map-filter-reset">
          {t('iot.map.reset')}
        </Button>
        <LiveIndicator state={live} />
      </Space>

      <div className="iot-map-summary" role="status" data-testid="map-summary" data-count={counts.total}>
        <Typography.Text strong data-testid="map-shown">
          {t('iot.map.shown', { count: counts.total })}
        </Typography.Text>
        <Typography.Text type="secondary">{t('iot.map.byStatus', { online: counts.online, offline: counts.offline, alarm: counts.alarm })}</Typography.Text>
        {counts.stolen > 0 && (
          <Typography.Text type="danger" data-testid="map-stolen-count">
            {t('iot.map.stolenCount', { count: counts.stolen })}
          </Typography.Text>
        )}
        {shown.unlocated > 0 && <Typography.Text type="secondary">{t('iot.map.unlocated', { count: shown.unlocated })}</Typography.Text>}
        <span className="iot-map-legend" aria-label={t('iot.map.legend')}>
          {STATUS_NAMES.map((s) => (
            <span key={s} className="iot-map-legend-item">
              <span className="iot-map-dot" style={{ background: STATUS_COLOURS[s] }} />
              {t(`iot.map.status.${s}`)}
            </span>
          ))}
        </span>
      </div>

      {devices.isError && <Alert type="error" showIcon title={t('iot.map.loadFailed')} description={failureMessage(devices.error)} data-testid="map-error" />}
      {!canDraw && <Alert type="warning" showIcon title={t('iot.map.noWebgl')} description={t('iot.map.noWebglDetail')} data-testid="map-no-webgl" />}
      {mapFailure && <Alert type="warning" showIcon title={t('iot.map.failed', { reason: mapFailure })} description={t('iot.map.noWebglDetail')} data-testid="map-failed" />}

      <div className="iot-map-body">
        {canDraw && !mapFailure && (
          <div className="iot-map-frame">
            <Suspense fallback={<Spin className="iot-map-loading" />}>
              <FleetMap devices={devices.data} styleUrl={styleUrl} onOpen={openDevice} onFailed={setMapFailure} />
            </Suspense>
          </div>
        )}
        <div className="iot-map-list" data-testid="map-device-list">
          <Input.Search allowClear placeholder={t('iot.map.findSn')} value={needle} onChange={(e) => setNeedle(e.target.value)} data-testid="map-find-sn" />
          {devices.isPending ? (
            <Spin />
          ) : rows.length === 0 ? (
            <Typography.Text type="secondary">{t('iot.map.noneListed')}</Typography.Text>
          ) : (
            <ul className="iot-map-rows">
              {rows.map((r) => (
                <li key={r.id} data-testid={`map-device-${r.sn}`} data-status={r.status} data-lat={r.lat} data-lng={r.lng}>
                  <Typography.Link onClick={() => openDevice(r.id)}>{r.sn}</Typography.Link>
                  <Tag color={STATUS_COLOURS[r.status]}>{t(`iot.map.status.${r.status}`)}</Tag>
                  <Typography.Text type="secondary" className="iot-map-position">
                    {t('iot.map.position', { lat: r.lat.toFixed(5), lng: r.lng.toFixed(5) })}
                  </Typography.Text>
                </li>
              ))}
            </ul>
          )}
          {cut && <Typography.Text type="secondary">{t('iot.map.listLimited', { count: LIST_LIMIT })}</Typography.Text>}
        </div>
      </div>
      {shownId !== null && (
        <Suspense fallback={null}>
          <DeviceDrawer deviceId={shownId} onClose={() => setShownId(null)} />
        </Suspense>
      )}
    </div>
  )
}
