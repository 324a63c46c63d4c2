import type { QueryClient } from '@tanstack/react-query'
import type { Paged, ResolvedEntity } from '@velo/shared'
import { crudKeys, type Row } from '../api/crudApi'

/** The row with the patch applied; the same row when nothing changes (so nothing re-renders). */
export function patchRow<R extends Row>(row: R, patch: Row): R {
  const changed = Object.entries(patch).some(([name, value]) => row[name] !== value)
  return changed ? { ...row, ...patch } : row
}

/**
 * Lays a patch over the rows of every cached list page of the entity, in place (no refetch): `patchOf`
 * answers the row's patch, or null to leave it. A page none of whose rows changes stays the same object.
 */
export function patchListRows(queryClient: QueryClient, e: ResolvedEntity, patchOf: (row: Row) => Row | null): void {
  queryClient.setQueriesData<Paged<Row>>({ queryKey: [...crudKeys.all(e), 'list'] }, (page) => {
    if (!page?.rows) return page
    let changed = false
    const rows = page.rows.map((row) => {
      const patch = patchOf(row)
      const next = patch ? patchRow(row, patch) : row
      if (next !== row) changed = true
      return next
    })
    return changed ? { ...page, rows } : page
  })
}
