import { ADMIN_ROLE, DEFAULT_ROLE, type RouteNode, type SecondFactorState, type SessionUser, type UserInfo } from '@velo/shared'
import { createStore } from '../lib/createStore'
import { getToken, removeToken, setToken } from './token'

// Session state (SPEC §4): logged out → token set → user info and roles loaded → routes generated.

export interface SessionState {
  token: string | undefined
  user: SessionUser | null
  roles: string[]
  permissions: string[]
  /** Server routes once loaded; null until then. */
  routes: RouteNode[] | null
  /** Bumped when the avatar changes so the image URL is cache-busted. */
  avatarVersion: number
  /** Whether the user's roles require a second factor and whether they hold one: the user menu nudges until they do. */
  secondFactor: SecondFactorState | null
}

export const sessionStore = createStore<SessionState>({
  token: getToken(),
  user: null,
  roles: [],
  permissions: [],
  routes: null,
  avatarVersion: 0,
  secondFactor: null,
})

/** The user and routes a sign-in answered with its token, and the page it opens next. */
export interface SignedInSession {
  userInfo: UserInfo
  routes: RouteNode[]
  opens: string
}

export const VERIFICATION_FAILED = 'Verification failed, please Login again.'

export const sessionActions = {
  signedIn(token: string) {
    setToken(token)
    sessionStore.setState({ token })
  },
  /** SPEC §5: no user → verification failed; no roles → ROLE_DEFAULT. */
  userInfoLoaded(info: UserInfo | null | undefined) {
    if (!info?.user) throw new Error(VERIFICATION_FAILED)
    const roles = info.roles?.length ? info.roles : [DEFAULT_ROLE]
    sessionStore.setState({ user: info.user, roles, permissions: info.permissions ?? [], secondFactor: info.secondFactor ?? null })
  },
  routesLoaded(routes: RouteNode[]) {
    sessionStore.setState({ routes })
  },
  avatarChanged(avatar: string) {
    const user = sessionStore.getState().user
    if (user) sessionStore.setState({ user: { ...user, avatar }, avatarVersion: Date.now() })
  },
  profileChanged(patch: Partial<SessionUser>) {
    const user = sessionStore.getState().user
    if (user) sessionStore.setState({ user: { ...user, ...patch } })
  },
  /** The Security tab's fresher word (a factor added or removed) ends or brings back the user menu's nudge without a new sign-in. */
  secondFactorChanged(secondFactor: SecondFactorState) {
    const known = sessionStore.getState().secondFactor
    if (known?.required !== secondFactor.required || known.enrolled !== secondFactor.enrolled || known.due !== secondFactor.due) sessionStore.setState({ secondFactor })
  },
  /** Clears only the token (reset-token and federated logout). */
  resetToken() {
    removeToken()
    sessionStore.setState({ token: undefined, user: null, roles: [], permissions: [], routes: null, secondFactor: null })
  },
}

export const isAdmin = (roles: readonly string[]): boolean => roles.includes(ADMIN_ROLE)
