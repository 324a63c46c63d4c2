import { type FieldDef, meetsCondition, type ResolvedEntity, type RowCondition, type StateRefusal, stateAllowsEdit, stateRules } from '@velo/shared'
import type { Expression, SqlBool } from 'kysely'
import type { DynamicEb } from '../../db/database'
import { conflict } from '../errors'
import { t } from '../i18n'

// The definition's state rules on the engine's modify and delete paths (docs/entity-engine.md ›
// State rules): a row refuses what its state forbids with a 409 naming the row and why, before
// anything is written, and the write itself holds only while the row is still in the state that
// was judged, so a step that moves the row meanwhile cannot slip a forbidden change through.

type Row = Record<string, unknown>
type AnyEb = DynamicEb

/** The row's name in a refusal: its label field (an order number, a title), else its id. */
const named = (e: ResolvedEntity, row: Row) => ({ entityEn: e.singular.en_US, entityZh: e.singular.zh_CN, name: String(row[e.labelField] ?? row[e.idField] ?? '') })

/** Why, in both languages: the rule's reason, else "it is Finished" / "当前状态为“已完成”". */
function because(r: StateRefusal) {
  const state = { stateEn: r.state.en_US, stateZh: r.state.zh_CN }
  return { reasonEn: r.reason?.en_US ?? t('en_US', 'state.is', state), reasonZh: r.reason?.zh_CN ?? t('zh_CN', 'state.is', state) }
}

/** Whether the row's state locks any field (a read-only row, or only some fields editable). */
export const lockedByState = (e: ResolvedEntity, row: Row) => stateRules(e, row).editable !== 'all'

/** Refuses deleting rows when one of them may not go (the first such row is named): all or nothing. */
export function refuseForbiddenDelete(e: ResolvedEntity, rows: readonly Row[]) {
  for (const row of rows) {
    const refusal = stateRules(e, row).deleteRefusal
    if (refusal) throw conflict('state.noDelete', { ...named(e, row), ...because(refusal) })
  }
}

const blank = (v: unknown) => v === null || v === undefined || v === ''
const text = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v))
const truth = (v: unknown) => v === true || v === 1 || v === '1' || v === 'true'

/** Whether a value sent for a field is the one stored, whatever form either came in (a PostgreSQL bigint as text, a boolean as 1). */
export function sameValue(f: FieldDef, sent: unknown, stored: unknown): boolean {
  if (blank(sent) || blank(stored)) return blank(sent) && blank(stored)
  switch (f.kind) {
    case 'boolean':
      return truth(sent) === truth(stored)
    case 'number':
    case 'money':
    case 'reference':
    case 'treeParent':
      return Number(sent) === Number(stored)
    case 'datetime':
      return new Date(text(sent)).getTime() === new Date(text(stored)).getTime()
    case 'date':
      return text(sent).slice(0, 10) === text(stored).slice(0, 10)
    case 'referenceMany': {
      const ids = (v: unknown) => [...new Set((v as unknown[]).map(Number))].sort((a, b) => a - b).join()
      return ids(sent) === ids(stored)
    }
    default:
      return text(sent) === text(stored)
  }
}

/**
 * The changes a modify may make to a row in its state. A field the state locks refuses the modify
 * (409 naming the fields, the row and why) when its value would change; sent unchanged (an import
 * of an export sends every column), it is left out.
 */
export async function allowedChanges(e: ResolvedEntity, before: Row, changes: Row, linkedIds: (f: FieldDef) => Promise<number[]>): Promise<Row> {
  const rules = stateRules(e, before)
  if (rules.editable === 'all') return changes
  const out: Row = {}
  const locked: FieldDef[] = []
  for (const [name, value] of Object.entries(changes)) {
    if (stateAllowsEdit(rules, name)) {
      out[name] = value
      continue
    }
    const f = e.fieldMap.get(name)!
    const stored = f.kind === 'referenceMany' ? await linkedIds(f) : before[name]
    if (!sameValue(f, value, stored)) locked.push(f)
  }
  if (!locked.length) return out
  const params = { ...named(e, before), ...because(rules.editRefusal!) }
  if (rules.editable.size === 0) throw conflict('state.noEdit', params, locked[0]!.name)
  throw conflict(
    'state.fieldsLocked',
    { ...params, fieldsEn: locked.map((f) => f.label.en_US).join(', '), fieldsZh: locked.map((f) => f.label.zh_CN).join('、') },
    locked[0]!.name,
  )
}

/** The condition in SQL: met (the field holds one of the values, or is above) or not met (null counts as not). */
function conditionSql(eb: AnyEb, c: RowCondition, met: boolean): Expression<SqlBool> {
  if ('is' in c) return met ? eb(c.field, 'in', [...c.is]) : eb.or([eb(c.field, 'is', null), eb(c.field, 'not in', [...c.is])])
  return met ? eb(c.field, '>', c.above) : eb.or([eb(c.field, 'is', null), eb(c.field, '<=', c.above)])
}

/**
 * A WHERE condition that holds while the row still meets, or still does not meet, each rule that
 * decides this operation as it did when judged (`row`), for the UPDATE or DELETE itself: a row a
 * step moved on since it was read is not written, and the write is refused instead. Null when no
 * rule decides it.
 */
export function sameStateCondition(e: ResolvedEntity, row: Row, op: 'edit' | 'delete'): ((eb: AnyEb) => Expression<SqlBool>) | null {
  const deciding = (e.states ?? []).filter((rule) => (op === 'delete' ? rule.delete === false : rule.edit !== undefined))
  if (!deciding.length) return null
  return (eb) => eb.and(deciding.map((rule) => conditionSql(eb, rule.when, meetsCondition(rule.when, row))))
}
