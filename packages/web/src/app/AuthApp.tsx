import { useEffect, useMemo, useState } from 'react'
import LoginPage from '../pages/login'
import RegisterPage from '../pages/register'
import ForgetPasswordPage from '../pages/forgetPassword'
import { AuthNavContext, isPublicPath, type AuthNavigation } from '../layout/auth/AuthNav'
import { preloadConsole, startSession } from './loadConsole'

/** Opens the console at `to` (or at the current address), which takes the page over. */
export type LeaveToConsole = (to?: string, options?: { replace?: boolean }) => void

const pages: Record<string, () => React.JSX.Element | null> = {
  '/login': LoginPage,
  '/register': RegisterPage,
  '/forgetPassword': ForgetPasswordPage,
}

/**
 * The public pages on their own, without the console: no antd, no router, no i18next. They move
 * between each other with the History API; any other address is the console's, which `onLeave`
 * loads (the sign-in page has usually preloaded it by then) and renders in their place.
 */
export function AuthApp({ onLeave }: { onLeave: LeaveToConsole }) {
  const [where, setWhere] = useState(() => ({ path: window.location.pathname, search: window.location.search }))

  useEffect(() => {
    const onPop = () => {
      const { pathname, search } = window.location
      if (isPublicPath(pathname)) setWhere({ path: pathname, search })
      else onLeave()
    }
    window.addEventListener('popstate', onPop)
    return () => window.removeEventListener('popstate', onPop)
  }, [onLeave])

  const navigation = useMemo<AuthNavigation>(
    () => ({
      search: where.search,
      navigate: (to, options) => {
        const url = new URL(to, window.location.href)
        if (!isPublicPath(url.pathname)) return onLeave(to, options)
        window.history[options?.replace ? 'replaceState' : 'pushState'](null, '', to)
        setWhere({ path: url.pathname, search: url.search })
      },
      preloadConsole,
      startSession,
    }),
    [where.search, onLeave],
  )

  const Page = pages[where.path] ?? LoginPage
  return (
    <AuthNavContext.Provider value={navigation}>
      <Page key={where.path} />
    </AuthNavContext.Provider>
  )
}
