import type { Readable } from 'node:stream'
import type { Language } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { AuthContext } from '../rbac/auth-context'
import type { Services } from '../services'

/** What a job kind's `run` gets: its input, who started it, and the means to report and stop. */
export interface JobContext<P = Record<string, unknown>> {
  jobId: number
  /** 1 on the first run; more when a worker took the job over after its instance died. */
  attempt: number
  params: P
  /** The starter as they are now (loaded when the job starts): their rights and data scope, not the worker's. */
  auth: AuthContext
  /** Reports progress; writes to the database and the browser at most a few times a second. */
  progress(done: number, total?: number | null): void
  /** Aborted when the job is cancelled, the server stops, or another instance took the job over. */
  signal: AbortSignal
  services: Services
  log: FastifyBaseLogger
  /**
   * Streams the job's result file to storage (never whole in memory) and keeps it for download as
   * `fileName`; answers the stored name. A job that does not succeed leaves no file behind.
   */
  writeFile(fileName: string, content: Readable): Promise<string>
}

export interface JobKind<P = Record<string, unknown>> {
  /** Stored with each job: a new kind is a new name, a renamed one leaves its old jobs unclaimed. */
  kind: string
  /** What the job answers is stored as its result (JSON). Throw an AppError to fail with a message the user reads. */
  run: (ctx: JobContext<P>) => Promise<unknown>
  /**
   * May run again from the start after its instance died (an export writes a fresh file). A kind whose
   * work is not safe to repeat (a push to devices) leaves it false: its job is failed, clearly, instead.
   */
  resumable?: boolean
  /** Runs it may take in all, when resumable (3). */
  maxAttempts?: number
  /** A readable name for the jobs list: "Export Login logs". The kind's name when absent. */
  title?: (params: P, lang: Language) => string
  /**
   * Its file is deleted this many days after the job finished, sooner than JOB_RETENTION_DAYS (the
   * row stays until then, without its file): a rider's data package. A function answers it per job
   * (an action's, from its definition's `keepFileDays`); undefined keeps the file as long as the row.
   * Whole days, at least 1. Jobs.removeExpired deletes the file; until it runs, it is no longer served.
   */
  keepFileDays?: number | ((params: P) => number | undefined)
  /**
   * Its file is served by its own route only, to whom that route decides (a rider's data package, to
   * that rider through the app API): GET /monitor/job/:id/file refuses it to everyone, admins included.
   */
  privateFile?: boolean
}

const kinds = new Map<string, JobKind>()

/**
 * Registers a job kind, once per process: every instance runs the same code, so whichever claims a
 * job knows how to run it.
 */
export function defineJobKind<P = Record<string, unknown>>(kind: JobKind<P>): JobKind<P> {
  if (!/^[a-z][\w.-]{0,63}$/i.test(kind.kind)) throw new Error(`job kind "${kind.kind}" must be 1 to 64 letters, digits, . _ or -`)
  if (kinds.has(kind.kind)) throw new Error(`job kind "${kind.kind}" is defined twice`)
  kinds.set(kind.kind, kind as unknown as JobKind)
  return kind
}

export function jobKind(kind: string): JobKind | undefined {
  return kinds.get(kind)
}

/** The kinds this process can run: its worker claims only these. */
export function jobKindNames(): string[] {
  return [...kinds.keys()]
}

export const maxAttemptsOf = (kind: JobKind | undefined) => (kind?.resumable ? Math.max(1, kind.maxAttempts ?? 3) : 1)
