import { isFinalJobState, type JobInfo } from '@velo/shared'
import { http } from '../../api/http'
import { jobStore } from '../../api/jobStore'

/** An answer's `data` that is a job (what a `job` action's route answers: the queued job). */
export const isJobInfo = (data: unknown): data is JobInfo =>
  typeof data === 'object' && data !== null && typeof (data as JobInfo).jobId === 'number' && typeof (data as JobInfo).state === 'string'

/**
 * Follows one job on the tab's job stream (api/jobStore.ts) until it reaches a final state, then
 * calls `onEnd` once and stops. When the stream (re)opens, or is found open, the job is read once
 * (GET /monitor/job/:id), so an end that came while nobody listened is not missed. Answers a stop
 * function (the page unmounting).
 */
export function followJob(job: JobInfo, onEnd: (job: JobInfo) => void): () => void {
  let over = false
  const seen = (next: JobInfo) => {
    if (over || next.jobId !== job.jobId || !isFinalJobState(next.state)) return
    stop()
    onEnd(next)
  }
  // Events and the read's answer come later: `seen` never runs before `leave` is set, nor `onEnd`
  // before this returns (a job answered as ended already is found so by the read).
  const leave = jobStore.follow({
    onJob: seen,
    onOpen: () => {
      http
        .get<JobInfo>(`/monitor/job/${job.jobId}`, undefined, { silent: true })
        .then(seen)
        .catch(() => undefined)
    },
  })
  function stop() {
    if (over) return
    over = true
    leave()
  }
  return stop
}
