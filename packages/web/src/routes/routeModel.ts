import type { RouteMeta, RouteNode } from '@velo/shared'

// The server's route tree (GET /getRouters) and our fixed routes, turned into one model that the
// menu, breadcrumb, tags view, menu search and page host all read. Pure: no React, no router.

/** How a node renders: the shell, a nested outlet (a menu folder), a lazily loaded page, or an external link. */
export type RouteKind = 'layout' | 'parent' | 'page' | 'link'

export interface AppRoute {
  /** Absolute path ('/system/dict'); external links keep their URL. */
  path: string
  name: string
  kind: RouteKind
  /** The page component key ('system/dict/index'), '' for structural nodes. */
  component: string
  hidden: boolean
  /** A path to go to instead, or 'noRedirect' (breadcrumb shows plain text). */
  redirect?: string
  alwaysShow: boolean
  meta: RouteMeta
  children: AppRoute[]
}

/** A renderable page with its ancestors (outermost first, the page last) for breadcrumb and search. */
export interface PageRoute {
  path: string
  name: string
  component: string
  meta: RouteMeta
  trail: AppRoute[]
}

export const NO_REDIRECT = 'noRedirect'

export const isExternal = (path: string): boolean => /^(https?:|mailto:|tel:)/.test(path)

/** Join a child's path to its parent's; absolute and external paths stand alone. */
export function joinPath(parent: string, child: string): string {
  if (isExternal(child) || child.startsWith('/')) return child
  if (child === '') return parent || '/'
  const base = parent.endsWith('/') ? parent.slice(0, -1) : parent
  return `${base}/${child}`
}

export const emptyMeta = (title = ''): RouteMeta => ({
  title,
  icon: null,
  noClose: false,
  noCache: false,
  activeMenu: null,
  breadcrumb: true,
  link: null,
})

function kindOf(node: RouteNode, path: string): RouteKind {
  if (node.meta?.link || isExternal(path)) return 'link'
  if (node.component === 'Layout') return 'layout'
  if (node.component === 'ParentView' || node.component === 'InnerLink') return 'parent'
  // A folder without its own page (servers sometimes send '' for it) is a nested outlet too.
  if (!node.component) return node.children?.length ? 'parent' : 'page'
  return 'page'
}

export function buildRouteTree(nodes: readonly RouteNode[], parentPath = ''): AppRoute[] {
  return nodes.map((node) => {
    const path = node.meta?.link ?? joinPath(parentPath, node.path)
    const kind = kindOf(node, path)
    return {
      path,
      name: node.name,
      kind,
      component: kind === 'page' ? node.component : '',
      hidden: node.hidden === true,
      redirect: node.redirect,
      alwaysShow: node.alwaysShow === true,
      meta: { ...emptyMeta(), ...node.meta },
      children: buildRouteTree(node.children ?? [], kind === 'link' ? parentPath : path),
    }
  })
}

/** Every page of the tree, depth first, each with its trail of ancestors. */
export function flattenPages(tree: readonly AppRoute[], trail: AppRoute[] = []): PageRoute[] {
  const pages: PageRoute[] = []
  for (const route of tree) {
    const here = [...trail, route]
    if (route.kind === 'page') {
      pages.push({ path: route.path, name: route.name, component: route.component, meta: route.meta, trail: here })
    }
    pages.push(...flattenPages(route.children, here))
  }
  return pages
}

/** Folders that have a real redirect target ('/' → '/dashboard'), for visits to the folder itself. */
export function collectRedirects(tree: readonly AppRoute[]): Map<string, string> {
  const redirects = new Map<string, string>()
  const walk = (routes: readonly AppRoute[]) => {
    for (const route of routes) {
      if (route.kind !== 'page' && route.redirect && route.redirect !== NO_REDIRECT) {
        redirects.set(route.path, joinPath(route.path, route.redirect))
      }
      walk(route.children)
    }
  }
  walk(tree)
  return redirects
}

/** Pages marked noClose become the pinned tabs that are always present. */
export const pinnedPages = (pages: readonly PageRoute[]): PageRoute[] =>
  pages.filter((p) => p.meta.noClose && !p.path.includes(':'))
