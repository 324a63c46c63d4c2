import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, readdir, rm } from 'node:fs/promises'
import { hostname } from 'node:os'
import { basename, dirname, extname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { ADMIN_ROLE, ALL_PERMISSIONS, type JobInfo, type JobState, type Language, FINAL_JOB_STATES } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import type { Selectable, Updateable } from 'kysely'
import { pino } from 'pino'
import type { JobTable } from '../../db/schema'
import { AppError, conflict, forbidden, notFound } from '../errors'
import { type MessageKey, type MessageParams, t } from '../i18n'
import { catalogs } from '../i18n/messages'
import { type AuthContext, loadAuthContext } from '../rbac/auth-context'
import type { Services } from '../services'
import { type JobBus, LocalJobBus, type JobMessage, RedisJobBus } from './events'
import { JOBS_FOLDER, mayReadJobOutput } from './output'
import { jobKind, jobKindNames, maxAttemptsOf } from './registry'
import { repeat, Scheduler, type SweepDef } from './schedule'

export type JobRow = Selectable<JobTable>

/** Progress reaches the database and the browsers at most this often per job. */
const PROGRESS_WRITE_MS = 500
/** Queued or running jobs one user may have at once: a click-happy user cannot fill every worker. */
export const JOBS_PER_USER = 10
/** How long a stopping server waits for its jobs to notice the abort before it writes their outcome itself. */
const SHUTDOWN_WAIT_MS = 5000
/** The starter of system jobs (the maintenance schedules'): no user has this id, sequences start at 1. */
export const SYSTEM_USER_ID = 0
export const SYSTEM_USER_NAME = 'system'

/** The rights a system job runs with: every permission, every department's data. */
export const SYSTEM_AUTH: AuthContext = Object.freeze({
  userId: SYSTEM_USER_ID,
  userName: SYSTEM_USER_NAME,
  deptId: null,
  deptName: '',
  roles: [{ roleId: 0, roleKey: ADMIN_ROLE, dataScope: '1' }],
  roleKeys: [ADMIN_ROLE],
  permissions: [ALL_PERMISSIONS],
  isAdmin: true,
})

export interface ScheduleOptions {
  /** Whether this instance's worker queues the maintenance schedules' jobs (tests turn them off unless they test them). */
  enabled: boolean
  /** How often due schedules are looked for; by default from JOB_STALE_SECONDS, at most a minute. */
  tickMs?: number
}

/** Why a running job's signal was aborted; the outcome follows from it. */
class JobAbort extends Error {
  constructor(readonly why: 'cancel' | 'shutdown' | 'lost') {
    super(`job ${why}`)
    this.name = 'AbortError'
  }
}

interface RunningJob {
  row: JobRow
  controller: AbortController
  /** The result file written so far, removed unless the job succeeds. */
  file?: { name: string; fileName: string }
  done: Promise<void>
}

const now = () => new Date().toISOString()
const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, n))

function parseJson(text: string | null): unknown {
  if (text === null) return null
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** A stored error as the caller reads it: a server message in their language, or the stored text. */
function errorText(stored: string | null, lang: Language): string | null {
  const e = parseJson(stored) as { key?: string; params?: MessageParams; text?: string } | null
  if (!e) return stored
  if (e.key && e.key in catalogs[lang]) return t(lang, e.key as MessageKey, e.params ?? {})
  return e.text ?? e.key ?? null
}

const storedError = (key: MessageKey, params: MessageParams = {}) => JSON.stringify({ key, params })

const DAY_MS = 86_400_000

/** The days a finished job's file is kept by its kind (`keepFileDays`), or undefined: as long as the row. */
function keepFileDaysOf(row: Pick<JobRow, 'kind' | 'params'>): number | undefined {
  const keep = jobKind(row.kind)?.keepFileDays
  if (typeof keep !== 'function') return keep
  try {
    return keep((parseJson(row.params) ?? {}) as never)
  } catch {
    // Params that changed shape since: kept as any job's file is.
    return undefined
  }
}

/**
 * When a finished job's file stops being served and is deleted (its kind's `keepFileDays` after it
 * finished), or null when it is kept as long as the job: a rider's data package, 7 days.
 */
export function fileExpiry(row: Pick<JobRow, 'kind' | 'params' | 'finishTime'>): Date | null {
  const days = keepFileDaysOf(row)
  if (days === undefined || row.finishTime === null) return null
  return new Date(Date.parse(row.finishTime) + Math.max(1, days) * DAY_MS)
}

/** Whether the job's file has outlived its kind's `keepFileDays`: no longer served, whether or not removeExpired has deleted it yet. */
const fileExpired = (row: Pick<JobRow, 'kind' | 'params' | 'finishTime'>) => {
  const expiry = fileExpiry(row)
  return expiry !== null && expiry.getTime() <= Date.now()
}

/**
 * A job row as a browser reads it, in the caller's language. `viewer` is who reads it: its
 * `mayDownload` says whether they may download the job's file (mayReadJobOutput). Without one (the
 * answer to the request that just queued the job, which has no file yet) no download is offered.
 */
export function jobInfo(row: JobRow, lang: Language, viewer?: AuthContext): JobInfo {
  const kind = jobKind(row.kind)
  let title = row.kind
  try {
    if (kind?.title) title = kind.title((parseJson(row.params) ?? {}) as never, lang)
  } catch {
    // A title from params that changed shape since: the kind's name still says what it was.
  }
  const fileName = row.state === 'succeeded' && row.resultFile && !fileExpired(row) ? (row.resultFileName ?? basename(row.resultFile)) : null
  return {
    jobId: Number(row.jobId),
    kind: row.kind,
    title,
    state: row.state as JobState,
    done: Number(row.progressDone),
    total: row.progressTotal === null ? null : Number(row.progressTotal),
    // Whoever may not read the output does not read the result either (a failed import's errors quote the file's values).
    result: viewer === undefined || mayReadJobOutput(viewer, row) ? parseJson(row.result) : null,
    error: errorText(row.error, lang),
    fileName,
    mayDownload: fileName !== null && viewer !== undefined && mayReadJobOutput(viewer, row),
    createById: Number(row.createById),
    createBy: row.createBy,
    createTime: row.createTime,
    startTime: row.startTime,
    finishTime: row.finishTime,
    attempts: row.attempts,
    cancelRequested: row.cancelRequestedAt !== null,
  }
}

export interface JobListQuery {
  pageNum: number
  pageSize: number
  state?: JobState
  kind?: string
  /** Only this user's jobs. */
  ownerId?: number
}

/**
 * The job system of one app: queueing, cancelling and listing (any instance), and the worker that
 * claims and runs queued jobs (JOB_CONCURRENCY at a time; none with 0).
 *
 * Each job is claimed by exactly one worker: on PostgreSQL the claim locks the rows it picks with
 * FOR UPDATE SKIP LOCKED, so concurrent claims on other instances pass over them; on SQLite the claim
 * is one UPDATE … RETURNING, which the database runs alone. A running job's holder writes a heartbeat;
 * any instance finding an old one (at its start and every few seconds) takes the job over when its
 * kind is resumable and runs remain, and fails it with "the server stopped while this job ran"
 * otherwise: a job is never left running after its instance died.
 */
export class Jobs {
  /** Names the holder of a running job; a new one at every start. */
  readonly instanceId = `${hostname().slice(0, 40)}:${process.pid}:${randomUUID().slice(0, 8)}`
  readonly bus: JobBus
  private log: FastifyBaseLogger = pino({ level: 'silent' })
  private readonly running = new Map<number, RunningJob>()
  private timers: (() => void)[] = []
  private started = false
  private claiming: Promise<void> | null = null
  private claimAgain = false
  /** Heartbeats and sweeps under way: stop waits for them before the database closes. */
  private readonly ticks = new Set<Promise<unknown>>()
  /** Runs the sweeps, and queues the maintenance schedules' jobs while this worker runs (platform/jobs/schedule.ts). */
  readonly scheduler = new Scheduler(
    () => this.services,
    (kind, params) => this.enqueueSystem(kind, params),
    () => this.log,
  )
  private scheduleOptions: ScheduleOptions = { enabled: true }

  /** `servicesOf`: the app's services, which hold this object (so they are read when used, not when built). */
  constructor(
    private readonly servicesOf: () => Services,
    redis: Redis | undefined,
    redisPrefix: string,
  ) {
    const onError = (err: unknown) => this.log.warn({ err }, 'job event bus')
    this.bus = redis ? new RedisJobBus(redis, `${redisPrefix}jobs`, onError) : new LocalJobBus(onError)
    this.bus.subscribe((message) => this.onMessage(message))
  }

  private get services() {
    return this.servicesOf()
  }

  private get db() {
    return this.services.db
  }

  /** Timings derived from JOB_STALE_SECONDS: a few heartbeats fit in it before a job counts as dead. */
  private get timing() {
    const staleMs = this.services.config.jobStaleMs
    return {
      staleMs,
      heartbeatMs: clamp(staleMs / 4, 200, 15_000),
      sweepMs: clamp(staleMs / 2, 500, 30_000),
      pollMs: clamp(staleMs / 4, 200, 1000),
      scheduleMs: this.scheduleOptions.tickMs ?? clamp(staleMs, 200, 60_000),
    }
  }

  /**
   * Adds a sweep to the scheduler (platform/jobs/schedule.ts): work every so often, once per tick
   * across instances unless it says `runs: 'everywhere'`; it starts with the worker and stops with the server.
   */
  every(def: SweepDef): void {
    this.scheduler.every(def)
  }

  /** Before start: whether (and how often) this instance queues the schedules' jobs. */
  configureSchedules(options: ScheduleOptions): void {
    this.scheduleOptions = options
  }

  /** Whether this instance's worker runs (started and JOB_CONCURRENCY above 0). */
  get working(): boolean {
    return this.started && this.services.config.jobConcurrency > 0
  }

  // --- queueing, reading, cancelling: any instance, whether its worker runs or not

  /** Queues a job for `auth`; answers its row. The starter's rights are checked again when it runs. */
  async enqueue(kind: string, params: unknown, auth: AuthContext): Promise<JobRow> {
    if (!jobKind(kind)) throw new Error(`unknown job kind "${kind}"`)
    // A job of user 0 would run with the system's rights: only enqueueSystem queues those.
    if (!Number.isSafeInteger(auth.userId) || auth.userId <= SYSTEM_USER_ID) throw new Error('a user job needs a real user')
    const { active } = await this.db
      .selectFrom('sysJob')
      .select((eb) => eb.fn.countAll<number>().as('active'))
      .where('createById', '=', auth.userId)
      .where('state', 'in', ['queued', 'running'])
      .executeTakeFirstOrThrow()
    if (Number(active) >= JOBS_PER_USER) throw new AppError(429, 'job.tooMany', { max: JOBS_PER_USER })
    return this.insertJob(kind, params, auth)
  }

  /**
   * Queues a system job (the schedules'): started by no user ('system', id 0), it runs with every
   * permission and sees every department's data, and no per-user limit applies. `by` names who asked
   * for it in `createBy` when that is not the system's own schedule (a rider through the app:
   * `member:12`); the job is a system job all the same.
   */
  async enqueueSystem(kind: string, params: unknown = {}, by: string = SYSTEM_USER_NAME): Promise<JobRow> {
    if (!jobKind(kind)) throw new Error(`unknown job kind "${kind}"`)
    return this.insertJob(kind, params, by === SYSTEM_USER_NAME ? SYSTEM_AUTH : { ...SYSTEM_AUTH, userName: by })
  }

  private async insertJob(kind: string, params: unknown, auth: AuthContext): Promise<JobRow> {
    const row = await this.db
      .insertInto('sysJob')
      .values({
        kind,
        state: 'queued',
        progressDone: 0,
        progressTotal: null,
        params: JSON.stringify(params ?? {}),
        createById: auth.userId,
        createBy: auth.userName,
        deptId: auth.deptId,
        createTime: now(),
        attempts: 0,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    await this.announce(row)
    // This worker looks at once; the others hear of it (an idle one would otherwise wait for its poll).
    this.kick()
    await this.bus.publish({ type: 'wake' }).catch((err: unknown) => this.log.warn({ err }, 'could not announce a new job'))
    return row
  }

  async get(jobId: number): Promise<JobRow | undefined> {
    return this.db.selectFrom('sysJob').selectAll().where('jobId', '=', jobId).executeTakeFirst()
  }

  async list(q: JobListQuery): Promise<{ rows: JobRow[]; total: number }> {
    let where = this.db.selectFrom('sysJob')
    if (q.ownerId !== undefined) where = where.where('createById', '=', q.ownerId)
    if (q.state) where = where.where('state', '=', q.state)
    if (q.kind) where = where.where('kind', '=', q.kind)
    const [count, rows] = await Promise.all([
      where.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
      where
        .selectAll()
        .orderBy('jobId', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNum - 1) * q.pageSize)
        .execute(),
    ])
    return { rows, total: Number(count.total) }
  }

  /**
   * Cancels a job: a queued one at once; a running one is signalled (on whichever instance holds it)
   * and ends cancelled at its next step. Answers the row as it is now.
   */
  async cancel(jobId: number): Promise<JobRow> {
    const at = now()
    const queued = await this.db
      .updateTable('sysJob')
      .set({ state: 'cancelled', finishTime: at, cancelRequestedAt: at })
      .where('jobId', '=', jobId)
      .where('state', '=', 'queued')
      .returningAll()
      .executeTakeFirst()
    if (queued) {
      await this.announce(queued)
      return queued
    }
    const running = await this.db
      .updateTable('sysJob')
      .set({ cancelRequestedAt: at })
      .where('jobId', '=', jobId)
      .where('state', '=', 'running')
      .returningAll()
      .executeTakeFirst()
    if (running) {
      // The holder also sees the request at its next heartbeat, should this message be lost.
      await this.bus.publish({ type: 'cancel', jobId }).catch((err: unknown) => this.log.warn({ err }, 'could not send a cancel'))
      await this.announce(running)
      return running
    }
    if (!(await this.get(jobId))) throw notFound('job.notFound')
    throw conflict('job.finished')
  }

  /**
   * The absolute path of a succeeded job's result file, for `reader` to download: refused (403)
   * unless they may read the job's output (mayReadJobOutput: its starter, or an admin).
   */
  filePath(row: JobRow, reader: AuthContext): string | undefined {
    if (jobKind(row.kind)?.privateFile) throw forbidden('job.outputPrivate')
    if (!mayReadJobOutput(reader, row)) throw forbidden('job.outputNotYours')
    return row.state === 'succeeded' && row.resultFile && !fileExpired(row) ? this.services.storage.resolve(row.resultFile) : undefined
  }

  // --- the worker

  /** Starts the worker and the sweeper; `log` is the app's. Idempotent. */
  async start(log?: FastifyBaseLogger): Promise<void> {
    if (log) this.log = log
    if (this.started) return
    this.started = true
    if (this.bus instanceof RedisJobBus) await this.bus.ready
    const { pollMs, heartbeatMs, sweepMs, scheduleMs } = this.timing
    // At start first: what died with this server's previous run is taken over or failed now (a
    // database that does not answer yet is logged and tried again at the next sweep).
    await this.track(this.sweep())
    // Stopped meanwhile (an app closed as soon as it was ready): no timers to outlive it.
    if (!this.started) return
    // The queue's own beat (claims, heartbeats, taking over the jobs of dead instances) runs on every
    // instance: it is what the scheduler stands on, not scheduled work.
    this.timers.push(repeat(pollMs, () => this.kick()))
    this.timers.push(repeat(heartbeatMs, () => void this.track(this.heartbeat())))
    this.timers.push(repeat(sweepMs, () => void this.track(this.sweep())))
    // Sweeps run on every instance (claimed once per tick); only a working worker queues the
    // schedules' jobs: an instance with JOB_CONCURRENCY=0 serves requests only.
    this.scheduler.start(this.scheduleOptions.enabled && this.working ? scheduleMs : undefined)
    this.kick()
  }

  /**
   * Stops claiming and aborts this instance's running jobs: a resumable one goes back to the queue
   * (another instance, or this one after its restart, runs it again), any other fails with "the server
   * stopped while this job ran". Idempotent; the database stays open.
   */
  async stop(): Promise<void> {
    if (!this.started) return
    this.started = false
    for (const stopTimer of this.timers) stopTimer()
    this.timers = []
    await this.scheduler.stop()
    await this.claiming
    const jobs = [...this.running.values()]
    for (const job of jobs) job.controller.abort(new JobAbort('shutdown'))
    let waited: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.allSettled(jobs.map((j) => j.done)),
      new Promise((r) => (waited = setTimeout(r, SHUTDOWN_WAIT_MS))),
    ])
    clearTimeout(waited)
    await Promise.allSettled([...this.ticks])
  }

  /** Stops the worker and the event bus; the app closes the database after it. */
  async close(): Promise<void> {
    await this.stop()
    await this.bus.close()
  }

  private track<T>(p: Promise<T>): Promise<T | undefined> {
    const tracked = p.catch((err: unknown) => {
      this.log.warn({ err }, 'job worker')
      return undefined
    })
    this.ticks.add(tracked)
    void tracked.finally(() => this.ticks.delete(tracked))
    return tracked
  }

  private onMessage(message: JobMessage) {
    if (message.type === 'wake') this.kick()
    else if (message.type === 'cancel') this.running.get(message.jobId)?.controller.abort(new JobAbort('cancel'))
  }

  /** Claims what this worker has room for, again while there may be more; calls made meanwhile fold into one. */
  private kick() {
    if (!this.working) return
    if (this.claiming) {
      this.claimAgain = true
      return
    }
    this.claiming = (async () => {
      do {
        this.claimAgain = false
        const free = this.services.config.jobConcurrency - this.running.size
        if (free <= 0 || !this.started) break
        let rows: JobRow[]
        try {
          rows = await this.claim(free)
        } catch (err) {
          this.log.warn({ err }, 'could not claim jobs')
          break
        }
        for (const row of rows) this.execute(row)
        if (rows.length === free) this.claimAgain = true
      } while (this.claimAgain && this.started)
    })().finally(() => (this.claiming = null))
  }

  private async claim(n: number): Promise<JobRow[]> {
    const kinds = jobKindNames()
    if (!kinds.length) return []
    const queued = () => this.db.selectFrom('sysJob').select('jobId').where('state', '=', 'queued').where('kind', 'in', kinds)
    const at = now()
    const claimed = { state: 'running', instanceId: this.instanceId, startTime: at, heartbeatTime: at } as const
    let rows: JobRow[]
    if (this.services.dialect === 'postgres') {
      // Picked and locked once, in a materialized CTE: as `IN (subquery … LIMIT)` PostgreSQL may
      // run the subquery again for every row it updates, and claim far more than asked.
      rows = await this.db
        .with(
          (cte) => cte('picked').materialized(),
          () => queued().orderBy('jobId').limit(n).forUpdate().skipLocked(),
        )
        .updateTable('sysJob')
        .from('picked')
        .set((eb) => ({ ...claimed, attempts: eb('sysJob.attempts', '+', 1) }))
        .whereRef('sysJob.jobId', '=', 'picked.jobId')
        .where('sysJob.state', '=', 'queued')
        .returningAll('sysJob')
        .execute()
    } else {
      // A read first: an idle poll must not take the one writer connection. The UPDATE then runs
      // alone (SQLite has one writer), its subquery evaluated once.
      if (!(await queued().limit(1).executeTakeFirst())) return []
      rows = await this.db
        .updateTable('sysJob')
        .set((eb) => ({ ...claimed, attempts: eb('attempts', '+', 1) }))
        .where('jobId', 'in', queued().orderBy('jobId').limit(n))
        .where('state', '=', 'queued')
        .returningAll()
        .execute()
    }
    return rows.sort((a, b) => a.jobId - b.jobId)
  }

  private execute(row: JobRow) {
    const job: RunningJob = { row, controller: new AbortController(), done: Promise.resolve() }
    this.running.set(row.jobId, job)
    job.done = this.run(job)
      .catch((err: unknown) => this.log.error({ err, jobId: row.jobId }, 'job outcome could not be written'))
      .finally(() => {
        this.running.delete(row.jobId)
        this.kick()
      })
  }

  private async run(job: RunningJob) {
    const { row, controller } = job
    const kind = jobKind(row.kind)!
    const log = this.log.child({ jobId: row.jobId, kind: row.kind })
    const reporter = this.progressReporter(job)
    await this.announce(row)
    let outcome: Updateable<JobTable>
    try {
      const auth = Number(row.createById) === SYSTEM_USER_ID ? SYSTEM_AUTH : await loadAuthContext(this.db, row.createById)
      if (!auth) throw new AppError(403, 'job.starterGone')
      const result = await kind.run({
        jobId: row.jobId,
        attempt: row.attempts,
        params: (parseJson(row.params) ?? {}) as Record<string, unknown>,
        auth,
        progress: reporter.report,
        signal: controller.signal,
        services: this.services,
        log,
        writeFile: (fileName, content) => this.writeFile(job, fileName, content),
      })
      outcome = { state: 'succeeded', result: JSON.stringify(result ?? null), resultFile: job.file?.name ?? null, resultFileName: job.file?.fileName ?? null }
    } catch (err) {
      const why = controller.signal.aborted && controller.signal.reason instanceof JobAbort ? controller.signal.reason.why : undefined
      if (why === 'lost') {
        // Another instance took it over (this one looked dead): the outcome is theirs to write.
        log.warn('job was taken over by another instance; stopped here')
        await reporter.close()
        await this.removeFile(job)
        return
      }
      if (why === 'cancel') outcome = { state: 'cancelled' }
      // A stop the job did not cause does not count against its runs: a resumable job simply waits for the next worker.
      else if (why === 'shutdown') outcome = kind.resumable ? { state: 'queued', instanceId: null, heartbeatTime: null, attempts: Math.max(0, row.attempts - 1) } : { state: 'failed', error: storedError('job.serverStopped') }
      else if (err instanceof AppError) outcome = { state: 'failed', error: storedError(err.messageKey, err.params) }
      else {
        log.error({ err }, 'job failed')
        outcome = { state: 'failed', error: storedError('job.failedUnexpectedly', { jobId: row.jobId }) }
      }
    }
    await reporter.close()
    await this.settle(job, outcome)
  }

  /**
   * Writes a job's outcome, only while this instance still holds it (another may have taken it over
   * meanwhile), and tells the owner's browsers.
   */
  private async settle(job: RunningJob, changes: Updateable<JobTable>) {
    const final = FINAL_JOB_STATES.includes(changes.state as JobState)
    const row = await this.db
      .updateTable('sysJob')
      .set({ ...changes, progressDone: job.row.progressDone, progressTotal: job.row.progressTotal, ...(final ? { finishTime: now() } : {}) })
      .where('jobId', '=', job.row.jobId)
      .where('instanceId', '=', this.instanceId)
      .where('state', '=', 'running')
      .returningAll()
      .executeTakeFirst()
    if (!row || row.state !== 'succeeded') await this.removeFile(job)
    // An ended job keeps its result file and nothing else: what runs before a crash left goes now.
    if (row && final) await this.clearJobFolder(row.jobId, row.state === 'succeeded' ? row.resultFile : null)
    if (row) await this.announce(row)
  }

  /** Progress in memory at once; to the database and the browsers at most every PROGRESS_WRITE_MS. */
  private progressReporter(job: RunningJob) {
    let timer: NodeJS.Timeout | undefined
    let writing: Promise<void> | undefined
    let lastWrite = 0
    let closed = false
    const write = async () => {
      timer = undefined
      lastWrite = Date.now()
      const { progressDone, progressTotal } = job.row
      try {
        await this.db
          .updateTable('sysJob')
          .set({ progressDone, progressTotal })
          .where('jobId', '=', job.row.jobId)
          .where('instanceId', '=', this.instanceId)
          .where('state', '=', 'running')
          .execute()
        if (!closed) await this.announce(job.row)
      } catch (err) {
        this.log.warn({ err, jobId: job.row.jobId }, 'could not write job progress')
      }
      writing = undefined
      // Reported while it was being written: that goes out too, in its turn.
      if (!closed && (job.row.progressDone !== progressDone || job.row.progressTotal !== progressTotal)) schedule()
    }
    const schedule = () => {
      if (closed || timer || writing) return
      timer = setTimeout(() => (writing = write()), Math.max(0, lastWrite + PROGRESS_WRITE_MS - Date.now()))
    }
    return {
      report: (done: number, total?: number | null) => {
        job.row.progressDone = Math.max(0, Math.floor(done))
        if (total !== undefined) job.row.progressTotal = total === null ? null : Math.max(0, Math.floor(total))
        schedule()
      },
      /** No more writes; the outcome's own write carries the last progress. */
      close: async () => {
        closed = true
        clearTimeout(timer)
        await writing
      },
    }
  }

  private async writeFile(job: RunningJob, fileName: string, content: Readable): Promise<string> {
    const extension = extname(fileName).slice(1).toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 10) || 'bin'
    // One folder per job: whatever a dead run left there goes with the job.
    const name = `${JOBS_FOLDER}/${job.row.jobId}/${randomUUID()}.${extension}`
    const full = this.services.storage.resolve(name)!
    await mkdir(dirname(full), { recursive: true })
    try {
      await pipeline(content, createWriteStream(full), { signal: job.controller.signal })
    } catch (err) {
      await rm(full, { force: true })
      throw err
    }
    await this.removeFile(job)
    job.file = { name, fileName: basename(fileName).slice(0, 255) }
    return name
  }

  private async removeFile(job: RunningJob) {
    if (job.file) await this.services.storage.remove(job.file.name)
    job.file = undefined
  }

  /** Empties a job's files folder but for the file it keeps (none: the folder goes). */
  private async clearJobFolder(jobId: number, keep: string | null = null) {
    const folder = this.services.storage.resolve(`${JOBS_FOLDER}/${jobId}`)
    if (!folder) return
    if (!keep) {
      await rm(folder, { recursive: true, force: true }).catch(() => undefined)
      return
    }
    const names = await readdir(folder).catch(() => [] as string[])
    for (const name of names) if (`${JOBS_FOLDER}/${jobId}/${name}` !== keep) await rm(join(folder, name), { force: true }).catch(() => undefined)
  }

  /** Renews this instance's hold on its running jobs, and learns of cancels and of jobs taken from it. */
  private async heartbeat() {
    const ids = [...this.running.keys()]
    if (!ids.length) return
    const held = await this.db
      .updateTable('sysJob')
      .set({ heartbeatTime: now() })
      .where('jobId', 'in', ids)
      .where('instanceId', '=', this.instanceId)
      .where('state', '=', 'running')
      .returning(['jobId', 'cancelRequestedAt'])
      .execute()
    const byId = new Map(held.map((r) => [r.jobId, r]))
    for (const id of ids) {
      const job = this.running.get(id)
      const row = byId.get(id)
      if (!job || job.controller.signal.aborted) continue
      if (!row) job.controller.abort(new JobAbort('lost'))
      else if (row.cancelRequestedAt) job.controller.abort(new JobAbort('cancel'))
    }
  }

  /**
   * Running jobs whose holder stopped writing its heartbeat died with their instance: resumable ones
   * with runs left go back to the queue, cancelled ones end cancelled, the rest fail clearly.
   * Every change is conditional on the heartbeat still being old, so two sweeping instances agree.
   */
  private async sweep() {
    const cutoff = new Date(Date.now() - this.timing.staleMs).toISOString()
    const stale = await this.db
      .selectFrom('sysJob')
      .select(['jobId', 'kind', 'attempts', 'cancelRequestedAt'])
      .where('state', '=', 'running')
      .where((eb) => eb.or([eb('heartbeatTime', '<', cutoff), eb('heartbeatTime', 'is', null)]))
      .execute()
    let requeued = false
    for (const s of stale) {
      const kind = jobKind(s.kind)
      const again = !s.cancelRequestedAt && !!kind?.resumable && s.attempts < maxAttemptsOf(kind)
      const changes: Updateable<JobTable> = s.cancelRequestedAt
        ? { state: 'cancelled', finishTime: now() }
        : again
          ? { state: 'queued', instanceId: null, heartbeatTime: null }
          : { state: 'failed', finishTime: now(), error: storedError('job.serverStopped') }
      const row = await this.db
        .updateTable('sysJob')
        .set(changes)
        .where('jobId', '=', s.jobId)
        .where('state', '=', 'running')
        .where((eb) => eb.or([eb('heartbeatTime', '<', cutoff), eb('heartbeatTime', 'is', null)]))
        .returningAll()
        .executeTakeFirst()
      if (!row) continue
      this.log.warn({ jobId: row.jobId, kind: row.kind, state: row.state }, 'job of a stopped instance taken over')
      // A requeued job's folder is left to its next run (which may already be writing there), cleared when it ends.
      if (row.state !== 'queued') await this.clearJobFolder(row.jobId)
      await this.announce(row)
      requeued ||= row.state === 'queued'
    }
    if (requeued) {
      this.kick()
      await this.bus.publish({ type: 'wake' }).catch(() => undefined)
    }
  }

  /**
   * Finished jobs older than JOB_RETENTION_DAYS go, with their files, 500 at a time; answers how many.
   * Before that, files whose kind keeps them for fewer days (`keepFileDays`: a rider's data package)
   * are deleted, their job's row kept without them. The retention job (ops/maintenance) calls it.
   */
  async removeExpired(signal?: AbortSignal): Promise<number> {
    await this.removeExpiredFiles(signal)
    return this.removeOldJobs(signal)
  }

  /** Deletes these jobs' files now, the rows left without them (a rider's erasure takes their data packages). */
  async removeFiles(jobIds: readonly number[]): Promise<void> {
    for (const jobId of jobIds) {
      // The row first: no download is answered a path that is about to go.
      await this.db.updateTable('sysJob').set({ resultFile: null }).where('jobId', '=', jobId).execute()
      await this.clearJobFolder(jobId)
    }
  }

  /** Files of succeeded jobs past their kind's `keepFileDays`: deleted, the row left without them. */
  private async removeExpiredFiles(signal?: AbortSignal) {
    for (const kind of jobKindNames()) {
      const keep = jobKind(kind)?.keepFileDays
      if (keep === undefined) continue
      // A function answers per job, in whole days of at least one: nothing younger than a day can be due.
      const cutoff = new Date(Date.now() - (typeof keep === 'number' ? Math.max(1, keep) : 1) * DAY_MS).toISOString()
      let after = 0
      for (;;) {
        signal?.throwIfAborted()
        const rows = await this.db
          .selectFrom('sysJob')
          .select(['jobId', 'kind', 'params', 'finishTime'])
          .where('kind', '=', kind)
          .where('state', '=', 'succeeded')
          .where('resultFile', 'is not', null)
          .where('finishTime', '<', cutoff)
          .where('jobId', '>', after)
          .orderBy('jobId')
          .limit(500)
          .execute()
        for (const row of rows) {
          if (!fileExpired(row)) continue
          // The row first: no download is answered a path that is about to go.
          await this.db.updateTable('sysJob').set({ resultFile: null }).where('jobId', '=', row.jobId).execute()
          await this.clearJobFolder(row.jobId)
        }
        if (rows.length < 500) break
        after = rows.at(-1)!.jobId
      }
    }
  }

  private async removeOldJobs(signal?: AbortSignal): Promise<number> {
    const cutoff = new Date(Date.now() - this.services.config.jobRetentionMs).toISOString()
    let removed = 0
    for (;;) {
      signal?.throwIfAborted()
      const old = await this.db
        .selectFrom('sysJob')
        .select('jobId')
        .where('state', 'in', FINAL_JOB_STATES)
        .where('finishTime', '<', cutoff)
        .limit(500)
        .execute()
      if (!old.length) return removed
      for (const { jobId } of old) await this.clearJobFolder(jobId)
      const deleted = await this.db
        .deleteFrom('sysJob')
        .where(
          'jobId',
          'in',
          old.map((r) => r.jobId),
        )
        .executeTakeFirst()
      removed += Number(deleted.numDeletedRows)
      if (old.length < 500) return removed
    }
  }

  /** Tells the owner's browsers (on every instance) what the job looks like now. */
  private async announce(row: JobRow) {
    // A copy: the running job's row changes in memory while the message waits for its tick.
    await this.bus.publish({ type: 'job', job: { ...row } }).catch((err: unknown) => this.log.warn({ err }, 'could not publish a job event'))
  }
}
