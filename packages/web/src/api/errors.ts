import { ResultCode, SESSION_END_CODES, type Envelope } from '@velo/shared'

/** Why a call failed; the client decides which feedback each kind gets. */
export type FailureKind = 'business' | 'session' | 'network' | 'timeout' | 'http' | 'canceled'

export class ApiError extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
    /** Envelope code, or the HTTP status when there was no envelope. */
    readonly code: number,
    /** Envelope data of a failure, e.g. field errors under `errors`. */
    readonly data?: unknown,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

const isEnvelope = (body: unknown): body is Envelope =>
  typeof body === 'object' && body !== null && 'code' in body && typeof (body as Envelope).code === 'number'

/**
 * Turn an HTTP status plus parsed body into data or an ApiError. Error envelopes also arrive with
 * 4xx/5xx statuses, so the body's code and msg win over the status whenever there is an envelope.
 */
export function interpretResponse<T>(status: number, body: unknown): { ok: true; data: T } | { ok: false; error: ApiError } {
  if (isEnvelope(body)) {
    if (body.code === ResultCode.OK) return { ok: true, data: body.data as T }
    const kind: FailureKind = SESSION_END_CODES.includes(body.code) ? 'session' : 'business'
    return { ok: false, error: new ApiError(body.msg || 'Error', kind, body.code, body.data) }
  }
  if (status >= 200 && status < 300) return { ok: true, data: body as T }
  return { ok: false, error: new ApiError(httpStatusText(status), 'http', status) }
}

function httpStatusText(status: number): string {
  if (status === 404) return 'Request failed with status code 404'
  if (status >= 500) return `Server error (${status})`
  return `Request failed with status code ${status}`
}

/** Map a thrown fetch failure (abort, DNS, refused connection) to an ApiError. */
export function fromFetchFailure(error: unknown, timedOut: boolean, timeoutMs: number, canceled = false): ApiError {
  if (error instanceof ApiError) return error
  if (canceled) return new ApiError('canceled', 'canceled', 0)
  if (timedOut) return new ApiError(`timeout of ${timeoutMs}ms exceeded`, 'timeout', 0)
  const text = error instanceof Error && error.message ? error.message : 'Network Error'
  return new ApiError(text === 'Failed to fetch' ? 'Network Error' : text, 'network', 0)
}

/** Text for the red error message: the server's msg, else 'Error' (SPEC §8). */
export const failureMessage = (error: unknown): string =>
  error instanceof Error && error.message ? error.message : 'Error'

/** End punctuation and case do not make two texts different for the prefix check. */
const bare = (s: string) => s.trim().toLowerCase().replace(/[\s:：,，.。!！;；]+$/u, '')

/**
 * The red message of an action that failed: "<action>: <reason>" (full-width colon in Chinese). The
 * server's messages give the reason only; this is the one place an action's name is put before it,
 * and a reason that already starts with the action (an older server's "Change password failed: …")
 * is shown as it is, never as "Change password failed: Change password failed: …".
 */
export function actionFailureText(action: string, reason: string, language: string): string {
  const a = action.trim()
  const r = reason.trim()
  if (!a) return r
  if (!r || r === 'Error') return a
  if (bare(r).startsWith(bare(a))) return r
  return `${a}${language.startsWith('zh') ? '：' : ': '}${r}`
}
