/**
 * The rides exported whole (part of the members benchmark, bench/members.ts): every ride of the demo
 * (memberEntities.ride, POST /member/ride/export), then the same as a job (POST …/export/job: the
 * worker writes the file, which then downloads), each on a freshly started server so its peak memory
 * is the phase's own, read against the server's resident memory when it was idle just before. Beside
 * them the same rows read bare: the repository's export read through the same database layer (the
 * app's createDatabase, with the server's reader threads), without the workbook or HTTP, so the note
 * can say how much of the export's time is the read. The server's CPU seconds over each phase go
 * beside the rates: on a machine shared with other work they say more than the wall time does.
 */
import { availableParallelism } from 'node:os'
import { memberEntities } from '@velo/shared'
import type { DatabaseTarget } from '../src/config'
import { createDatabase } from '../src/db/database'
import { EntityRepository } from '../src/platform/crud/repository'
import { exportAsJob } from './export-job'
import { collectGarbage, exportAll } from './run'
import type { ServerProcess } from './server'
import { fmt, log } from './format'

const ride = memberEntities.ride
/** The targets (issue 43): an export's rows a second, and the server's memory over idle. */
export const RIDE_EXPORT_TARGET_ROWS_PER_S = 100_000
export const RIDE_EXPORT_TARGET_RSS_GROWTH = 100 * 1024 * 1024

const mb = (bytes: number) => `${fmt(bytes / 1024 / 1024)} MB`

export interface RideExportFigures {
  /** `cpu`: the server's CPU seconds over the phase (every thread), which a busy machine blurs less than the rate. */
  direct: { rate: number; seconds: number; bytes: number; peak: number; idle: number; cpu: number | null }
  job: { rate: number; seconds: number; serverSeconds: number; bytes: number; peak: number; idle: number; cpu: number | null }
  bare: { rate: number; seconds: number; rows: number }
}

/**
 * `restart` starts a fresh server process (on the same database) and answers it; `headers` are the
 * signed-in admin's (sessions outlive a restart).
 */
export async function measureRideExport(o: {
  name: string
  base: string
  headers: Record<string, string>
  database: DatabaseTarget
  total: number
  restart: () => Promise<ServerProcess>
}): Promise<RideExportFigures> {
  const { name, base, headers, total } = o
  log(`${name}: export of all ${fmt(total)} rides`)
  const cpuOver = async <T>(s: ServerProcess, phase: () => Promise<T>) => {
    const before = s.cpuMillis()
    const result = await phase()
    const after = s.cpuMillis()
    return { ...result, cpu: before === null || after === null ? null : (after - before) / 1000 }
  }
  let s = await o.restart()
  const direct = await cpuOver(s, () => exportAll(base, headers, s, ride.path))
  log(`${name}: ${fmt(total / direct.seconds)} rows/s, peak ${mb(direct.peak)} over ${mb(direct.startRss)} idle; then as a job`)
  s = await o.restart()
  const job = await cpuOver(s, () => exportAsJob(base, headers, s, total, ride.path))
  log(`${name}: as a job ${fmt(total / job.seconds)} rows/s, peak ${mb(job.peak)} over ${mb(job.startRss)} idle; then the read bare`)
  const bare = await bareExportRead(o.database, total)
  return {
    direct: { rate: total / direct.seconds, seconds: direct.seconds, bytes: direct.bytes, peak: direct.peak, idle: direct.startRss, cpu: direct.cpu },
    job: { rate: total / job.seconds, seconds: job.seconds, serverSeconds: job.serverSeconds, bytes: job.bytes, peak: job.peak, idle: job.startRss, cpu: job.cpu },
    bare,
  }
}

/**
 * The export's own read (EntityRepository.exportRead, as an admin's export runs it: on SQLite pages on
 * the reader threads, on PostgreSQL the one statement through a cursor) with nothing after it.
 */
async function bareExportRead(target: DatabaseTarget, total: number) {
  const threads = Math.min(2, availableParallelism())
  const { db } = createDatabase(target, { readerThreads: threads })
  try {
    const repo = new EntityRepository(db, ride)
    collectGarbage()
    const started = performance.now()
    let rows = 0
    for await (const page of repo.exportRead({}, { all: true }, 'en_US').pages) rows += page.length
    const seconds = (performance.now() - started) / 1000
    if (rows !== total) throw new Error(`the bare read found ${rows} of ${total} rides`)
    return { rate: rows / seconds, seconds, rows }
  } finally {
    await db.destroy()
  }
}

export { mb }
