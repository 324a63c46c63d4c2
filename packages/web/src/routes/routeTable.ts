import { matchRoutes } from 'react-router'
import type { RouteNode } from '@velo/shared'
import { sessionStore } from '../session/sessionStore'
import { fixedRoutes } from './fixedRoutes'
import { buildMenu, type MenuEntry } from './menuModel'
import { buildRouteTree, collectRedirects, flattenPages, type AppRoute, type PageRoute } from './routeModel'

/** Everything derived from the fixed and the server routes, computed once per route list. */
export interface RouteTable {
  tree: AppRoute[]
  pages: PageRoute[]
  redirects: Map<string, string>
  menu: MenuEntry[]
}

/** One table per route list: the shell's parts and the sign-in's warm-up ask for the same one. */
const tables = new WeakMap<readonly RouteNode[], RouteTable>()

export function buildRouteTable(serverRoutes: readonly RouteNode[]): RouteTable {
  let table = tables.get(serverRoutes)
  if (!table) tables.set(serverRoutes, (table = tableOf(serverRoutes)))
  return table
}

function tableOf(serverRoutes: readonly RouteNode[]): RouteTable {
  const tree = [...buildRouteTree(fixedRoutes), ...buildRouteTree(serverRoutes)]
  const pages = flattenPages(tree)
  return { tree, pages, redirects: collectRedirects(tree), menu: buildMenu(tree) }
}

const NO_ROUTES: readonly RouteNode[] = []

export function useRouteTable(): RouteTable {
  const routes = sessionStore.use((s) => s.routes) ?? NO_ROUTES
  return buildRouteTable(routes)
}

export interface PageMatch {
  page: PageRoute
  params: Record<string, string | undefined>
}

/** The page for a pathname; the router's ranking prefers static segments over ':params'. */
export function matchPage(pages: readonly PageRoute[], pathname: string): PageMatch | null {
  // Asked by the shell's parts (breadcrumb, tags, page area, each kept view) at every navigation;
  // the router ranks every route on each call, so the answers are kept per route list.
  let known = matches.get(pages)
  if (!known) matches.set(pages, (known = new Map()))
  if (!known.has(pathname)) known.set(pathname, findPage(pages, pathname))
  return known.get(pathname)!
}
const matches = new WeakMap<readonly PageRoute[], Map<string, PageMatch | null>>()

function findPage(pages: readonly PageRoute[], pathname: string): PageMatch | null {
  const candidates = pages.filter((p) => !p.path.startsWith('http')).map((page, index) => ({ id: String(index), path: page.path, page }))
  const found = matchRoutes(candidates, pathname)?.[0]
  if (!found) return null
  const candidate = candidates.find((c) => c.id === found.route.id)
  return candidate ? { page: candidate.page, params: found.params } : null
}
