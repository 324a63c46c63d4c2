import { useRef, useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { isFinalJobState, type JobInfo, type Paged } from '@velo/shared'
import { http, requestWithMessage } from '../../api/http'
import { jobKeys, withJob } from '../../api/jobs'
import { useJobStream } from '../../api/jobStore'
import type { ImportResult } from '../api/crudApi'
import type { FieldError } from '../api/fieldErrors'
import type { ImportOutcome } from './ImportReport'

/**
 * Files larger than this are imported as a job (POST {path}/import/job): the request only uploads
 * the file, the import runs on the server with its progress shown live, and the user may close the
 * dialog meanwhile (the jobs button of the top bar follows it). Smaller files keep the direct import,
 * which answers the counts or the problems at once. 1 MB is some 10,000 rows of a typical sheet.
 */
export const IMPORT_JOB_THRESHOLD_BYTES = 1024 * 1024

/** POST {path}/import/job: the direct import's form; answers the queued job. Failures are the caller's to show. */
export function startImportJob(path: string, file: File, updateSupport: boolean) {
  const form = new FormData()
  form.append('file', file, file.name)
  form.append('updateSupport', String(updateSupport))
  return requestWithMessage<JobInfo>({ method: 'POST', url: `${path}/import/job`, data: form, silent: true })
}

/** How an import job ended, as the direct import would have answered: the counts, the problems by row, or one message. */
export type ImportJobEnd = { outcome: ImportOutcome } | { failure: string } | { cancelled: true }

export function importJobEnd(job: JobInfo): ImportJobEnd | null {
  if (job.state === 'succeeded') return { outcome: { result: job.result as ImportResult } }
  if (job.state === 'cancelled') return { cancelled: true }
  if (job.state !== 'failed') return null
  // A file with row problems: the job's result holds them as the direct import's data.errors.
  const errors = (job.result as { errors?: Partial<FieldError>[] } | null)?.errors
  if (Array.isArray(errors) && errors.length) {
    return { outcome: { errors: errors.map((e) => ({ ...e, field: String(e.field ?? ''), message: e.message || job.error || '' })) } }
  }
  return { failure: job.error ?? '' }
}

/** queued, running, ended: a job never goes back. */
const stage = (job: JobInfo) => (job.state === 'queued' ? 0 : job.state === 'running' ? 1 : 2)

/**
 * Follows one import job live while it is unfinished (the tab's job stream, api/jobStore.ts, shared
 * with the top bar's jobs list, which shows the job too and goes on following it once the dialog is
 * closed). `onEnd` is called once,
 * when the job reaches its final state.
 */
export function useImportJob(onEnd: (job: JobInfo) => void) {
  const queryClient = useQueryClient()
  const [job, setJob] = useState<JobInfo | null>(null)
  // The newest known state, for answers that arrive out of order (a read racing the stream's events).
  const latest = useRef<JobInfo | null>(null)
  const active = job !== null && !isFinalJobState(job.state)

  const accept = (next: JobInfo) => {
    const current = latest.current
    if (!current || next.jobId !== current.jobId || isFinalJobState(current.state)) return
    const stale = stage(next) < stage(current) || (next.state === current.state && next.done < current.done)
    // A cancel's answer may trail the progress already shown: only its request counts then.
    const merged = stale ? (next.cancelRequested && !current.cancelRequested ? { ...current, cancelRequested: true } : null) : next
    if (!merged) return
    latest.current = merged
    setJob(merged)
    if (isFinalJobState(merged.state)) onEnd(merged)
  }

  useJobStream(active, {
    onJob: accept,
    // What changed before the stream opened or this dialog joined it (a small job may be done
    // already), or while it was away, is read again.
    onOpen: () => {
      const current = latest.current
      if (!current) return
      http
        .get<JobInfo>(`/monitor/job/${current.jobId}`, undefined, { silent: true })
        .then(accept)
        .catch(() => undefined)
    },
  })

  return {
    job,
    active,
    /** Follows a job just queued, and shows it in the top bar's list (without opening it). */
    follow: (queued: JobInfo) => {
      latest.current = queued
      setJob(queued)
      queryClient.setQueryData<Paged<JobInfo>>(jobKeys.mine, (page) => withJob(page, queued))
    },
    /** The job as it is now, from a cancel's answer. */
    update: accept,
    forget: () => {
      latest.current = null
      setJob(null)
    },
  }
}
