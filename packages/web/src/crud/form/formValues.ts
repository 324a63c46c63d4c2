import type { FieldDef, ResolvedEntity } from '@velo/shared'
import type { Row } from '../api/crudApi'
import { toFormValue, toWireValue } from '../kinds/kindTable'

// Between a row on the wire and the values of the add/modify form. Both are `Row`s: the form is built
// for any entity from its field list, and holds form values (a dayjs for a date), not the API's.

export type FormMode = 'add' | 'edit'

/** The form's fields: on modify, passwords are left out (they are never read back). */
export const formFieldsFor = (e: ResolvedEntity, mode: FormMode): FieldDef[] =>
  e.formFields.filter((f) => mode === 'add' || f.kind !== 'password')

/**
 * Whether a field is part of the form for these values: always, or (with `when`) while the other
 * field holds one of the listed values. A field left out is neither checked nor sent.
 */
export const isShown = (f: FieldDef, values: Row): boolean => !f.when || f.when.is.includes(String(values[f.when.field] ?? ''))

/** On modify an immutable field is shown but not sent. */
export const isLocked = (f: FieldDef, mode: FormMode) => mode === 'edit' && !!f.immutable

/** Where the form starts: the loaded row on modify; on add the page's preset (a child's parent), else the definition's default. */
export function initialFormValues(fields: readonly FieldDef[], mode: FormMode, source: Row): Row {
  return Object.fromEntries(
    fields.map((f) => {
      const value = mode === 'add' && source[f.name] === undefined && 'default' in f ? f.default : source[f.name]
      return [f.name, toFormValue(f, value)]
    }),
  )
}

const comparable = (value: unknown) => JSON.stringify(Array.isArray(value) ? [...value].map(String).sort() : (value ?? null))

/** The body of POST (add: every field) or PUT (modify: the id and the fields that changed). */
export function formPayload(e: ResolvedEntity, fields: readonly FieldDef[], values: Row, mode: FormMode, original: Row = {}): Row {
  const body: Row = mode === 'edit' ? { [e.idField]: original[e.idField] } : {}
  for (const f of fields) {
    if (isLocked(f, mode)) continue
    const wire = toWireValue(f, values[f.name])
    if (mode === 'add' || comparable(wire) !== comparable(original[f.name])) body[f.name] = wire
  }
  return body
}
