import Cookies from 'js-cookie'
import { TOKEN_COOKIE } from '../lib/config'

// The sign-in token lives in a session cookie (SPEC §9) so it is shared by every tab of the browser.

export const getToken = (): string | undefined => Cookies.get(TOKEN_COOKIE) || undefined
export const setToken = (token: string): void => {
  Cookies.set(TOKEN_COOKIE, token, { sameSite: 'lax' })
}
export const removeToken = (): void => Cookies.remove(TOKEN_COOKIE)
