import { useMemo } from 'react'
import { useLocation } from 'react-router'
import { matchPage, useRouteTable, type PageMatch, type RouteTable } from '../routes/routeTable'

/** The route table and the page the current URL shows (null for redirects and unknown paths). */
export function useCurrentPage(): { table: RouteTable; current: PageMatch | null } {
  const table = useRouteTable()
  const { pathname } = useLocation()
  const current = useMemo(() => matchPage(table.pages, pathname), [table, pathname])
  return { table, current }
}
