import { lazy, Suspense } from 'react'
import { BrowserRouter, Navigate, Route, Routes, useSearchParams } from 'react-router'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { ThemeProvider } from './ThemeProvider'
import { FeedbackBinder } from './FeedbackBinder'
import { RouteProgress } from './RouteProgress'
import { AuthGuard } from './AuthGuard'
import { sessionStore } from './session/sessionStore'
import { safeRedirect } from './redirectTarget'

// Public pages and the shell are separate chunks: the login page never downloads the layout.
const LoginPage = lazy(() => import('../pages/login'))
const RegisterPage = lazy(() => import('../pages/register'))
const ForgetPasswordPage = lazy(() => import('../pages/forgetPassword'))
const Shell = lazy(() => import('../layout/Shell'))

const queryClient = new QueryClient({
  defaultOptions: {
    // The http client already reports failures; retrying would repeat the red message.
    queries: { retry: false, refetchOnWindowFocus: false },
  },
})

/**
 * A signed-in user opening /login goes to / (SPEC §2), or to the page named by ?redirect — which is
 * also where the sign-in form sends them the moment the token is stored.
 */
function LoginRoute() {
  const token = sessionStore.use((s) => s.token)
  const [params] = useSearchParams()
  return token ? <Navigate to={safeRedirect(params.get('redirect'))} replace /> : <LoginPage />
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <ThemeProvider>
        <FeedbackBinder />
        <BrowserRouter>
          <Suspense fallback={<RouteProgress />}>
            <Routes>
              <Route path="/login" element={<LoginRoute />} />
              <Route path="/register" element={<RegisterPage />} />
              <Route path="/forgetPassword" element={<ForgetPasswordPage />} />
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
