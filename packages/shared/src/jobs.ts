// Background jobs as the server answers them (GET /monitor/job/:id, the 'job' events of
// GET /monitor/job/stream) and the console shows them.

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const
export type JobState = (typeof JOB_STATES)[number]

/** States a job never leaves. */
export const FINAL_JOB_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled']
export const isFinalJobState = (state: JobState) => FINAL_JOB_STATES.includes(state)

export interface JobInfo {
  jobId: number
  kind: string
  /** What it does, in the caller's language: "Export Login logs". */
  title: string
  state: JobState
  /** Progress: `done` of `total` (null until the job knows how much there is). */
  done: number
  total: number | null
  /** What the job answered once it succeeded (an export: the rows written). */
  result: unknown
  /** Why it failed, in the caller's language. */
  error: string | null
  /** It left a file to download (GET /monitor/job/:id/file), under this name. */
  fileName: string | null
  /**
   * The caller may download that file: it is there, and they started the job or are an admin.
   * Seeing everyone's jobs (monitor:job:list) is not enough (docs/jobs.md).
   */
  mayDownload: boolean
  createById: number
  createBy: string
  createTime: string
  startTime: string | null
  finishTime: string | null
  /** How many times a worker took it up (more than one after a server died under it). */
  attempts: number
  /** A cancel was asked while it ran; it stops at its next step. */
  cancelRequested: boolean
}

/** POST /monitor/job/list */
export interface JobListBody {
  pageNum?: number
  pageSize?: number
  state?: JobState
  kind?: string
  /** Only the caller's own jobs, even for a holder of monitor:job:list. */
  mine?: boolean
}

/**
 * GET /monitor/job/schedules: every scheduled work of the server (platform/jobs/schedule.ts), the
 * maintenance schedules first. A schedule queues a job (its runs are jobs on this page); a sweep runs
 * in the scheduler every few seconds or minutes, once per tick across instances ('once') or on each
 * instance for what only it holds ('everywhere': the figures are the answering instance's).
 */
export interface ScheduledWorkInfo {
  key: string
  /** What it does, in the caller's language. */
  title: string
  runs: 'job' | 'once' | 'everywhere'
  /** A sweep's interval. */
  everyMs: number | null
  /** A schedule's interval; 0 when it is turned off. */
  intervalHours: number | null
  lastRunTime: string | null
  nextRunTime: string | null
  lastDurationMs: number | null
  /** How the last run of a sweep failed (null when it went well). */
  lastError: string | null
  /** The job a schedule queued last. */
  lastJobId: number | null
}

/**
 * A job's result that is a checklist: each check with how it ended, why, and where the rule it checks
 * is written (the device conformance kit's report). Monitoring › Jobs shows such a result as a table.
 */
export interface ChecklistResult {
  clauses: { id: string; title: string; result: 'passed' | 'failed' | 'skipped'; reason: string; section: { ref: string; title: string } }[]
}
