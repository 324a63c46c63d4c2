import type { ColumnUnit, FigureValue } from '@velo/shared'
import i18n from '../i18n'
import { formatDurationIn } from '../i18n/numbers'

// How a figure's values read on cards, axes, tooltips and in the summary table: the same text
// everywhere, in the page's language (digit grouping and unit words).

/** What a value the caller may not see, or one without data, shows as. */
export const NO_VALUE = '–'

const formatters = new Map<string, Intl.NumberFormat>()
function numberFormat(digits: number): Intl.NumberFormat {
  const locale = i18n.language === 'zh_CN' ? 'zh-CN' : 'en-US'
  const key = `${locale}/${digits}`
  let format = formatters.get(key)
  if (!format) {
    format = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits })
    formatters.set(key, format)
  }
  return format
}

/** Digits after the point per unit: a share to a tenth of a percent, a ratio to hundredths, counts whole. */
const DIGITS: Partial<Record<ColumnUnit, number>> = { percent: 1, ratio: 2, hours: 1, stars: 2, km: 1, ms: 0, count: 0 }

/** A number with its unit's precision and grouping, without the unit. */
export function formatNumber(value: number, unit: ColumnUnit): string {
  return numberFormat(DIGITS[unit] ?? 0).format(value)
}

/** A value as the dashboards show it: "12.5%", "1,234", "830 ms", "3 h 15 min", "–" for none. */
export function formatValue(value: FigureValue | undefined, unit: ColumnUnit): string {
  if (value === null || value === undefined || value === '') return NO_VALUE
  if (typeof value === 'string') {
    // Text, days, weeks and months come as text; a number sent as text still gets its unit.
    if (unit === 'text' || unit === 'day' || unit === 'week' || unit === 'month' || Number.isNaN(Number(value))) return value
    return formatValue(Number(value), unit)
  }
  switch (unit) {
    case 'percent':
      return `${formatNumber(value, unit)}%`
    case 'hours':
      // A time to reply reads as a duration, as the lists' durations do; the axis keeps hours (formatTick).
      return formatDurationIn(value, 'h')
    case 'ms':
    case 'km':
    case 'stars':
      return i18n.t(`dashboard.unit.${unit}`, { value: formatNumber(value, unit) })
    case 'text':
    case 'day':
    case 'week':
    case 'month':
      return String(value)
    default:
      return formatNumber(value, unit)
  }
}

/** An axis tick: the unit's number, short (no decimals for counts, a % for shares). */
export function formatTick(value: number, unit: ColumnUnit): string {
  if (unit === 'percent') return `${numberFormat(0).format(value)}%`
  if (unit === 'ratio' || unit === 'stars' || unit === 'hours') return numberFormat(Number.isInteger(value) ? 0 : 1).format(value)
  return numberFormat(0).format(value)
}
