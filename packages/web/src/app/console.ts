// The entry of the console, loaded by main.tsx (or preloaded by the sign-in page) with import().
import type { RouteNode } from '@velo/shared'
import { loadLanguage } from '../i18n'
import { warmPage } from '../crud/api/prefetch'
import { loadSessionOnce } from '../layout/sessionFlow'
import { sessionStore, type SignedInSession } from '../session/sessionStore'
import { queryClient } from './queryClient'
import { loadAntdLocale } from './antdLocale'
import { preloadMenuIcons } from '../lib/menuIcons'
import { preloadPage } from '../routes/pageRegistry'
import { buildRouteTable, matchPage } from '../routes/routeTable'
import { DASHBOARD_PATH } from '../routes/fixedRoutes'

export { App } from './App'

preloadMenuIcons()

/**
 * Signed in (app/loadConsole.ts): the session is taken, and when the sign-in answered with it, the page
 * it opens starts at once (its code, its first rows), before the app has rendered its route guard.
 */
export function startSession(session?: SignedInSession): void {
  void loadSessionOnce(session).then((failure) => {
    const routes = sessionStore.getState().routes
    if (!session || failure || !routes?.length) return
    const opens = new URL(session.opens, window.location.href)
    warmPage(queryClient, routes, opens.pathname, opens.search)
  })
}

const NO_SERVER_ROUTES: readonly RouteNode[] = []

/**
 * The code of the page at an address, before the routes are known (the sign-in page, while the user
 * types): a fixed route's page, else the component a menu gives that path by the RuoYi convention
 * ('/system/user' → 'system/user/index'). A guess that names no page loads nothing; the routes decide
 * after sign-in (startSession), and a page already loading is not asked for twice.
 */
export function preloadPageAt(address: string): void {
  const { pathname } = new URL(address, window.location.href)
  const fixed = matchPage(buildRouteTable(NO_SERVER_ROUTES).pages, pathname === '/' ? DASHBOARD_PATH : pathname)
  preloadPage(fixed ? fixed.page.component : `${pathname.replace(/^\/+|\/+$/g, '')}/index`)
}

/** The shell is a chunk of its own that App loads lazily; after sign-in it is the next thing needed. */
export const preloadShell = (): Promise<unknown> => import('../layout/Shell')

/** The page's language catalogue and antd's locale (chunks of their own for Chinese): loadConsole waits for them before the console renders. */
export const languageReady: Promise<void> = Promise.all([loadLanguage(), loadAntdLocale()]).then(() => undefined)
