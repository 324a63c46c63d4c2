import { JOB_STATES, type JobInfo, type ScheduledWorkInfo } from '@velo/shared'
import { z } from 'zod'

/** A job as routes answer it (shared/jobs.ts, JobInfo). */
export const jobInfoSchema = z.object({
  jobId: z.number(),
  kind: z.string(),
  title: z.string(),
  state: z.enum(JOB_STATES),
  done: z.number(),
  total: z.number().nullable(),
  result: z.unknown(),
  error: z.string().nullable(),
  fileName: z.string().nullable(),
  mayDownload: z.boolean(),
  createById: z.number(),
  createBy: z.string(),
  createTime: z.string(),
  startTime: z.string().nullable(),
  finishTime: z.string().nullable(),
  attempts: z.number(),
  cancelRequested: z.boolean(),
}) satisfies z.ZodType<JobInfo>

/** A scheduled work as GET /monitor/job/schedules answers it (shared/jobs.ts, ScheduledWorkInfo). */
export const scheduledWorkSchema = z.object({
  key: z.string(),
  title: z.string(),
  runs: z.enum(['job', 'once', 'everywhere']),
  everyMs: z.number().nullable(),
  intervalHours: z.number().nullable(),
  lastRunTime: z.string().nullable(),
  nextRunTime: z.string().nullable(),
  lastDurationMs: z.number().nullable(),
  lastError: z.string().nullable(),
  lastJobId: z.number().nullable(),
}) satisfies z.ZodType<ScheduledWorkInfo>
