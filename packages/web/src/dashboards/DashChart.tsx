import { useMemo } from 'react'
import { theme } from 'antd'
import { LazyChart, lazyECharts } from '../lib/lazyChart'
import type { ChartColors, DashChartOption } from './chartOption'

/**
 * The dashboards' echarts (echartsSetup.ts), downloaded the first time a dashboard draws a chart:
 * neither the console's first download nor other pages carry it.
 */
export const loadDashboardECharts = lazyECharts(() => import('./echartsSetup'))

/** Chart colours from the console's antd theme: they change with dark mode and re-render the charts. */
export function useChartColors(): ChartColors {
  const { token } = theme.useToken()
  return useMemo(
    () => ({
      text: token.colorText,
      secondary: token.colorTextSecondary,
      split: token.colorSplit,
      tooltip: token.colorBgElevated,
      scale: [token.colorPrimaryBg, token.colorPrimary],
    }),
    [token.colorText, token.colorTextSecondary, token.colorSplit, token.colorBgElevated, token.colorPrimaryBg, token.colorPrimary],
  )
}

/** One dashboard chart in a box of the given height, redrawn when its option changes and resized with its box. */
export function DashChart({ option, height = 280, testId }: { option: DashChartOption; height?: number; testId?: string }) {
  return <LazyChart load={loadDashboardECharts} option={option} height={height} testId={testId} />
}
