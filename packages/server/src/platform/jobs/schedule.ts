import type { FastifyBaseLogger } from 'fastify'
import type { Selectable } from 'kysely'
import type { JobScheduleTable } from '../../db/schema'
import type { Services } from '../services'

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

/**
 * Queues each schedule's job when it is due, from every instance whose worker runs; one conditional
 * UPDATE moves the row's next_run_time on, and only the instance whose UPDATE changed the row queues
 * the job, so several instances on one database queue it once.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | null = null
  private ticking: Promise<void> | null = null

  constructor(
    private readonly services: () => Services,
    private readonly enqueue: (kind: string, params: unknown) => Promise<{ jobId: number }>,
    private readonly log: () => FastifyBaseLogger,
  ) {}

  start(everyMs: number): void {
    if (this.timer) return
    void this.tick()
    this.timer = setInterval(() => void this.tick(), everyMs)
    // The HTTP server keeps a process alive, not this.
    this.timer.unref()
  }

  /** Stops ticking; waits for a tick under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.ticking
  }

  /** Looks at every schedule once (calls made while one runs share it); answers the jobs queued. */
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
        .values({ scheduleKey: def.key, nextRunTime: next, lastJobId: null, updateTime: at })
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
