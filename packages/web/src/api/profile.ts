import type { SecurityOverview, SessionUser } from '@velo/shared'
import { http } from './http'
import type { PasskeyOptions } from './passkeys'

// Personal centre calls.

export interface ProfileResult {
  user: SessionUser
  roleGroup: string
}

export type ProfileUpdate = Pick<SessionUser, 'nickName' | 'email' | 'phone' | 'sex'>

export const getProfile = () => http.get<ProfileResult>('/system/user/profile')
export const updateProfile = (body: ProfileUpdate) => http.put<null>('/system/user/profile', body)
export const updatePassword = (body: { oldPassword: string; newPassword: string }) =>
  http.put<null>('/system/user/profile/updatePwd', body, { silent: true })

export function uploadAvatar(file: Blob, filename: string) {
  const form = new FormData()
  form.append('avatarfile', file, filename)
  return http.post<{ imgUrl: string }>('/system/user/profile/avatar', form)
}

/** An authenticator app being added: the seed as an otpauth:// URI, its QR code (SVG) and the seed to type by hand. */
export interface TotpEnrolment {
  secret: string
  uri: string
  qrSvg: string
}

export interface TotpConfirmed {
  factorId: number
  /** Only with the first factor: shown once, never again. */
  recoveryCodes?: string[]
}

export const getSecurityOverview = () => http.get<SecurityOverview>('/system/user/profile/security')
export const startTotp = () => http.post<TotpEnrolment>('/system/user/profile/totp/start')
export const confirmTotp = (body: { code: string; name?: string }) => http.post<TotpConfirmed>('/system/user/profile/totp/confirm', body)
/** Adding a passkey: the options the browser creates it from, then its answer (with the first factor, recovery codes). */
export const startPasskey = () => http.post<PasskeyOptions>('/system/user/profile/passkey/start')
export const confirmPasskey = (body: { passkey: unknown; name?: string }) => http.post<TotpConfirmed>('/system/user/profile/passkey/confirm', body)
export const removeFactor = (factorId: number) => http.delete<null>(`/system/user/profile/factor/${factorId}`)
export const newRecoveryCodes = () => http.post<{ recoveryCodes: string[] }>('/system/user/profile/recoveryCodes')
export const signOutSession = (sessionId: string) => http.delete<null>(`/system/user/profile/session/${encodeURIComponent(sessionId)}`)
