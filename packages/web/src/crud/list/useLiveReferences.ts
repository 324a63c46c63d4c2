import { useMemo } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { carriedName, entityByKey, type ResolvedEntity } from '@velo/shared'
import { eventData, useEventStream } from '../../api/eventStream'
import { useAccess } from '../../session/Access'
import { crudKeys, type Row } from '../api/crudApi'
import { patchListRows } from './patchListRows'

interface LiveReference {
  field: string
  target: ResolvedEntity
  carry: readonly string[]
}

/** The references of a list whose carried fields come from one `live` entity's stream (the first one's). */
function liveReferencesOf(e: ResolvedEntity): { stream: string; event: string; target: ResolvedEntity; references: LiveReference[] } | null {
  const references = e.listed.flatMap((f): LiveReference[] => {
    if (f.kind !== 'reference' || !f.carry?.length) return []
    const target = entityByKey(f.entity)
    return target.live ? [{ field: f.name, target, carry: f.carry }] : []
  })
  const first = references[0]
  if (!first?.target.live) return null
  return { ...first.target.live, target: first.target, references: references.filter((r) => r.target === first.target) }
}

/**
 * Keeps what a list shows of live rows current (a bike's IoT device and its state): while the list
 * is on screen the referenced entity's stream is open, and each of its events patches, in the cached
 * pages, the rows that refer to the row it is about; no refetch. Back after a drop, the lists load
 * once again. Someone without the right to list the referenced rows sees them as the list loaded them.
 */
export function useLiveReferences(e: ResolvedEntity): void {
  const queryClient = useQueryClient()
  const live = useMemo(() => liveReferencesOf(e), [e])
  const allowed = useAccess({ permissions: [`${live?.target.permission ?? e.permission}:list`] })
  useEventStream(live?.stream ?? '', {
    enabled: !!live && allowed,
    onEvent: (event) => {
      if (!live || event.event !== live.event) return
      const data = eventData<Row>(event)
      const id = data?.[live.target.idField]
      if (!data || id === undefined) return
      patchListRows(queryClient, e, (row) => {
        const patch: Row = {}
        for (const r of live.references) {
          if (row[r.field] !== id) continue
          for (const name of r.carry) if (name in data) patch[carriedName(r.field, name)] = data[name]
        }
        return patch
      })
    },
    onOpen: (again) => {
      if (again) void queryClient.invalidateQueries({ queryKey: [...crudKeys.all(e), 'list'] })
    },
  })
}
