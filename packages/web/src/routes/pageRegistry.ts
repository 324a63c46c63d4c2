import { createElement, lazy, type ComponentType } from 'react'
import { entityForComponent, type ResolvedEntity } from '@velo/shared'

// Server routes name their page by path ('system/dict/index'); the page modules under src/pages
// are found at build time and loaded on demand, each in its own chunk. Page modules have lowercase
// names (index.tsx, profile.tsx, 404.tsx); PascalCase files beside them are their parts, not pages.
// A component with no page module but an entity definition at its path gets the generic list page.

type PageModule = { default: ComponentType }

const modules = import.meta.glob<PageModule>([
  '../pages/**/*.tsx',
  '!../pages/**/*.test.tsx',
  '!../pages/**/[A-Z]*.tsx',
])

/**
 * Menu components served by a page module of another area: IoT › IoT upgrade is the IoT part's
 * upgrade page of the OTA area (/ota/iotpart/upgrade), one page under two menus, so the IoT pages
 * import no OTA code (areas do not import each other: eslint.config.js, velo/floors).
 */
const SAME_PAGE_AS: Readonly<Record<string, string>> = { 'iot/upgrade/index': 'ota/iotpart/upgrade/index' }

/** File keys a component name may live under: 'a/b/index' → a/b/index.tsx or a/b.tsx; 'a/b' → a/b.tsx or a/b/index.tsx. */
export function pageKeyCandidates(component: string): string[] {
  const given = component.replace(/^\/+/, '').replace(/\.(tsx|vue)$/, '')
  const name = SAME_PAGE_AS[given] ?? given
  const base = '../pages/'
  const stem = name.endsWith('/index') ? name.slice(0, -'/index'.length) : name
  return [`${base}${stem}/index.tsx`, `${base}${stem}.tsx`]
}

// The list kit is its own chunk: only list pages download it.
const loadListKit = () => import('../crud/EntityListPage')
const EntityListPage = lazy(() => loadListKit().then((m) => ({ default: m.EntityListPage })))

function entityPage(entity: ResolvedEntity): ComponentType {
  const Page = () => createElement(EntityListPage, { entity })
  Page.displayName = `EntityPage(${entity.key})`
  return Page
}

// One component per page, so a page keeps its identity (and its state) across renders.
const cache = new Map<string, ComponentType>()

/** The page module a component name has, if any. */
const pageModuleKey = (component: string) => pageKeyCandidates(component).find((k) => k in modules)

/**
 * The page for a component name: its page module (a custom page wins), else the generic list of the
 * entity at that path, else null.
 */
export function resolvePage(component: string): ComponentType | null {
  const key = pageModuleKey(component)
  const entity = key ? undefined : entityForComponent(component)
  const cacheKey = key ?? (entity ? `entity:${entity.key}` : null)
  if (!cacheKey) return null
  let page = cache.get(cacheKey)
  if (!page) {
    page = key ? lazy(modules[key] as () => Promise<PageModule>) : entityPage(entity as ResolvedEntity)
    cache.set(cacheKey, page)
  }
  return page
}

/**
 * Starts downloading the code of a component's page before React gets to render it (the page's
 * lazy component then finds the module loaded or on its way: an import is fetched once).
 */
export function preloadPage(component: string): void {
  const key = pageModuleKey(component)
  if (key) void modules[key]!().catch(() => undefined)
  else if (entityForComponent(component)) void loadListKit().catch(() => undefined)
}
