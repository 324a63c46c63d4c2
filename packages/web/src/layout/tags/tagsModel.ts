// Tags view semantics (SPEC §4), as pure transitions over plain state so they can be tested alone.

export interface VisitedView {
  /** Identity of a tab: the pathname. */
  path: string
  /** Path plus search, to return to the same list filters. */
  fullPath: string
  name: string
  /** Untranslated title; 'no-name' when the route has none. */
  title: string
  noClose: boolean
  noCache: boolean
}

export interface TagsState {
  visitedViews: VisitedView[]
  /** Paths whose page stays mounted (hidden) while another tab is shown. */
  cachedViews: string[]
}

export const NO_NAME = 'no-name'

export const emptyTags = (): TagsState => ({ visitedViews: [], cachedViews: [] })

/** Adding a view already visited (same path) is ignored; a view is cached unless noCache. */
export function addView(state: TagsState, view: VisitedView): TagsState {
  const visited = state.visitedViews.some((v) => v.path === view.path)
    ? state.visitedViews
    : [...state.visitedViews, { ...view, title: view.title || NO_NAME }]
  return { visitedViews: visited, cachedViews: addCachedView(state.cachedViews, view) }
}

function addCachedView(cached: string[], view: VisitedView): string[] {
  if (view.noCache || cached.includes(view.path)) return cached
  return [...cached, view.path]
}

export function delView(state: TagsState, view: Pick<VisitedView, 'path'>): TagsState {
  return {
    visitedViews: state.visitedViews.filter((v) => v.path !== view.path),
    cachedViews: state.cachedViews.filter((p) => p !== view.path),
  }
}

export function delCachedView(state: TagsState, path: string): TagsState {
  return { ...state, cachedViews: state.cachedViews.filter((p) => p !== path) }
}

/** Keep pinned views and the given one; only the given one stays cached. */
export function delOthersViews(state: TagsState, view: Pick<VisitedView, 'path'>): TagsState {
  return {
    visitedViews: state.visitedViews.filter((v) => v.noClose || v.path === view.path),
    cachedViews: state.cachedViews.filter((p) => p === view.path),
  }
}

/** Keep pinned views only; nothing stays cached. */
export function delAllViews(state: TagsState): TagsState {
  return { visitedViews: state.visitedViews.filter((v) => v.noClose), cachedViews: [] }
}

export function delAllCachedViews(state: TagsState): TagsState {
  return { ...state, cachedViews: [] }
}

/** Merge new fields (e.g. a new fullPath after a filter change) into the visited view with that path. */
export function updateVisitedView(state: TagsState, view: Partial<VisitedView> & { path: string }): TagsState {
  return {
    ...state,
    visitedViews: state.visitedViews.map((v) => (v.path === view.path ? { ...v, ...view } : v)),
  }
}

/**
 * Where to go after closing the active tab: the last remaining tab; else, when the closed tab was
 * the dashboard, reload it through /redirect; else '/'.
 */
export function nextAfterClose(remaining: readonly VisitedView[], closed: VisitedView): string {
  const latest = remaining[remaining.length - 1]
  if (latest) return latest.fullPath
  if (closed.name === 'Dashboard') return `/redirect${closed.fullPath}`
  return '/'
}
