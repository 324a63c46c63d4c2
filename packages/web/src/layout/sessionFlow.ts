import { getRouters, getUserInfo, logout as logoutCall } from '../api/auth'
import { ApiError } from '../api/errors'
import { tagsActions } from './tags/tagsStore'
import { sessionActions, sessionStore, type SignedInSession } from '../session/sessionStore'

// The guard's loading steps and sign-out, kept apart from React so the order is easy to read.

export type SessionLoadFailure = { stage: 'userInfo' | 'routes'; error: unknown }

/**
 * Load user info and routes, both asked for at once (each needs only the token), or take those the
 * sign-in answered with; user info is taken first. Each failure keeps its own stage, since the guard
 * treats them differently.
 */
async function loadSession(given?: SignedInSession): Promise<SessionLoadFailure | null> {
  const { user, routes } = sessionStore.getState()
  const userInfo = user ? null : given ? Promise.resolve(given.userInfo) : getUserInfo()
  const routeList = routes ? null : given ? Promise.resolve(given.routes) : getRouters()
  // Read below only when user info came; a failure here is then the routes' stage, or nobody's.
  routeList?.catch(() => undefined)
  try {
    if (userInfo) sessionActions.userInfoLoaded(await userInfo)
  } catch (error) {
    return { stage: 'userInfo', error }
  }
  try {
    if (routeList) sessionActions.routesLoaded((await routeList) ?? [])
  } catch (error) {
    return { stage: 'routes', error }
  }
  return null
}

let pending: Promise<SessionLoadFailure | null> | null = null

let unloading = false
if (typeof window !== 'undefined') {
  // Set when the page goes away (reload, a link, closing): its requests fail then without the server saying anything.
  window.addEventListener('pagehide', () => (unloading = true))
  window.addEventListener('beforeunload', () => (unloading = true))
  window.addEventListener('pageshow', () => (unloading = false))
}

/** Whether this page is being left: a failure now is the browser cancelling, not an answer. */
export const pageIsUnloading = (): boolean => unloading

/** A failure without an answer from the server (network, timeout, cancelled): it says nothing about the token. */
export const isUnreachable = (error: unknown): boolean => error instanceof ApiError && (error.kind === 'network' || error.kind === 'timeout' || error.kind === 'canceled')

/** One load per page view, however many times the guard mounts; a failed load may be retried. */
export function loadSessionOnce(given?: SignedInSession): Promise<SessionLoadFailure | null> {
  pending ??= loadSession(given).then((failure) => {
    if (failure) pending = null
    return failure
  })
  return pending
}

/** Local logout: forget the token, user, roles, permissions and tabs. */
export function localLogout(): void {
  sessionActions.resetToken()
  tagsActions.reset()
  pending = null
}

/** SPEC §4: call the server, then clear everything locally even if the call failed. */
export async function logout(): Promise<void> {
  try {
    await logoutCall()
  } finally {
    localLogout()
  }
}
