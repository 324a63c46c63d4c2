import { useEffect } from 'react'
import { useLocation } from 'react-router'
import { settingsStore } from '../../preferences/settingsStore'
import { pinnedPages, type PageRoute } from '../../routes/routeModel'
import type { RouteTable } from '../../routes/routeTable'
import type { VisitedView } from './tagsModel'
import { tagsActions } from './tagsStore'

export const viewOf = (page: PageRoute, path: string, fullPath: string): VisitedView => ({
  path,
  fullPath,
  name: page.name,
  title: page.meta.title,
  noClose: page.meta.noClose,
  noCache: page.meta.noCache,
})

/** Adds a tab (and keep-alive entry) for every page visited while the tags view is on; pinned tabs first. */
export function useTagsTracking(table: RouteTable, current: PageRoute | null): void {
  const enabled = settingsStore.use((s) => s.tagsView)
  const { pathname, search } = useLocation()

  useEffect(() => {
    if (!enabled) return
    for (const page of pinnedPages(table.pages)) tagsActions.add(viewOf(page, page.path, page.path))
  }, [enabled, table.pages])

  useEffect(() => {
    if (!enabled || !current) return
    const view = viewOf(current, pathname, `${pathname}${search}`)
    tagsActions.add(view)
    // Same tab, new query string (e.g. list filters): remember it so the tab returns there.
    tagsActions.update({ path: pathname, fullPath: view.fullPath })
  }, [enabled, current, pathname, search])
}
