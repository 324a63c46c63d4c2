import { NO_REDIRECT, type AppRoute } from './routeModel'

// Menu search (SPEC §2): fuzzy over titles (with ancestors' titles) and paths.

export interface SearchEntry {
  path: string
  /** Translated titles from the outermost folder to the page. */
  title: string[]
}

export const MAX_PATTERN_LENGTH = 32

/** Visible routes with a title, except folders that only group (noRedirect). */
export function searchEntries(
  routes: readonly AppRoute[],
  translate: (title: string) => string,
  prefix: string[] = [],
): SearchEntry[] {
  const entries: SearchEntry[] = []
  for (const route of routes) {
    if (route.hidden) continue
    let titles = prefix
    if (route.meta.title) {
      titles = [...prefix, translate(route.meta.title)]
      if (route.redirect !== NO_REDIRECT && (route.kind === 'page' || route.kind === 'link')) {
        entries.push({ path: route.path, title: titles })
      }
    }
    entries.push(...searchEntries(route.children, translate, titles))
  }
  return entries
}
