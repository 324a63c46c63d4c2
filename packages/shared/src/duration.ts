import type { Language } from './api'
import type { FieldDef, Label } from './entity/types'

// How long something takes, as people read it (issue 36): a ride of "1 h 12 min", not 4,320 seconds.
// A number field declares the unit it stores (`duration: 's'`); lists, details and cards read it
// through formatDuration, while the places that show the bare number (a form's input, an Excel
// column, a validation message) name the unit instead (durationLabel, labelWithUnit).

/** The unit a duration is stored in. Months and years are left out: they have no fixed length. */
export type DurationUnit = 'ms' | 's' | 'min' | 'h' | 'd'
export const DURATION_UNITS: readonly DurationUnit[] = ['ms', 's', 'min', 'h', 'd']

const MS: Record<DurationUnit, number> = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 }

/** The unit beside a bare number: a form input's suffix, an Excel header's "(s)". */
export const DURATION_UNIT_LABELS: Record<DurationUnit, Label> = {
  ms: { en_US: 'ms', zh_CN: '毫秒' },
  s: { en_US: 's', zh_CN: '秒' },
  min: { en_US: 'min', zh_CN: '分钟' },
  h: { en_US: 'h', zh_CN: '小时' },
  d: { en_US: 'days', zh_CN: '天' },
}

// The words inside a formatted duration. Chinese says 分 beside another unit (1小时12分, 3分20秒) and
// 分钟 alone (12分钟), and writes no spaces.
const WORDS: Record<Language, Record<DurationUnit, string>> = {
  en_US: { ms: 'ms', s: 's', min: 'min', h: 'h', d: 'd' },
  zh_CN: { ms: '毫秒', s: '秒', min: '分', h: '小时', d: '天' },
}

function part(n: number, unit: DurationUnit, lang: Language, alone: boolean): string {
  if (lang === 'zh_CN') return `${n}${alone && unit === 'min' ? '分钟' : WORDS.zh_CN[unit]}`
  return `${n} ${WORDS.en_US[unit]}`
}

/** From the largest: the units a duration of a second or more is told in, two at most. */
const LADDER: readonly DurationUnit[] = ['d', 'h', 'min', 's']
const largestIn = (ms: number) => LADDER.find((u) => ms >= MS[u]) ?? 's'

/**
 * A duration in `unit` as people read it, in the largest unit and the next one, rounded to the
 * nearer of the second: "1 h 12 min", "45 s", "2 d 3 h", "12 min 30 s"; below a minute to a tenth of
 * a second ("1.2 s"), below a second in milliseconds ("830 ms"). Chinese: "1小时12分", "45秒",
 * "2天3小时", "12分钟". Zero is said in the stored unit ("0 h"); a value that is no number as it came.
 */
export function formatDuration(value: number, unit: DurationUnit, lang: Language): string {
  if (!Number.isFinite(value)) return String(value)
  if (value < 0) return `-${formatDuration(-value, unit, lang)}`
  if (value === 0) return part(0, unit, lang, true)
  const ms = value * MS[unit]
  if (ms < 999.5) return part(Math.round(ms), 'ms', lang, true)
  const tenths = Math.round(ms / 100) / 10
  if (tenths < 60) return part(tenths, 's', lang, true)
  // Rounding may carry into a larger unit (59 min 59.6 s is 1 h): round again to that unit's step.
  let total = ms
  for (;;) {
    const big = largestIn(total)
    const small = LADDER[LADDER.indexOf(big) + 1]
    const rounded = Math.round(total / MS[small ?? 's']) * MS[small ?? 's']
    if (largestIn(rounded) !== big) {
      total = rounded
      continue
    }
    const whole = Math.floor(rounded / MS[big])
    const rest = small ? Math.round((rounded - whole * MS[big]) / MS[small]) : 0
    if (!small || rest === 0) return part(whole, big, lang, true)
    return `${part(whole, big, lang, false)}${lang === 'zh_CN' ? '' : ' '}${part(rest, small, lang, false)}`
  }
}

/** The unit a number field's duration is stored in; none for any other field. */
export const durationUnitOf = (f: FieldDef): DurationUnit | undefined => (f.kind === 'number' ? f.duration : undefined)

/**
 * A field's label with the unit of its bare number, where a number is shown without being read as a
 * duration: "Duration (s)", "时长（秒）" (Excel headers, validation messages). Any other field: its label.
 */
export function labelWithUnit(f: FieldDef): Label {
  const unit = durationUnitOf(f)
  if (!unit) return f.label
  return { en_US: `${f.label.en_US} (${DURATION_UNIT_LABELS[unit].en_US})`, zh_CN: `${f.label.zh_CN}（${DURATION_UNIT_LABELS[unit].zh_CN}）` }
}
