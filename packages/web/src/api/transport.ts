import { LANGUAGE_HEADER } from '@velo/shared'
import { API_BASE_URL, REQUEST_TIMEOUT_MS } from '../lib/config'
import { getToken } from '../session/token'
import { currentLanguage } from '../i18n/language'
import { fromFetchFailure, interpretResponse } from './errors'

// The HTTP exchange itself: URL, headers, timeout, envelope. It loads neither antd nor i18next, so
// the light sign-in pages call the API through it too; api/http.ts adds the console's feedback.

export type Query = Record<string, string | number | boolean | null | undefined>

export interface TransportOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** Path under the API prefix, e.g. '/getUserInfo'. */
  url: string
  params?: Query
  /** JSON body, or FormData for uploads. */
  data?: unknown
  timeout?: number
  signal?: AbortSignal
  /**
   * Sends this origin's cookies. Calls carry the token and never cookies (nothing a cookie could
   * authorize); single sign-on's last step is the exception: its cookie proves the sign-in was started
   * in this browser (server auth/sso/routes.ts, SSO_BROWSER_COOKIE).
   */
  withCookies?: boolean
}

export function buildUrl(url: string, params?: Query): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value))
  }
  const qs = search.toString()
  return `${API_BASE_URL}${url}${qs ? `${url.includes('?') ? '&' : '?'}${qs}` : ''}`
}

/** The headers every call carries: the token (when signed in) and the language of messages (SPEC §7). */
export function apiHeaders(accept = 'application/json'): Headers {
  const headers = new Headers({ Accept: accept })
  const token = getToken()
  if (token) headers.set('Authorization', token)
  headers.set(LANGUAGE_HEADER, currentLanguage())
  return headers
}

function buildHeaders(data: unknown): Headers {
  const headers = apiHeaders()
  // FormData sets its own multipart boundary.
  if (data !== undefined && !(data instanceof FormData)) headers.set('Content-Type', 'application/json')
  return headers
}

/** fetch with the client's timeout (SPEC §7: 120000 ms) and the caller's own abort signal. */
export async function send(opts: TransportOptions): Promise<Response> {
  const timeout = opts.timeout ?? REQUEST_TIMEOUT_MS
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, timeout)
  const onCallerAbort = () => controller.abort()
  opts.signal?.addEventListener('abort', onCallerAbort)
  try {
    return await fetch(buildUrl(opts.url, opts.params), {
      method: opts.method ?? 'GET',
      headers: buildHeaders(opts.data),
      body: opts.data === undefined ? undefined : opts.data instanceof FormData ? opts.data : JSON.stringify(opts.data),
      credentials: opts.withCookies ? 'same-origin' : 'omit',
      signal: controller.signal,
    })
  } catch (error) {
    throw fromFetchFailure(error, timedOut, timeout, opts.signal?.aborted === true)
  } finally {
    clearTimeout(timer)
    opts.signal?.removeEventListener('abort', onCallerAbort)
  }
}

export async function readBody(response: Response): Promise<unknown> {
  const type = response.headers.get('Content-Type') ?? ''
  if (type.includes('json')) return response.json().catch(() => null)
  const text = await response.text()
  return text === '' ? null : text
}

/**
 * One call and its envelope: the data and the server's msg, or the ApiError of a refusal or a
 * transport failure, thrown.
 */
export async function exchange<T>(opts: TransportOptions): Promise<{ data: T; msg: string }> {
  const response = await send(opts)
  const body = await readBody(response)
  const result = interpretResponse<T>(response.status, body)
  if (!result.ok) throw result.error
  const msg = typeof body === 'object' && body !== null && typeof (body as { msg?: unknown }).msg === 'string' ? (body as { msg: string }).msg : ''
  return { data: result.data, msg }
}
