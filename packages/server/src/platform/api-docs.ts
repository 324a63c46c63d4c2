import { ResultCode } from '@velo/shared'
import type { FastifyRequest } from 'fastify'
import { AppError } from './errors'
import { readToken } from './rbac/guard'
import type { Services } from './services'

/**
 * The cookie the console keeps its session token in (SPEC §9: a fixed name plus '#'; the web app's
 * TOKEN_COOKIE). A browser opening the API documentation from the navbar's link sends it, where it
 * sends no Authorization header. Only the documentation reads it: the API itself takes the header.
 */
export const CONSOLE_TOKEN_COOKIE = 'Admin-Token#'

/** The console's token from the request's cookies, or null. */
export function consoleCookieToken(req: FastifyRequest): string | null {
  const header = req.headers.cookie
  if (!header) return null
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=')
    if (eq < 0) continue
    const name = pair.slice(0, eq).trim()
    if (name !== CONSOLE_TOKEN_COOKIE && name !== encodeURIComponent(CONSOLE_TOKEN_COOKIE)) continue
    let value = pair.slice(eq + 1).trim()
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1)
    try {
      value = decodeURIComponent(value)
    } catch {
      return null
    }
    return value || null
  }
  return null
}

/**
 * The onRequest hook of the documentation's routes when API_DOCS=staff (the default): the OpenAPI
 * page, its document and its settings answer 401 unless the request carries a valid staff session,
 * in the Authorization header or in the console's cookie. (swagger-ui's own script and style files
 * are the package's, the same for every installation, and stay open.)
 */
export function staffOnlyDocs(services: Services) {
  return async (req: FastifyRequest) => {
    const token = readToken(req) ?? consoleCookieToken(req)
    if (!token) throw new AppError(401, 'auth.notLoggedIn', {}, ResultCode.ILLEGAL_TOKEN)
    const found = await services.authCache.signedIn(token)
    if (found.state !== 'valid') throw new AppError(401, 'auth.tokenIllegal', {}, ResultCode.ILLEGAL_TOKEN)
  }
}
