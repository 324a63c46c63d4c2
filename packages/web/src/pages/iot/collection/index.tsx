import { useMemo, useState } from 'react'
import { Alert, Button, Card, DatePicker, Empty, Form, Spin } from 'antd'
import { ReloadOutlined } from '@ant-design/icons'
import { useQuery } from '@tanstack/react-query'
import { iotTelemetryEntities, type TelemetrySeries } from '@velo/shared'
import dayjs, { type Dayjs } from 'dayjs'
import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router'
import { failureMessage } from '../../../api/errors'
import { http } from '../../../api/http'
import { crudKeys } from '../../../crud/api/crudApi'
import { EntityListPage } from '../../../crud/EntityListPage'
import { ReferenceSearch } from '../../../crud/kinds/inputs'
import { TelemetryCharts } from './TelemetryCharts'
import '../iot.css'

const entity = iotTelemetryEntities.iotTelemetry
const deviceField = entity.fieldMap.get('deviceId')!

/**
 * The next whole minute: a range ending there holds what arrived this minute, and stays the same
 * (with its queries) while the page is open.
 */
const minuteNow = () => dayjs().add(1, 'minute').startOf('minute')

/**
 * IoT › collections: one device's telemetry history. The device and the range live in the URL
 * (`?device=12&from=…&to=…`, default the last 24 hours), so a view can be shared and survives a
 * reload; the charts come from POST /iot/collection/series and the raw points from the entity's list,
 * fixed to the same device and range (the server reads one device at a time).
 */
export default function TelemetryPage() {
  const { t } = useTranslation()
  const [search, setSearch] = useSearchParams()
  const [opened] = useState(minuteNow)
  const deviceId = Number(search.get('device')) || undefined
  const from = dayjs(search.get('from') ?? opened.subtract(1, 'day').toISOString())
  const to = dayjs(search.get('to') ?? opened.toISOString())
  const range = { from: from.toISOString(), to: to.toISOString() }

  const update = (next: { device?: number | null; range?: [Dayjs, Dayjs] }) => {
    const params = new URLSearchParams(search)
    if (next.device !== undefined) {
      if (next.device) params.set('device', String(next.device))
      else params.delete('device')
    }
    // The range goes into the URL with the first choice, so a shared link shows the same window.
    const [start, end] = next.range ?? [from, to]
    params.set('from', start.toISOString())
    params.set('to', end.toISOString())
    setSearch(params, { replace: true })
  }

  const last = (days: number): [Dayjs, Dayjs] => {
    const now = minuteNow()
    return [now.subtract(days, 'day'), now]
  }

  const body = useMemo(() => (deviceId ? { deviceId, from: range.from, to: range.to } : null), [deviceId, range.from, range.to])
  const series = useQuery({
    queryKey: [...crudKeys.all(entity), 'series', body],
    queryFn: () => http.post<TelemetrySeries>(`${entity.path}/series`, body),
    enabled: !!body,
  })

  return (
    <div className="telemetry-page" data-testid="telemetry-page">
      <Card size="small" style={{ marginBottom: 16 }}>
        <Form layout="inline">
          <Form.Item label={t('iot.telemetry.device')}>
            <span data-testid="telemetry-device" style={{ display: 'inline-block', minWidth: 240 }}>
              <ReferenceSearch entity={entity} field={deviceField} value={deviceId} onChange={(v) => update({ device: (v as number | undefined) ?? null })} placeholder={t('iot.telemetry.devicePlaceholder')} />
            </span>
          </Form.Item>
          <Form.Item label={t('iot.telemetry.range')}>
            <DatePicker.RangePicker
              showTime={{ format: 'HH:mm' }}
              format="YYYY-MM-DD HH:mm"
              allowClear={false}
              value={[from, to]}
              disabledDate={(d) => d.isAfter(dayjs().endOf('day'))}
              presets={[
                { label: t('iot.telemetry.last24h'), value: last(1) },
                { label: t('iot.telemetry.last7d'), value: last(7) },
                { label: t('iot.telemetry.last30d'), value: last(30) },
              ]}
              onChange={(v) => {
                if (v?.[0] && v[1]) update({ range: [v[0], v[1]] })
              }}
              data-testid="telemetry-range"
            />
          </Form.Item>
          <Form.Item>
            <Button icon={<ReloadOutlined />} disabled={!body} onClick={() => void series.refetch()} data-testid="telemetry-refresh" />
          </Form.Item>
        </Form>
      </Card>
      {!deviceId ? (
        <Card>
          <Empty description={t('iot.telemetry.chooseDevice')} data-testid="telemetry-choose-device" />
        </Card>
      ) : (
        <>
          <Card size="small" style={{ marginBottom: 16 }}>
            {series.isError ? (
              <Alert type="error" showIcon message={t('iot.telemetry.loadFailed')} description={failureMessage(series.error)} data-testid="telemetry-error" />
            ) : (
              <Spin spinning={series.isFetching}>{series.data ? <TelemetryCharts series={series.data} /> : <div style={{ minHeight: 180 }} />}</Spin>
            )}
          </Card>
          <EntityListPage entity={entity} params={{ deviceId, receivedAt: [range.from, range.to] }} search={{ hide: ['deviceId', 'receivedAt'] }} />
        </>
      )}
    </div>
  )
}
