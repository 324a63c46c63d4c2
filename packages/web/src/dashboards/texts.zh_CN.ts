import type { TextKey } from './texts.en_US'

// The dashboards kit's texts in Chinese; the Record type makes a missing or extra key a compile error.

const texts: Record<TextKey, string> = {
  'dashboard.range': '日期范围',
  'dashboard.lastDays_one': '最近 {{count}} 天',
  'dashboard.lastDays_other': '最近 {{count}} 天',
  'dashboard.filter.countryId': '国家/地区',
  'dashboard.filter.modelId': '车型',
  'dashboard.filter.platform': '平台',
  'dashboard.reset': '重置',
  'dashboard.export': '下载 xlsx',
  'dashboard.updated': '汇总更新于 {{time}}',
  'dashboard.live': '实时数据',
  'dashboard.chart': '图表',
  'dashboard.table': '表格',
  'dashboard.empty': '所选时段内暂无数据',
  'dashboard.failed': '数据加载失败',
  'dashboard.retry': '重试',
  'dashboard.unit.ms': '{{value}} 毫秒',
  'dashboard.unit.km': '{{value}} 公里',
  'dashboard.unit.stars': '{{value}} ★',
  // Dashboards (issue 36): the range's default and limit, grouped series, partial periods, axis names.
  'dashboard.rangeDefault': '最近 {{days}} 天（所有看板的默认时段）· 最长 {{max}} 天',
  'dashboard.rangeChosen': '最长 {{max}} 天 · 重置后显示最近 {{days}} 天',
  'dashboard.rangeLimit': '时段最长 {{max}} 天，超出的日期不可选',
  'dashboard.showDefault': '显示最近 {{days}} 天',
  'dashboard.other': '其他',
  'dashboard.partial': '今日（未完）',
  'dashboard.partialNote': '{{day}}：今日至今（数据未完整）',
  'dashboard.partialWeek': '本周（未完）',
  'dashboard.partialWeekNote': '{{day}} 当周：本周至今（数据未完整）',
  'dashboard.partialMonth': '本月（未完）',
  'dashboard.partialMonthNote': '{{day}}：本月至今（数据未完整）',
  'dashboard.axisName': '{{names}}（{{unit}}）',
  'dashboard.axisUnit.percent': '%',
  'dashboard.axisUnit.hours': '小时',
  'dashboard.axisUnit.ms': '毫秒',
  'dashboard.axisUnit.km': '公里',
  'dashboard.axisUnit.stars': '星',
  'dashboard.axisUnit.count': '数量',
  'dashboard.axisUnit.ratio': '比值',
}

export default texts
