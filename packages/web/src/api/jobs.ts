import type { JobInfo, JobListBody, Paged, ScheduledWorkInfo } from '@velo/shared'
import { http, requestFile, requestWithMessage, saveBlob } from './http'

// Background jobs (server: modules/monitor/jobs.ts): the caller's jobs, cancel, the file a finished
// export left, and exports started as jobs. Their live updates (GET /monitor/job/stream, one per tab)
// come through jobStore.ts.

/** How many of the caller's newest jobs the top bar shows. */
export const RECENT_JOBS = 10
export const JOB_STREAM_URL = '/monitor/job/stream'
/** Every user's jobs as they change (Monitoring › Jobs), for holders of monitor:job:list. */
export const ALL_JOBS_STREAM_URL = '/monitor/job/stream/all'

export const jobKeys = {
  all: ['jobs'] as const,
  mine: ['jobs', 'mine'] as const,
  /** The pages of Monitoring › Jobs. */
  monitor: ['jobs', 'monitor'] as const,
  monitorPage: (body: JobListBody) => ['jobs', 'monitor', body] as const,
  /** The scheduler's work (Monitoring › Jobs › Scheduled work). */
  scheduled: ['jobs', 'scheduled'] as const,
}

export const listJobs = (body: JobListBody) => http.post<Paged<JobInfo>>('/monitor/job/list', body)
/** The caller's newest jobs; a failure leaves the indicator as it was, without a red message. */
export const listMyJobs = () => http.post<Paged<JobInfo>>('/monitor/job/list', { mine: true, pageNum: 1, pageSize: RECENT_JOBS }, { silent: true })
/** Every scheduled work of the server, with its last and next run (needs monitor:job:list). */
export const listScheduledWork = () => http.get<ScheduledWorkInfo[]>('/monitor/job/schedules')
export const getJob = (jobId: number) => http.get<JobInfo>(`/monitor/job/${jobId}`)
/** Answers the job as it is now and the server's message ("Job cancelled", or "Cancelling: …"). */
export const cancelJob = (jobId: number) => requestWithMessage<JobInfo>({ method: 'POST', url: `/monitor/job/${jobId}/cancel` })

/** Saves the file a finished job left, under its name. */
export async function downloadJobFile(job: Pick<JobInfo, 'jobId' | 'fileName'>): Promise<void> {
  const file = await requestFile({ url: `/monitor/job/${job.jobId}/file` })
  saveBlob(file.blob, file.filename ?? job.fileName ?? `job_${job.jobId}`)
}

/** POST {path}/export/job: the same body as the direct export; answers the queued job and the server's message. */
export const startExportJob = (path: string, filters: Record<string, unknown>) => requestWithMessage<JobInfo>({ method: 'POST', url: `${path}/export/job`, data: filters })

/** The page with the newest job first: a known job replaced in place, a new one added on top. */
export function withJob(page: Paged<JobInfo> | undefined, job: JobInfo): Paged<JobInfo> {
  const rows = page?.rows ?? []
  const at = rows.findIndex((r) => r.jobId === job.jobId)
  if (at >= 0) return { rows: rows.map((r, i) => (i === at ? job : r)), total: page?.total ?? rows.length }
  return { rows: [job, ...rows].sort((a, b) => b.jobId - a.jobId).slice(0, RECENT_JOBS), total: (page?.total ?? rows.length) + 1 }
}
