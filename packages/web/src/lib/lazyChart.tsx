import { useEffect, useRef } from 'react'

export type EChartsCore = typeof import('echarts/core')
/** Any composed option (ComposeOption<…> of the charts a setup registers). */
type ChartOption = Parameters<ReturnType<EChartsCore['init']>['setOption']>[0]

/**
 * A loader of an echarts setup chunk (echarts' core with the charts one area draws), downloaded the
 * first time one of its charts shows: the library stays out of the console's first download and out
 * of pages without charts. A failed download (a new deployment's chunk names) is tried again by the
 * next chart.
 */
export function lazyECharts(load: () => Promise<{ echarts: EChartsCore }>): () => Promise<EChartsCore> {
  let loading: Promise<EChartsCore> | undefined
  return () => {
    loading ??= load()
      .then((m) => m.echarts)
      .catch((error: unknown) => {
        loading = undefined
        throw error
      })
    return loading
  }
}

/**
 * One echarts chart in a box of the given height, from the setup `load` gives: redrawn (not merged:
 * a series a new filter leaves out must go) when its option changes, and resized with its box.
 */
export function LazyChart({ load, option, height, testId }: { load: () => Promise<EChartsCore>; option: ChartOption; height: number; testId?: string }) {
  const box = useRef<HTMLDivElement>(null)
  const chart = useRef<ReturnType<EChartsCore['init']> | null>(null)
  const latest = useRef(option)
  latest.current = option

  useEffect(() => {
    let gone = false
    let observer: ResizeObserver | undefined
    void load().then((echarts) => {
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
  }, [load])

  useEffect(() => {
    chart.current?.setOption(option, true)
  }, [option])

  return <div ref={box} style={{ width: '100%', height }} data-testid={testId} />
}
