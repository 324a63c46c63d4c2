import type { FieldDef, ResolvedEntity } from '@velo/shared'
import dayjs from 'dayjs'
import i18n from '../../i18n'
import type { Row } from '../api/crudApi'
import { isDayKind, type SearchField } from './searchFields'

// A list opened from a link with filters (the home page's cards: /iot/warning?severity=critical&
// state=activeUnack,activeAck) starts with them applied and shown in its search form. A parameter
// named as a searchable field sets that field: eq and like take the value, in comma-separated
// values, range 'from,to' (either end may be empty), booleans 'true' or 'false'. Anything else,
// and a value the field cannot hold, is ignored: a stale link opens the list, not an error.

const NUMERIC = new Set(['number', 'money', 'reference', 'treeParent', 'referenceMany'])

/**
 * `overdue` (past its due time in a state that is not final), a filter of entities with due times.
 * It is no field of theirs, so the search form gets it as a yes/no field of its own.
 */
export function overdueField(e: ResolvedEntity): SearchField | null {
  if (!e.transitions?.deadline) return null
  // The label in the page's language, from the catalogue the page loaded (the other one may not be).
  const overdue = i18n.t('crud.overdue')
  const field = { name: 'overdue', kind: 'boolean', label: { en_US: overdue, zh_CN: overdue }, search: 'eq' } as FieldDef
  return { field, mode: 'eq' }
}

/** One value as the search form holds it, or undefined when the field cannot hold it. */
function formValue(f: FieldDef, text: string): unknown {
  const value = text.trim()
  if (value === '') return undefined
  if (f.kind === 'boolean') return value === 'true' ? true : value === 'false' ? false : undefined
  if (NUMERIC.has(f.kind)) return Number.isFinite(Number(value)) ? Number(value) : undefined
  if (f.kind === 'enum') return f.options.some((o) => o.value === value) ? value : undefined
  if (isDayKind(f)) {
    const day = dayjs(value)
    return day.isValid() ? day : undefined
  }
  return value
}

const splitList = (text: string) => text.split(',').map((v) => v.trim())

/** A field's search value from its URL parameter. */
function searchValue({ field, mode }: SearchField, text: string): unknown {
  if (mode === 'in') {
    const values = splitList(text)
      .map((v) => formValue(field, v))
      .filter((v) => v !== undefined)
    return values.length ? values : undefined
  }
  if (mode === 'range') {
    const [from = '', to = ''] = splitList(text)
    const ends = [formValue(field, from) ?? null, formValue(field, to) ?? null]
    return ends.some((v) => v !== null) ? ends : undefined
  }
  return formValue(field, text)
}

export interface UrlSearch {
  /** The search form's values for the fields the URL names. */
  values: Row
  /** A single value for the status bar's field (the bar shows it chosen). */
  state?: string
  /** Several values for the status bar's field: the bar cannot show them, so the search form does. */
  stateInForm: boolean
}

/**
 * What a list's URL query asks for. `fields` are the search form's fields; `stateField` is the
 * field the status bar filters by (not in the form), if the list has one.
 */
export function searchFromUrl(fields: readonly SearchField[], params: URLSearchParams, stateField?: SearchField): UrlSearch {
  const values: Row = {}
  for (const field of fields) {
    const text = params.get(field.field.name)
    if (text === null) continue
    const value = searchValue(field, text)
    if (value !== undefined) values[field.field.name] = value
  }
  const stateText = stateField ? params.get(stateField.field.name) : null
  if (!stateField || stateText === null) return { values, stateInForm: false }
  const states = splitList(stateText).filter((v) => formValue(stateField.field, v) !== undefined)
  if (states.length === 1) return { values, state: states[0], stateInForm: false }
  if (states.length > 1 && stateField.mode === 'in') return { values: { ...values, [stateField.field.name]: states }, stateInForm: true }
  return { values, stateInForm: false }
}
