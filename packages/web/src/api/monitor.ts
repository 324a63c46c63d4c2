import { http } from './http'

// The monitor area's calls beside the entity routes: log clean-up, unlock, force logout.

export const cleanLoginLog = () => http.delete<{ deleted: number }>('/monitor/logininfor/clean')
export const cleanOperLog = () => http.delete<{ deleted: number }>('/monitor/operlog/clean')
export const unlockAccount = (userName: string) => http.get<null>(`/monitor/logininfor/unlock/${encodeURIComponent(userName)}`)
export const forceLogout = (sessionId: string) => http.delete<null>(`/monitor/online/${encodeURIComponent(sessionId)}`)
