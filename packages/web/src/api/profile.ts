import type { SessionUser } from '@velo/shared'
import { API_BASE_URL, DEFAULT_AVATAR } from '../lib/config'
import { http } from './http'

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

/** The avatar image URL: the default for none, else the common endpoint, cache-busted after a change. */
export function avatarUrl(avatar: string | null | undefined, version = 0): string {
  if (!avatar) return DEFAULT_AVATAR
  const url = `${API_BASE_URL}/common/avatar?url=${encodeURIComponent(avatar)}`
  return version ? `${url}&t=${version}` : url
}
