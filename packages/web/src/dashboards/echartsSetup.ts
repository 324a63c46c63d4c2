import * as echarts from 'echarts/core'
import { BarChart, HeatmapChart, LineChart, PieChart } from 'echarts/charts'
import { GridComponent, LegendScrollComponent, MarkLineComponent, TooltipComponent, VisualMapContinuousComponent } from 'echarts/components'
import { CanvasRenderer } from 'echarts/renderers'

// echarts' core with what the dashboards draw, and nothing else. Only DashChart.tsx imports it, with
// import(), so it is a chunk of its own that dashboard pages alone download; the record details'
// small charts keep their own smaller setup (crud/details/echartsSetup.ts). The scrolling legend
// includes the plain one: a firmware mix may have more versions than fit on one line.
echarts.use([BarChart, LineChart, PieChart, HeatmapChart, GridComponent, TooltipComponent, LegendScrollComponent, VisualMapContinuousComponent, MarkLineComponent, CanvasRenderer])

export { echarts }
