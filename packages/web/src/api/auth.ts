import type { AccountFeatures, CaptchaResult, RouteNode, UserInfo } from '@velo/shared'
import { http } from './http'

// Sign-in, session and public account calls (SPEC §7).

export interface LoginBody {
  username: string
  password: string
  code: string
  uuid: string
}

export const login = (body: LoginBody) => http.post<{ token: string }>('/login', body)
export const logout = () => http.post<null>('/logout')
// The route guard reports these failures itself, so the client stays silent for them.
export const getUserInfo = () => http.get<UserInfo>('/getUserInfo', undefined, { silent: true })
export const getRouters = () => http.get<RouteNode[]>('/getRouters', undefined, { silent: true })

export const getCaptcha = () => http.get<CaptchaResult>('/common/captcha')
export const getFeatures = () => http.get<AccountFeatures>('/common/features')

export interface RegisterBody extends LoginBody {
  confirmPassword: string
}
export const register = (body: RegisterBody) => http.post<null>('/register', body)

export const sendResetCode = (body: { email: string; code: string; uuid: string }) =>
  http.post<null>('/forgetPassword/sendCode', body)
export const resetPassword = (body: { email: string; resetCode: string; password: string }) =>
  http.post<null>('/forgetPassword/reset', body)
