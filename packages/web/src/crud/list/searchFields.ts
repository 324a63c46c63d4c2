import type { FieldDef, ResolvedEntity, SearchMode } from '@velo/shared'
import dayjs from 'dayjs'
import type { Filters, Row } from '../api/crudApi'
import { DATE_FORMAT } from '../kinds/cells'
import { toWireValue } from '../kinds/kindTable'

// The search form's fields and how its values become the list call's filters (docs/entity-engine.md:
// eq/like a value, range [from, to], in an array, subtree an id).

export interface SearchField {
  field: FieldDef
  mode: SearchMode
}

export interface SearchFieldOptions {
  /** Fields the page leaves out of the search form. */
  hide?: readonly string[]
  /** Filters the page forces into every call; their fields are not offered. */
  forced?: Filters
}

export function searchFieldsOf(e: ResolvedEntity, { hide = [], forced = {} }: SearchFieldOptions = {}): SearchField[] {
  return e.searchable
    .filter((f) => !hide.includes(f.name) && !(f.name in forced))
    .map((field) => ({ field, mode: field.search as SearchMode }))
}

export const isDayKind = (f: FieldDef) => f.kind === 'date' || f.kind === 'datetime'

/**
 * One end of a range. A day picked for an instant means that whole day in the browser's time zone,
 * sent as the instants it starts and ends with.
 */
function rangeEnd(f: FieldDef, value: unknown, end: 'start' | 'end'): unknown {
  if (value === undefined || value === null || value === '') return null
  if (!dayjs.isDayjs(value)) return value
  if (f.kind === 'date') return value.format(DATE_FORMAT)
  return (end === 'start' ? value.startOf('day') : value.endOf('day')).toISOString()
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.every((v) => v === null || v === undefined || v === ''))

/** The filters of the search form's values; empty inputs send nothing. */
export function filtersFrom(fields: readonly SearchField[], values: Row): Filters {
  const filters: Filters = {}
  for (const { field, mode } of fields) {
    const value = values[field.name]
    if (isEmpty(value)) continue
    if (mode === 'range') {
      const [from, to] = value as [unknown, unknown]
      filters[field.name] = [rangeEnd(field, from, 'start'), rangeEnd(field, to, 'end')]
    } else if (mode === 'in') {
      filters[field.name] = (value as unknown[]).map((v) => toWireValue(field, v))
    } else {
      filters[field.name] = toWireValue(field, value)
    }
  }
  return filters
}
