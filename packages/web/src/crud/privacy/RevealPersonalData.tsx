import { lazy, Suspense, useMemo, useState, type ReactNode } from 'react'
import type { ResolvedEntity } from '@velo/shared'
import type { Row } from '../api/crudApi'
import { maskedFieldsOf } from './personal'

// One record's masked personal values, revealed for a reason (POST {path}/{id}/reveal): the server
// logs who asked, when and why. The clear values live in the view's state only, never in the query
// cache, so they go when the view closes and no list or other view ever shows them.

/** The button and its dialog, loaded once a row with masked values is shown (RevealBar.tsx). */
const RevealBar = lazy(() => import('./RevealBar'))

interface Revealed {
  id: unknown
  values: Row
}

/**
 * The row as a details view shows it once its masked values are revealed (the clear values in place,
 * no longer named in `masked`), and the bar above the view: the reveal button for a user holding
 * member:pii:reveal while some value is masked, then a note that they are shown.
 */
export function useRevealedRow<R extends Row>(entity: ResolvedEntity, row: R): { row: R; bar: ReactNode } {
  const [revealed, setRevealed] = useState<Revealed | null>(null)
  const id = row[entity.idField]
  // A view that moves on to another row (a drawer fed a new id) shows that one masked again.
  const values = revealed && revealed.id === id ? revealed.values : null
  const shown = useMemo(() => {
    if (!values) return row
    const masked = Array.isArray(row.masked) ? (row.masked as string[]).filter((name) => !(name in values)) : row.masked
    return { ...row, ...values, masked }
  }, [row, values])
  const bar = maskedFieldsOf(entity.fields, row).length ? (
    <Suspense fallback={null}>
      <RevealBar entity={entity} row={row} revealed={!!values} onRevealed={(v) => setRevealed({ id, values: v })} />
    </Suspense>
  ) : null
  return { row: shown, bar }
}

