import type { Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Hand-written (no entity definition owns this table): the scheduler's rows (platform/jobs/schedule.ts).

/**
 * sys_job_schedule also holds the sweeps (the scheduler's short, frequent work: devices gone silent,
 * commands past their deadline, OTA offers): how long the last run took and how it ended, for the
 * jobs page. A schedule's runs are jobs, with their own outcome: these stay null for them.
 */
export function sweepRuns(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('sys_job_schedule').addColumn('last_duration_ms', 'integer').execute()
      await db.schema.alterTable('sys_job_schedule').addColumn('last_error', 'varchar(500)').execute()
    },
  }
}
