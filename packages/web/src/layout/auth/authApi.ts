import type { AccountFeatures, CaptchaResult, SignInAnswer } from '@velo/shared'
import { ApiError, failureMessage } from '../../api/errors'
import type { PasskeyOptions } from '../../api/passkeys'
import { exchange } from '../../api/transport'
import { t } from './authI18n'

// The public calls of the sign-in, register and reset pages. The console's client (api/http.ts)
// reports failures through antd's message and dialogs; these pages load no antd, so a failure is
// thrown to the page, which shows errorText(error) in its own light message (./toast.ts).

const call = async <T>(method: 'GET' | 'POST', url: string, data?: unknown): Promise<T> => (await exchange<T>({ method, url, data })).data

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
  /** With the token, the user and the routes the console would ask for next (one round trip before its first page). */
  login: (body: Credentials) => call<SignInAnswer>('POST', '/login', { ...body, withSession: true }),
  /** Single sign-on's last step: the one-time code the server's callback put in this page's address (?sso=), with the cookie that says this browser started it. */
  loginSso: async (code: string) => (await exchange<SignInAnswer>({ method: 'POST', url: '/login/sso', data: { code, withSession: true }, withCookies: true })).data,
  /** The second step: a code of the authenticator app, or a recovery code. */
  secondFactor: (ticket: string, code: string) => call<SignInAnswer>('POST', '/login/second-factor', { ticket, code, withSession: true }),
  /** A role that requires a factor the user lacks: the seed to scan, then its first code signs in. */
  enrolStart: (ticket: string) => call<{ secret: string; uri: string; qrSvg: string }>('POST', '/login/enrol/start', { ticket }),
  enrolConfirm: (ticket: string, code: string) => call<SignInAnswer>('POST', '/login/enrol/confirm', { ticket, code, withSession: true }),
  /** The second step by passkey: the options for the ticket's user, then the browser's answer. */
  secondFactorPasskeyOptions: (ticket: string) => call<PasskeyOptions>('POST', '/login/second-factor/passkey', { ticket }),
  secondFactorPasskey: (ticket: string, passkey: unknown) => call<SignInAnswer>('POST', '/login/second-factor', { ticket, passkey, withSession: true }),
  /** A sign-in by passkey alone: any passkey of this site, which names its user. */
  passkeySignInOptions: () => call<{ challengeId: string; options: PasskeyOptions }>('POST', '/login/passkey/options'),
  passkeySignIn: (challengeId: string, passkey: unknown) => call<SignInAnswer>('POST', '/login/passkey', { challengeId, passkey, withSession: true }),
  /** A role that requires a factor, met with a passkey instead of an app. */
  enrolPasskeyStart: (ticket: string) => call<PasskeyOptions>('POST', '/login/enrol/passkey/start', { ticket }),
  enrolPasskeyConfirm: (ticket: string, passkey: unknown) => call<SignInAnswer>('POST', '/login/enrol/passkey/confirm', { ticket, passkey, withSession: true }),
  register: (body: Credentials & { confirmPassword: string }) => call<null>('POST', '/register', body),
  sendResetCode: (body: { email: string; code: string; uuid: string }) => call<null>('POST', '/forgetPassword/sendCode', body),
  resetPassword: (body: { email: string; resetCode: string; password: string }) => call<null>('POST', '/forgetPassword/reset', body),
  captcha: () => call<CaptchaResult>('GET', '/common/captcha'),
  features: () => call<AccountFeatures>('GET', '/common/features'),
}
