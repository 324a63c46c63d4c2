import type { ResolvedEntity } from './define'
import type { EntityDef, FieldDef, Label, RelatedChart, SummaryBucket } from './types'
import { SUMMARY_BUCKETS } from './types'

// Related lists (docs/entity-engine.md › Related lists): a row's details list the rows of other
// entities that refer to it. What a definition says alone is checked when it is defined; what needs
// the other entity (which may be registered later) is checked when the lists are first resolved,
// which the server does for every entity it serves, at start.

/** Rows per page of a related list without its own `pageSize`. */
export const RELATED_PAGE_SIZE = 10
/** How far back a related chart reaches without its own `weeks`. */
export const RELATED_CHART_WEEKS = 12

const ENTRY_KEYS = new Set(['entity', 'by', 'label', 'columns', 'pageSize', 'chart', 'manage', 'actions'])
const CHART_KEYS = new Set(['time', 'value', 'by', 'weeks', 'type'])

/** Fields whose values POST {path}/summary may add up: number and money fields marked `summable`. */
export const summableFields = (e: Pick<EntityDef, 'fields'>): FieldDef[] =>
  e.fields.filter((f) => (f.kind === 'number' || f.kind === 'money') && f.summable === true)

/** Fields POST {path}/summary may put rows into periods by: dates and times. */
export const timeFields = (e: Pick<EntityDef, 'fields'>): FieldDef[] => e.fields.filter((f) => f.kind === 'date' || f.kind === 'datetime')

/** What a definition's related lists say on their own, checked by defineEntity. */
export function checkRelatedDefinition(def: EntityDef) {
  const fail = (what: string) => {
    throw new Error(`${def.key}: ${what}`)
  }
  for (const f of def.fields) {
    // The type allows the flag on numbers and money only; a definition built at run time may not say so.
    const flagged = (f as { summable?: unknown }).summable !== undefined
    if (flagged && f.kind !== 'number' && f.kind !== 'money') fail(`${f.name} is summable, but only number and money fields add up`)
  }
  const seen = new Set<string>()
  for (const [i, r] of (def.related ?? []).entries()) {
    const where = `related[${i}]`
    if (typeof r.entity !== 'string' || !r.entity) fail(`${where} needs the related entity's key (entity)`)
    if (typeof r.by !== 'string' || !r.by) fail(`${where} (${r.entity}) needs the reference field that points at ${def.key} (by)`)
    const name = `related ${r.entity}.${r.by}`
    for (const k of Object.keys(r)) if (!ENTRY_KEYS.has(k)) fail(`${name}: unknown property ${k}`)
    if (seen.has(`${r.entity}.${r.by}`)) fail(`${name} is listed twice`)
    seen.add(`${r.entity}.${r.by}`)
    if (r.pageSize !== undefined && !(Number.isInteger(r.pageSize) && r.pageSize >= 1 && r.pageSize <= 500)) fail(`${name}: pageSize must be a whole number from 1 to 500`)
    if (r.columns && !r.columns.length) fail(`${name}: columns is empty (leave it out for the list's columns)`)
    if (r.actions !== undefined) {
      if (!Array.isArray(r.actions) || !r.actions.length || r.actions.some((a) => typeof a !== 'string' || !a)) fail(`${name}: actions must name one or more row actions or steps of ${r.entity}`)
      if (r.manage) fail(`${name}: a managed list offers every row action already (leave actions out)`)
      if (new Set(r.actions).size !== r.actions.length) fail(`${name}: actions names one twice`)
    }
    const c = r.chart
    if (!c) continue
    for (const k of Object.keys(c)) if (!CHART_KEYS.has(k)) fail(`${name}: unknown chart property ${k}`)
    if (!SUMMARY_BUCKETS.includes(c.by)) fail(`${name}: chart.by must be one of ${SUMMARY_BUCKETS.join(', ')}`)
    if (c.weeks !== undefined && !(Number.isInteger(c.weeks) && c.weeks >= 1 && c.weeks <= 520)) fail(`${name}: chart.weeks must be a whole number from 1 to 520`)
    if (c.type !== undefined && c.type !== 'bar' && c.type !== 'line') fail(`${name}: chart.type must be bar or line`)
  }
}

/** A related list with the other entity found and its defaults filled: what the details show. */
export interface ResolvedRelatedList {
  /** `${entity}.${by}`: tells the lists of one row apart. */
  key: string
  entity: ResolvedEntity
  /** The related entity's reference field that holds this row's id. */
  by: string
  label: Label
  /** The related entity's fields shown, in order. */
  columns: readonly FieldDef[]
  pageSize: number
  chart: (RelatedChart & { weeks: number; type: 'bar' | 'line' }) | null
  /** The tab is the related entity's list page fixed to the row (RelatedList.manage). */
  manage: boolean
  /** The related entity's row actions and steps the compact table offers (RelatedList.actions); none by default. */
  actions: readonly string[]
}

const resolvedLists = new WeakMap<ResolvedEntity, readonly ResolvedRelatedList[]>()

/**
 * The related lists of an entity, checked against the entities they name (found with `lookup`,
 * the registry's entityByKey): the entity exists and offers its list, `by` is its reference to this
 * entity filtered by 'eq' (the list call sends `{ [by]: id }`), the columns are its fields, and a
 * chart names its date or time field and a summable number or money field. A bad list throws,
 * naming the entity and what to change; the answer is kept, so the checks run once.
 */
export function relatedListsOf(e: ResolvedEntity, lookup: (key: string) => ResolvedEntity): readonly ResolvedRelatedList[] {
  const kept = resolvedLists.get(e)
  if (kept) return kept
  const lists = (e.related ?? []).map((r): ResolvedRelatedList => {
    const name = `${e.key}: related ${r.entity}.${r.by}`
    const fail = (what: string): never => {
      throw new Error(`${name}: ${what}`)
    }
    let target: ResolvedEntity
    try {
      target = lookup(r.entity)
    } catch {
      return fail(`no entity ${r.entity} is registered (a definition's module is named in entities/catalog.ts, a test's own with registerEntities)`)
    }
    if (!target.operations.includes('list')) fail(`${r.entity} has no list operation to read the rows through`)
    const by = target.fieldMap.get(r.by)
    if (!by) fail(`${r.by} is not a field of ${r.entity}`)
    if (by!.kind !== 'reference' || by!.entity !== e.key) fail(`${r.entity}.${r.by} must be a reference field to ${e.key} (kind: 'reference', entity: '${e.key}')`)
    if (by!.search !== 'eq') {
      fail(`${r.entity}.${r.by} must be searchable with search: 'eq', so that ${r.entity}'s list accepts { ${r.by}: id } (it has ${by!.search ? `search: '${by!.search}'` : 'no search'})`)
    }
    const columns = r.columns
      ? r.columns.map((c) => {
          const f = target.fieldMap.get(c)
          if (!f) return fail(`column ${c} is not a field of ${r.entity}`)
          if (f.kind === 'password') return fail(`column ${c} is a password, which is never read`)
          return f
        })
      : target.listed.filter((f) => f.name !== r.by)
    // What each row may offer: the related entity's row actions and steps, by the names its definition gives.
    const operations = new Set([...(target.actions ?? []).filter((a) => a.on === 'row').map((a) => a.name), ...(target.transitions?.steps ?? []).map((s) => s.name)])
    for (const a of r.actions ?? []) if (!operations.has(a)) fail(`actions: ${a} is not a row action or step of ${r.entity}`)
    let chart: ResolvedRelatedList['chart'] = null
    if (r.chart) {
      const c = r.chart
      const time = target.fieldMap.get(c.time)
      if (time?.kind !== 'date' && time?.kind !== 'datetime') fail(`chart.time ${c.time} must be a date or datetime field of ${r.entity}`)
      if (c.value !== undefined && !summableFields(target).some((f) => f.name === c.value)) {
        fail(`chart.value ${c.value} must be a number or money field of ${r.entity} marked summable: true`)
      }
      chart = { ...c, weeks: c.weeks ?? RELATED_CHART_WEEKS, type: c.type ?? 'bar' }
    }
    return { key: `${r.entity}.${r.by}`, entity: target, by: r.by, label: r.label ?? target.label, columns, pageSize: r.pageSize ?? RELATED_PAGE_SIZE, chart, manage: !!r.manage, actions: r.actions ?? [] }
  })
  resolvedLists.set(e, lists)
  return lists
}

// Periods, in UTC as every stored time is: the server groups rows by them, the web fills the periods
// without rows with zeros. A period is named by its first day, 'YYYY-MM-DD'.

const DAY_MS = 86_400_000
const isoDay = (d: Date) => d.toISOString().slice(0, 10)
const dayOf = (day: string) => new Date(`${day}T00:00:00.000Z`)

/** The first day of the period a day falls in (weeks start on Monday). */
export function periodStart(by: SummaryBucket, day: Date | string): string {
  const d = typeof day === 'string' ? dayOf(day.slice(0, 10)) : new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()))
  if (by === 'month') d.setUTCDate(1)
  if (by === 'week') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7))
  return isoDay(d)
}

/** The first days of every period from the one holding `from` to the one holding `to`, in order. */
export function periodsBetween(by: SummaryBucket, from: string, to: string): string[] {
  const out: string[] = []
  const d = dayOf(periodStart(by, from))
  const end = dayOf(to).getTime()
  while (d.getTime() <= end) {
    out.push(isoDay(d))
    if (by === 'day') d.setUTCDate(d.getUTCDate() + 1)
    else if (by === 'week') d.setUTCDate(d.getUTCDate() + 7)
    else d.setUTCMonth(d.getUTCMonth() + 1)
  }
  return out
}

/** How many periods a summary from `from` to `to` answers at most (what the server limits). */
export function periodCount(by: SummaryBucket, from: string, to: string): number {
  const a = dayOf(periodStart(by, from))
  const b = dayOf(to)
  if (b < a) return 0
  if (by === 'day') return Math.round((b.getTime() - a.getTime()) / DAY_MS) + 1
  if (by === 'week') return Math.floor((b.getTime() - a.getTime()) / (7 * DAY_MS)) + 1
  return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth() + 1
}

/**
 * The days a related chart covers, up to and including today: the last `weeks` weeks, starting on
 * the first day of a period (12 weekly bars end with this week's, Monday to today).
 */
export function chartRange(chart: Pick<RelatedChart, 'by' | 'weeks'>, today: Date = new Date()): { from: string; to: string } {
  const weeks = chart.weeks ?? RELATED_CHART_WEEKS
  const to = isoDay(today)
  const back = chart.by === 'week' ? (weeks - 1) * 7 : weeks * 7 - 1
  const from = periodStart(chart.by, new Date(dayOf(chart.by === 'week' ? periodStart('week', to) : to).getTime() - back * DAY_MS))
  return { from, to }
}
