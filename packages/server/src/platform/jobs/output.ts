import { relative, sep } from 'node:path'
import type { AuthContext } from '../rbac/auth-context'
import type { Storage } from '../storage'
import { jobKind } from './registry'

// Whose a job's output is (docs/jobs.md, "Job outputs are their owner's"): the one rule every route
// that serves a job's file goes through, and the folder no other route serves.

/** Jobs' files live under STORAGE_DIR/jobs: `jobs/<jobId>/…` (a job's file) and `jobs/incoming/…` (uploads on their way into an import job). */
export const JOBS_FOLDER = 'jobs'

/**
 * Whether `reader` may read a job's output (the file it left): the user who started it, or an admin.
 * Seeing everyone's jobs (monitor:job:list) or cancelling them (monitor:job:cancel) is not enough:
 * an export holds the rows its starter's rights and data scope let through, not the viewer's.
 * GET /monitor/job/:id/file asks it through Jobs.filePath, and the jobs list answers it per row
 * (JobInfo.mayDownload).
 */
export function mayReadJobOutput(reader: AuthContext, job: { createById: number | string | bigint; kind?: string }): boolean {
  // A kind whose file has a route of its own (a rider's data package, theirs through the app API): nobody's here.
  if (job.kind !== undefined && jobKind(job.kind)?.privateFile) return false
  return Number(job.createById) === reader.userId || reader.isAdmin
}

/**
 * Whether a stored name, as a client (or a row) gives it, names something in the jobs folder once
 * resolved under STORAGE_DIR, whatever its spelling: `./jobs/…`, `upload/../jobs/…`, `jobs//…`,
 * `../files/jobs/…` (out of STORAGE_DIR and back in), `JOBS/…` (a file system that ignores case),
 * `jobs./…` (one that drops trailing dots and spaces). A name Storage refuses (outside STORAGE_DIR,
 * absolute, with a backslash or NUL) is no stored name at all: false, and the caller refuses it as
 * such. Routes that serve stored files by name (/common/download, entity and app files) refuse a
 * name in the jobs folder before reading anything: a job's file is served only by
 * GET /monitor/job/:id/file, under mayReadJobOutput.
 */
export function isJobsFolderName(storage: Storage, name: string): boolean {
  const full = storage.resolve(name)
  if (!full) return false
  const first = relative(storage.root, full).split(sep)[0] ?? ''
  return first.replace(/[. ]+$/, '').toLowerCase() === JOBS_FOLDER
}
