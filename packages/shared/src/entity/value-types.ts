import type { EnumOption, Label } from './types'

/**
 * The type of a value stored as text whose meaning another field decides (a configuration value is
 * typed by its key): the server checks it on every write, the form offers its input.
 */
export type ValueType =
  /** 'true' or 'false'; a switch. */
  | { type: 'boolean' }
  /** A whole number from min to max; a number input with those limits. */
  | { type: 'integer'; min: number; max: number; unit?: Label }
  /** One of the options' values; a select. */
  | { type: 'enum'; options: readonly EnumOption[] }
  /** Free text, optionally matching a pattern that `rule` says in words ("must be 6 to 20 …"). */
  | { type: 'text'; pattern?: RegExp; rule?: Label }

/** Why a value does not fit its type, for each side to say in its own catalogue. */
export type ValueProblem =
  | { type: 'boolean' }
  | { type: 'integer'; min: number; max: number }
  | { type: 'enum'; values: string[] }
  | { type: 'text'; rule?: Label }

/**
 * The value as stored if it fits the type ('TRUE ' → 'true', '010' → '10'), else what is wrong.
 * Blank values are left to the field's own "required" rule.
 */
export function checkTypedValue(vt: ValueType, raw: string): { ok: true; value: string } | { ok: false; problem: ValueProblem } {
  const text = raw.trim()
  switch (vt.type) {
    case 'boolean': {
      const lower = text.toLowerCase()
      return lower === 'true' || lower === 'false' ? { ok: true, value: lower } : { ok: false, problem: { type: 'boolean' } }
    }
    case 'integer': {
      const n = /^[+-]?\d{1,15}$/.test(text) ? Number(text) : Number.NaN
      return Number.isSafeInteger(n) && n >= vt.min && n <= vt.max
        ? { ok: true, value: String(n) }
        : { ok: false, problem: { type: 'integer', min: vt.min, max: vt.max } }
    }
    case 'enum': {
      const values = vt.options.map((o) => o.value)
      return values.includes(text) ? { ok: true, value: text } : { ok: false, problem: { type: 'enum', values } }
    }
    case 'text':
      return !vt.pattern || vt.pattern.test(text) ? { ok: true, value: text } : { ok: false, problem: { type: 'text', rule: vt.rule } }
  }
}
