// Product-wide constants of the web app (SPEC §9). Values the server decides live in @velo/shared.

export const PRODUCT_NAME = 'Velo Admin'

/** API prefix; the server mounts every call under it (DESIGN: API conventions). */
export const API_PREFIX: string = import.meta.env.VITE_API_PREFIX || '/api'
/** The API host; empty means the same origin that served the web app. */
export const API_HOST: string = import.meta.env.VITE_API_HOST || ''
export const API_BASE_URL = `${API_HOST}${API_PREFIX}`

export const REQUEST_TIMEOUT_MS = 120_000
export const MESSAGE_DURATION_S = 5

/** SPEC §9: the token cookie has a fixed name plus '#'. */
export const TOKEN_COOKIE = 'Admin-Token#'
export const SIDEBAR_COOKIE = 'sidebarStatus'
export const SIZE_COOKIE = 'size'
export const LANGUAGE_KEY = 'user_lang'
export const REMEMBERED_USERNAME_KEY = 'velo.rememberedUsername'
export const SETTINGS_KEY = 'velo.layoutSettings'
export const TAGS_VIEW_KEY = 'velo.tagsView'

export const SIDEBAR_WIDTH = 190
export const SIDEBAR_COLLAPSED_WIDTH = 54
export const MOBILE_BREAKPOINT = 992

export const DEFAULT_THEME_COLOR = '#1890ff'
export const DEFAULT_AVATAR = '/avatar.gif'

/** SPEC §9 menu colours. */
export const MENU_COLORS = {
  text: '#bfcbd9',
  activeText: '#409eff',
  background: '#304156',
  subMenuBackground: '#1f2d3d',
  hoverBackground: '#263445',
} as const
