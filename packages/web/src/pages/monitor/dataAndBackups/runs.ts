import { RETENTION_TARGETS, formatBytes, type BackupJobResult, type JobInfo, type MaintenanceRun, type MaintenanceSchedule, type RetentionJobResult } from '@velo/shared'
import type { TFunction } from 'i18next'
import { formatNumber } from '../../../dashboards/format'

// How a maintenance run reads on the page, and how a job's change becomes the schedule's last run.

/** Who the server names as the starter of the schedule's own runs. */
export const SCHEDULE_STARTER = 'system'

/** A job the caller queued or followed, as the schedule's last run. */
export function runOf(job: JobInfo): MaintenanceRun {
  return { jobId: job.jobId, state: job.state, createBy: job.createBy, createTime: job.createTime, finishTime: job.finishTime, result: job.result, error: job.error }
}

/** The schedules with the job's change applied to the one whose last run it is (the same list when none is). */
export function withJobChange(schedules: MaintenanceSchedule[] | undefined, job: JobInfo): MaintenanceSchedule[] | undefined {
  if (!schedules?.some((s) => s.lastRun?.jobId === job.jobId)) return schedules
  return schedules.map((s) => (s.lastRun?.jobId === job.jobId ? { ...s, lastRun: runOf(job) } : s))
}

export const count = (n: number) => formatNumber(n, 'count')

const isBackupResult = (result: unknown): result is BackupJobResult =>
  typeof result === 'object' && result !== null && typeof (result as BackupJobResult).name === 'string' && typeof (result as BackupJobResult).sizeBytes === 'number'

const isRetentionResult = (result: unknown): result is RetentionJobResult =>
  typeof result === 'object' && result !== null && typeof (result as RetentionJobResult).removed === 'object' && (result as RetentionJobResult).removed !== null

/**
 * What a succeeded run did, in a line: the backup's name, size and the older ones removed; the rows
 * retention removed per target, and the erasure notices it sent. Null while it has no result (running, failed, or an answer this
 * page does not know).
 */
export function runSummary(schedule: MaintenanceSchedule, t: TFunction): string | null {
  const result = schedule.lastRun?.result
  if (schedule.key === 'backup' && isBackupResult(result)) {
    const made = t('monitorData.result.backup', { name: result.name, size: formatBytes(result.sizeBytes), files: count(result.files) })
    const removed = Array.isArray(result.removed) ? result.removed.length : 0
    return removed ? `${made} · ${t('monitorData.result.backupRemoved', { count: removed })}` : made
  }
  if (schedule.key === 'retention' && isRetentionResult(result)) {
    const removed = RETENTION_TARGETS.map((target) => `${t(`monitorData.target.${target}`)} ${count(result.removed[target] ?? 0)}`)
    // Runs from before the inactive members' step answer no notices.
    const notices = result.notices
      ? [t('monitorData.result.notices', { count: result.notices.sent }), ...(result.notices.held ? [t('monitorData.result.held', { count: result.notices.held })] : [])]
      : []
    return [...removed, ...notices].join(' · ')
  }
  return null
}
