import type { QueryClient } from '@tanstack/react-query'
import { allEntities, type ResolvedEntity } from '@velo/shared'
import { crudKeys } from './crudApi'

/**
 * The entities whose cached answers a change to rows of `e` may have made stale, `e` first. A change
 * reaches past its own rows: the server keeps figures of the row it belongs to (an order's counts
 * of frame numbers by state, recounted with every void and replacement) or changes the row it names
 * (a replaced number renumbers its bike); and an action on a row may change the rows its details
 * list (an order's generation makes its numbers). So, besides `e`: the entities its references name,
 * the entities its related lists show, and those whose details list its rows. The ones `e`'s rows are
 * referred to by are left alone: a country is named by most rows, and its change leaves them as they are.
 */
export function entitiesChangedWith(e: ResolvedEntity): ResolvedEntity[] {
  const byKey = new Map(allEntities().map((x) => [x.key, x]))
  const keys = new Set<string>([e.key])
  for (const f of e.fields) if (f.kind === 'reference') keys.add(f.entity)
  for (const r of e.related) keys.add(r.entity)
  for (const owner of byKey.values()) if (owner.related.some((r) => r.entity === e.key)) keys.add(owner.key)
  return [...keys].map((key) => (key === e.key ? e : byKey.get(key))).filter((x): x is ResolvedEntity => x !== undefined)
}

/**
 * After a change to rows of `e` (a save, a delete, an import, a step or an action, a job's end):
 * every list, row, count, history and picker cached for it and for the entities it touches
 * (`entitiesChangedWith`) is fetched again where it shows, and on its next showing elsewhere, so an
 * open details drawer shows the figures the change left (its counts after a replacement).
 */
export function refreshAfterChange(queryClient: QueryClient, e: ResolvedEntity): Promise<void> {
  return Promise.all(entitiesChangedWith(e).map((x) => queryClient.invalidateQueries({ queryKey: crudKeys.all(x) }))).then(() => undefined)
}
