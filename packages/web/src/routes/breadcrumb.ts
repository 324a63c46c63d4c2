import type { RouteMeta } from '@velo/shared'
import { NO_REDIRECT, joinPath } from './routeModel'
import { DASHBOARD_PATH } from './fixedRoutes'

/** What the breadcrumb needs of each matched route (outermost first). */
export interface CrumbSource {
  path: string
  name: string
  redirect?: string
  meta: Pick<RouteMeta, 'title' | 'breadcrumb'>
}

export interface Crumb {
  /** Untranslated title (an i18n key or plain text). */
  title: string
  /** Where a click goes; null for plain text (the last item and noRedirect items). */
  to: string | null
}

// By name, as the classic admin does: only the Dashboard page itself counts, not a folder or page
// whose path merely looks like it, so every other page still gets the Dashboard crumb first.
const isDashboard = (route: CrumbSource | undefined): boolean => !!route && route.name.trim().toLowerCase() === 'dashboard'

/** Fill ':param' segments from the current URL so a link goes back to the same record. */
export function compilePath(path: string, params: Readonly<Record<string, string | undefined>>): string {
  return path.replace(/:(\w+)/g, (whole, key: string) => params[key] ?? whole)
}

/**
 * SPEC §2: the dashboard comes first unless we are on it; only routes with a title and without
 * breadcrumb:false appear; the last item and noRedirect items are plain text; other items link to
 * their redirect when they have one, else to their own path.
 */
export function buildBreadcrumb(
  matched: readonly CrumbSource[],
  params: Readonly<Record<string, string | undefined>> = {},
): Crumb[] {
  let withTitle = matched.filter((r) => r.meta.title)
  if (!isDashboard(withTitle[0])) {
    const dashboard: CrumbSource = { path: DASHBOARD_PATH, name: 'Dashboard', meta: { title: 'route.dashboard', breadcrumb: true } }
    withTitle = [dashboard, ...withTitle]
  }
  const shown = withTitle.filter((r) => r.meta.breadcrumb !== false)
  return shown.map((route, index) => {
    const plain = route.redirect === NO_REDIRECT || index === shown.length - 1
    const target = route.redirect ? joinPath(route.path, route.redirect) : compilePath(route.path, params)
    return { title: route.meta.title, to: plain ? null : target }
  })
}
