import * as echarts from 'echarts/core'
import { BarChart, LineChart } from 'echarts/charts'
import { GridComponent, TooltipComponent } from 'echarts/components'
import { CanvasRenderer } from 'echarts/renderers'

// echarts' core with only what the details' charts draw. Imported by EChart.tsx only when a chart
// first shows (import('./echartsSetup')), so it is a chunk of its own; named imports let the bundler
// leave out every other chart and component.
echarts.use([BarChart, LineChart, GridComponent, TooltipComponent, CanvasRenderer])

export { echarts }
