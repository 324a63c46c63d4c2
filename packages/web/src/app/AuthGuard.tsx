import { useEffect, useRef, useState, type ReactNode } from 'react'
import { Navigate, useLocation, useNavigate } from 'react-router'
import { Button } from 'antd'
import { useQueryClient } from '@tanstack/react-query'
import { warmPage } from '../crud/api/prefetch'
import { StatusPanel } from '../layout/main/StatusPanel'
import { useTranslation } from 'react-i18next'
import { ApiError } from '../api/errors'
import { feedbackText } from '../api/http'
import { MESSAGE_DURATION_S } from '../lib/config'
import { RouteProgress } from '../layout/main/RouteProgress'
import { loginUrlFor } from '../session/redirectTarget'
import { isUnreachable, localLogout, loadSessionOnce, pageIsUnloading } from '../layout/sessionFlow'
import { sessionActions, sessionStore, VERIFICATION_FAILED } from '../session/sessionStore'
import { useFeedback } from '../lib/feedback'

/**
 * The route guard (SPEC §2, §8): no token → /login?redirect=<wanted path>; with a token, load user
 * info and then the routes once before showing the shell.
 */
export function AuthGuard({ children }: { children: ReactNode }) {
  const token = sessionStore.use((s) => s.token)
  const routes = sessionStore.use((s) => s.routes)
  const location = useLocation()
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const { message, modal } = useFeedback()
  const { t } = useTranslation()
  const fullPath = `${location.pathname}${location.search}`
  // The load promise whose outcome this guard already handled (effects may run twice in dev).
  const handled = useRef<Promise<unknown> | null>(null)
  // Bumped by "Try again" after the server could not be reached.
  const [attempt, setAttempt] = useState(0)
  const [unreachable, setUnreachable] = useState(false)

  useEffect(() => {
    // Also with the routes in already (a sign-in answers with them): the load they came by is this
    // view's one load, whose outcome (no pages at all, a page to start) is handled here once.
    if (!token) return
    const load = loadSessionOnce()
    if (handled.current === load) return
    handled.current = load
    setUnreachable(false)
    void load.then((failure) => {
      // A reload or a link followed while the session loaded cancels its requests: that says nothing
      // about the token, and forgetting it would sign the user out of the page they reload into.
      if (pageIsUnloading()) return
      if (!failure) {
        const loaded = sessionStore.getState().routes
        if (!loaded?.length) showNoAccess()
        else warmPage(queryClient, loaded, window.location.pathname, window.location.search)
      } else if (isUnreachable(failure.error)) {
        // No answer (network down, a server restarting): the token may be fine; keep it and offer a retry.
        setUnreachable(true)
        void message.error(describe(failure.error), MESSAGE_DURATION_S)
      } else if (failure.stage === 'userInfo') {
        // User info failed: local logout, say why, and start over at '/'.
        localLogout()
        void message.error(describe(failure.error), MESSAGE_DURATION_S)
        navigate('/', { replace: true })
      } else {
        sessionActions.resetToken()
        void message.error(describe(failure.error), MESSAGE_DURATION_S)
        navigate(loginUrlFor(fullPath), { replace: true })
      }
    })
    // Loading depends on the session only; the path is read once for the redirect.
  }, [token, routes, attempt])

  function describe(error: unknown): string {
    if (error instanceof ApiError) return feedbackText(error)
    if (error instanceof Error && error.message === VERIFICATION_FAILED) return t('guard.verificationFailed')
    return error instanceof Error && error.message ? error.message : t('guard.hasError')
  }

  function showNoAccess() {
    modal.confirm({
      title: t('noAccess.title'),
      content: t('noAccess.content'),
      okText: t('noAccess.relogin'),
      cancelText: t('common.cancel'),
      onOk: () => {
        localLogout()
        window.location.reload()
      },
    })
  }

  if (!token) return <Navigate to={loginUrlFor(fullPath)} replace />
  if (!routes && unreachable) {
    return (
      <StatusPanel
        status="warning"
        title={t('guard.unreachable')}
        extra={
          <Button type="primary" onClick={() => setAttempt((n) => n + 1)}>
            {t('guard.retry')}
          </Button>
        }
      />
    )
  }
  if (!routes) return <RouteProgress />
  return children
}
