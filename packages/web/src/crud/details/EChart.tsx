import type { ComposeOption } from 'echarts/core'
import type { BarSeriesOption, LineSeriesOption } from 'echarts/charts'
import type { GridComponentOption, TooltipComponentOption } from 'echarts/components'
import { LazyChart, lazyECharts } from '../../lib/lazyChart'

/** What the details' charts draw: bars or a line on a grid, with a tooltip. */
export type SmallChartOption = ComposeOption<BarSeriesOption | LineSeriesOption | GridComponentOption | TooltipComponentOption>

/** echarts' core with only what these charts use (echartsSetup.ts), in a chunk of its own. */
export const loadECharts = lazyECharts(() => import('./echartsSetup'))

/** One echarts chart in a box of the given height, redrawn when the option changes and resized with its box. */
export function EChart({ option, height = 180, testId }: { option: SmallChartOption; height?: number; testId?: string }) {
  return <LazyChart load={loadECharts} option={option} height={height} testId={testId} />
}
