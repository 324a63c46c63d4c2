import type { BackupEntry, DatabaseUsage, JobInfo, MaintenanceSchedule, MaintenanceScheduleKey, RetentionSetting } from '@velo/shared'
import { http } from './http'

// Monitoring › Data and backups (server: modules/monitor/data.ts, contract: shared monitor/data.ts):
// the database's size, the maintenance schedules with their last run, what each log keeps, and the
// backups on disk. Run now queues a schedule's job at once; it is followed like any other job.

export const monitorDataKeys = {
  all: ['monitorData'] as const,
  database: ['monitorData', 'database'] as const,
  schedules: ['monitorData', 'schedules'] as const,
  retention: ['monitorData', 'retention'] as const,
  backups: ['monitorData', 'backups'] as const,
}

export const getDatabaseUsage = () => http.get<DatabaseUsage>('/monitor/data/database')
export const listMaintenanceSchedules = () => http.get<MaintenanceSchedule[]>('/monitor/data/schedules')
export const listRetentionSettings = () => http.get<RetentionSetting[]>('/monitor/data/retention')
export const listBackups = () => http.get<BackupEntry[]>('/monitor/data/backups')
/** Queues the schedule's job now; a 409 (one queued or running already) shows the server's message. */
export const runScheduleNow = (key: MaintenanceScheduleKey) => http.post<JobInfo>(`/monitor/data/schedules/${encodeURIComponent(key)}/run`)
