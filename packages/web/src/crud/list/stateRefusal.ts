import { type ResolvedEntity, type StateRefusal, stateAllowsEdit, stateRules } from '@velo/shared'
import type { TFunction } from 'i18next'
import { localized } from '../../i18n'
import type { Row } from '../api/crudApi'

// What a row's state still allows, as the list's buttons and the form follow it (the definition's
// `states`, read by the shared stateRules the server refuses with): no Modify for a row whose state
// leaves no field of the form editable, no Delete for one it keeps, and the reason where a button is
// shown disabled ("Cannot delete service order "RS…": it is Finished", as the server would answer).

type Refusal = 'edit' | 'delete' | 'someFields'
const KEYS: Record<Refusal, string> = { edit: 'crud.stateNoEdit', delete: 'crud.stateNoDelete', someFields: 'crud.stateFieldsLocked' }

/** The refusal said for a row, in the page's language. */
export function refusalText(t: TFunction, e: ResolvedEntity, row: Row, refusal: StateRefusal, what: Refusal): string {
  const reason = refusal.reason ? localized(refusal.reason) : t('crud.stateIs', { state: localized(refusal.state) })
  return t(KEYS[what], { entity: localized(e.singular), name: String(row[e.labelField] ?? row[e.idField] ?? ''), reason })
}

/** The fields of the modify form the row's state locks (besides the immutable ones, locked anyway). */
export function stateLockedFields(e: ResolvedEntity, row: Row): ReadonlySet<string> {
  const rules = stateRules(e, row)
  return new Set(rules.editable === 'all' ? [] : e.formFields.filter((f) => !stateAllowsEdit(rules, f.name)).map((f) => f.name))
}

/** Whether some field of the modify form may still change for the row's state: otherwise no Modify is offered. */
export function mayEditRow(e: ResolvedEntity, row: Row): boolean {
  const rules = stateRules(e, row)
  return rules.editable === 'all' || e.formFields.some((f) => !f.immutable && f.kind !== 'password' && stateAllowsEdit(rules, f.name))
}

/** Why the row cannot be modified at all, or null when it can. */
export function editRefusal(t: TFunction, e: ResolvedEntity, row: Row): string | null {
  if (mayEditRow(e, row)) return null
  const refusal = stateRules(e, row).editRefusal
  return refusal ? refusalText(t, e, row, refusal, 'edit') : null
}

/** Why the rows cannot be deleted (the first that its state keeps), or null when all may go. */
export function deleteRefusal(t: TFunction, e: ResolvedEntity, rows: readonly Row[]): string | null {
  for (const row of rows) {
    const refusal = stateRules(e, row).deleteRefusal
    if (refusal) return refusalText(t, e, row, refusal, 'delete')
  }
  return null
}
