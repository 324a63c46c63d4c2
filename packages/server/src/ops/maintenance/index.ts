// Maintenance (Monitoring › Data and backups; docs/ops/backup.md, docs/jobs.md): the scheduled backup
// and the retention job, each a job kind and a schedule, defined once per process on import.
export { backupJob, BACKUP_INTERVAL_KEY, BACKUP_KEEP_KEY, DEFAULT_BACKUP_KEEP, RUN_PERMISSION, SCHEDULED_FOLDER, scheduledBackups } from './backup-job'
export { DEFAULT_LOG_RETENTION_DAYS, LOGIN_LOG_RETENTION_KEY, OPERATION_LOG_RETENTION_KEY, RETENTION_INTERVAL_KEY, retentionJob } from './retention-job'
export { DEFAULT_ERASURE_NOTICE_DAYS, DEFAULT_INACTIVE_MEMBER_YEARS, ERASURE_NOTICE_DAYS_KEY, INACTIVE_MEMBER_YEARS_KEY, inactiveLimit } from './inactive-members'
export { registerRetention, retentionOf, type Trim } from './targets'
export { DEFAULT_UPLOADED_LOG_RETENTION_DAYS, UPLOADED_LOG_RETENTION_KEY } from './uploaded-logs'
