import type { ComposeOption } from 'echarts/core'
import type { BarSeriesOption, HeatmapSeriesOption, LineSeriesOption, PieSeriesOption } from 'echarts/charts'
import type {
  GridComponentOption,
  LegendComponentOption,
  MarkLineComponentOption,
  TooltipComponentOption,
  VisualMapComponentOption,
} from 'echarts/components'
import type { ColumnUnit, FigureColumn, FigureData, FigureDef, FigureValue } from '@velo/shared'
import { localized } from '../i18n'
import { formatTick, formatValue } from './format'

// A figure's rows → an echarts option, by the figure's kind (conventions in shared
// dashboards/types.ts). Pure, so the mapping is tested without a canvas.

export type DashChartOption = ComposeOption<
  | BarSeriesOption
  | LineSeriesOption
  | PieSeriesOption
  | HeatmapSeriesOption
  | GridComponentOption
  | TooltipComponentOption
  | LegendComponentOption
  | VisualMapComponentOption
  | MarkLineComponentOption
>

/** The console theme's colours a chart needs (antd tokens), so charts follow light and dark. */
export interface ChartColors {
  text: string
  secondary: string
  split: string
  tooltip: string
  /** The heat map's scale, low to high. */
  scale: [string, string]
}

/** A column the caller may see, with where its values are in each row. */
export interface ShownColumn {
  column: FigureColumn
  index: number
}

/** The columns of a figure the caller may see: a column needing a right the user lacks is left out. */
export const shownColumns = (figure: FigureDef, may: (permission: string) => boolean): ShownColumn[] =>
  figure.columns.flatMap((column, index) => (!column.permission || may(column.permission) ? [{ column, index }] : []))

const num = (v: FigureValue | undefined): number | null => (v === null || v === undefined || v === '' ? null : Number(v))

/** Tooltip lines "● name: value" in the value's unit (series differ in unit: a share beside counts). */
function axisTooltip(units: ReadonlyMap<string, ColumnUnit>) {
  return (params: unknown): string => {
    const list = (Array.isArray(params) ? params : [params]) as { axisValueLabel?: string; name?: string; seriesName?: string; marker?: string; value?: unknown }[]
    const head = list[0]?.axisValueLabel ?? list[0]?.name ?? ''
    const lines = list.map((p) => `${p.marker ?? ''}${escapeHtml(p.seriesName ?? '')}: ${escapeHtml(formatValue(p.value as FigureValue, units.get(p.seriesName ?? '') ?? 'count'))}`)
    return [escapeHtml(String(head)), ...lines].join('<br/>')
  }
}

/** Tooltips are HTML; names come from data (tags, models), so they are escaped. */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const axisStyle = (colors: ChartColors) => ({
  axisLine: { lineStyle: { color: colors.split } },
  axisLabel: { color: colors.secondary },
  splitLine: { lineStyle: { color: colors.split } },
})

const legend = (colors: ChartColors): LegendComponentOption => ({ type: 'scroll', top: 0, textStyle: { color: colors.text }, pageTextStyle: { color: colors.secondary } })
const tooltipBase = (colors: ChartColors): TooltipComponentOption => ({ backgroundColor: colors.tooltip, borderColor: colors.split, textStyle: { color: colors.text } })

/** Line and bar: x = the first column, one series per other column; `secondAxis` columns on the right. */
function cartesian(figure: FigureDef, data: FigureData, shown: ShownColumn[], colors: ChartColors): DashChartOption {
  const [x, ...measures] = shown
  const type = figure.kind === 'bar' ? 'bar' : 'line'
  const categories = data.rows.map((r) => String(r[x?.index ?? 0] ?? ''))
  const left = measures.filter((m) => !m.column.secondAxis)
  const right = measures.filter((m) => m.column.secondAxis)
  const unitOf = (side: ShownColumn[]): ColumnUnit => side[0]?.column.unit ?? 'count'
  const yAxis = (side: ShownColumn[], position: 'left' | 'right') => {
    const unit = unitOf(side)
    return {
      type: 'value' as const,
      position,
      ...axisStyle(colors),
      ...(unit === 'percent' ? { min: 0, max: 100 } : {}),
      ...(unit === 'count' ? { minInterval: 1 } : {}),
      // The right axis draws no grid lines of its own: two sets would not line up.
      ...(position === 'right' ? { splitLine: { show: false } } : {}),
      axisLabel: { color: colors.secondary, formatter: (v: number) => formatTick(v, unit) },
    }
  }
  const axes = [yAxis(left.length ? left : right, 'left'), ...(left.length && right.length ? [yAxis(right, 'right')] : [])]
  const units = new Map(measures.map((m) => [localized(m.column.label), m.column.unit]))
  // Release marks stand on days the axis shows; one outside the range is not drawn.
  const marks = (data.marks ?? []).filter((m) => categories.includes(m.at))
  const series = measures.map((m, i): BarSeriesOption | LineSeriesOption => {
    const common = {
      name: localized(m.column.label),
      data: data.rows.map((r) => num(r[m.index])),
      yAxisIndex: m.column.secondAxis && left.length ? 1 : 0,
      ...(i === 0 && marks.length
        ? {
            markLine: {
              symbol: 'none',
              silent: true,
              lineStyle: { color: colors.secondary, type: 'dashed' as const },
              // Written along the line: two releases days apart (iOS and Android) do not overprint.
              label: { color: colors.secondary, formatter: '{b}', position: 'insideEndTop' as const },
              data: marks.map((mark) => ({ xAxis: mark.at, name: mark.label })),
            },
          }
        : {}),
    }
    // A share beside bars reads as a line over them.
    if (type === 'bar' && !m.column.secondAxis) return { ...common, type: 'bar', barMaxWidth: 32 }
    // Straight segments: a smoothed curve would dip below a day's real value between points.
    return { ...common, type: 'line', showSymbol: data.rows.length <= 31, connectNulls: false }
  })
  return {
    grid: { left: 8, right: 8, top: 36, bottom: 4, containLabel: true },
    legend: legend(colors),
    tooltip: { ...tooltipBase(colors), trigger: 'axis', formatter: axisTooltip(units) },
    xAxis: { type: 'category', data: categories, ...axisStyle(colors), splitLine: { show: false } },
    yAxis: axes,
    series,
  }
}

/** Long rows (x, series, value) → one stacked bar per x, one colour per distinct series value. */
function stacked(data: FigureData, shown: ShownColumn[], colors: ChartColors): DashChartOption {
  const [x, name, value] = shown
  if (!x || !name || !value) return {}
  const categories = [...new Set(data.rows.map((r) => String(r[x.index] ?? '')))]
  const names = [...new Set(data.rows.map((r) => String(r[name.index] ?? '')))]
  const cell = new Map<string, number>()
  for (const r of data.rows) {
    const key = `${String(r[x.index] ?? '')}\u0000${String(r[name.index] ?? '')}`
    cell.set(key, (cell.get(key) ?? 0) + (num(r[value.index]) ?? 0))
  }
  const units = new Map(names.map((n) => [n, value.column.unit]))
  return {
    grid: { left: 8, right: 8, top: 36, bottom: 4, containLabel: true },
    legend: legend(colors),
    tooltip: { ...tooltipBase(colors), trigger: 'axis', axisPointer: { type: 'shadow' }, formatter: axisTooltip(units) },
    xAxis: { type: 'category', data: categories, ...axisStyle(colors), splitLine: { show: false } },
    yAxis: { type: 'value', minInterval: 1, ...axisStyle(colors), axisLabel: { color: colors.secondary, formatter: (v: number) => formatTick(v, value.column.unit) } },
    series: names.map((n) => ({ type: 'bar', name: n, stack: 'total', barMaxWidth: 48, data: categories.map((c) => cell.get(`${c}\u0000${n}`) ?? null) })),
  }
}

function pie(data: FigureData, shown: ShownColumn[], colors: ChartColors): DashChartOption {
  const [name, value] = shown
  if (!name || !value) return {}
  return {
    legend: legend(colors),
    tooltip: {
      ...tooltipBase(colors),
      trigger: 'item',
      formatter: (p: unknown) => {
        const item = p as { name: string; value: FigureValue; percent: number; marker: string }
        return `${item.marker}${escapeHtml(item.name)}: ${escapeHtml(formatValue(item.value, value.column.unit))} (${formatValue(item.percent, 'percent')})`
      },
    },
    series: [
      {
        type: 'pie',
        name: localized(value.column.label),
        radius: ['40%', '68%'],
        center: ['50%', '58%'],
        label: { color: colors.text },
        data: data.rows.map((r) => ({ name: String(r[name.index] ?? ''), value: num(r[value.index]) ?? 0 })),
      },
    ],
  }
}

/** Retention: a row per cohort (y), a cell per column from `heatmapFrom` (x), coloured 0–100 %. */
function heatmap(figure: FigureDef, data: FigureData, shown: ShownColumn[], colors: ChartColors): DashChartOption {
  const y = shown[0]
  if (!y) return {}
  const cells = shown.filter((s) => s.index >= (figure.heatmapFrom ?? 1))
  const cohorts = data.rows.map((r) => String(r[y.index] ?? ''))
  const points: [number, number, number][] = []
  data.rows.forEach((r, yi) =>
    cells.forEach((c, xi) => {
      const v = num(r[c.index])
      // A day not reached yet (D30 of last week) has no value and no cell.
      if (v !== null) points.push([xi, yi, v])
    }),
  )
  const unit = cells[0]?.column.unit ?? 'percent'
  return {
    // Room below the axis for the colour scale.
    grid: { left: 8, right: 8, top: 8, bottom: 80, containLabel: true },
    tooltip: {
      ...tooltipBase(colors),
      trigger: 'item',
      formatter: (p: unknown) => {
        const [xi, yi, v] = (p as { value: [number, number, number] }).value
        return `${escapeHtml(cohorts[yi] ?? '')}<br/>${escapeHtml(localized(cells[xi]!.column.label))}: ${escapeHtml(formatValue(v, unit))}`
      },
    },
    xAxis: { type: 'category', data: cells.map((c) => localized(c.column.label)), ...axisStyle(colors), splitArea: { show: false } },
    // The earliest cohort on top, as a cohort table reads.
    yAxis: { type: 'category', data: cohorts, inverse: true, ...axisStyle(colors) },
    visualMap: {
      type: 'continuous',
      min: 0,
      max: 100,
      calculable: true,
      orient: 'horizontal',
      left: 'center',
      bottom: 4,
      itemHeight: 160,
      inRange: { color: colors.scale },
      textStyle: { color: colors.secondary },
      formatter: (v: unknown) => formatTick(Number(v), 'percent'),
    },
    series: [
      {
        type: 'heatmap',
        data: points,
        label: { show: true, formatter: (p: unknown) => formatValue((p as { value: [number, number, number] }).value[2], unit) },
      },
    ],
  }
}

/** The option that draws a figure; kpis and tables have none. */
export function chartOption(figure: FigureDef, data: FigureData, shown: ShownColumn[], colors: ChartColors): DashChartOption | null {
  const base = { backgroundColor: 'transparent', textStyle: { color: colors.text } }
  switch (figure.kind) {
    case 'line':
    case 'bar':
      return { ...base, ...cartesian(figure, data, shown, colors) }
    case 'stackedBar':
      return { ...base, ...stacked(data, shown, colors) }
    case 'pie':
      return { ...base, ...pie(data, shown, colors) }
    case 'heatmap':
      return { ...base, ...heatmap(figure, data, shown, colors) }
    default:
      return null
  }
}
