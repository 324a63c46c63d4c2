// The wire contract between server and web: envelope, codes, session and route shapes.

/** Every response body is an envelope; `code` 200 means success. */
export interface Envelope<T = unknown> {
  code: number
  msg: string
  data: T
}

/** Envelope codes besides HTTP-like ones (400, 401, 403, 404, 409, 429, 500). */
export const ResultCode = {
  OK: 200,
  /** Unknown or revoked token. */
  ILLEGAL_TOKEN: 50008,
  /** Token displaced by a newer sign-in of the same user (single sign-in on). */
  SIGNED_IN_ELSEWHERE: 50012,
  /** Token expired. */
  TOKEN_EXPIRED: 50014,
  /** A dangerous action needs a second proof first (POST /auth/step-up), then the same call again. */
  STEP_UP_REQUIRED: 50020,
} as const

/** The envelope codes after which the web offers "Confirm logout". */
export const SESSION_END_CODES: readonly number[] = [
  ResultCode.ILLEGAL_TOKEN,
  ResultCode.SIGNED_IN_ELSEWHERE,
  ResultCode.TOKEN_EXPIRED,
]

export const LANGUAGES = ['en_US', 'zh_CN'] as const
export type Language = (typeof LANGUAGES)[number]
export const DEFAULT_LANGUAGE: Language = 'en_US'
/** Request header that picks the language of every server message. */
export const LANGUAGE_HEADER = 'currentLanguage'

export const ADMIN_ROLE = 'admin'
export const ALL_PERMISSIONS = '*:*:*'
/**
 * Permissions that bypass every other rule (raw broker access, raw SQL): only administrators use
 * them, so only administrators grant them, like the wildcard '*:*:*'.
 */
export const ADMIN_ONLY_PERMISSION_PREFIXES = ['iot:mqDebug:', 'tool:sql:'] as const
/** Whether only an administrator may put this permission on a menu or into a role. */
export function isAdminOnlyPermission(permission: string): boolean {
  return permission.includes('*') || ADMIN_ONLY_PERMISSION_PREFIXES.some((p) => permission.startsWith(p))
}
export const DEFAULT_ROLE = 'ROLE_DEFAULT'

export const DEFAULT_PAGE_SIZE = 20
export const PAGE_SIZES = [10, 20, 30, 50] as const

export interface Paged<T> {
  rows: T[]
  total: number
}

export interface CaptchaResult {
  captchaEnabled: boolean
  uuid?: string
  /** An SVG data URL. */
  img?: string
}

/** Public switches the sign-in pages need before anyone signs in. */
export interface AccountFeatures {
  captchaEnabled: boolean
  registerEnabled: boolean
  forgetPasswordEnabled: boolean
  /** The navbar's source-code link (SOURCE_URL); absent unless the operator set it, and then no link is shown. */
  sourceUrl?: string
  /** The navbar's API documentation link (API_DOCS_URL); absent unless the operator set it, and then no link is shown. */
  apiDocsUrl?: string
  /** Single sign-on (OIDC_*); absent when it is not set up. */
  sso?: {
    /** The button's "Sign in with {name}" (OIDC_NAME); absent, the page says "single sign-on" in its language. */
    name?: string
    /** false (OIDC_PASSWORD_SIGN_IN=off): the password form is for break-glass accounts only, folded away. */
    passwordSignIn: boolean
  }
}

export interface SessionUser {
  userId: number
  username: string
  nickName: string
  /** Stored file name of the avatar, '' for none; shown through GET /common/avatar?url=. */
  avatar: string
  email: string
  phone: string
  sex: string
  deptId: number | null
  deptName: string | null
  createTime: string
  loginIp: string | null
  loginDate: string | null
}

export interface UserInfo {
  user: SessionUser
  roles: string[]
  permissions: string[]
  /** Whether the user's roles require a second factor, whether they hold one, and from when it is a must. */
  secondFactor: SecondFactorState
}

export interface SecondFactorState {
  required: boolean
  enrolled: boolean
  /** ISO time after which signing in without one leads to its enrolment first (null: not required). */
  due: string | null
}

/** What POST /login (and its second steps) answer: a session, or the step that must come first. */
export interface SignInAnswer {
  token?: string
  userInfo?: UserInfo
  routes?: RouteNode[]
  /** The user holds a second factor: POST /login/second-factor with this ticket and a code. */
  secondFactor?: { ticket: string; methods: ProofMethod[] }
  /** The user's role requires a second factor they lack: enrol first (POST /login/enrol/start, /login/enrol/confirm). */
  enrol?: { ticket: string }
  /** Shown once, after an enrolment: the ten recovery codes. */
  recoveryCodes?: string[]
}

/** How a user proves themselves: a code of an authenticator app, a recovery code, or the password. */
export type ProofMethod = 'passkey' | 'totp' | 'recovery' | 'password'

/** A 401 STEP_UP_REQUIRED's data: how the caller may give the second proof (POST /auth/step-up). */
export interface StepUpRequired {
  methods: ProofMethod[]
}

/** One of the user's second factors, as their profile lists it: never its secret. */
export interface FactorSummary {
  factorId: number
  kind: 'totp' | 'passkey'
  name: string
  createTime: string
  lastUsedTime: string | null
}

/** One of the user's live sessions, as their profile lists it. */
export interface OwnSession {
  sessionId: string
  current: boolean
  ipaddr: string
  browser: string
  os: string
  loginTime: string
  lastSeen: string
}

/** The profile's Security tab: factors, recovery codes left, the requirement, and the sessions. */
export interface SecurityOverview {
  factors: FactorSummary[]
  recoveryCodesLeft: number
  secondFactor: SecondFactorState
  sessions: OwnSession[]
}

export interface RouteMeta {
  title: string
  icon: string | null
  noClose: boolean
  noCache: boolean
  activeMenu: string | null
  /** false hides the route from the breadcrumb. */
  breadcrumb: boolean
  /** External link target for link menus. */
  link: string | null
}

/** One node of GET /getRouters. `component` is 'Layout', 'ParentView' or a page path such as 'system/dict/index'. */
export interface RouteNode {
  name: string
  path: string
  hidden: boolean
  redirect?: string
  component: string
  alwaysShow?: boolean
  meta: RouteMeta
  children?: RouteNode[]
}

/** Rows GET {path}/options answers at most: a picker that gets this many searches on the server as the user types. */
export const PICKER_LIMIT = 1000
