import type { QueryClient } from '@tanstack/react-query'
import type { ResolvedEntity, RouteNode } from '@velo/shared'
import { loadedEntityAt, loadEntityAt } from '../../entities/areas'
import { isAllowed } from '../../session/access'
import { preloadPage } from '../../routes/pageRegistry'
import { buildRouteTable, matchPage } from '../../routes/routeTable'
import { sessionStore } from '../../session/sessionStore'
import { initialListState, listBody } from '../list/useEntityList'
import { crudApi, crudKeys } from './crudApi'
import { dictQuery } from './dicts'

/**
 * Custom pages at an entity's path whose first list is not that entity's plain first page: a device's
 * collections over a chosen time range (iot/collection), the IoT tool's users of one type (tool/iot).
 */
const OPEN_ON_OTHER_ROWS = new Set(['/iot/collection', '/tool/iot'])

/** How long a page's prefetch is not repeated (useEntityList does not ask again for rows this fresh either). */
const ONCE_WITHIN_MS = 2_000
const lastAsked = new Map<string, number>()

/**
 * Asks for a list page's first rows, and the dictionaries its columns show, while the page's code is
 * still on its way: the page then finds them in the cache under the very keys it asks with
 * (useEntityList, useDict) instead of sending its requests only after its chunks arrived and ran.
 *
 * Only for an address without a query: the filters of a link (a home card's) and a page's own
 * forced filters are the page's to work out, and a guess that misses would be a request for nothing.
 * A page at an entity's path that opens with other filters (a custom page with a default of its own)
 * would cost one request it does not use: those pages are named here.
 */
export function prefetchPageData(queryClient: QueryClient, component: string, search: string): void {
  if (search && search !== '?') return
  // Asked from a render (PageHost), which React may throw away and start again, and from the sign-in's
  // warm-up: once per page within a moment. A cache entry fresher than that is not asked for again.
  const now = Date.now()
  if (now - (lastAsked.get(component) ?? -Infinity) < ONCE_WITHIN_MS) return
  lastAsked.set(component, now)
  // The definition's area is most often in already (it comes with the console or the page before); if
  // not, it is a small chunk asked for with the page's code, and the rows are asked for once it is in.
  const loaded = loadedEntityAt(component)
  if (loaded) return prefetchList(queryClient, loaded)
  void loadEntityAt(component)
    .then((entity) => entity && prefetchList(queryClient, entity))
    .catch(() => undefined)
}

function prefetchList(queryClient: QueryClient, entity: ResolvedEntity): void {
  if (OPEN_ON_OTHER_ROWS.has(entity.path)) return
  // Never a request the server refuses (the http client would say so in red to a user who did nothing).
  const { roles, permissions } = sessionStore.getState()
  if (!isAllowed({ permissions: [`${entity.permission}:list`] }, { roles, permissions })) return
  const body = listBody(entity, initialListState)
  void queryClient.prefetchQuery({ queryKey: crudKeys.list(entity, body), queryFn: () => crudApi(entity).list(body), staleTime: ONCE_WITHIN_MS })
  for (const field of entity.listed) {
    if (field.kind === 'dict') void queryClient.prefetchQuery({ ...dictQuery(field.dict), staleTime: ONCE_WITHIN_MS })
  }
}

/**
 * The moment the routes are in (after sign-in, or a reload), the page at this address starts: its
 * code and its first rows are asked for together, while the shell is still being drawn, instead of
 * when the shell reaches the page.
 */
export function warmPage(queryClient: QueryClient, routes: readonly RouteNode[], pathname: string, search: string): void {
  const match = matchPage(buildRouteTable(routes).pages, pathname)
  if (!match) return
  preloadPage(match.page.component)
  prefetchPageData(queryClient, match.page.component, search)
}
