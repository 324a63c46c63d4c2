import type { ActionDef, EntityDef, FieldDef, OperationNote, TransitionStep } from './types'

/** The states a step may lead to. */
export const stepTargets = (step: TransitionStep): readonly string[] => (typeof step.to === 'string' ? [step.to] : step.to)

export const stepPermission = (e: Pick<EntityDef, 'permission'>, step: TransitionStep) => step.permission ?? `${e.permission}:${step.name}`
export const actionPermission = (e: Pick<EntityDef, 'permission'>, action: ActionDef) => action.permission ?? `${e.permission}:${action.name}`

/** The steps that can start from a state. */
export function stepsFrom(e: Pick<EntityDef, 'transitions'>, state: string): TransitionStep[] {
  return (e.transitions?.steps ?? []).filter((s) => s.from.includes(state))
}

/** States no step leaves, or only steps that stay (nothing more happens to the row); a timed step leaves its states too. */
export function finalStates(e: Pick<EntityDef, 'transitions' | 'fields'>): string[] {
  const t = e.transitions
  if (!t) return []
  const field = e.fields.find((f) => f.name === t.field)
  const states = field?.kind === 'enum' ? field.options.map((o) => o.value) : []
  const leaves = (state: string) =>
    t.steps.some((s) => s.from.includes(state) && stepTargets(s).some((to) => to !== state)) || (t.timed ?? []).some((s) => s.from.includes(state) && s.to !== state)
  return states.filter((state) => !leaves(state))
}

/** The label of a step of the row's history, taken by hand or by the engine (a timed step); undefined for a name neither has. */
export function historyStepLabel(e: Pick<EntityDef, 'transitions'>, name: string) {
  return (e.transitions?.steps.find((s) => s.name === name) ?? e.transitions?.timed?.find((s) => s.name === name))?.label
}

/** Why a row may not have an action now; null when it may. */
export type ActionRowRefusal = { rule: 'when'; field: string } | { rule: 'whenEmpty'; field: string }

/** A value the row does not have: null, undefined or blank text. */
const isEmptyValue = (value: unknown) => value === null || value === undefined || value === ''

/**
 * Whether an action is offered for a row (its `when` and `whenEmpty`): the first condition the row
 * fails, or null. The web offers the action only for rows without a refusal; the server refuses it
 * for the others.
 */
export function actionRefusal(action: Pick<ActionDef, 'when' | 'whenEmpty'>, row: Readonly<Record<string, unknown>>): ActionRowRefusal | null {
  if (action.when && !action.when.is.includes(String(row[action.when.field] ?? ''))) return { rule: 'when', field: action.when.field }
  const filled = action.whenEmpty?.find((f) => !isEmptyValue(row[f]))
  return filled === undefined ? null : { rule: 'whenEmpty', field: filled }
}

/** Whether a dialog says the note for this row: each `whenSet` field has a value, each `whenEmpty` field has none. */
export function noteApplies(note: OperationNote, row: Readonly<Record<string, unknown>>): boolean {
  return (note.whenSet ?? []).every((f) => !isEmptyValue(row[f])) && (note.whenEmpty ?? []).every((f) => isEmptyValue(row[f]))
}

/** A note's `{field}` placeholder (global: matchAll finds them all, split keeps each name between the texts). */
export const NOTE_PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9]*)\}/g

/** A note's `{field}` placeholders, in order. */
export const notePlaceholders = (text: string): string[] => [...text.matchAll(NOTE_PLACEHOLDER)].map((m) => m[1]!)

/** Names the engine already routes below `{path}/{id}/…`: a step or action may not take them. */
const RESERVED = new Set(['list', 'export', 'import', 'importTemplate', 'options', 'history', 'counts', 'action', 'file', 'job'])

/** Checks transitions and actions against the fields once, at definition time: a bad definition fails at start. */
export function checkWorkflow(def: EntityDef, fieldMap: ReadonlyMap<string, FieldDef>) {
  const fail = (what: string) => {
    throw new Error(`${def.key}: ${what}`)
  }
  const names = new Set<string>()
  const checkName = (name: string) => {
    if (!/^[a-z][A-Za-z0-9]*$/.test(name)) fail(`step or action ${name} must be camelCase`)
    if (RESERVED.has(name) || names.has(name)) fail(`step or action name ${name} is reserved or used twice`)
    names.add(name)
  }
  // An action may take a list of ids (the devices a configuration is pushed to); a step's input is
  // kept in its history, where a list of thousands of ids has no place. A password only reaches a
  // sync action (a job keeps its input in sys_job), under a name the operation log masks.
  const checkInput = (owner: string, input: readonly FieldDef[] | undefined, allow: { lists?: boolean; passwords?: boolean } = {}) => {
    const seen = new Set<string>()
    for (const f of input ?? []) {
      if (seen.has(f.name)) fail(`${owner} input ${f.name} is defined twice`)
      seen.add(f.name)
      const refused = ['treeParent', ...(allow.lists ? [] : ['referenceMany']), ...(allow.passwords ? [] : ['password'])]
      if (refused.includes(f.kind)) fail(`${owner} input ${f.name} cannot be ${f.kind}`)
      if (f.kind === 'password' && !/password/i.test(f.name)) fail(`${owner} input ${f.name}: a password input's name must say password (the operation log masks it by name)`)
    }
  }
  // The row's fields a dialog shows beside the input: read from the row, so never a password.
  const checkContext = (owner: string, context: readonly string[] | undefined) => {
    for (const name of context ?? []) {
      const f = fieldMap.get(name)
      if (!f) fail(`${owner}.context: ${name} is not a field`)
      else if (f.kind === 'password') fail(`${owner}.context: ${name} is a password`)
    }
  }
  // A note reads the row: its conditions and placeholders are fields that a client may read.
  const checkNotes = (owner: string, notes: readonly OperationNote[] | undefined) => {
    for (const [i, note] of (notes ?? []).entries()) {
      const where = `${owner}.notes[${i}]`
      if (!note.text?.en_US || !note.text?.zh_CN) fail(`${where} needs its text in en_US and zh_CN`)
      const named = [...(note.whenSet ?? []), ...(note.whenEmpty ?? []), ...notePlaceholders(note.text.en_US), ...notePlaceholders(note.text.zh_CN)]
      for (const name of named) {
        const f = fieldMap.get(name)
        if (!f) fail(`${where}: ${name} is not a field`)
        else if (f.kind === 'password') fail(`${where}: ${name} is a password`)
      }
    }
  }
  const t = def.transitions
  if (t) {
    const field = fieldMap.get(t.field)
    if (field?.kind !== 'enum') fail(`transitions.field ${t.field} must be an enum field`)
    const states = new Set((field as FieldDef & { kind: 'enum' }).options.map((o) => o.value))
    const state = (s: string, where: string) => {
      if (!states.has(s)) fail(`${where}: ${s} is not a state of ${t.field}`)
    }
    if (t.initial) state(t.initial, 'transitions.initial')
    for (const step of t.steps) {
      checkName(step.name)
      if (!step.from.length || !stepTargets(step).length) fail(`step ${step.name} needs from and to states`)
      for (const s of step.from) state(s, `step ${step.name}`)
      for (const s of stepTargets(step)) state(s, `step ${step.name}`)
      checkInput(`step ${step.name}`, step.input)
      checkContext(`step ${step.name}`, step.context)
      checkNotes(`step ${step.name}`, step.notes)
      if (step.input?.some((f) => f.name === 'to')) fail(`step ${step.name}: input may not be called "to" (the chosen state travels as to)`)
    }
    // A row no step has moved waits from its creation: its create_time, which only an audited table has.
    if (t.timed?.length && def.storage?.audited === false) fail('timed steps need an audited table (create_time)')
    for (const step of t.timed ?? []) {
      checkName(step.name)
      if (!step.from.length) fail(`timed step ${step.name} needs from states`)
      for (const s of [...step.from, step.to]) state(s, `timed step ${step.name}`)
      if (step.from.includes(step.to)) fail(`timed step ${step.name} must leave its states (a step that stays would run again at every tick)`)
      if (!Number.isInteger(step.after.days) || step.after.days < 1) fail(`timed step ${step.name}: after.days must be a whole number of days ≥ 1`)
      // Two timed steps from one state would race for the same rows.
      for (const other of t.timed ?? []) if (other !== step && other.from.some((s) => step.from.includes(s))) fail(`timed steps ${step.name} and ${other.name} both leave one state`)
    }
    if (t.deadline) {
      const due = fieldMap.get(t.deadline.field)
      if (due?.kind !== 'datetime' || !due.readOnly) fail(`transitions.deadline.field ${t.deadline.field} must be a read-only datetime field`)
      for (const s of Object.keys(t.deadline.due)) state(s, 'transitions.deadline')
    }
  }
  for (const a of def.actions ?? []) {
    checkName(a.name)
    checkInput(`action ${a.name}`, a.input, { lists: true, passwords: (a.mode ?? 'sync') === 'sync' })
    checkContext(`action ${a.name}`, a.context)
    if (a.context?.length && a.on !== 'row') fail(`action ${a.name}.context: only a row action has a row to show`)
    checkNotes(`action ${a.name}`, a.notes)
    if (a.notes?.length && a.on !== 'row') fail(`action ${a.name}.notes: only a row action has a row to read them from`)
    if (a.when && !fieldMap.has(a.when.field)) fail(`action ${a.name}.when: ${a.when.field} is not a field`)
    for (const f of a.whenEmpty ?? []) if (!fieldMap.has(f)) fail(`action ${a.name}.whenEmpty: ${f} is not a field`)
    if ((a.when || a.whenEmpty?.length) && a.on !== 'row' && a.on !== 'selection') fail(`action ${a.name}: only row and selection actions depend on a row's state`)
  }
}
