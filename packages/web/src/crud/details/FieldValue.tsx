import type { ReactNode } from 'react'
import type { FieldDef, ResolvedEntity } from '@velo/shared'
import type { EntityRow, Row } from '../api/crudApi'
import { kindOf } from '../kinds/kindTable'
import type { CellRenderer } from '../kinds/types'
import { Masked } from '../privacy/Masked'
import { isMaskedIn } from '../privacy/personal'

// Apart from EntityDetails: an operation's dialog shows values too, and the details' related lists
// offer operations, so both importing the details would close a cycle.

/** One field's value as the list shows it (or the page's own way, from `cells`); a masked personal value as a mask. */
export function FieldValue<E extends ResolvedEntity>({ entity, field, row, cells = {} }: { entity: E; field: FieldDef; row: EntityRow<E>; cells?: Readonly<Record<string, CellRenderer<EntityRow<E>>>> }): ReactNode {
  const own = cells[field.name]
  // The field is known by its name only, as for any entity.
  const values: Row = row
  const props = { entity, field, value: values[field.name], row }
  // Before the page's own cell too: a hidden value must not read as a missing one.
  if (isMaskedIn(values, field)) return <Masked category={field.personal!} value={props.value} />
  if (own) return own(props)
  const { Cell } = kindOf(field)
  return <Cell {...props} />
}
