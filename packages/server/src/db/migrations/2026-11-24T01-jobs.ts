import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.

/**
 * Background jobs (src/platform/jobs): long work (large exports, pushes to thousands of devices) runs
 * outside the HTTP request, claimed by one instance's worker, with its progress, outcome and result file.
 */
export function jobs(dialect: Dialect) {
  const time = dialect === 'postgres' ? 'timestamptz' : 'text'
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await id(db.schema.createTable('sys_job'), dialect, 'job_id')
        .addColumn('kind', 'varchar(64)', (c) => c.notNull())
        // queued, running, succeeded, failed, cancelled
        .addColumn('state', 'varchar(16)', (c) => c.notNull())
        .addColumn('progress_done', bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('progress_total', bigint)
        // JSON text: what the job was asked to do, and what it answered.
        .addColumn('params', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('result', 'text')
        // JSON text {key, params} (a server message, localized when shown) or {text}.
        .addColumn('error', 'text')
        // Stored name under STORAGE_DIR and the name the browser saves it under.
        .addColumn('result_file', 'varchar(255)')
        .addColumn('result_file_name', 'varchar(255)')
        .addColumn('create_by_id', bigint, (c) => c.notNull())
        .addColumn('create_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('dept_id', bigint)
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('start_time', time)
        .addColumn('finish_time', time)
        // The holder writes it every few seconds: an old one means its instance died.
        .addColumn('heartbeat_time', time)
        // Set by a cancel while the job runs, on whichever instance: its holder stops it.
        .addColumn('cancel_requested_at', time)
        .addColumn('instance_id', 'varchar(100)')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
      // Workers claim the oldest queued job; the sweeper looks for running ones with old heartbeats.
      await db.schema.createIndex('sys_job_state').on('sys_job').columns(['state', 'job_id']).execute()
      // The jobs indicator lists a user's newest jobs.
      await db.schema.createIndex('sys_job_owner').on('sys_job').columns(['create_by_id', 'job_id']).execute()
      // Finished jobs and their files are removed after the retention time.
      await db.schema.createIndex('sys_job_finished').on('sys_job').columns(['finish_time']).execute()
    },
  }
}
