import { useMemo, useState } from 'react'
import { hashKey, keepPreviousData, useQuery } from '@tanstack/react-query'
import { DEFAULT_PAGE_SIZE, type ResolvedEntity } from '@velo/shared'
import { crudApi, crudKeys, type Filters, type ListBody } from '../api/crudApi'

export interface ListSort {
  field: string
  order: 'asc' | 'desc'
}

export interface ListState {
  pageNum: number
  pageSize: number
  /** What the search form applied. */
  filters: Filters
  sort: ListSort | null
}

export const initialListState: ListState = { pageNum: 1, pageSize: DEFAULT_PAGE_SIZE, filters: {}, sort: null }

/** The filters of a list and its export: the search, the page's forced ones on top, and the sort. */
export function exportBody(state: ListState, forced: Filters = {}): ListBody {
  return {
    ...state.filters,
    ...forced,
    ...(state.sort ? { orderByColumn: state.sort.field, isAsc: state.sort.order } : {}),
  }
}

/** The list call's body; a tree answers every matching row at once, so it is not paged. */
export function listBody(e: ResolvedEntity, state: ListState, forced: Filters = {}): ListBody {
  const body = exportBody(state, forced)
  return e.treeParent ? body : { pageNum: state.pageNum, pageSize: state.pageSize, ...body }
}

/** How young a list's rows may be for its mount not to ask for them again. */
const FRESH_ON_MOUNT_MS = 2000

/** A list's paging, filters and sort, and its rows. */
export function useEntityList<E extends ResolvedEntity>(e: E, forced: Filters = {}, initialFilters: Filters = {}, initialPlace: Partial<Omit<ListState, 'filters'>> = {}) {
  // The filters, page and sort a link opened the list with (its URL query) apply from the first request.
  const [state, setState] = useState<ListState>(() => ({ ...initialListState, ...initialPlace, filters: initialFilters }))
  // The page changing its forced filters (a tree beside the list) starts again from the first page.
  const forcedKey = JSON.stringify(forced)
  const [seenForced, setSeenForced] = useState(forcedKey)
  if (seenForced !== forcedKey) {
    setSeenForced(forcedKey)
    setState((s) => ({ ...s, pageNum: 1 }))
  }
  // Keyed by the filters' text: a new object with the same filters must not refetch.
  const body = useMemo(() => listBody(e, state, JSON.parse(forcedKey) as Filters), [e, state, forcedKey])
  const query = useQuery({
    queryKey: crudKeys.list(e, body),
    queryFn: () => crudApi(e).list(body),
    placeholderData: keepPreviousData,
    // Rows fetched this very moment (the page's prefetch, beside its chunk) are not asked for again as
    // the list mounts; older ones are, as always (a list shown again reads its rows again).
    refetchOnMount: (q) => Date.now() - q.state.dataUpdatedAt > FRESH_ON_MOUNT_MS,
  })
  /**
   * Search (and Reset) as RuoYi's handleQuery: back to the first page and always a new request. When
   * neither the filters nor the page change, the query key stays the same and nothing would be sent,
   * leaving a stale list; so the same key is fetched again.
   */
  const search = (filters: Filters) => {
    const next = { ...state, filters, pageNum: 1 }
    if (hashKey([listBody(e, next, JSON.parse(forcedKey) as Filters)]) === hashKey([body])) void query.refetch()
    else setState(next)
  }
  return { state, setState, body, query, search }
}
