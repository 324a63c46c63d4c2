import { stat } from 'node:fs/promises'
import { extname } from 'node:path'
import { type JobInfo, JOB_STATES, type Label, type Language, type Paged, type ScheduledWorkInfo } from '@velo/shared'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, fileAnswer, pageOf, rangedFileAnswer } from '../../platform/responses'
import { jobInfoSchema, scheduledWorkSchema } from '../../platform/jobs/schema'

const eventStream = fileAnswer('text/event-stream', "Server-sent events, named 'job', each a JobInfo")
import { BusinessType } from '../../platform/audit/operation-log'
import { attachment, XLSX_TYPE } from '../../platform/crud/excel'
import { idParam, pagingFields } from '../../platform/crud/schemas'
import { ok } from '../../platform/envelope'
import { forbidden, notFound } from '../../platform/errors'
import { languageOf } from '../../platform/http'
import { type MessageKey, t } from '../../platform/i18n'
import { catalogs } from '../../platform/i18n/messages'
import { jobInfo, type JobRow } from '../../platform/jobs'
import { hasPermission } from '../../platform/rbac/auth-context'
import { caller, SIGNED_IN } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'
import { openEventStream } from '../../platform/sse'
import { sendFile } from '../../platform/files/send'

/**
 * Sees every user's jobs (not their files: a job's output is its starter's and the admins', see
 * mayReadJobOutput); without it, a user sees their own.
 */
export const JOB_LIST_PERMISSION = 'monitor:job:list'
/** Cancels any user's job; without it, a user cancels their own. */
export const JOB_CANCEL_PERMISSION = 'monitor:job:cancel'

const CONTENT_TYPES: Record<string, string> = { '.xlsx': XLSX_TYPE, '.csv': 'text/csv; charset=utf-8', '.zip': 'application/zip', '.pdf': 'application/pdf' }
const tags = ['Jobs']

/**
 * Background jobs (Monitoring › Jobs and the jobs button of the top bar): every signed-in user follows,
 * cancels and downloads their own; monitor:job:list shows everyone's, monitor:job:cancel cancels them.
 * Another user's job is answered as not found, so its existence is not told either. A job's file
 * downloads only for its starter and admins (mayReadJobOutput), whoever else sees the job; each
 * answer's `mayDownload` says so for the caller.
 */
export function registerJobs(app: FastifyInstance, services: Services) {
  const { jobs } = services
  const api = app.withTypeProvider<ZodTypeProvider>()

  const visible = async (req: FastifyRequest, jobId: number): Promise<JobRow> => {
    const auth = caller(req)
    const row = await jobs.get(jobId)
    if (!row || (row.createById !== auth.userId && !hasPermission(auth, JOB_LIST_PERMISSION))) throw notFound('job.notFound')
    return row
  }

  api.post(
    '/monitor/job/list',
    {
      config: { permission: SIGNED_IN, audit: false },
      schema: {
        tags,
        summary: `Jobs, newest first: the caller's own, or everyone's with ${JOB_LIST_PERMISSION} (mine=true: own only)`,
        body: z.strictObject({
          ...pagingFields,
          state: z.enum(JOB_STATES).optional(),
          kind: z.string().max(64).optional(),
          mine: z.boolean().optional(),
        }),
        response: { 200: envelope(pageOf(jobInfoSchema)) },
      },
    },
    async (req): Promise<Paged<JobInfo>> => {
      const auth = caller(req)
      const { pageNum, pageSize, state, kind, mine } = req.body
      const all = !mine && hasPermission(auth, JOB_LIST_PERMISSION)
      const { rows, total } = await jobs.list({ pageNum, pageSize, state, kind, ownerId: all ? undefined : auth.userId })
      const lang = languageOf(req)
      return { rows: rows.map((r) => jobInfo(r, lang, auth)), total }
    },
  )

  // Every scheduled work of the server: the maintenance schedules and the sweeps, with their last and next run.
  api.get(
    '/monitor/job/schedules',
    {
      config: { permission: JOB_LIST_PERMISSION },
      schema: { tags, summary: `The scheduler's work: schedules (a job every few hours) and sweeps (every few seconds or minutes), last and next run; needs ${JOB_LIST_PERMISSION}`, response: { 200: envelope(z.array(scheduledWorkSchema)) } },
    },
    async (req): Promise<ScheduledWorkInfo[]> => {
      const lang = languageOf(req)
      return (await jobs.scheduler.list()).map((work) => ({ ...work, title: scheduleTitle(work.key, lang, work.title) }))
    },
  )

  /** Sends a 'job' event for each change of a job `wanted` lets through, in the caller's language, until the caller goes. */
  const streamJobs = (req: FastifyRequest, reply: FastifyReply, wanted: (job: JobRow) => boolean) => {
    const lang = languageOf(req)
    const viewer = caller(req)
    const stream = openEventStream(req, reply)
    const stop = jobs.bus.subscribe((message) => {
      if (message.type === 'job' && wanted(message.job)) stream.send('job', jobInfo(message.job, lang, viewer))
    })
    stream.onClose(stop)
  }

  // Static segments win over /:id, so "stream" is never read as an id.
  api.get(
    '/monitor/job/stream',
    { config: { permission: SIGNED_IN }, schema: { tags, summary: "Server-sent events: 'job' each time one of the caller's jobs changes (queued, progress, outcome)", response: { 200: eventStream } } },
    async (req, reply) => {
      const { userId } = caller(req)
      streamJobs(req, reply, (job) => Number(job.createById) === userId)
    },
  )

  // Monitoring › Jobs: every user's jobs. A route of its own, not a flag on the one above: the top bar
  // keeps following only the caller's jobs, and the stream asks again and again for this route's
  // permission (platform/sse.ts), so it ends as soon as the caller loses monitor:job:list.
  api.get(
    '/monitor/job/stream/all',
    {
      config: { permission: JOB_LIST_PERMISSION },
      schema: { tags, summary: `Server-sent events: 'job' each time any user's job changes (queued, progress, outcome); needs ${JOB_LIST_PERMISSION}`, response: { 200: eventStream } },
    },
    async (req, reply) => streamJobs(req, reply, () => true),
  )

  api.get(
    '/monitor/job/:id',
    { config: { permission: SIGNED_IN }, schema: { tags, summary: 'One job: state, progress, result or error', params: idParam, response: { 200: envelope(jobInfoSchema) } } },
    async (req): Promise<JobInfo> => jobInfo(await visible(req, req.params.id), languageOf(req), caller(req)),
  )

  api.post(
    '/monitor/job/:id/cancel',
    {
      config: { permission: SIGNED_IN, audit: { module: 'Jobs', businessType: BusinessType.update } },
      schema: { tags, summary: `Cancel a job: a queued one at once, a running one at its next step (own jobs, or any with ${JOB_CANCEL_PERMISSION})`, params: idParam, response: { 200: envelope(jobInfoSchema) } },
    },
    async (req) => {
      const auth = caller(req)
      const row = await visible(req, req.params.id)
      if (row.createById !== auth.userId && !hasPermission(auth, JOB_CANCEL_PERMISSION)) throw forbidden('job.notYours')
      const now = await jobs.cancel(row.jobId)
      return ok(jobInfo(now, languageOf(req), auth), now.state === 'cancelled' ? 'job.cancelled' : 'job.cancelRequested')
    },
  )

  api.get(
    '/monitor/job/:id/file',
    { config: { permission: SIGNED_IN }, exposeHeadRoute: true, schema: {
        tags,
        summary: `Download the file a finished job left (an export's .xlsx): its starter or an admin only (403 for anyone else who sees the job with ${JOB_LIST_PERMISSION})`,
        params: idParam,
        response: rangedFileAnswer('application/octet-stream', 'The file, under the name the job gave it'),
      },
    },
    async (req, reply) => {
      const row = await visible(req, req.params.id)
      // Seeing the job is not reading its output: Jobs.filePath asks mayReadJobOutput (403 otherwise).
      const path = jobs.filePath(row, caller(req))
      if (!path) throw notFound('job.noFile')
      const size = await stat(path).then(
        (s) => (s.isFile() ? s.size : undefined),
        () => undefined,
      )
      if (size === undefined) throw notFound('job.fileGone')
      const name = row.resultFileName ?? `job_${row.jobId}${extname(path)}`
      // Streamed, and resumable by byte range: a million-row export is tens of megabytes.
      return sendFile(req, reply, { path, size, contentType: CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream', disposition: attachment(name) })
    },
  )
}

/** A scheduled work's name in the caller's language: its message, else its own title, else its key (a test's sweep). */
export function scheduleTitle(key: string, lang: Language, title?: Label): string {
  const messageKey = `schedule.${key}`
  return messageKey in catalogs[lang] ? t(lang, messageKey as MessageKey) : (title?.[lang] ?? key)
}
