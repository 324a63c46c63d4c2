// Monitoring › Data and backups (server: modules/monitor/data): how big the database is and what
// fills it, the scheduled maintenance jobs (backups and data retention) with their last outcome, and
// the backups on disk. For administrators: the page and every route need monitor:data:list, running a
// schedule now needs monitor:data:run.

import type { JobState } from '../jobs'

/** GET /monitor/data/database */
export interface DatabaseUsage {
  dialect: 'sqlite' | 'postgres'
  /** The whole database on disk (SQLite: the file and its WAL; PostgreSQL: pg_database_size). */
  sizeBytes: number
  /** When the figures were taken; they are cached for a minute, the scan of a large SQLite file is not free. */
  measuredAt: string
  /** The largest tables first, at most 20 of them. */
  tables: TableUsage[]
  /** How many tables the database has in all. */
  tableCount: number
}

export interface TableUsage {
  /** The table's name in the database (snake_case). */
  table: string
  /** Rows: exact on SQLite, PostgreSQL's estimate (pg_class.reltuples, exact enough to compare) there. */
  rows: number
  /** Data pages, including TOAST on PostgreSQL. */
  dataBytes: number
  indexBytes: number
  totalBytes: number
}

/** The maintenance schedules the server runs, by key. */
export const MAINTENANCE_SCHEDULES = ['backup', 'retention'] as const
export type MaintenanceScheduleKey = (typeof MAINTENANCE_SCHEDULES)[number]

/** GET /monitor/data/schedules: one per schedule, in MAINTENANCE_SCHEDULES order. */
export interface MaintenanceSchedule {
  key: MaintenanceScheduleKey
  /** The job kind it queues ('ops.backup', 'ops.retention'): its runs appear under Monitoring › Jobs too. */
  kind: string
  /** Hours between runs, from the configuration key `configKey`; 0 means it is turned off. */
  intervalHours: number
  configKey: string
  /** When it runs next (null when turned off). */
  nextRunTime: string | null
  /** The last run, whether started by the schedule or by Run now (null before the first). */
  lastRun: MaintenanceRun | null
}

export interface MaintenanceRun {
  jobId: number
  state: JobState
  /** 'system' for the schedule's own runs, else the user who pressed Run now. */
  createBy: string
  createTime: string
  finishTime: string | null
  /** The job's answer once it succeeded: a BackupJobResult or a RetentionJobResult. */
  result: unknown
  /** Why it failed, in the caller's language. */
  error: string | null
}

/** What a backup job answers. */
export interface BackupJobResult {
  /** The backup's folder name under the backup folder ('scheduled/velo-20261125T031800Z'). */
  name: string
  sizeBytes: number
  files: number
  /** Older scheduled backups removed to keep `monitor.backup.keep` of them. */
  removed: string[]
}

/**
 * Targets the retention job trims, in the order it trims them. The last three are riders' personal
 * data by category (docs/privacy.md › Retention): positions (emptied, the rows stay), uploaded app
 * logs (deleted with their files) and long-inactive members (told in the app, then erased).
 */
export const RETENTION_TARGETS = ['operLog', 'loginLog', 'messageLog', 'telemetry', 'jobs', 'positions', 'uploadedLogs', 'inactiveMembers'] as const
export type RetentionTarget = (typeof RETENTION_TARGETS)[number]

/** What a retention job answers. */
export interface RetentionJobResult {
  /**
   * Rows removed per target (jobs: finished jobs, each with its files; positions: rows whose position
   * was emptied; uploadedLogs: uploads deleted with their files; inactiveMembers: members erased).
   */
  removed: Record<RetentionTarget, number>
  /** inactiveMembers besides those erased (absent from runs before it existed). */
  notices?: RetentionNotices
}

/** What the inactive members' step did besides erasing. */
export interface RetentionNotices {
  /** Members told in the app's inbox that their account will be erased. */
  sent: number
  /** Notices void because the member signed in or was active again (or is no longer inactive long enough). */
  voided: number
  /** Members left alone because something holds their data (a legal hold, an open service order). */
  held: number
}

/** GET /monitor/data/retention: what each target keeps, and where that is set. */
export interface RetentionSetting {
  target: RetentionTarget
  /** How long it is kept, in days; for a target set in years (`years`), the days those years are now. */
  days: number
  /** Set in years rather than days (inactiveMembers: years without activity). */
  years?: number
  /** The configuration key (System › System configuration), or the environment variable for jobs. */
  configKey: string
  /** Whether configKey is an environment variable rather than a configuration row. */
  fromEnvironment: boolean
  /** inactiveMembers: the days between the notice in the app and the erasure, and their key. */
  notice?: { days: number; configKey: string }
}

/** GET /monitor/data/backups: the backups in the backup folder, newest first. */
export interface BackupEntry {
  /** The folder name under the backup folder: 'velo-…' (npm run backup) or 'scheduled/velo-…'. */
  name: string
  scheduled: boolean
  createdAt: string
  dialect: 'sqlite' | 'postgres'
  /** The database copy, the files and the manifest together. */
  sizeBytes: number
  files: number
  serverVersion: string
  /** The manifest's own checksum holds (the full check of every file is `npm run restore`'s). */
  manifestOk: boolean
}

/** POST /monitor/data/schedules/:key/run answers the queued job (a JobInfo). */
