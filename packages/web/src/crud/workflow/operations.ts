import { actionPermission, actionRefusal, stepPermission, stepsFrom, stepTargets, type ActionDef, type ActionPreview, type FieldDef, type Label, type OperationNote, type ResolvedEntity, type TransitionStep } from '@velo/shared'
import type { TFunction } from 'i18next'
import { localized } from '../../i18n'
import { crudApi, type Row } from '../api/crudApi'
import { isShown } from '../form/formValues'
import { rowNames } from '../list/useDeleteRows'

// A definition's steps and actions as one thing the buttons, the confirmation and the input dialog
// handle alike; only the call differs (docs/entity-engine.md › Transitions and actions). They work
// for any entity's rows (`Row`), reading the state, `when` field, id and name by the names the
// definition gives.

export interface Operation {
  kind: 'step' | 'action'
  name: string
  label: Label
  /** What it acts on: one row (every step), no row, or the ticked rows. */
  on: ActionDef['on']
  input: readonly FieldDef[]
  /** The states a step lets the caller choose from; empty when there is nothing to choose. */
  choices: readonly string[]
  confirm?: Label
  danger: boolean
  /** Runs as a job, whose progress the navbar's jobs indicator shows. */
  job: boolean
  /** The dialog shows what it would do (POST {action route}/preview) before it is sent; never for a step. */
  preview: boolean
  permission: string
  /** Rights needed besides `permission`, every one (the definition's `alsoNeeds`). */
  alsoNeeds?: readonly string[]
  /** The row's fields the dialog shows beside the input (the definition's `context`). */
  context: readonly string[]
  /** What it does beyond the row, said in the dialog for the rows they apply to (the definition's `notes`). */
  notes: readonly OperationNote[]
  /** An action offered only for rows whose field has one of these values (`when`), or whose fields are still empty (`whenEmpty`). */
  rowsOffered?: Pick<ActionDef, 'when' | 'whenEmpty'>
  /** Offered after the row's other actions (the definition's `rare`). */
  rare?: boolean
}

export function stepOperation(e: ResolvedEntity, step: TransitionStep): Operation {
  const targets = stepTargets(step)
  return {
    kind: 'step',
    name: step.name,
    label: step.label,
    on: 'row',
    input: step.input ?? [],
    choices: targets.length > 1 ? targets : [],
    confirm: step.confirm,
    danger: !!step.danger,
    job: false,
    preview: false,
    context: step.context ?? [],
    notes: step.notes ?? [],
    permission: stepPermission(e, step),
  }
}

export function actionOperation(e: ResolvedEntity, action: ActionDef): Operation {
  return {
    kind: 'action',
    name: action.name,
    label: action.label,
    on: action.on,
    input: action.input ?? [],
    choices: [],
    confirm: action.confirm,
    danger: !!action.danger,
    job: action.mode === 'job',
    preview: !!action.preview,
    context: action.context ?? [],
    notes: action.notes ?? [],
    permission: actionPermission(e, action),
    alsoNeeds: action.alsoNeeds,
    rowsOffered: { when: action.when, whenEmpty: action.whenEmpty },
    rare: action.rare,
  }
}

/** The steps valid from the row's state, then the row actions whose `when` and `whenEmpty` the row meets, in the definition's order. */
export function rowOperations(e: ResolvedEntity, row: Row): Operation[] {
  const steps = e.transitions ? stepsFrom(e, String(row[e.transitions.field])).map((s) => stepOperation(e, s)) : []
  const actions = (e.actions ?? []).filter((a) => a.on === 'row').map((a) => actionOperation(e, a))
  return [...steps, ...actions.filter((a) => meetsWhen(a, [row]))]
}

/** Every step and row action, whatever the row's state: whether a row can have any of them at all. */
export const everyRowOperation = (e: ResolvedEntity): Operation[] => [
  ...(e.transitions?.steps ?? []).map((s) => stepOperation(e, s)),
  ...(e.actions ?? []).filter((a) => a.on === 'row').map((a) => actionOperation(e, a)),
]

/** The toolbar's actions: those without rows and those for the ticked rows. */
export const toolbarOperations = (e: ResolvedEntity): Operation[] =>
  (e.actions ?? []).filter((a) => a.on !== 'row').map((a) => actionOperation(e, a))

/** Whether the user may run it: its permission and each right it also needs (the server refuses it otherwise). */
export const mayRun = (op: Operation, may: (rule: { permissions: readonly string[] }) => boolean) => [op.permission, ...(op.alsoNeeds ?? [])].every((p) => may({ permissions: [p] }))

/** Every row meets the operation's `when` and `whenEmpty` (the server refuses the call otherwise): shared `actionRefusal`. */
export const meetsWhen = (op: Operation, rows: readonly Row[]) => !op.rowsOffered || rows.every((r) => actionRefusal(op.rowsOffered!, r) === null)

/** A blank value as a form leaves it: nothing entered yet. */
const isBlankInput = (value: unknown) => value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)

/**
 * Whether every required input that shows (`when`) has a value: only then is a preview asked, so a
 * half-filled dialog sends no request the server must refuse.
 */
export const inputComplete = (input: readonly FieldDef[], values: Row) => input.every((f) => !f.required || !isShown(f, values) || !isBlankInput(values[f.name]))

/** Something to enter, a state to choose, a preview, the row or notes to show: a dialog; otherwise a confirmation is enough. */
export const needsDialog = (op: Operation) => op.preview || op.input.length > 0 || op.choices.length > 0 || op.context.length > 0 || op.notes.length > 0

/** Who the operation is about: the rows by name, or the whole list for a toolbar action. */
export const subjectOf = (e: ResolvedEntity, rows: readonly Row[], t: TFunction) => (rows.length ? rowNames(e, rows, t) : localized(e.label))

/** The definition's confirmation ({label} is the subject), or "Review RS20261124-7KQ2XM?". */
export function confirmText(e: ResolvedEntity, op: Operation, rows: readonly Row[], t: TFunction): string {
  const subject = subjectOf(e, rows, t)
  return op.confirm ? localized(op.confirm).replaceAll('{label}', subject) : t('crud.operationConfirm', { operation: localized(op.label), subject })
}

/** Calls the operation's route; the answer carries the server's localized msg. */
export function sendOperation(e: ResolvedEntity, op: Operation, rows: readonly Row[], body: Row) {
  const api = crudApi(e)
  const id = rows[0]?.[e.idField]
  if (op.kind === 'step') return api.step(id, op.name, body)
  if (op.on === 'row') return api.rowAction(id, op.name, body)
  return api.action(op.name, op.on === 'selection' ? { ids: rows.map((r) => r[e.idField]), ...body } : body)
}

/**
 * What the action would do with this input (`preview`): POST {action route}/preview with the body
 * the action would get (`ids` for a selection). Silent: a 400 for input not complete yet is the
 * caller's to ignore or place.
 */
export function previewOperation(e: ResolvedEntity, op: Operation, rows: readonly Row[], body: Row, signal?: AbortSignal): Promise<ActionPreview> {
  const api = crudApi(e)
  if (op.on === 'row') return api.rowActionPreview(rows[0]?.[e.idField], op.name, body, signal)
  return api.actionPreview(op.name, op.on === 'selection' ? { ids: rows.map((r) => r[e.idField]), ...body } : body, signal)
}
