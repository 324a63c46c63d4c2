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
import i18n, { localized } from '../i18n'
import { formatTick, formatValue } from './format'
import { addDays, utcToday } from './urlQuery'

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

/**
 * Series colours: ten that tell apart (Tableau 10 without its grey), so no two series of a figure
 * share one; a figure names at most MAX_NAMED_SERIES series and groups the rest as "Other", in grey.
 */
export const SERIES_PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#17becf'] as const
export const OTHER_COLOR = '#9d9d9d'
/** Series a legend names before the rest is "Other": more colours would no longer read apart. */
export const MAX_NAMED_SERIES = 8

/** The colour of each series, in order: distinct up to the palette's length ("Other" is grey). */
export function seriesColors(names: readonly string[], other?: string): Map<string, string> {
  const colors = new Map<string, string>()
  let next = 0
  for (const name of names) {
    if (colors.has(name)) continue
    colors.set(name, name === other ? OTHER_COLOR : SERIES_PALETTE[next++ % SERIES_PALETTE.length]!)
  }
  return colors
}

/**
 * The series a stacked figure names (at most `limit`): each bar's largest first, taken in turns (each
 * bar's first, then each bar's second…), so every bar keeps its main series however small its
 * total beside the others; the rest is grouped as "Other".
 */
export function namedSeries(rows: readonly { bar: string; series: string; value: number }[], limit: number = MAX_NAMED_SERIES): string[] {
  const perBar = new Map<string, Map<string, number>>()
  for (const r of rows) {
    const bar = perBar.get(r.bar) ?? new Map<string, number>()
    bar.set(r.series, (bar.get(r.series) ?? 0) + r.value)
    perBar.set(r.bar, bar)
  }
  const ranked = [...perBar.values()].map((bar) => [...bar.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name]) => name))
  const chosen: string[] = []
  const all = new Set(rows.map((r) => r.series))
  // Every series fits: none is grouped.
  if (all.size <= limit) return [...all]
  for (let rank = 0; chosen.length < limit && ranked.some((names) => names.length > rank); rank++) {
    for (const names of ranked) {
      const name = names[rank]
      if (name !== undefined && !chosen.includes(name) && chosen.length < limit) chosen.push(name)
    }
  }
  return chosen
}

/** The units of a time axis whose current period is not over yet. */
export type PeriodUnit = 'day' | 'week' | 'month'
const isPeriodUnit = (unit: ColumnUnit | undefined): unit is PeriodUnit => unit === 'day' || unit === 'week' || unit === 'month'

/**
 * The category that holds `today` (a UTC day, as the server's days are) on an axis of this unit,
 * written as the server writes it (modules/dashboard/measures.ts): the day itself, the Monday of its
 * ISO week, or its month (YYYY-MM).
 */
export function currentPeriod(unit: PeriodUnit, today: string): string {
  if (unit === 'month') return today.slice(0, 7)
  if (unit === 'day') return today
  const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7
  return addDays(today, -weekday)
}

/**
 * The current period's point on a time axis (today, this week, this month): it is not over, so its
 * counts are partial (the week's members so far, not a drop to nothing). Its index, or -1 when the
 * axis is not of time or does not reach the current period.
 */
export function partialPeriodIndex(x: FigureColumn | undefined, categories: readonly string[], today: string): number {
  if (!isPeriodUnit(x?.unit)) return -1
  return categories.lastIndexOf(currentPeriod(x.unit, today))
}

/** The words for a partial period: the mark on the axis and the tooltip's title. */
const PARTIAL_KEYS: Record<PeriodUnit, { mark: string; note: string }> = {
  day: { mark: 'dashboard.partial', note: 'dashboard.partialNote' },
  week: { mark: 'dashboard.partialWeek', note: 'dashboard.partialWeekNote' },
  month: { mark: 'dashboard.partialMonth', note: 'dashboard.partialMonthNote' },
}

/**
 * A partial bar: faint and hatched, so it reads as "not over yet" even beside a bar of a light
 * colour, and in print.
 */
const partialBarStyle = (): NonNullable<BarSeriesOption['itemStyle']> => ({
  opacity: 0.45,
  decal: { symbol: 'rect', symbolSize: 1, dashArrayX: [1, 0], dashArrayY: [2, 4], rotation: -Math.PI / 4, color: 'rgba(255, 255, 255, 0.6)' },
})

/**
 * A line's values split at a partial last period: the solid line stops the period before, and a
 * dashed piece joins that period to the partial one (null elsewhere, so echarts draws nothing there).
 */
export function splitPartial(values: readonly (number | null)[], partial: number): { whole: (number | null)[]; partial: (number | null)[] } {
  if (partial < 0) return { whole: [...values], partial: [] }
  return {
    whole: values.map((v, i) => (i === partial ? null : v)),
    partial: values.map((v, i) => (i === partial || i === partial - 1 ? v : null)),
  }
}

/**
 * Tooltip lines "● name: value" in the value's unit (series differ in unit: a share beside counts).
 * A line split at a partial period is one series to the reader: its name is listed once, with its value.
 */
function axisTooltip(units: ReadonlyMap<string, ColumnUnit>, partial?: { at: string; note: string }) {
  return (params: unknown): string => {
    const list = (Array.isArray(params) ? params : [params]) as { axisValueLabel?: string; name?: string; seriesName?: string; marker?: string; value?: unknown }[]
    const head = String(list[0]?.axisValueLabel ?? list[0]?.name ?? '')
    const byName = new Map<string, (typeof list)[number]>()
    for (const p of list) {
      const name = p.seriesName ?? ''
      const seen = byName.get(name)
      if (!seen || ((seen.value === null || seen.value === undefined) && p.value !== null && p.value !== undefined)) byName.set(name, p)
    }
    const lines = [...byName.values()].map((p) => `${p.marker ?? ''}${escapeHtml(p.seriesName ?? '')}: ${escapeHtml(formatValue(p.value as FigureValue, units.get(p.seriesName ?? '') ?? 'count'))}`)
    const title = partial && head === partial.at ? i18n.t(partial.note, { day: head }) : head
    return [escapeHtml(title), ...lines].join('<br/>')
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

/** Category columns whose values are names (a country, a tag), not a time. */
const isNameUnit = (unit: ColumnUnit | undefined) => unit === 'text'

/**
 * Text categories are drawn as horizontal bars: each name on a line of its own, readable in any
 * language and however many there are (the figure grows with them, chartHeight).
 */
export const isHorizontal = (figure: FigureDef, shown: readonly ShownColumn[]) => figure.kind === 'bar' && isNameUnit(shown[0]?.column.unit)

/** Time categories under vertical bars: each one labelled (slanted when many) up to this many bars. */
const LABEL_EVERY_BAR_UP_TO = 24
/** A horizontal bar's row, in pixels: room for a name on two lines. */
const BAR_ROW_PX = 30
/** The widest a name on a horizontal bar's axis may be; a longer one wraps onto a second line, whole. */
const NAME_LABEL_PX = 150

/** The height a figure's chart needs: a row per cohort, a row per named bar. */
export function chartHeight(figure: FigureDef, data: FigureData, shown: readonly ShownColumn[]): number {
  if (figure.kind === 'heatmap') return Math.max(280, 110 + data.rows.length * 28)
  if (isHorizontal(figure, shown)) return Math.max(280, 90 + data.rows.length * BAR_ROW_PX)
  return 280
}

/** An axis's unit in words ("hours", "%"), in the page's language. */
const unitWord = (unit: ColumnUnit) => i18n.t(`dashboard.axisUnit.${unit}`)

/**
 * A value axis's name: with two axes, the series it carries and their unit ("CSAT (%)", "Median ·
 * p90 (hours)"), so the reader knows which line reads on which side; with one, its unit when it
 * has a word beyond a count or a share (ticks already carry "%").
 */
function valueAxisName(side: readonly ShownColumn[], twoAxes: boolean): string | undefined {
  const unit = side[0]?.column.unit ?? 'count'
  if (twoAxes) {
    const names = side.map((m) => localized(m.column.label)).join(' · ')
    return unit === 'count' ? names : i18n.t('dashboard.axisName', { names, unit: unitWord(unit) })
  }
  return unit === 'count' || unit === 'ratio' || unit === 'percent' ? undefined : unitWord(unit)
}

/**
 * Line and bar: x = the first column, one series per other column; `secondAxis` columns on a second
 * value axis (named with the series and units on each). The current period of a time axis (today,
 * this week, this month) is drawn as partial (a dashed last piece or a faint bar, marked), never as a drop. Named categories lie as horizontal bars.
 */
function cartesian(figure: FigureDef, data: FigureData, shown: ShownColumn[], colors: ChartColors, today: string): DashChartOption {
  const [x, ...measures] = shown
  const type = figure.kind === 'bar' ? 'bar' : 'line'
  const horizontal = isHorizontal(figure, shown)
  const categories = data.rows.map((r) => String(r[x?.index ?? 0] ?? ''))
  const left = measures.filter((m) => !m.column.secondAxis)
  const right = measures.filter((m) => m.column.secondAxis)
  const twoAxes = left.length > 0 && right.length > 0
  const unitOf = (side: ShownColumn[]): ColumnUnit => side[0]?.column.unit ?? 'count'
  const valueAxis = (side: ShownColumn[], first: boolean) => {
    const unit = unitOf(side)
    const name = valueAxisName(side, twoAxes)
    return {
      type: 'value' as const,
      // Vertical: left and right. Horizontal: the first under the bars, the second above them.
      position: horizontal ? (first ? ('bottom' as const) : ('top' as const)) : first ? ('left' as const) : ('right' as const),
      ...axisStyle(colors),
      ...(unit === 'percent' ? { min: 0, max: 100 } : {}),
      ...(unit === 'count' ? { minInterval: 1 } : {}),
      // The second axis draws no grid lines of its own: two sets would not line up.
      ...(!first ? { splitLine: { show: false } } : {}),
      ...(name
        ? horizontal
          ? { name, nameLocation: 'middle' as const, nameGap: 26, nameTextStyle: { color: colors.secondary } }
          : { name, nameLocation: 'end' as const, nameGap: 12, nameTextStyle: { color: colors.secondary, align: first ? ('left' as const) : ('right' as const) } }
        : {}),
      axisLabel: { color: colors.secondary, formatter: (v: number) => formatTick(v, unit) },
    }
  }
  const valueAxes = [valueAxis(left.length ? left : right, true), ...(twoAxes ? [valueAxis(right, false)] : [])]
  const units = new Map(measures.map((m) => [localized(m.column.label), m.column.unit]))
  const palette = seriesColors(measures.map((m) => localized(m.column.label)))
  const partial = partialPeriodIndex(x?.column, categories, today)
  const partialAt = partial >= 0 ? categories[partial] : undefined
  const partialKeys = isPeriodUnit(x?.column.unit) ? PARTIAL_KEYS[x.column.unit] : undefined
  // Release marks stand on days the axis shows; one outside the range is not drawn.
  const marks = (data.marks ?? []).filter((m) => categories.includes(m.at))
  const markLines = [
    ...marks.map((mark) => ({ xAxis: mark.at, name: mark.label })),
    ...(partialAt && partialKeys ? [{ xAxis: partialAt, name: i18n.t(partialKeys.mark) }] : []),
  ]
  const series = measures.flatMap((m, i): (BarSeriesOption | LineSeriesOption)[] => {
    const name = localized(m.column.label)
    const color = palette.get(name)!
    const values = data.rows.map((r) => num(r[m.index]))
    const axisIndex = m.column.secondAxis && left.length ? 1 : 0
    const common = {
      name,
      color,
      ...(horizontal ? { xAxisIndex: axisIndex } : { yAxisIndex: axisIndex }),
      ...(i === 0 && markLines.length
        ? {
            markLine: {
              symbol: 'none',
              silent: true,
              lineStyle: { color: colors.secondary, type: 'dashed' as const },
              // Written along the line: two releases days apart (iOS and Android) do not overprint.
              label: { color: colors.secondary, formatter: '{b}', position: 'insideEndTop' as const },
              data: markLines,
            },
          }
        : {}),
    }
    // A share beside bars reads as a line over them.
    if (type === 'bar' && !m.column.secondAxis) {
      // The current period's bar, partial, is drawn faint and hatched rather than as a whole one.
      const data = values.map((v, di) => (di === partial ? { value: v, itemStyle: partialBarStyle() } : v))
      return [{ ...common, type: 'bar', barMaxWidth: 32, data }]
    }
    // Across named bars (a tag's CSAT beside its feedback) a point per bar: a line joining
    // unrelated names would suggest a trend that is not there.
    if (horizontal) return [{ ...common, type: 'line', data: values, showSymbol: true, symbolSize: 9, lineStyle: { width: 0 } }]
    // Straight segments: a smoothed curve would dip below a day's real value between points.
    const line = { type: 'line' as const, showSymbol: data.rows.length <= 31, connectNulls: false }
    const split = splitPartial(values, partial)
    if (partial < 0) return [{ ...common, ...line, data: values }]
    return [
      { ...common, ...line, data: split.whole },
      // The same series (one legend entry: same name) from the last whole period to the current one, dashed.
      { name, color, ...(horizontal ? { xAxisIndex: axisIndex } : { yAxisIndex: axisIndex }), ...line, showSymbol: true, lineStyle: { type: 'dashed' as const }, data: split.partial },
    ]
  })
  const categoryAxis = {
    type: 'category' as const,
    data: categories,
    ...axisStyle(colors),
    splitLine: { show: false },
    ...(horizontal
      ? // Every name, each on its row, the first on top (a ranking reads downwards).
        { inverse: true, axisLabel: { color: colors.secondary, interval: 0, width: NAME_LABEL_PX, overflow: 'break' as const, lineHeight: 14 } }
      : type === 'bar' && categories.length <= LABEL_EVERY_BAR_UP_TO
        ? // Every bar named: slanted when they would not fit side by side.
          { axisLabel: { color: colors.secondary, interval: 0, rotate: categories.length > 8 ? 40 : 0 } }
        : {}),
  }
  return {
    color: [...SERIES_PALETTE],
    // Room above for the legend and the axes' names; the names and labels are kept inside the box.
    grid: { left: 8, right: 8, top: valueAxes.some((a) => 'name' in a && !horizontal) ? 60 : 36, bottom: 4, outerBoundsMode: 'same', outerBoundsContain: 'all' },
    legend: legend(colors),
    tooltip: { ...tooltipBase(colors), trigger: 'axis', ...(horizontal ? { axisPointer: { type: 'shadow' as const } } : {}), formatter: axisTooltip(units, partialAt && partialKeys ? { at: partialAt, note: partialKeys.note } : undefined) },
    xAxis: horizontal ? valueAxes : categoryAxis,
    yAxis: horizontal ? categoryAxis : valueAxes,
    series,
  }
}

/**
 * Long rows (x, series, value) → one stacked bar per x, one colour per series: at most
 * MAX_NAMED_SERIES named (namedSeries), the rest of each bar grouped as "Other", so no two share a colour.
 */
function stacked(data: FigureData, shown: ShownColumn[], colors: ChartColors): DashChartOption {
  const [x, name, value] = shown
  if (!x || !name || !value) return {}
  const long = data.rows.map((r) => ({ bar: String(r[x.index] ?? ''), series: String(r[name.index] ?? ''), value: num(r[value.index]) ?? 0 }))
  const categories = [...new Set(long.map((r) => r.bar))]
  const named = namedSeries(long)
  const other = i18n.t('dashboard.other')
  const grouped = new Set(named)
  const seriesOf = (series: string) => (grouped.has(series) ? series : other)
  const cell = new Map<string, number>()
  for (const r of long) {
    const key = `${r.bar}\u0000${seriesOf(r.series)}`
    cell.set(key, (cell.get(key) ?? 0) + r.value)
  }
  const names = long.some((r) => !grouped.has(r.series)) ? [...named, other] : named
  const palette = seriesColors(names, other)
  const units = new Map(names.map((n) => [n, value.column.unit]))
  return {
    color: [...SERIES_PALETTE],
    grid: { left: 8, right: 8, top: 36, bottom: 4, outerBoundsMode: 'same', outerBoundsContain: 'all' },
    legend: legend(colors),
    tooltip: { ...tooltipBase(colors), trigger: 'axis', axisPointer: { type: 'shadow' }, formatter: axisTooltip(units) },
    xAxis: { type: 'category', data: categories, ...axisStyle(colors), splitLine: { show: false }, axisLabel: { color: colors.secondary, interval: 0 } },
    yAxis: { type: 'value', minInterval: 1, ...axisStyle(colors), axisLabel: { color: colors.secondary, formatter: (v: number) => formatTick(v, value.column.unit) } },
    series: names.map((n) => ({ type: 'bar', name: n, color: palette.get(n), stack: 'total', barMaxWidth: 48, data: categories.map((c) => cell.get(`${c}\u0000${n}`) ?? null) })),
  }
}

/** Slices: the largest MAX_NAMED_SERIES named, the rest one "Other" slice, each its own colour. */
function pie(data: FigureData, shown: ShownColumn[], colors: ChartColors): DashChartOption {
  const [name, value] = shown
  if (!name || !value) return {}
  const slices = data.rows.map((r) => ({ name: String(r[name.index] ?? ''), value: num(r[value.index]) ?? 0 }))
  const other = i18n.t('dashboard.other')
  const kept = new Set(namedSeries(slices.map((sl) => ({ bar: '', series: sl.name, value: sl.value }))))
  const rest = slices.filter((sl) => !kept.has(sl.name)).reduce((sum, sl) => sum + sl.value, 0)
  const shownSlices = [...slices.filter((sl) => kept.has(sl.name)), ...(kept.size < slices.length ? [{ name: other, value: rest }] : [])]
  const palette = seriesColors(
    shownSlices.map((sl) => sl.name),
    other,
  )
  return {
    color: [...SERIES_PALETTE],
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
        data: shownSlices.map((sl) => ({ ...sl, itemStyle: { color: palette.get(sl.name) } })),
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

/** The option that draws a figure; kpis and tables have none. `today` (a UTC day) and its week and month are partial. */
export function chartOption(figure: FigureDef, data: FigureData, shown: ShownColumn[], colors: ChartColors, today: string = utcToday()): DashChartOption | null {
  const base = { backgroundColor: 'transparent', textStyle: { color: colors.text } }
  switch (figure.kind) {
    case 'line':
    case 'bar':
      return { ...base, ...cartesian(figure, data, shown, colors, today) }
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
