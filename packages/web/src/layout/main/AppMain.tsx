import { Activity, memo, Suspense, useEffect, useMemo, useRef } from 'react'
import { Navigate, NavigationType, Route, Routes, UNSAFE_LocationContext, useLocation, type Location } from 'react-router'
import { PRODUCT_NAME } from '../../lib/config'
import { DASHBOARD_PATH } from '../../routes/fixedRoutes'
import { resolvePage } from '../../routes/pageRegistry'
import { matchPage } from '../../routes/routeTable'
import { translateTitle } from '../../i18n'
import { tagsStore } from '../tags/tagsStore'
import { useCurrentPage } from '../useCurrentPage'
import type { PageRoute } from '../../routes/routeModel'
import { PageHost } from './PageHost'
import { RedirectHelper } from './RedirectHelper'

/** Whether an address names one of the console's pages (a page module or an entity's list), whoever may see it. */
const isConsolePage = (path: string) => path.length > 1 && resolvePage(`${path.replace(/^\/+|\/+$/g, '')}/index`) !== null

/**
 * The page area with keep-alive: every cached view that was opened in this page load stays mounted
 * inside a hidden <Activity>, so its filters, pager and form state survive tab switches. Each view
 * sees the location it last had, not the current one, so a hidden list does not react to another
 * page's URL.
 */
export function AppMain() {
  const location = useLocation()
  const { table, current } = useCurrentPage()
  const cachedViews = tagsStore.use((s) => s.cachedViews)
  // Last location of each view opened in this page load, in first-opened order (a stable render order).
  const views = useRef(new Map<string, Location>())
  const path = location.pathname

  if (current) views.current.set(path, location)
  for (const seen of [...views.current.keys()]) {
    if (seen !== path && !cachedViews.includes(seen)) views.current.delete(seen)
  }

  useEffect(() => {
    const title = current ? translateTitle(current.page.meta.title) : ''
    document.title = title ? `${title} - ${PRODUCT_NAME}` : PRODUCT_NAME
  }, [current])

  if (path === '/redirect' || path.startsWith('/redirect/')) return <RedirectHelper />
  const folderRedirect = table.redirects.get(path)
  if (!current && (folderRedirect || path === '/')) return <Navigate to={folderRedirect ?? DASHBOARD_PATH} replace />
  if (!current) {
    // A page of the console the user's menus leave out is one they have no right to (SPEC §2's
    // 401 page); any other address is no page at all (404). Shown where it was asked, the address kept.
    const ErrorPage = resolvePage(isConsolePage(path) ? 'error/401' : 'error/404')
    return <Suspense fallback={null}>{ErrorPage && <ErrorPage />}</Suspense>
  }

  return (
    <>
      {[...views.current].map(([viewPath, viewLocation]) => {
        const match = viewPath === path ? current : matchPage(table.pages, viewPath)
        if (!match) return null
        return <KeptView key={viewPath} viewPath={viewPath} location={viewLocation} page={match.page} visible={viewPath === path} />
      })}
    </>
  )
}

/**
 * One kept view. A navigation renders only the view it shows and the one it hides: the others keep
 * their props, and their pages read the location they last had from a context value of their own
 * (the router's would change with every navigation and render every kept list again, which made
 * moving between two visited lists cost a render of all of them).
 */
const KeptView = memo(function KeptView({ viewPath, location, page, visible }: { viewPath: string; location: Location; page: PageRoute; visible: boolean }) {
  const own = useMemo(() => ({ location, navigationType: NavigationType.Pop }), [location])
  return (
    <Activity mode={visible ? 'visible' : 'hidden'}>
      <div className="app-view" data-view={viewPath}>
        <UNSAFE_LocationContext.Provider value={own}>
          <Routes location={location}>
            <Route path={page.path} element={<PageHost page={page} />} />
          </Routes>
        </UNSAFE_LocationContext.Provider>
      </div>
    </Activity>
  )
})
