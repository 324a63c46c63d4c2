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
