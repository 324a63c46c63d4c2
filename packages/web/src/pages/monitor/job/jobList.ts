import { type ChecklistResult, defineEntity, JOB_STATES, LANGUAGES, type JobInfo, type JobListBody, type JobState, type Label } from '@velo/shared'
import dayjs from 'dayjs'
import type { TFunction } from 'i18next'
import { DATETIME_FORMAT } from '../../../crud/kinds/cells'
import i18n from '../../../i18n'

// What Monitoring › Jobs knows of jobs beside its rendering: the search form's fields, how a live
// event changes the page shown, and the numbers its cells show.

/** The same text in every language, from the console's own texts. */
const texts = (key: string): Label => Object.fromEntries(LANGUAGES.map((lang) => [lang, i18n.getFixedT(lang)(key)])) as Label

/** The kinds of job the server defines today; the list shows any other by its name. */
export const JOB_KINDS = ['export', 'action'] as const

/**
 * The job list's filters as a definition, so the list kit's search form offers them (a select of
 * the states, one of the kinds). Not an entity of the engine, nor registered: jobs are listed by
 * POST /monitor/job/list, and nothing else refers to them.
 */
export const jobSearch = defineEntity({
  key: 'monitorJob',
  table: 'none',
  path: '/monitor/job',
  permission: 'monitor:job',
  label: texts('menu.monitor.job'),
  idField: 'jobId',
  defaultSort: { field: 'jobId', order: 'desc' },
  operations: ['list'],
  fields: [
    { name: 'jobId', kind: 'number', label: texts('jobs.column.id'), readOnly: true },
    { name: 'state', kind: 'enum', label: texts('jobs.column.state'), search: 'eq', options: JOB_STATES.map((value) => ({ value, label: texts(`jobs.state.${value}`) })) },
    { name: 'kind', kind: 'enum', label: texts('jobs.column.kind'), search: 'eq', options: JOB_KINDS.map((value) => ({ value, label: texts(`jobs.kind.${value}`) })) },
  ],
})

export const STATE_COLORS: Record<JobState, string> = { queued: 'default', running: 'processing', succeeded: 'success', failed: 'error', cancelled: 'warning' }

/** How far a job got, in percent (a job that does not know its total shows none until it ends). */
export function percentOf(job: JobInfo): number {
  if (job.state === 'succeeded') return 100
  if (!job.total) return 0
  return Math.min(100, Math.floor((job.done * 100) / job.total))
}

/** How long a job ran: to its end, or until now while it runs; null before it started. */
export function durationOf(job: Pick<JobInfo, 'startTime' | 'finishTime'>, now = Date.now()): number | null {
  if (!job.startTime) return null
  const end = job.finishTime ? Date.parse(job.finishTime) : now
  return Math.max(0, end - Date.parse(job.startTime))
}

/** "4 s", "2 min 5 s", "1 h 3 min" in the page's language. */
/** A stored time as the jobs page shows it; nothing for none. */
export const formatTime = (value: string | null) => (value ? dayjs(value).format(DATETIME_FORMAT) : null)

export function formatDuration(ms: number, t: TFunction): string {
  const total = Math.round(ms / 1000)
  if (total < 60) return t('jobs.duration.seconds', { s: total })
  if (total < 3600) return t('jobs.duration.minutes', { m: Math.floor(total / 60), s: total % 60 })
  return t('jobs.duration.hours', { h: Math.floor(total / 3600), m: Math.floor((total % 3600) / 60) })
}

/** What a job's event does to the page shown: change its row, load the page again, or nothing. */
export type JobEventEffect = 'patch' | 'reload' | 'ignore'

/**
 * A shown job is patched in place (or the page loaded again when it no longer passes the filters: a
 * running job that finished under "Running"). A job not shown is loaded only when it belongs on this
 * page, newest first: a new job on the first page, one that now passes the filters within the
 * page's ids. Progress of jobs on other pages changes nothing here.
 */
export function jobEventEffect(rows: readonly JobInfo[], body: JobListBody, job: JobInfo, me: number | undefined): JobEventEffect {
  const passes = (!body.state || job.state === body.state) && (!body.kind || job.kind === body.kind) && (!body.mine || job.createById === me)
  if (rows.some((r) => r.jobId === job.jobId)) return passes ? 'patch' : 'reload'
  if (!passes) return 'ignore'
  const pageNum = body.pageNum ?? 1
  if (!rows.length) return pageNum === 1 ? 'reload' : 'ignore'
  const ids = rows.map((r) => r.jobId)
  const newest = Math.max(...ids)
  const oldest = Math.min(...ids)
  const full = rows.length >= (body.pageSize ?? rows.length)
  return (pageNum === 1 || job.jobId < newest) && (job.jobId > oldest || !full) ? 'reload' : 'ignore'
}

/** The page with the job's row replaced. */
export function patchJob<P extends { rows: JobInfo[] }>(page: P | undefined, job: JobInfo): P | undefined {
  if (!page || !page.rows.some((r) => r.jobId === job.jobId)) return page
  return { ...page, rows: page.rows.map((r) => (r.jobId === job.jobId ? job : r)) }
}

/** A job result that is a checklist (the conformance kit's report), shown as a table. Here, not in shared: the list's first screen carries shared's code. */
export const isChecklistResult = (result: unknown): result is ChecklistResult =>
  typeof result === 'object' && result !== null && Array.isArray((result as ChecklistResult).clauses)
