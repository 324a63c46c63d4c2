import type { Label, ResolvedEntity } from '@velo/shared'

type Row = Record<string, unknown>

export const blank = (v: unknown) => v === undefined || v === null || String(v).trim() === ''

/** SQLite answers booleans as 0/1, PostgreSQL as true/false. */
export const isTrue = (v: unknown) => v === true || v === 1 || v === '1' || v === 'true'

/** The row as it will be after a modify: what was stored, with the changed values over it. */
export const merged = (before: Row, values: Row): Row => ({ ...before, ...Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) })

/** The `data` of a refusal that marks one form field. */
export const on = (field: string) => ({ errors: [{ field }] })

/** An enum field's option as people read it, else the value itself. */
export function optionLabel(e: ResolvedEntity, field: string, value: unknown): Label {
  const f = e.fieldMap.get(field)
  return (f?.kind === 'enum' ? f.options.find((o) => o.value === value)?.label : undefined) ?? { en_US: String(value), zh_CN: String(value) }
}

/** Milliseconds of a stored or sent time, null when there is none. */
export const timeOf = (v: unknown): number | null => (blank(v) ? null : Date.parse(String(v)))
