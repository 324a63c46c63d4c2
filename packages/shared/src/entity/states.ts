import type { EntityDef, FieldDef, Label, RowCondition, StateRule } from './types'

// What a row's state still allows (docs/entity-engine.md › State rules): the definition's `states`
// checked once, and read for one row by the server (which refuses a forbidden modify or delete) and
// by the web (which offers no button for it and locks the fields), from the same function.

type Row = Readonly<Record<string, unknown>>

/** Why a row refuses a change: the rule's own reason, else the state it is in ("it is Finished"). */
export interface StateRefusal {
  /** The rule's reason, a clause after the row's name ("it has frame numbers"), when it gives one. */
  reason?: Label
  /** The condition's value on the row as people read it (an enum option's label). */
  state: Label
}

/** What one row allows now. */
export interface RowStateRules {
  /** The fields a modify may change: every one, or only these (none: the row is read-only). */
  editable: 'all' | ReadonlySet<string>
  /** Why some field is locked (the first rule that locks one); null when none is. */
  editRefusal: StateRefusal | null
  deletable: boolean
  /** Why the row cannot be deleted (the first rule that says so); null when it can. */
  deleteRefusal: StateRefusal | null
}

const ALL: RowStateRules = { editable: 'all', editRefusal: null, deletable: true, deleteRefusal: null }

/** Whether a row meets a condition: its field holds one of the values, or is a number above the value. */
export function meetsCondition(condition: RowCondition, row: Row): boolean {
  const value = row[condition.field]
  if ('is' in condition) return condition.is.includes(value === null || value === undefined ? '' : String(value))
  return value !== null && value !== undefined && value !== '' && Number(value) > condition.above
}

/** The condition's value on a row as people read it: an enum option's label, else the value itself. */
function stateOf(e: Pick<EntityDef, 'fields'>, condition: RowCondition, row: Row): Label {
  const f = e.fields.find((x) => x.name === condition.field)
  const value = row[condition.field]
  const option = f?.kind === 'enum' ? f.options.find((o) => o.value === value) : undefined
  return option?.label ?? { en_US: String(value ?? ''), zh_CN: String(value ?? '') }
}

const refusal = (e: Pick<EntityDef, 'fields'>, rule: StateRule, row: Row): StateRefusal => ({ ...(rule.reason ? { reason: rule.reason } : {}), state: stateOf(e, rule.when, row) })

/** The rules of the definition that this row meets. */
export const rulesMet = (e: Pick<EntityDef, 'states'>, row: Row): StateRule[] => (e.states ?? []).filter((rule) => meetsCondition(rule.when, row))

/**
 * What a row allows now, by the definition's `states`: the fields a modify may change (each rule the
 * row meets must allow a field), whether it may be deleted, and why not.
 */
export function stateRules(e: Pick<EntityDef, 'states' | 'fields'>, row: Row): RowStateRules {
  if (!e.states?.length) return ALL
  let editable: 'all' | Set<string> = 'all'
  let editRefusal: StateRefusal | null = null
  let deleteRefusal: StateRefusal | null = null
  for (const rule of rulesMet(e, row)) {
    if (rule.edit) {
      editable = new Set(editable === 'all' ? rule.edit : rule.edit.filter((f) => editable !== 'all' && editable.has(f)))
      editRefusal ??= refusal(e, rule, row)
    }
    if (rule.delete === false) deleteRefusal ??= refusal(e, rule, row)
  }
  return { editable, editRefusal, deletable: !deleteRefusal, deleteRefusal }
}

/** Whether the state leaves a field editable. */
export const stateAllowsEdit = (rules: RowStateRules, field: string) => rules.editable === 'all' || rules.editable.has(field)

/** Fields a modify may change at all (no state considered): writable and not fixed once added. */
const modifiable = (def: EntityDef, f: FieldDef) => !f.readOnly && !f.immutable && f.kind !== 'password' && f.name !== def.idField && f.name !== def.transitions?.field

/** Checks a definition's `states` against its fields, once, at definition time: a bad one fails at start. */
export function checkStates(def: EntityDef, fieldMap: ReadonlyMap<string, FieldDef>) {
  if (!def.states) return
  const fail = (what: string) => {
    throw new Error(`${def.key}: states ${what}`)
  }
  const operations = def.operations ?? ['edit', 'remove']
  if (!operations.includes('edit') && !operations.includes('remove')) fail('need an entity that offers edit or remove')
  def.states.forEach((rule, i) => {
    const where = `[${i}]`
    const known = new Set(['when', 'edit', 'delete', 'reason'])
    for (const key of Object.keys(rule)) if (!known.has(key)) fail(`${where} has an unknown property ${key}`)
    const { when } = rule
    const field = fieldMap.get(when?.field)
    if (!field) fail(`${where}.when: ${String(when?.field)} is not a field`)
    if ('is' in when) {
      if (!when.is.length) fail(`${where}.when.is names no value`)
      if (field!.kind === 'enum') {
        const states = new Set(field!.options.map((o) => o.value))
        for (const s of when.is) if (!states.has(s)) fail(`${where}.when: ${s} is not a state of ${when.field}`)
      } else if (!['text', 'dict'].includes(field!.kind)) fail(`${where}.when: ${when.field} is a ${field!.kind}: is takes an enum, dict or text field`)
    } else if ('above' in when) {
      if (field!.kind !== 'number' && field!.kind !== 'money') fail(`${where}.when: ${when.field} must be a number field to be above a value`)
      if (!Number.isFinite(when.above)) fail(`${where}.when.above must be a number`)
      if (!rule.reason) fail(`${where}: a rule on a number says its reason (it has no state to name)`)
    } else fail(`${where}.when needs is or above`)
    if (rule.edit === undefined && rule.delete !== false) fail(`${where} allows everything: say edit, delete: false, or both`)
    if (rule.delete !== undefined && typeof rule.delete !== 'boolean') fail(`${where}.delete must be true or false`)
    if (rule.delete === false && !operations.includes('remove')) fail(`${where}.delete: the entity offers no remove`)
    if (rule.edit && !operations.includes('edit')) fail(`${where}.edit: the entity offers no edit`)
    const seen = new Set<string>()
    for (const name of rule.edit ?? []) {
      const f = fieldMap.get(name)
      if (!f) fail(`${where}.edit: ${name} is not a field`)
      if (!modifiable(def, f!)) fail(`${where}.edit: ${name} is never modified (read-only, immutable, a password, the id or the status)`)
      if (seen.has(name)) fail(`${where}.edit: ${name} is named twice`)
      seen.add(name)
    }
    if (rule.reason && (!rule.reason.en_US?.trim() || !rule.reason.zh_CN?.trim())) fail(`${where}.reason must say why in en_US and zh_CN`)
  })
}
