import { describe, expect, it } from 'vitest'
import { bikeStatsDashboard, engagementDashboard, homeDashboard, performanceDashboard, satisfactionDashboard, type FigureDef } from '@velo/shared'
import { chartOption, shownColumns, type ChartColors } from './chartOption'

const colors: ChartColors = { text: '#111', secondary: '#666', split: '#eee', tooltip: '#fff', scale: ['#e6f4ff', '#1677ff'] }
const figureOf = (figures: readonly FigureDef[], key: string) => figures.find((f) => f.key === key)!
const all = () => true

// The options are read loosely: echarts' option types are unions of arrays and objects.
type Loose = Record<string, any>
const optionOf = (figure: FigureDef, rows: (string | number | null)[][], marks?: { at: string; label: string }[]) =>
  chartOption(figure, { key: figure.key, rows, marks }, shownColumns(figure, all), colors) as Loose

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

  it('puts secondAxis columns on a right axis, as a line beside bars', () => {
    const figure = figureOf(satisfactionDashboard.figures, 'tags')
    const option = optionOf(figure, [['Battery', 12, 50]])
    expect(option.yAxis).toHaveLength(2)
    expect(option.yAxis[1]).toMatchObject({ position: 'right', min: 0, max: 100 })
    expect(option.series.map((s: Loose) => [s.type, s.yAxisIndex])).toEqual([
      ['bar', 0],
      ['line', 1],
    ])
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

  it('draws a pie of name and value', () => {
    const figure = figureOf(bikeStatsDashboard.figures, 'byModel')
    expect(optionOf(figure, [['Metro', 30], ['Trail', 12]]).series[0].data).toEqual([
      { name: 'Metro', value: 30 },
      { name: 'Trail', value: 12 },
    ])
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
