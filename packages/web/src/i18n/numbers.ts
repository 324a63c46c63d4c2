import { DEFAULT_LANGUAGE, DURATION_UNIT_LABELS, formatDuration, LANGUAGES, type DurationUnit, type Language } from '@velo/shared'
import i18n, { localized } from './index'

const formats = new Map<string, Intl.NumberFormat>()

/**
 * A count in the page's language (3,357), whatever the browser's own locale: the one format of the
 * kit's counts (an export's rows, an import's progress), as the server's texts write theirs.
 */
export function formatCount(n: number): string {
  const locale = i18n.language === 'zh_CN' ? 'zh-CN' : 'en-US'
  let format = formats.get(locale)
  if (!format) formats.set(locale, (format = new Intl.NumberFormat(locale)))
  return format.format(n)
}

/** The page's language as the shared formatters take it. */
const pageLanguage = (): Language => ((LANGUAGES as readonly string[]).includes(i18n.language) ? (i18n.language as Language) : DEFAULT_LANGUAGE)

/**
 * A duration stored in `unit`, in the page's language: "1 h 12 min", "1小时12分" (shared
 * formatDuration). Lists, details, cards and dashboards read durations through it.
 */
export function formatDurationIn(value: number, unit: DurationUnit): string {
  return formatDuration(value, unit, pageLanguage())
}

/** The unit beside a duration's bare number (a form input's suffix): "s", "秒". */
export function durationUnitWord(unit: DurationUnit): string {
  return localized(DURATION_UNIT_LABELS[unit])
}
