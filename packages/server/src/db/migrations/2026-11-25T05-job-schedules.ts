import type { Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Hand-written (no entity definition owns this table): the maintenance schedules (platform/jobs/schedule.ts).

/**
 * sys_job_schedule: when each schedule (a scheduled backup, the retention job) runs next and the job
 * it queued last. The instance that moves next_run_time on, with one conditional UPDATE, is the one
 * that queues the job: several instances on one database queue it once.
 */
export function jobSchedules(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('sys_job_schedule')
        .addColumn('schedule_key', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('next_run_time', datetime, (c) => c.notNull())
        .addColumn('last_job_id', bigint)
        .addColumn('update_time', datetime, (c) => c.notNull())
        .execute()
    },
  }
}
