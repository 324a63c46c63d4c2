import { entityByKey, type FieldDef, hasEntity, type PersonalCategory } from '@velo/shared'
import type { Row } from '../api/crudApi'

// Riders' personal data as the server answers it (shared/src/privacy.ts): a value the user has no
// right to see arrives masked, partly (j•••@example.com) or as null, and the row names such fields in
// `masked`. A null there is a hidden value, not a missing one, so it must never read as "no value".

/** Whether the row's value of the field is a mask (a partial one, or null standing for a value). */
export const isMaskedIn = (row: Row, f: FieldDef): boolean => !!f.personal && Array.isArray(row.masked) && row.masked.includes(f.name)

/** The fields a row names as masked, as the definition knows them. */
export const maskedFieldsOf = (fields: readonly FieldDef[], row: Row): FieldDef[] => fields.filter((f) => isMaskedIn(row, f))

/**
 * The category of a reference's label when the referenced entity is named by a personal field (a
 * ride's member, by e-mail): the server masks the label for whoever may not see that category, but
 * names it in no `masked`, so the cell tells from the rights.
 */
export function labelCategoryOf(f: FieldDef): PersonalCategory | undefined {
  if (f.kind !== 'reference' || !hasEntity(f.entity)) return undefined
  const target = entityByKey(f.entity)
  return target.fieldMap.get(target.labelField)?.personal
}
