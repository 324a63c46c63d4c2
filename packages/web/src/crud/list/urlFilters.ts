import { PAGE_SIZES, type FieldDef, type ResolvedEntity } from '@velo/shared'
import dayjs from 'dayjs'
import i18n from '../../i18n'
import type { Row } from '../api/crudApi'
import { isDayKind, type SearchField } from './searchFields'
import type { ListSort } from './useEntityList'

// A list's state lives in its page's URL: the search, the status chosen, the page, its size and the
// sort (/system/user?status=0&pageNum=2&orderByColumn=createTime&isAsc=desc, the list call's names). A list opened from a link (the home
// page's cards: /iot/warning?severity=critical&state=activeUnack,activeAck, a reload, a shared or
// bookmarked address) starts with them applied and shown in its search form, and each search, page or
// sort the user chooses is written back (replacing the address, not adding to the history).
//
// A parameter named as a searchable field sets that field: eq and like take the value, in
// comma-separated values, range 'from,to' (either end may be empty), booleans 'true' or 'false', days
// YYYY-MM-DD. `pageNum` and `pageSize` are numbers, `orderByColumn` a sortable field and `isAsc`
// 'asc' or 'desc'. Anything else, and a value the field cannot hold, is ignored: a stale link opens the
// list, not an error.

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

/** Where in a list the URL is: its page, page size and sort (each only when the URL names it). */
export interface ListPlace {
  pageNum?: number
  pageSize?: number
  sort?: ListSort
}

export interface UrlSearch {
  /** The search form's values for the fields the URL names. */
  values: Row
  /** A single value for the status bar's field (the bar shows it chosen). */
  state?: string
  /** Several values for the status bar's field: the bar cannot show them, so the search form does. */
  stateInForm: boolean
  place: ListPlace
}

/**
 * The history state of an address the list wrote itself (its user searched, chose a status or a
 * page). Such an address may arrive after the user changed the list again (two quick choices on a
 * busy machine): the list then writes what it shows instead of going back to it. Only an address
 * from elsewhere (a link, a home card) opens the list at what it names.
 */
export const LIST_WRITE_STATE = { listPlace: true } as const

/** Whether a location's history state says the list wrote the address itself. */
export const writtenByList = (state: unknown): boolean => typeof state === 'object' && state !== null && (state as { listPlace?: unknown }).listPlace === true

/** The URL parameters of a list's place; no entity field takes these names (LIST_PLACE_NAMES, shared/entity/define.ts). */
export const PLACE_PARAMS = ['pageNum', 'pageSize', 'orderByColumn', 'isAsc'] as const

const positiveInt = (text: string | null) => (text !== null && /^[1-9]\d{0,8}$/.test(text) ? Number(text) : undefined)

/** The page, size and sort a URL names, each only if the list can show it. */
export function placeFromUrl(e: ResolvedEntity, params: URLSearchParams): ListPlace {
  const place: ListPlace = {}
  // A tree lists every row at once: it has no pages.
  const pageNum = e.treeParent ? undefined : positiveInt(params.get('pageNum'))
  if (pageNum) place.pageNum = pageNum
  const pageSize = positiveInt(params.get('pageSize'))
  if (pageSize && !e.treeParent && (PAGE_SIZES as readonly number[]).includes(pageSize)) place.pageSize = pageSize
  const field = params.get('orderByColumn')
  const order = params.get('isAsc')
  if (field && e.sortable.has(field) && (order === 'asc' || order === 'desc')) place.sort = { field, order }
  return place
}

/** One value as the URL holds it (the inverse of formValue), or undefined for an empty one. */
function urlText(f: FieldDef, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined
  if (dayjs.isDayjs(value)) return value.format(isDayKind(f) ? 'YYYY-MM-DD' : 'YYYY-MM-DDTHH:mm:ss')
  return String(value)
}

/** One URL parameter, its commas left readable (lists and ranges are comma-separated). */
const queryParam = ([name, text]: readonly [string, string]) => `${encodeURIComponent(name)}=${encodeURIComponent(text).replace(/%2C/gi, ',')}`

/** What a list shows, as the URL says it: the search form's values, the status chosen, and the place. */
export interface ListView {
  fields: readonly SearchField[]
  values: Row
  /** The status bar's field and the status it shows chosen (undefined: all). */
  bar?: { field: string; chosen?: string }
  pageNum: number
  pageSize: number
  defaultPageSize: number
  sort: ListSort | null
}

/**
 * The list's parameters, in one order, for what it shows: equal strings mean the same list, so the
 * URL is written only when it says something else. Values keep their commas readable.
 */
export function listQuery(view: ListView): string {
  const params: [string, string][] = []
  for (const { field, mode } of view.fields) {
    const value = view.values[field.name]
    if (mode === 'in' || mode === 'range') {
      if (!Array.isArray(value)) continue
      const texts = value.map((v) => urlText(field, v) ?? '')
      if (texts.some((t) => t !== '')) params.push([field.name, texts.join(',')])
    } else {
      const text = urlText(field, value)
      if (text !== undefined && text.trim() !== '') params.push([field.name, text])
    }
  }
  if (view.bar?.chosen !== undefined) params.push([view.bar.field, view.bar.chosen])
  if (view.pageNum > 1) params.push(['pageNum', String(view.pageNum)])
  if (view.pageSize !== view.defaultPageSize) params.push(['pageSize', String(view.pageSize)])
  if (view.sort) params.push(['orderByColumn', view.sort.field], ['isAsc', view.sort.order])
  return params.map(queryParam).join('&')
}

/**
 * The address's query with the list's own parameters replaced by `query`: parameters the list does not
 * own (a page's own, such as a chosen tab) stay as they were.
 */
export function withListQuery(search: string, owned: readonly string[], query: string): string {
  const kept = [...new URLSearchParams(search)].filter(([name]) => !owned.includes(name))
  const rest = kept.map(queryParam)
  const all = [query, ...rest].filter(Boolean).join('&')
  return all ? `?${all}` : ''
}

/**
 * What a list's URL query asks for. `fields` are the search form's fields; `stateField` is the
 * field the status bar filters by (not in the form), if the list has one.
 */
export function searchFromUrl(fields: readonly SearchField[], params: URLSearchParams, stateField?: SearchField, place: ListPlace = {}): UrlSearch {
  const values: Row = {}
  for (const field of fields) {
    const text = params.get(field.field.name)
    if (text === null) continue
    const value = searchValue(field, text)
    if (value !== undefined) values[field.field.name] = value
  }
  const stateText = stateField ? params.get(stateField.field.name) : null
  if (!stateField || stateText === null) return { values, stateInForm: false, place }
  const states = splitList(stateText).filter((v) => formValue(stateField.field, v) !== undefined)
  if (states.length === 1) return { values, state: states[0], stateInForm: false, place }
  if (states.length > 1 && stateField.mode === 'in') return { values: { ...values, [stateField.field.name]: states }, stateInForm: true, place }
  return { values, stateInForm: false, place }
}
