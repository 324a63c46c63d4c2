import { lazy, Suspense, useState } from 'react'
import { Alert, Button, Empty, Segmented, Space, Spin, Statistic, Typography } from 'antd'
import { ReloadOutlined } from '@ant-design/icons'
import { useQuery } from '@tanstack/react-query'
import type { Trace } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { failureMessage } from '../../../api/errors'
import { http } from '../../../api/http'
import { webglAvailable } from '../map/mapData'
import { formatSeconds, presetRange, reachesPastRetention, TRACE_PRESETS, type TracePreset } from './traceData'
import './trace.css'

// MapLibre and the world map come in their own chunk, only where a trace is drawn.
const TraceMap = lazy(() => import('./TraceMap'))

/** What a trace is of: a device over a range, the bike's device over a range, or one ride over its own time. */
export type TraceTarget = { deviceId: number } | { bikeId: number } | { rideId: number }

const STAMP = 'YYYY-MM-DD HH:mm'

/**
 * A trace (POST /iot/trace): the range's positions on a map with time along the line, the stops and
 * the top speed, and the figures beside it. For who holds the device list's query right and "See
 * positions"; each load is in the operation log. A ride brings its own range: no presets then.
 */
export default function TracePanel({ target }: { target: TraceTarget }) {
  const { t } = useTranslation()
  const ride = 'rideId' in target
  const [preset, setPreset] = useState<TracePreset>('day')
  const [range, setRange] = useState(() => presetRange('day'))
  const [canDraw] = useState(webglAvailable)
  const [mapFailure, setMapFailure] = useState<string | null>(null)
  const choose = (p: TracePreset) => {
    setPreset(p)
    setRange(presetRange(p))
  }
  const body = ride ? target : { ...target, ...range }
  const trace = useQuery({
    queryKey: ['iot', 'trace', body],
    queryFn: () => http.post<Trace>('/iot/trace', body, { silent: true }),
    staleTime: Infinity,
    retry: false,
  })
  const data = trace.data
  const top = data?.summary.topSpeed

  return (
    <div className="trace-panel" data-testid="trace-panel">
      {!ride && (
        <Space wrap className="trace-toolbar">
          <Segmented<TracePreset>
            value={preset}
            onChange={choose}
            options={TRACE_PRESETS.map((p) => ({ value: p, label: t(`iot.trace.preset.${p}`) }))}
            data-testid="trace-presets"
          />
          <Button icon={<ReloadOutlined />} onClick={() => setRange(presetRange(preset))} data-testid="trace-reload">
            {t('iot.trace.reload')}
          </Button>
        </Space>
      )}
      {data && (
        <Typography.Text type="secondary" className="trace-range">
          {t('iot.trace.range', { from: dayjs(data.from).format(STAMP), to: dayjs(data.to).format(STAMP) })} · {t('iot.trace.logged')}
        </Typography.Text>
      )}
      {trace.isPending ? (
        <Spin className="trace-loading" />
      ) : trace.isError ? (
        <Alert type="error" showIcon title={t('iot.trace.loadFailed')} description={failureMessage(trace.error)} data-testid="trace-error" />
      ) : data ? (
        <>
          <div className="trace-figures" data-testid="trace-summary">
            <Statistic title={t('iot.trace.distance')} value={t('iot.trace.km', { value: data.summary.distanceKm.toFixed(2) })} data-testid="trace-distance" />
            <Statistic title={t('iot.trace.duration')} value={formatSeconds(data.summary.durationSeconds)} data-testid="trace-duration" />
            <Statistic
              title={t('iot.trace.topSpeed')}
              value={top ? t('iot.trace.kmh', { value: top.speed }) : '–'}
              suffix={top ? <Typography.Text type="secondary">{t('iot.trace.topSpeedAt', { time: dayjs(top.time).format('HH:mm:ss') })}</Typography.Text> : null}
              data-testid="trace-top-speed"
            />
            <Statistic title={t('iot.trace.stops')} value={data.summary.stops.length} data-testid="trace-stops" />
          </div>
          {reachesPastRetention(data) && <Alert type="info" showIcon title={t('iot.trace.retention', { date: dayjs(data.retainedFrom).format(STAMP) })} data-testid="trace-retention" />}
          {data.positionCount > data.times.length && <Typography.Text type="secondary">{t('iot.trace.thinned', { shown: data.times.length, count: data.positionCount })}</Typography.Text>}
          {data.positionCount === 0 ? (
            <Empty description={t('iot.trace.none')} data-testid="trace-empty" />
          ) : !canDraw ? (
            <Alert type="warning" showIcon title={t('iot.trace.noWebgl')} />
          ) : mapFailure ? (
            <Alert type="warning" showIcon title={t('iot.trace.failed', { reason: mapFailure })} />
          ) : (
            <div className="trace-map-frame">
              <Suspense fallback={<Spin className="trace-loading" />}>
                <TraceMap trace={data} styleUrl={data.styleUrl} onFailed={setMapFailure} />
              </Suspense>
            </div>
          )}
          {data.summary.stops.length > 0 && (
            <ul className="trace-stop-list" data-testid="trace-stop-list">
              {data.summary.stops.map((s) => (
                <li key={s.from}>{t('iot.trace.stopLine', { from: dayjs(s.from).format('HH:mm:ss'), to: dayjs(s.to).format('HH:mm:ss'), duration: formatSeconds(s.seconds) })}</li>
              ))}
            </ul>
          )}
        </>
      ) : null}
    </div>
  )
}
