import { setTimeout as sleep } from 'node:timers/promises'
import { type Envelope, systemEntities } from '@velo/shared'
import type { ServerProcess } from './server'

const loginLog = systemEntities.loginLog
/** A job still running after this long is reported as failed: no benchmark waits for ever. */
const GIVE_UP_MS = 30 * 60_000
const POLL_MS = 100

async function call<T = unknown>(base: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; code: number; msg: string; data: T | undefined }> {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  try {
    return { status: res.status, ...(JSON.parse(text) as Envelope<T>) }
  } catch {
    return { status: res.status, code: res.status, msg: text.slice(0, 200), data: undefined }
  }
}

/**
 * Every login-log row (or another entity's, by its path) exported as a job (POST …/export/job), as the console starts exports above
 * 50,000 rows: queued, run by the server's worker, written to storage, then downloaded. Answers the
 * time from the request to the job's success as the client sees it (polling GET /monitor/job/:id every
 * 100 ms), the server's own run time (start to finish), the file's size and the server's peak memory.
 */
export async function exportAsJob(base: string, headers: Record<string, string>, server: ServerProcess, rows: number, path: string = loginLog.path) {
  const watch = server.watchMemory()
  const started = performance.now()
  const queued = await call<{ jobId: number }>(base, `${path}/export/job`, headers, {})
  if (queued.code !== 200) throw new Error(`export/job answered ${queued.status}: ${queued.msg}`)
  const jobId = queued.data!.jobId
  let job: { state: string; done: number; error: string | null; startTime: string | null; finishTime: string | null } | undefined
  for (;;) {
    await sleep(POLL_MS)
    job = (await call<NonNullable<typeof job>>(base, `/monitor/job/${jobId}`, headers)).data
    if (job && ['succeeded', 'failed', 'cancelled'].includes(job.state)) break
    if (performance.now() - started > GIVE_UP_MS) throw new Error(`the export job still ran after ${GIVE_UP_MS / 60_000} minutes`)
  }
  const seconds = (performance.now() - started) / 1000
  const peak = watch.stop()
  if (job.state !== 'succeeded') throw new Error(`the export job ${job.state}: ${job.error ?? ''}`)
  if (job.done !== rows) throw new Error(`the export job wrote ${job.done} of ${rows} rows`)
  const serverSeconds = (Date.parse(job.finishTime!) - Date.parse(job.startTime!)) / 1000

  // The kept file downloads, whole, as an .xlsx.
  const file = await fetch(`${base}/monitor/job/${jobId}/file`, { headers })
  if (file.status !== 200 || !file.body) throw new Error(`the job's file answered ${file.status}`)
  let bytes = 0
  let magic = ''
  for await (const chunk of file.body as unknown as AsyncIterable<Uint8Array>) {
    if (!magic) magic = Buffer.from(chunk.subarray(0, 2)).toString('latin1')
    bytes += chunk.byteLength
  }
  if (magic !== 'PK') throw new Error("the job's file is not an .xlsx (zip) file")
  return { seconds, serverSeconds, bytes, peak, startRss: watch.startRss }
}
