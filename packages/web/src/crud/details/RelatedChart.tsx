import { useMemo } from 'react'
import { Spin, Typography } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { chartRange, periodsBetween, type ResolvedRelatedList, type SummaryBucket, type SummaryPoint } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { http } from '../../api/http'
import { localized } from '../../i18n'
import { crudKeys, type Filters } from '../api/crudApi'
import { EChart, type SmallChartOption } from './EChart'

/** POST {path}/summary's body: the list's filters, and what to add up per which period. */
export interface SummaryBody extends Filters {
  time: string
  value?: string
  bucket: SummaryBucket
  from: string
  to: string
}

/** The entity's rows per period (docs/entity-engine.md › Related lists), cached under the entity's keys so its changes refresh it. */
export function useSummary(list: ResolvedRelatedList, body: SummaryBody) {
  const e = list.entity
  return useQuery({ queryKey: [...crudKeys.all(e), 'summary', body], queryFn: () => http.post<SummaryPoint[]>(`${e.path}/summary`, body) })
}

/** A period's name on the axis: its first day without the year, or the month. */
const axisLabel = (by: SummaryBucket, day: string) => (by === 'month' ? day.slice(0, 7) : day.slice(5))

/**
 * The related rows of the last weeks added up per period ("Distance per week"), every period of the
 * range shown, those without rows as 0.
 */
export function RelatedChart({ list, id }: { list: ResolvedRelatedList; id: unknown }) {
  const { t } = useTranslation()
  const chart = list.chart!
  const body = useMemo<SummaryBody>(() => {
    const range = chartRange(chart)
    return { [list.by]: id, time: chart.time, ...(chart.value ? { value: chart.value } : {}), bucket: chart.by, ...range }
  }, [chart, list.by, id])
  const summary = useSummary(list, body)
  const valueField = chart.value ? list.entity.fieldMap.get(chart.value) : undefined
  const what = valueField ? localized(valueField.label) : localized(list.label)
  const title = t(`crud.relatedPer.${chart.by}`, { value: what })
  const option = useMemo<SmallChartOption>(() => {
    const byPeriod = new Map((summary.data ?? []).map((p) => [p.bucket, chart.value ? p.value : p.count]))
    const periods = periodsBetween(chart.by, body.from, body.to)
    return {
      grid: { left: 8, right: 8, top: 8, bottom: 4, containLabel: true },
      tooltip: { trigger: 'axis' },
      xAxis: { type: 'category', data: periods.map((p) => axisLabel(chart.by, p)) },
      // Counts and whole numbers get no fractional ticks.
      yAxis: { type: 'value', ...(!valueField || (valueField.kind === 'number' && valueField.int) ? { minInterval: 1 } : {}) },
      series: [{ type: chart.type, name: what, data: periods.map((p) => byPeriod.get(p) ?? 0), ...(chart.type === 'line' ? { smooth: true } : { barMaxWidth: 24 }) }],
    }
  }, [summary.data, chart, body, valueField, what])
  return (
    <section className="crud-related-chart" data-testid={`related-chart-${list.key}`}>
      <Typography.Text type="secondary">{title}</Typography.Text>
      <Spin spinning={summary.isFetching}>
        <EChart option={option} testId="related-chart-canvas" />
      </Spin>
    </section>
  )
}
