import { lazy, Suspense, useMemo, type ReactNode } from 'react'
import { BrowserRouter, Navigate, Route, Routes, useLocation, useNavigate, useSearchParams } from 'react-router'
import { QueryClientProvider } from '@tanstack/react-query'
import { ThemeProvider } from './ThemeProvider'
import { RouteProgress } from '../layout/main/RouteProgress'
import { AuthGuard } from './AuthGuard'
import { queryClient } from './queryClient'
import { preloadConsole, startSession } from './loadConsole'
import { sessionStore } from '../session/sessionStore'
import { safeRedirect } from '../session/redirectTarget'
import { AuthNavContext, type AuthNavigation } from '../layout/auth/AuthNav'
// The public pages are in the entry chunk (main.tsx shows them without the console); the console
// shows the same ones when it moves to them itself (sign-out, a session that ended).
import LoginPage from '../pages/login'
import RegisterPage from '../pages/register'
import ForgetPasswordPage from '../pages/forgetPassword'

const Shell = lazy(() => import('../layout/Shell'))

/** The public pages move with the router here. */
function RouterAuthNav({ children }: { children: ReactNode }) {
  const navigate = useNavigate()
  const { search } = useLocation()
  const value = useMemo<AuthNavigation>(() => ({ search, navigate: (to, options) => void navigate(to, options), preloadConsole, startSession }), [search, navigate])
  return <AuthNavContext.Provider value={value}>{children}</AuthNavContext.Provider>
}

/**
 * A signed-in user opening /login goes to / (SPEC §2), or to the page named by ?redirect — which is
 * also where the sign-in form sends them the moment the token is stored.
 */
function LoginRoute() {
  const token = sessionStore.use((s) => s.token)
  const [params] = useSearchParams()
  return token ? (
    <Navigate to={safeRedirect(params.get('redirect'))} replace />
  ) : (
    <RouterAuthNav>
      <LoginPage />
    </RouterAuthNav>
  )
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <ThemeProvider>
        <BrowserRouter>
          <Suspense fallback={<RouteProgress />}>
            <Routes>
              <Route path="/login" element={<LoginRoute />} />
              <Route
                path="/register"
                element={
                  <RouterAuthNav>
                    <RegisterPage />
                  </RouterAuthNav>
                }
              />
              <Route
                path="/forgetPassword"
                element={
                  <RouterAuthNav>
                    <ForgetPasswordPage />
                  </RouterAuthNav>
                }
              />
              <Route
                path="*"
                element={
                  <AuthGuard>
                    <Shell />
                  </AuthGuard>
                }
              />
            </Routes>
          </Suspense>
        </BrowserRouter>
      </ThemeProvider>
    </QueryClientProvider>
  )
}
