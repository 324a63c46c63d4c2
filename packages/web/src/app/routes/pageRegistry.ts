import { lazy, type ComponentType, type LazyExoticComponent } from 'react'

// Server routes name their page by path ('system/dict/index'); the page modules under src/pages
// are found at build time and loaded on demand, each in its own chunk. Page modules have lowercase
// names (index.tsx, profile.tsx, 404.tsx); PascalCase files beside them are their parts, not pages.

type PageModule = { default: ComponentType }

const modules = import.meta.glob<PageModule>([
  '../../pages/**/*.tsx',
  '!../../pages/**/*.test.tsx',
  '!../../pages/**/[A-Z]*.tsx',
])

/** File keys a component name may live under: 'a/b/index' → a/b/index.tsx or a/b.tsx; 'a/b' → a/b.tsx or a/b/index.tsx. */
export function pageKeyCandidates(component: string): string[] {
  const name = component.replace(/^\/+/, '').replace(/\.(tsx|vue)$/, '')
  const base = '../../pages/'
  const stem = name.endsWith('/index') ? name.slice(0, -'/index'.length) : name
  return [`${base}${stem}/index.tsx`, `${base}${stem}.tsx`]
}

const cache = new Map<string, LazyExoticComponent<ComponentType>>()

/** The lazily loaded page for a component name, or null when no page module has that name. */
export function resolvePage(component: string): LazyExoticComponent<ComponentType> | null {
  const key = pageKeyCandidates(component).find((k) => k in modules)
  if (!key) return null
  let page = cache.get(key)
  if (!page) {
    page = lazy(modules[key] as () => Promise<PageModule>)
    cache.set(key, page)
  }
  return page
}
