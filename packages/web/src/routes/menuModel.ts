import type { AppRoute } from './routeModel'

// The sidebar's menu, from the route tree, following the classic admin rules: hidden routes are
// skipped; a folder with exactly one visible child shows that child directly unless alwaysShow.

export interface MenuEntry {
  /** Item keys are paths (what the router matches); folder keys are prefixed so they never collide. */
  key: string
  path: string
  /** Untranslated title. */
  title: string
  icon: string | null
  external: boolean
  children?: MenuEntry[]
}

export const folderKey = (path: string): string => `dir:${path}`

function item(route: AppRoute, fallbackIcon: string | null): MenuEntry {
  return {
    key: route.path,
    path: route.path,
    title: route.meta.title,
    icon: route.meta.icon ?? fallbackIcon,
    external: route.kind === 'link',
  }
}

export function buildMenu(routes: readonly AppRoute[]): MenuEntry[] {
  const entries: MenuEntry[] = []
  for (const route of routes) {
    if (route.hidden) continue
    const visible = route.children.filter((c) => !c.hidden)
    const only = visible[0]
    if (!route.alwaysShow && visible.length === 1 && only && !only.children.some((c) => !c.hidden)) {
      entries.push(item(only, route.meta.icon))
    } else if (visible.length === 0) {
      // A leaf; a folder whose children are all hidden is skipped since it has nothing to open.
      if (route.kind === 'page' || route.kind === 'link') entries.push(item(route, null))
    } else {
      entries.push({
        key: folderKey(route.path),
        path: route.path,
        title: route.meta.title,
        icon: route.meta.icon,
        external: false,
        children: buildMenu(route.children),
      })
    }
  }
  return entries
}

/** Folder keys from the root to the item with this key, to open the submenus around it. */
export function ancestorFolderKeys(entries: readonly MenuEntry[], key: string): string[] {
  for (const entry of entries) {
    if (entry.key === key) return []
    if (entry.children) {
      const below = ancestorFolderKeys(entry.children, key)
      if (below.length || entry.children.some((c) => c.key === key)) return [entry.key, ...below]
    }
  }
  return []
}
