import type { Label } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { Selectable } from 'kysely'
import type { JobScheduleTable } from '../../db/schema'
import type { Services } from '../services'

// The one scheduler of the server. Two kinds of scheduled work, both claimed through sys_job_schedule
// so that several instances on one database run each tick once:
//  - a schedule (defineSchedule) queues a job every so many hours (a backup, the retention job): its
//    runs are jobs, with their history, progress and files under Monitoring › Jobs;
//  - a sweep (Jobs.every) is a short piece of work every few seconds or minutes (devices gone silent,
//    commands past their deadline, the next OTA offers, messages whose send time came): it runs in
//    the scheduler itself, since a job row a second would bury the jobs people look for, and its row
//    keeps the last run, how long it took and how it ended.
// Nothing else in the server starts a timer that repeats (lint: no-restricted-syntax on setInterval);
// a connection's own keepalive goes through repeat() below.

/**
 * A job the server queues by itself every so many hours (a backup, the retention job), as a system
 * job. The interval is a configuration key, read at every tick: a change takes effect at the next one.
 */
export interface ScheduleDef {
  /** Names the schedule's row in sys_job_schedule; never renamed (a new name starts a new schedule). */
  key: string
  /** The job kind it queues. */
  kind: string
  /** The configuration key of the hours between runs; 0 turns the schedule off. */
  intervalKey: string
  defaultHours: number
  /**
   * 'now': the first run is at the first tick after the schedule is new (retention: nothing waits a day
   * to be trimmed). 'afterInterval': one interval after that (a backup: a server just started, or a test
   * app, has nothing worth backing up yet).
   */
  firstRun: 'now' | 'afterInterval'
}

export type ScheduleRow = Selectable<JobScheduleTable>

const HOUR_MS = 3_600_000
const schedules = new Map<string, ScheduleDef>()

/** Registers a schedule, once per process (like a job kind: every instance runs the same code). */
export function defineSchedule(def: ScheduleDef): ScheduleDef {
  if (!/^[a-z][\w.-]{0,63}$/i.test(def.key)) throw new Error(`schedule "${def.key}" must be 1 to 64 letters, digits, . _ or -`)
  if (schedules.has(def.key)) throw new Error(`schedule "${def.key}" is defined twice`)
  schedules.set(def.key, def)
  return def
}

export function scheduleDef(key: string): ScheduleDef | undefined {
  return schedules.get(key)
}

export function scheduleDefs(): ScheduleDef[] {
  return [...schedules.values()]
}

/** The hours between runs as configured now; 0 (off) for anything that is not a whole number of hours ≥ 0. */
export async function intervalHoursOf(services: Services, def: ScheduleDef): Promise<number> {
  return services.configValues.int(def.intervalKey, def.defaultHours, 0)
}

/**
 * When a schedule runs next, given the hours configured now: null when it is off; without a row yet
 * (its first tick makes it), as its first run says; else as its row says (plannedRun).
 */
export function nextScheduledRun(def: ScheduleDef, row: Pick<ScheduleRow, 'nextRunTime' | 'updateTime'> | undefined, hours: number, now = Date.now()): string | null {
  if (hours <= 0) return null
  if (row) return plannedRun(row, hours)
  return new Date(now + (def.firstRun === 'now' ? 0 : hours * HOUR_MS)).toISOString()
}

/**
 * When a schedule's row says it runs next, given the interval configured now. The row's next_run_time
 * is its last run (update_time: when the row was claimed, or made) plus the interval of that time; when
 * the configuration changed since, the next run is the last one plus the new interval. A row made for a
 * first run 'now' (next_run_time = update_time) is due as it stands.
 */
export function plannedRun(row: Pick<ScheduleRow, 'nextRunTime' | 'updateTime'>, hours: number): string {
  const last = Date.parse(row.updateTime)
  const span = Date.parse(row.nextRunTime) - last
  if (span === 0 || span === hours * HOUR_MS) return row.nextRunTime
  return new Date(last + hours * HOUR_MS).toISOString()
}

/** A sweep's interval as a definition line writes it: '500ms', '5s', '1m', '48h', or milliseconds. */
export type Every = number | `${number}${'ms' | 's' | 'm' | 'h'}`

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: HOUR_MS } as const

export function everyMs(every: Every): number {
  if (typeof every === 'number') return every
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(every)
  if (!m) throw new Error(`"${every}" is not an interval like 500ms, 5s, 1m or 48h`)
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]
}

export interface SweepDef {
  /** Names the sweep's row in sys_job_schedule and its line on the jobs page (schedule.<key> in the messages). */
  key: string
  /** Its name on the jobs page where no message `schedule.<key>` names it (a sweep the engine derives from a definition). */
  title?: Label
  /** How long from the end of one run to the next; a function when a test or a setting changes it. */
  every: Every | (() => number)
  /**
   * 'once' (the default): one instance per tick, whichever claims it first; the work is in the database.
   * 'everywhere': each instance runs its own, for what only it holds (its own connections, its buffers).
   */
  runs?: 'once' | 'everywhere'
  /** The first run at start rather than one interval after it (the upload sweep after a restart). */
  atStart?: boolean
  /** The work; `signal` aborts when the server stops. What it answers is not kept. */
  run: (signal: AbortSignal) => Promise<unknown>
}

/** A scheduled work as the jobs page lists it. */
export interface ScheduledWork {
  key: string
  /** 'job': queues a job every intervalHours; 'once' / 'everywhere': a sweep every everyMs. */
  runs: 'job' | 'once' | 'everywhere'
  everyMs: number | null
  intervalHours: number | null
  /** The sweep's own title (SweepDef.title). */
  title?: Label
  lastRunTime: string | null
  nextRunTime: string | null
  lastDurationMs: number | null
  lastError: string | null
  lastJobId: number | null
}

interface SweepState {
  def: SweepDef
  timer: NodeJS.Timeout | null
  running: Promise<void> | null
  /** This instance's own record, for 'everywhere' sweeps (and until a 'once' sweep's row is read). */
  lastRunTime: string | null
  lastDurationMs: number | null
  lastError: string | null
  nextRunTime: string | null
  /** Its row exists in sys_job_schedule: a claim that changes nothing means another instance has the tick. */
  rowMade: boolean
}

const ERROR_CHARS = 500

/** A function run every `ms` until the answer is called (a connection's keepalive); it keeps no process alive. */
export function repeat(ms: number, fn: () => void): () => void {
  const timer = setInterval(fn, ms)
  timer.unref()
  return () => clearInterval(timer)
}

/**
 * Runs the schedules and the sweeps. Schedules queue their job when due, from every instance whose
 * worker runs; sweeps run on every instance that started. For both, one conditional UPDATE of the
 * row's next_run_time is the claim: only the instance whose UPDATE changed the row runs the tick.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | null = null
  private ticking: Promise<void> | null = null
  private readonly sweeps = new Map<string, SweepState>()
  private sweepsStarted = false
  private stopping = new AbortController()

  constructor(
    private readonly services: () => Services,
    private readonly enqueue: (kind: string, params: unknown) => Promise<{ jobId: number }>,
    private readonly log: () => FastifyBaseLogger,
  ) {}

  /** Adds a sweep; it starts with the scheduler (at once when that has started). */
  every(def: SweepDef): void {
    if (!/^[a-z][\w.-]{0,63}$/i.test(def.key)) throw new Error(`sweep "${def.key}" must be 1 to 64 letters, digits, . _ or -`)
    if (this.sweeps.has(def.key) || schedules.has(def.key)) throw new Error(`scheduled work "${def.key}" is defined twice`)
    const state: SweepState = { def, timer: null, running: null, lastRunTime: null, lastDurationMs: null, lastError: null, nextRunTime: null, rowMade: false }
    this.sweeps.set(def.key, state)
    if (this.sweepsStarted) this.plan(state, def.atStart ? 0 : this.intervalOf(def))
  }

  /** Starts the sweeps, and the schedules when `schedulesEveryMs` is given (a working worker with schedules on). */
  start(schedulesEveryMs?: number): void {
    if (!this.sweepsStarted) {
      this.sweepsStarted = true
      this.stopping = new AbortController()
      for (const state of this.sweeps.values()) this.plan(state, state.def.atStart ? 0 : this.intervalOf(state.def))
    }
    if (schedulesEveryMs === undefined || this.timer) return
    void this.tick()
    this.timer = setInterval(() => void this.tick(), schedulesEveryMs)
    // The HTTP server keeps a process alive, not this.
    this.timer.unref()
  }

  /** Stops ticking; waits for the runs under way (a sweep's signal tells it to stop early). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    this.sweepsStarted = false
    this.stopping.abort()
    for (const state of this.sweeps.values()) {
      if (state.timer) clearTimeout(state.timer)
      state.timer = null
    }
    await Promise.all([this.ticking, ...[...this.sweeps.values()].map((s) => s.running)])
  }

  /** Runs a sweep now on this instance, claim or not (tests, and a wake-up after an event); answers when done. */
  async runNow(key: string): Promise<void> {
    const state = this.sweeps.get(key)
    if (!state) throw new Error(`no sweep "${key}"`)
    await state.running
    await this.runSweep(state, false)
  }

  private intervalOf(def: SweepDef): number {
    return typeof def.every === 'function' ? def.every() : everyMs(def.every)
  }

  private plan(state: SweepState, inMs: number): void {
    if (!this.sweepsStarted) return
    state.nextRunTime = new Date(Date.now() + inMs).toISOString()
    state.timer = setTimeout(() => {
      state.timer = null
      void this.runSweep(state, state.def.runs !== 'everywhere').finally(() => {
        if (!state.timer) this.plan(state, this.intervalOf(state.def))
      })
    }, inMs)
    state.timer.unref()
  }

  /** One run of a sweep: claimed first when it runs once per tick across instances; never two at once here. */
  private runSweep(state: SweepState, claim: boolean): Promise<void> {
    if (state.running) return state.running
    const { def } = state
    state.running = (async () => {
      const started = new Date()
      try {
        if (claim && !(await this.claimSweep(state, started))) return
      } catch (err) {
        this.log().warn({ err, sweep: def.key }, 'could not claim a sweep')
        return
      }
      let error: string | null = null
      try {
        await def.run(this.stopping.signal)
      } catch (err) {
        error = (err instanceof Error ? err.message : String(err)).slice(0, ERROR_CHARS) || 'error'
        if (!this.stopping.signal.aborted) this.log().error({ err, sweep: def.key }, 'a sweep failed')
      }
      const durationMs = Date.now() - started.getTime()
      Object.assign(state, { lastRunTime: started.toISOString(), lastDurationMs: durationMs, lastError: error })
      if (def.runs === 'everywhere') return
      await this.services()
        .db.updateTable('sysJobSchedule')
        .set({ lastDurationMs: durationMs, lastError: error })
        .where('scheduleKey', '=', def.key)
        .execute()
        .catch((err: unknown) => this.log().warn({ err, sweep: def.key }, 'could not record a sweep run'))
    })().finally(() => (state.running = null))
    return state.running
  }

  /**
   * Moves the sweep's next_run_time on when it has come: the instance whose UPDATE changed the row runs
   * this tick. The next time is a little short of a whole interval, so the claimer's own next tick,
   * an interval after this run ended, always finds it due.
   */
  private async claimSweep(state: SweepState, now: Date): Promise<boolean> {
    const { def } = state
    const { db } = this.services()
    const at = now.toISOString()
    const interval = this.intervalOf(def)
    const next = new Date(now.getTime() + interval - Math.min(interval / 10, 1000)).toISOString()
    const claimed = await db
      .updateTable('sysJobSchedule')
      .set({ nextRunTime: next, updateTime: at })
      .where('scheduleKey', '=', def.key)
      .where('nextRunTime', '<=', at)
      .executeTakeFirst()
    if (Number(claimed.numUpdatedRows) === 1) return (state.rowMade = true)
    if (state.rowMade) return false
    // Nothing claimed, and no row seen yet: the sweep's first tick on this database makes it (or
    // finds another instance's), and whoever made it runs.
    const made = await db
      .insertInto('sysJobSchedule')
      .values({ scheduleKey: def.key, nextRunTime: next, lastJobId: null, updateTime: at, lastDurationMs: null, lastError: null })
      .onConflict((oc) => oc.column('scheduleKey').doNothing())
      .executeTakeFirst()
    state.rowMade = true
    return Number(made.numInsertedOrUpdatedRows ?? 0) === 1
  }

  /** Every scheduled work of this instance, schedules first, with its last and next run. */
  async list(): Promise<ScheduledWork[]> {
    const services = this.services()
    const rows = new Map((await services.db.selectFrom('sysJobSchedule').selectAll().execute()).map((r) => [r.scheduleKey, r]))
    const work: ScheduledWork[] = []
    for (const def of scheduleDefs()) {
      const hours = await intervalHoursOf(services, def)
      const row = rows.get(def.key)
      work.push({
        key: def.key,
        runs: 'job',
        everyMs: null,
        intervalHours: hours,
        lastRunTime: row && row.lastJobId !== null ? row.updateTime : null,
        nextRunTime: nextScheduledRun(def, row, hours),
        lastDurationMs: null,
        lastError: null,
        lastJobId: row?.lastJobId ?? null,
      })
    }
    for (const { def, ...mine } of this.sweeps.values()) {
      const row = def.runs === 'everywhere' ? undefined : rows.get(def.key)
      work.push({
        key: def.key,
        runs: def.runs ?? 'once',
        everyMs: this.intervalOf(def),
        intervalHours: null,
        ...(def.title ? { title: def.title } : {}),
        lastRunTime: row ? row.updateTime : mine.lastRunTime,
        nextRunTime: row ? row.nextRunTime : mine.nextRunTime,
        lastDurationMs: row ? row.lastDurationMs : mine.lastDurationMs,
        lastError: row ? row.lastError : mine.lastError,
        lastJobId: null,
      })
    }
    return work
  }

  /** Looks at every schedule once (calls made while one runs share it). */
  tick(now = new Date()): Promise<void> {
    this.ticking ??= (async () => {
      for (const def of scheduleDefs()) {
        try {
          await this.consider(def, now)
        } catch (err) {
          this.log().warn({ err, schedule: def.key }, 'could not run a schedule')
        }
      }
    })().finally(() => (this.ticking = null))
    return this.ticking
  }

  private async consider(def: ScheduleDef, now: Date): Promise<void> {
    const services = this.services()
    const { db } = services
    const hours = await intervalHoursOf(services, def)
    if (hours <= 0) return
    const at = now.toISOString()
    let row = await db.selectFrom('sysJobSchedule').selectAll().where('scheduleKey', '=', def.key).executeTakeFirst()
    if (!row) {
      const next = def.firstRun === 'now' ? at : new Date(now.getTime() + hours * HOUR_MS).toISOString()
      // Another instance may insert it at the same moment: whichever row stands is the schedule.
      await db
        .insertInto('sysJobSchedule')
        .values({ scheduleKey: def.key, nextRunTime: next, lastJobId: null, updateTime: at, lastDurationMs: null, lastError: null })
        .onConflict((oc) => oc.column('scheduleKey').doNothing())
        .execute()
      row = await db.selectFrom('sysJobSchedule').selectAll().where('scheduleKey', '=', def.key).executeTakeFirstOrThrow()
    }
    const planned = plannedRun(row, hours)
    if (planned > at) {
      // Not due; a changed interval is written down, so the console shows the run it will be.
      if (planned !== row.nextRunTime) {
        await db.updateTable('sysJobSchedule').set({ nextRunTime: planned }).where('scheduleKey', '=', def.key).where('nextRunTime', '=', row.nextRunTime).execute()
      }
      return
    }
    const claimed = await db
      .updateTable('sysJobSchedule')
      .set({ nextRunTime: new Date(now.getTime() + hours * HOUR_MS).toISOString(), updateTime: at })
      .where('scheduleKey', '=', def.key)
      .where('nextRunTime', '=', row.nextRunTime)
      .executeTakeFirst()
    // Another instance moved it on first: the run is theirs.
    if (Number(claimed.numUpdatedRows) !== 1) return
    const job = await this.enqueue(def.kind, {})
    await db.updateTable('sysJobSchedule').set({ lastJobId: job.jobId }).where('scheduleKey', '=', def.key).execute()
    this.log().info({ schedule: def.key, jobId: job.jobId }, 'scheduled job queued')
  }
}
