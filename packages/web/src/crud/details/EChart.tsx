import { useEffect, useRef } from 'react'
import type { ComposeOption } from 'echarts/core'
import type { BarSeriesOption, LineSeriesOption } from 'echarts/charts'
import type { GridComponentOption, TooltipComponentOption } from 'echarts/components'

/** What the details' charts draw: bars or a line on a grid, with a tooltip. */
export type SmallChartOption = ComposeOption<BarSeriesOption | LineSeriesOption | GridComponentOption | TooltipComponentOption>

type EChartsCore = typeof import('echarts/core')

let loading: Promise<EChartsCore> | undefined

/**
 * echarts' core with only what these charts use (echartsSetup.ts), loaded the first time a chart
 * shows: the library stays out of the console's first download, and out of pages without charts.
 */
export function loadECharts(): Promise<EChartsCore> {
  loading ??= import('./echartsSetup')
    .then((m) => m.echarts)
    .catch((error: unknown) => {
      // A failed download (a new deployment's chunk names) is tried again by the next chart.
      loading = undefined
      throw error
    })
  return loading
}

/** One echarts chart in a box of the given height, redrawn when the option changes and resized with its box. */
export function EChart({ option, height = 180, testId }: { option: SmallChartOption; height?: number; testId?: string }) {
  const box = useRef<HTMLDivElement>(null)
  const chart = useRef<ReturnType<EChartsCore['init']> | null>(null)
  const latest = useRef(option)
  latest.current = option

  useEffect(() => {
    let gone = false
    let observer: ResizeObserver | undefined
    void loadECharts().then((echarts) => {
      if (gone || !box.current) return
      chart.current = echarts.init(box.current)
      chart.current.setOption(latest.current)
      if (typeof ResizeObserver !== 'undefined') {
        observer = new ResizeObserver(() => chart.current?.resize())
        observer.observe(box.current)
      }
    })
    return () => {
      gone = true
      observer?.disconnect()
      chart.current?.dispose()
      chart.current = null
    }
  }, [])

  useEffect(() => {
    chart.current?.setOption(option, true)
  }, [option])

  return <div ref={box} style={{ width: '100%', height }} data-testid={testId} />
}
