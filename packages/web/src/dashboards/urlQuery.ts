import { DASHBOARD_DEFAULT_DAYS, DASHBOARD_MAX_DAYS, type DashboardDef, type DashboardFilter, type DashboardQuery } from '@velo/shared'

// A dashboard's view lives in its URL (from, to, countryId, modelId, platform): a reload, a pasted
// link and the browser's back and forward show the same figures. Only what the user chose is
// written; the range the URL leaves out is the dashboard's default, which the server applies too.

const DAY = /^\d{4}-\d{2}-\d{2}$/
const DAY_MS = 86_400_000

/** What the URL may name; the server answers the full query. */
export type ViewQuery = Partial<DashboardQuery>

/** Today as a UTC day (the dashboards' days are UTC days, like the server's). */
export const utcToday = (now: Date = new Date()): string => now.toISOString().slice(0, 10)

/** The UTC day `n` days after `day` (n may be negative). */
export const addDays = (day: string, n: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10)

/** The last `days` days up to `today`, both ends included. */
export const lastDays = (days: number, today: string = utcToday()): { from: string; to: string } => ({ from: addDays(today, -(days - 1)), to: today })

const isDay = (v: string | null): v is string => !!v && DAY.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))
const positiveInt = (v: string | null): number | undefined => (v && /^\d{1,9}$/.test(v) && Number(v) > 0 ? Number(v) : undefined)

const FILTER_READERS: Record<DashboardFilter, (v: string | null) => DashboardQuery[DashboardFilter] | undefined> = {
  countryId: positiveInt,
  modelId: positiveInt,
  platform: (v) => (v === 'ios' || v === 'android' ? v : undefined),
}

/**
 * The view a URL names, for the filters this dashboard takes: malformed values are left out (the
 * default applies) rather than sent; a reversed or too long range is sent, and the server's message
 * says what is wrong with it.
 */
export function readViewQuery(params: URLSearchParams, def: DashboardDef): ViewQuery {
  const view: ViewQuery = {}
  const from = params.get('from')
  const to = params.get('to')
  if (isDay(from)) view.from = from
  if (isDay(to)) view.to = to
  for (const filter of def.filters) {
    const value = FILTER_READERS[filter](params.get(filter))
    if (value !== undefined) Object.assign(view, { [filter]: value })
  }
  return view
}

/** The URL query of a view, in a fixed order so the same view has the same URL. */
export function writeViewQuery(view: ViewQuery): URLSearchParams {
  const params = new URLSearchParams()
  for (const key of ['from', 'to', 'countryId', 'modelId', 'platform'] as const) {
    const value = view[key]
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value))
  }
  return params
}

/** The range shown before the server has answered: what the URL names, else the default (every dashboard's). */
export function shownRange(view: ViewQuery, today: string = utcToday()): { from: string; to: string } {
  const to = view.to ?? today
  return { from: view.from ?? addDays(to, -(DASHBOARD_DEFAULT_DAYS - 1)), to }
}

/** Days from `a` to `b`, both included (negative when b is before a). */
export const daysBetween = (a: string, b: string): number => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS) + 1

/**
 * Whether the date picker offers a day: not after today, and once one end is picked, not so far from
 * it that the range would pass the longest the server answers (DASHBOARD_MAX_DAYS, ends included).
 */
export function dayOutOfReach(day: string, pickedEnd: string | undefined, today: string = utcToday()): boolean {
  if (day > today) return true
  if (!pickedEnd) return false
  const [a, b] = day < pickedEnd ? [day, pickedEnd] : [pickedEnd, day]
  return daysBetween(a, b) > DASHBOARD_MAX_DAYS
}
