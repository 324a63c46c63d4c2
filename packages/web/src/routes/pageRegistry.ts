import { createElement, lazy, type ComponentType } from 'react'
import { entityKeyAt, loadEntityAt } from '../entities/areas'
import { loadPageTexts } from './pageTexts'

// Server routes name their page by path ('system/dict/index'); the page modules under src/pages
// are found at build time and loaded on demand, each in its own chunk. Page modules have lowercase
// names (index.tsx, profile.tsx, 404.tsx); PascalCase files beside them are their parts, not pages.
// A component with no page module but an entity definition at its path gets the generic list page.
// Either way the definitions at the page's path (their area, and the areas of what they name) load
// beside the page's code: the browser's registry holds only the areas loaded so far. So do the texts
// of the folders a page module is in (./pageTexts.ts); the generic list's are the console's own.

type PageModule = { default: ComponentType }

const modules = import.meta.glob<PageModule>([
  '../pages/**/*.tsx',
  '!../pages/**/*.test.tsx',
  '!../pages/**/[A-Z]*.tsx',
])

/**
 * Menu components whose page module has another name. IoT › IoT upgrade is the IoT part's upgrade
 * page of the OTA area (/ota/iotpart/upgrade), one page under two menus, so the IoT pages import no
 * OTA code (areas do not import each other: eslint.config.js, velo/floors). The monitoring logs keep
 * RuoYi's component names in the menus (the SPEC's URLs) and are named in the code by what they are,
 * as their definitions are (loginLog, operLog).
 */
const SAME_PAGE_AS: Readonly<Record<string, string>> = {
  'iot/upgrade/index': 'ota/iotpart/upgrade/index',
  'monitor/logininfor/index': 'monitor/loginLog/index',
  'monitor/operlog/index': 'monitor/operLog/index',
}

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

/** The generic list page of the entity at a component's path, once its definitions are in. */
function entityPage(component: string, key: string): ComponentType {
  const Page = lazy(async () => {
    const [kit, entity] = await Promise.all([loadListKit(), loadEntityAt(component)])
    return { default: () => createElement(kit.EntityListPage, { entity: entity! }) }
  })
  return Object.assign(Page, { displayName: `EntityPage(${key})` })
}

/** A page module, once its code, the definitions at its path and its texts are in. */
function modulePage(key: string, component: string): ComponentType {
  return lazy(() => Promise.all([(modules[key] as () => Promise<PageModule>)(), loadEntityAt(component), loadPageTexts(key)]).then(([page]) => page))
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
  const entityKey = key ? undefined : entityKeyAt(component)
  const cacheKey = key ?? (entityKey ? `entity:${entityKey}` : null)
  if (!cacheKey) return null
  let page = cache.get(cacheKey)
  if (!page) {
    page = key ? modulePage(key, component) : entityPage(component, entityKey!)
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
  if (key) {
    void modules[key]!().catch(() => undefined)
    void loadPageTexts(key).catch(() => undefined)
  } else if (entityKeyAt(component)) void loadListKit().catch(() => undefined)
  void loadEntityAt(component).catch(() => undefined)
}
