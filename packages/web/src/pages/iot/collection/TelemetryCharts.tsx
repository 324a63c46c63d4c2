import { useMemo } from 'react'
import { Col, Empty, Row, Typography } from 'antd'
import type { TelemetrySeries, TelemetrySeriesPoint } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { EChart, type SmallChartOption } from '../../../crud/details/EChart'

/** One slot per bucket of the range, in order: null where the device sent nothing, so the lines break there. */
export function bucketSlots(series: TelemetrySeries): { time: string; point: TelemetrySeriesPoint | null }[] {
  const step = series.bucketSeconds * 1000
  const start = Date.parse(series.from)
  const count = Math.ceil((Date.parse(series.to) - start) / step)
  const byTime = new Map(series.points.map((p) => [Date.parse(p.time), p]))
  return Array.from({ length: count }, (_, i) => {
    const at = start + i * step
    return { time: new Date(at).toISOString(), point: byTime.get(at) ?? null }
  })
}

type Metric = (p: TelemetrySeriesPoint) => number | null

type Axis = { min?: number; max?: number; minInterval?: number }

function chartOption(times: string[], slots: ReturnType<typeof bucketSlots>, lines: { name: string; value: Metric; type?: 'line' | 'bar' }[], axis: Axis = {}): SmallChartOption {
  return {
    grid: { left: 8, right: 8, top: 8, bottom: 4, containLabel: true },
    tooltip: { trigger: 'axis' },
    xAxis: { type: 'category', data: times },
    yAxis: { type: 'value', scale: true, ...axis },
    // Every bucket's dot is drawn: a lone report between gaps would otherwise be a line of no length.
    series: lines.map((l) =>
      l.type === 'bar'
        ? { type: 'bar', name: l.name, barMaxWidth: 12, data: slots.map((s) => (s.point ? l.value(s.point) : 0)) }
        : { type: 'line', name: l.name, showAllSymbol: true, symbolSize: 4, clip: false, connectNulls: false, data: slots.map((s) => (s.point ? l.value(s.point) : null)) },
    ),
  }
}

/** The device's telemetry per bucket: battery, speed (average and top), positions and signal, one small chart each. */
export function TelemetryCharts({ series }: { series: TelemetrySeries }) {
  const { t } = useTranslation()
  const charts = useMemo(() => {
    const slots = bucketSlots(series)
    const sameDay = dayjs(series.from).isSame(dayjs(series.to).subtract(1, 'millisecond'), 'day')
    const times = slots.map((s) => dayjs(s.time).format(sameDay ? 'HH:mm' : 'MM-DD HH:mm'))
    return [
      { key: 'battery', title: t('iot.telemetry.battery'), option: chartOption(times, slots, [{ name: t('iot.telemetry.battery'), value: (p) => p.battery }], { min: 0, max: 100 }) },
      {
        key: 'speed',
        title: t('iot.telemetry.speed'),
        option: chartOption(times, slots, [
          { name: t('iot.telemetry.averageSpeed'), value: (p) => p.speed },
          { name: t('iot.telemetry.maxSpeed'), value: (p) => p.maxSpeed },
        ]),
      },
      { key: 'positions', title: t('iot.telemetry.positions'), option: chartOption(times, slots, [{ name: t('iot.telemetry.positions'), value: (p) => p.positions, type: 'bar' }], { minInterval: 1 }) },
      { key: 'signal', title: t('iot.telemetry.signal'), option: chartOption(times, slots, [{ name: t('iot.telemetry.signal'), value: (p) => p.signal }]) },
    ]
  }, [series, t])
  if (!series.points.length) return <Empty description={t('iot.telemetry.noData')} data-testid="telemetry-no-data" />
  return (
    <>
      <Typography.Text type="secondary">{t('iot.telemetry.bucket', { minutes: series.bucketSeconds / 60 })}</Typography.Text>
      <Row gutter={[16, 16]} data-testid="telemetry-charts">
        {charts.map((c) => (
          <Col key={c.key} xs={24} xl={12}>
            <Typography.Text strong>{c.title}</Typography.Text>
            <EChart option={c.option} testId={`telemetry-chart-${c.key}`} />
          </Col>
        ))}
      </Row>
    </>
  )
}
