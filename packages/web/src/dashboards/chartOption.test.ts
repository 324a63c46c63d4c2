import { describe, expect, it } from 'vitest'
import { bikeStatsDashboard, engagementDashboard, homeDashboard, performanceDashboard, satisfactionDashboard, type FigureDef } from '@velo/shared'
import {
  chartHeight,
  chartOption,
  currentPeriod,
  MAX_NAMED_SERIES,
  namedSeries,
  OTHER_COLOR,
  partialPeriodIndex,
  SERIES_PALETTE,
  seriesColors,
  shownColumns,
  splitPartial,
  type ChartColors,
} from './chartOption'

const colors: ChartColors = { text: '#111', secondary: '#666', split: '#eee', tooltip: '#fff', scale: ['#e6f4ff', '#1677ff'] }
const figureOf = (figures: readonly FigureDef[], key: string) => figures.find((f) => f.key === key)!
const all = () => true

// The options are read loosely: echarts' option types are unions of arrays and objects.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an option is read by path as echarts takes it (an axis or a list of axes, a point a number or an object); its own type admits neither reading without a cast through unknown
type Loose = Record<string, any>
const optionOf = (figure: FigureDef, rows: (string | number | null)[][], marks?: { at: string; label: string }[], today = '2030-01-01') =>
  chartOption(figure, { key: figure.key, rows, marks }, shownColumns(figure, all), colors, today) as Loose

describe('figure → chart option', () => {
  it('draws a line per measure over the first column, with release marks on the days shown', () => {
    const figure = figureOf(performanceDashboard.figures, 'crashFree')
    const option = optionOf(
      figure,
      [
        ['2026-11-01', 99.5, 98],
        ['2026-11-02', null, 97.5],
      ],
      [
        { at: '2026-11-02', label: 'iOS 3.2.0' },
        { at: '2026-10-01', label: 'before the range' },
      ],
    )
    expect(option.xAxis.data).toEqual(['2026-11-01', '2026-11-02'])
    expect(option.series.map((s: Loose) => [s.type, s.name, s.data])).toEqual([
      ['line', 'Crash-free sessions', [99.5, null]],
      ['line', 'Crash-free members', [98, 97.5]],
    ])
    expect(option.series[0].markLine.data).toEqual([{ xAxis: '2026-11-02', name: 'iOS 3.2.0' }])
    // Shares run 0–100 on their axis.
    expect(option.yAxis[0]).toMatchObject({ min: 0, max: 100 })
  })

  it('puts secondAxis columns on a second axis, as a line beside bars, each axis named with its series and unit', () => {
    const figure = figureOf(satisfactionDashboard.figures, 'tags')
    const option = optionOf(figure, [['Battery', 12, 50]])
    // Named categories lie as horizontal bars: the value axes run along the bottom and the top.
    expect(option.xAxis).toHaveLength(2)
    expect(option.xAxis[0]).toMatchObject({ position: 'bottom', name: 'Feedback' })
    expect(option.xAxis[1]).toMatchObject({ position: 'top', min: 0, max: 100, name: 'CSAT (%)' })
    expect(option.series.map((s: Loose) => [s.type, s.xAxisIndex])).toEqual([
      ['bar', 0],
      ['line', 1],
    ])
  })

  it('names both axes of a two-axis line, with units', () => {
    const reply = optionOf(figureOf(satisfactionDashboard.figures, 'responseTime'), [['2026-11-02', 4.5, 20, 31]])
    expect(reply.yAxis.map((a: Loose) => [a.position, a.name])).toEqual([
      ['left', 'Median · p90 (hours)'],
      ['right', 'Replied'],
    ])
    const csat = optionOf(figureOf(satisfactionDashboard.figures, 'csatTrend'), [['2026-11-02', 80, 20, 3]])
    expect(csat.yAxis.map((a: Loose) => a.name)).toEqual(['Feedback · Unanswered', 'CSAT (%)'])
  })

  it('gives new members an axis of their own beside active members and rides', () => {
    const option = optionOf(figureOf(engagementDashboard.figures, 'daily'), [['2026-11-01', 1900, 20, 4100]], undefined, '2026-12-01')
    const axisOf = (name: string) => option.series.find((s: Loose) => s.name === name).yAxisIndex
    expect(axisOf('New members')).toBe(1)
    expect(axisOf('Rides')).toBe(0)
    expect(axisOf('Active members')).toBe(0)
  })

  it('names every bar: named categories on rows of their own, each labelled', () => {
    const figure = figureOf(bikeStatsDashboard.figures, 'byCountry')
    const rows = Array.from({ length: 16 }, (_, i) => [`Country ${i + 1}`, 100 - i])
    const option = optionOf(figure, rows)
    expect(option.yAxis).toMatchObject({ type: 'category', inverse: true, axisLabel: { interval: 0 } })
    expect(option.yAxis.data).toHaveLength(16)
    expect(chartHeight(figure, { key: figure.key, rows }, shownColumns(figure, all))).toBeGreaterThanOrEqual(16 * 30)
    // Bars over time: each labelled, slanted when many.
    const weekly = optionOf(
      figureOf(engagementDashboard.figures, 'weekly'),
      Array.from({ length: 14 }, (_, i) => [`2026-W${i + 30}`, 10]),
    )
    expect(weekly.xAxis.axisLabel).toMatchObject({ interval: 0, rotate: 40 })
  })

  it('draws today on a daily line as partial: dashed from yesterday, never a drop to zero', () => {
    const figure = figureOf(homeDashboard.figures, 'registrations')
    const option = optionOf(
      figure,
      [
        ['2026-11-22', 20, 30],
        ['2026-11-23', 22, 28],
        ['2026-11-24', 3, 4],
      ],
      undefined,
      '2026-11-24',
    )
    const members = option.series.filter((s: Loose) => s.name === 'New members')
    expect(members.map((s: Loose) => [s.data, s.lineStyle?.type])).toEqual([
      [[20, 22, null], undefined],
      [[null, 22, 3], 'dashed'],
    ])
    // One colour for both pieces, and a mark on today.
    expect(members[0].color).toBe(members[1].color)
    expect(option.series[0].markLine.data).toContainEqual({ xAxis: '2026-11-24', name: 'Today so far' })
    // A range that ends before today has no partial day.
    const past = optionOf(figure, [['2026-11-22', 20, 30]], undefined, '2026-11-24')
    expect(past.series.map((s: Loose) => s.data)).toEqual([[20], [30]])
  })

  // Weeks are written by their Monday and months as YYYY-MM (server modules/dashboard/measures.ts).
  it('finds the current week and month on their axes, in UTC days, and nothing on other axes', () => {
    const weekly = figureOf(engagementDashboard.figures, 'weekly').columns[0]
    const monthly = figureOf(engagementDashboard.figures, 'monthly').columns[0]
    const named = figureOf(bikeStatsDashboard.figures, 'byCountry').columns[0]
    // Sunday 29 November 2026 is in the week of Monday the 23rd; a Monday is its own week's.
    expect(currentPeriod('week', '2026-11-29')).toBe('2026-11-23')
    expect(currentPeriod('week', '2026-11-23')).toBe('2026-11-23')
    // Across a year's end: Friday 1 January 2027 is in the week of Monday 28 December 2026.
    expect(currentPeriod('week', '2027-01-01')).toBe('2026-12-28')
    expect(currentPeriod('month', '2026-11-29')).toBe('2026-11')
    const weeks = ['2026-11-09', '2026-11-16', '2026-11-23']
    expect(partialPeriodIndex(weekly, weeks, '2026-11-29')).toBe(2)
    expect(partialPeriodIndex(weekly, weeks, '2026-11-23')).toBe(2)
    // A range that ends in an earlier week has no partial week.
    expect(partialPeriodIndex(weekly, weeks, '2026-11-30')).toBe(-1)
    expect(partialPeriodIndex(monthly, ['2026-09', '2026-10', '2026-11'], '2026-11-01')).toBe(2)
    expect(partialPeriodIndex(monthly, ['2026-09', '2026-10'], '2026-11-01')).toBe(-1)
    expect(partialPeriodIndex(named, ['2026-11'], '2026-11-01')).toBe(-1)
  })

  it('draws the current week and month as partial: a faint, hatched bar or a dashed piece, marked and noted', () => {
    const rows = [
      ['2026-11-09', 500],
      ['2026-11-16', 520],
      ['2026-11-23', 130],
    ]
    const weekly = optionOf(figureOf(engagementDashboard.figures, 'weekly'), rows, undefined, '2026-11-26')
    const bars = weekly.series[0].data
    expect(bars.slice(0, 2)).toEqual([500, 520])
    expect(bars[2]).toMatchObject({ value: 130, itemStyle: { opacity: expect.any(Number), decal: expect.any(Object) } })
    expect(bars[2].itemStyle.opacity).toBeLessThan(1)
    expect(weekly.series[0].markLine.data).toContainEqual({ xAxis: '2026-11-23', name: 'This week so far' })
    const note = weekly.tooltip.formatter([{ axisValueLabel: '2026-11-23', seriesName: 'Active members', marker: '', value: 130 }])
    expect(note).toContain('Week of 2026-11-23: this week so far (partial)')
    // A whole week's tooltip says only the week.
    expect(weekly.tooltip.formatter([{ axisValueLabel: '2026-11-16', seriesName: 'Active members', marker: '', value: 520 }])).not.toContain('partial')

    const monthly = optionOf(figureOf(engagementDashboard.figures, 'monthly'), [['2026-10', 900], ['2026-11', 410]], undefined, '2026-11-26')
    expect(monthly.series[0].data[1]).toMatchObject({ value: 410, itemStyle: { opacity: expect.any(Number) } })
    expect(monthly.series[0].markLine.data).toContainEqual({ xAxis: '2026-11', name: 'This month so far' })
    expect(monthly.tooltip.formatter([{ axisValueLabel: '2026-11', seriesName: 'Active members', marker: '', value: 410 }])).toContain('this month so far')

    // A weekly line: dashed from the last whole week.
    const perActive = optionOf(figureOf(engagementDashboard.figures, 'ridesPerActive'), [['2026-11-16', 2.5], ['2026-11-23', 0.8]], undefined, '2026-11-26')
    expect(perActive.series.map((s: Loose) => [s.data, s.lineStyle?.type])).toEqual([
      [[2.5, null], undefined],
      [[2.5, 0.8], 'dashed'],
    ])
    // Past weeks only: drawn whole.
    const past = optionOf(figureOf(engagementDashboard.figures, 'weekly'), rows, undefined, '2026-12-10')
    expect(past.series[0].data).toEqual([500, 520, 130])
    expect(past.series[0].markLine).toBeUndefined()
  })

  it('leaves out the series of a column the user may not see', () => {
    const figure = figureOf(homeDashboard.figures, 'registrations')
    const shown = shownColumns(figure, (p) => p !== 'bike:bike:list')
    const option = chartOption(figure, { key: figure.key, rows: [['2026-11-01', 4, null]] }, shown, colors) as Loose
    expect(option.series.map((s: Loose) => s.name)).toEqual(['New members'])
  })

  it('stacks long rows: one bar per part, one series per version', () => {
    const figure = figureOf(bikeStatsDashboard.figures, 'firmware')
    const option = optionOf(figure, [
      ['Display', '1.0.0', 10],
      ['Display', '1.1.0', 5],
      ['BMS', '1.0.0', 7],
    ])
    expect(option.xAxis.data).toEqual(['Display', 'BMS'])
    expect(option.series.map((s: Loose) => [s.name, s.stack, s.data])).toEqual([
      ['1.0.0', 'total', [10, 7]],
      ['1.1.0', 'total', [5, null]],
    ])
  })

  it('gives every firmware version its own colour, grouping the tail as Other past a readable number', () => {
    const figure = figureOf(bikeStatsDashboard.figures, 'firmware')
    // 15 versions over four parts, as the demo has them.
    const rows: (string | number)[][] = []
    for (const [part, versions] of [['IoT module', 5], ['Display', 4], ['Battery', 3], ['Controller', 3]] as const)
      for (let v = 0; v < versions; v++) rows.push([part, `${part} 1.${v}`, 100 - v * 10])
    const option = optionOf(figure, rows)
    const names = option.series.map((s: Loose) => s.name)
    expect(names).toHaveLength(MAX_NAMED_SERIES + 1)
    expect(names.at(-1)).toBe('Other')
    const colours = option.series.map((s: Loose) => s.color)
    expect(new Set(colours).size).toBe(colours.length)
    // Each part keeps its largest version named.
    for (const part of ['IoT module', 'Display', 'Battery', 'Controller']) expect(names).toContain(`${part} 1.0`)
    // Nothing is lost: each bar's total is the same.
    const total = (bar: number) => option.series.reduce((sum: number, s: Loose) => sum + (s.data[bar] ?? 0), 0)
    expect(total(0)).toBe(100 + 90 + 80 + 70 + 60)
  })

  it('names series in turns across bars, and all of them when they fit', () => {
    const rows = [
      { bar: 'A', series: 'a1', value: 50 },
      { bar: 'A', series: 'a2', value: 40 },
      { bar: 'A', series: 'a3', value: 30 },
      { bar: 'B', series: 'b1', value: 5 },
      { bar: 'B', series: 'b2', value: 4 },
    ]
    expect(namedSeries(rows, 3)).toEqual(['a1', 'b1', 'a2'])
    expect(namedSeries(rows, 5)).toHaveLength(5)
    expect(SERIES_PALETTE.length).toBeGreaterThan(MAX_NAMED_SERIES)
    const colours = seriesColors(['x', 'y', 'Other'], 'Other')
    expect(colours.get('Other')).toBe(OTHER_COLOR)
    expect(colours.get('x')).not.toBe(colours.get('y'))
  })

  it('splits a line at a partial day, and leaves a whole range as it is', () => {
    expect(splitPartial([1, 2, 3], 2)).toEqual({ whole: [1, 2, null], partial: [null, 2, 3] })
    expect(splitPartial([1, 2, 3], -1)).toEqual({ whole: [1, 2, 3], partial: [] })
  })

  it('draws a pie of name and value, each slice its own colour', () => {
    const figure = figureOf(bikeStatsDashboard.figures, 'byModel')
    const data = optionOf(figure, [['Metro', 30], ['Trail', 12]]).series[0].data
    expect(data.map((d: Loose) => [d.name, d.value])).toEqual([
      ['Metro', 30],
      ['Trail', 12],
    ])
    expect(data[0].itemStyle.color).not.toBe(data[1].itemStyle.color)
  })

  it('draws retention cohorts as a 0–100 % heat map, without cells for days not reached', () => {
    const figure = figureOf(engagementDashboard.figures, 'retention')
    const option = optionOf(figure, [
      ['2026-W44', 120, 40, 25.5, 10],
      ['2026-W45', 80, 35, null, null],
    ])
    expect(option.xAxis.data).toEqual(['Day 1', 'Day 7', 'Day 30'])
    expect(option.yAxis.data).toEqual(['2026-W44', '2026-W45'])
    expect(option.visualMap).toMatchObject({ min: 0, max: 100 })
    expect(option.series[0].data).toEqual([
      [0, 0, 40],
      [1, 0, 25.5],
      [2, 0, 10],
      [0, 1, 35],
    ])
    expect(option.series[0].label.formatter({ value: [1, 0, 25.5] })).toBe('25.5%')
  })

  it('follows the theme colours', () => {
    const option = optionOf(figureOf(engagementDashboard.figures, 'weekly'), [['2026-W45', 10]])
    expect(option.textStyle.color).toBe('#111')
    expect(option.legend.textStyle.color).toBe('#111')
    expect(option.xAxis.axisLabel.color).toBe('#666')
  })

  it('has no chart for cards and tables', () => {
    expect(optionOf(figureOf(performanceDashboard.figures, 'byVersion'), [])).toBeNull()
    expect(optionOf(figureOf(performanceDashboard.figures, 'summary'), [])).toBeNull()
  })
})
