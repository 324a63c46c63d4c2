import { LANGUAGE_HEADER, type AccountFeatures, type CaptchaResult } from '@velo/shared'
import { API_BASE_URL, REQUEST_TIMEOUT_MS } from '../../app/config'
import { ApiError, failureMessage, fromFetchFailure, interpretResponse } from '../../api/errors'
import { currentLanguage } from '../../i18n/language'
import { t } from './authI18n'

// The public calls of the sign-in, register and reset pages. The console's client (api/http.ts)
// reports failures through antd's message and dialogs; these pages load no antd, so a failure is
// thrown to the page, which shows errorText(error) in its own light message (./toast.ts).

async function call<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, REQUEST_TIMEOUT_MS)
  const headers: Record<string, string> = { Accept: 'application/json', [LANGUAGE_HEADER]: currentLanguage() }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  let response: Response
  try {
    response = await fetch(`${API_BASE_URL}${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      signal: controller.signal,
    })
  } catch (error) {
    throw fromFetchFailure(error, timedOut, REQUEST_TIMEOUT_MS)
  } finally {
    clearTimeout(timer)
  }
  const json = (response.headers.get('Content-Type') ?? '').includes('json')
  const data: unknown = json ? await response.json().catch(() => null) : null
  const result = interpretResponse<T>(response.status, data)
  if (!result.ok) throw result.error
  return result.data
}

/** The server's msg for a refusal; our own localized text for a transport failure (as api/http.ts). */
export function errorText(error: unknown): string {
  if (error instanceof ApiError && error.kind !== 'business' && error.kind !== 'session') {
    return t(`request.${error.kind}`, { code: error.code })
  }
  return failureMessage(error)
}

export interface Credentials {
  username: string
  password: string
  code: string
  uuid: string
}

export const authApi = {
  login: (body: Credentials) => call<{ token: string }>('POST', '/login', body),
  register: (body: Credentials & { confirmPassword: string }) => call<null>('POST', '/register', body),
  sendResetCode: (body: { email: string; code: string; uuid: string }) => call<null>('POST', '/forgetPassword/sendCode', body),
  resetPassword: (body: { email: string; resetCode: string; password: string }) => call<null>('POST', '/forgetPassword/reset', body),
  captcha: () => call<CaptchaResult>('GET', '/common/captcha'),
  features: () => call<AccountFeatures>('GET', '/common/features'),
}
