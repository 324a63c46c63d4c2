import { createContext, useContext, type MouseEvent, type ReactNode } from 'react'
import type { SignedInSession } from '../../session/sessionStore'

// How the public pages move, and what their host does for them: the light sign-in app
// (app/AuthApp.tsx) moves with the History API itself; inside the console, the same pages move with
// react-router (app/App.tsx). Both hosts hand them the console's loader, which the pages, a floor
// below the app, cannot import.

export interface AuthNavigation {
  /** The query string of the page, '?redirect=…' or ''. */
  search: string
  navigate: (to: string, options?: { replace?: boolean }) => void
  /** Starts downloading the console, and the code of the page at `opens` (the user is about to sign in and go there). */
  preloadConsole: (opens?: string) => void
  /** The token is stored: the console takes the user and routes the sign-in answered (or loads them at once) and starts the page it opens. */
  startSession: (session?: SignedInSession) => void
}

export const AuthNavContext = createContext<AuthNavigation>({
  search: '',
  navigate: (to, options) => (options?.replace ? window.location.replace(to) : window.location.assign(to)),
  preloadConsole: () => undefined,
  startSession: () => undefined,
})

export const useAuthNav = (): AuthNavigation => useContext(AuthNavContext)

/** The public pages: they run without the console (see main.tsx). */
export const PUBLIC_PATHS = ['/login', '/register', '/forgetPassword'] as const

export const isPublicPath = (path: string): boolean => (PUBLIC_PATHS as readonly string[]).includes(path)

/** A link between the public pages: a real <a> (middle-click opens a tab), moved in page otherwise. */
export function AuthLink({ to, children }: { to: string; children: ReactNode }) {
  const { navigate } = useAuthNav()
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    e.preventDefault()
    navigate(to)
  }
  return (
    <a className="auth-link" href={to} onClick={onClick}>
      {children}
    </a>
  )
}
