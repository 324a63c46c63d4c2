import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.

/** The history of every transition of every entity with a status machine (who, when, from, to, input). */
export function transitions(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const ref = dialect === 'postgres' ? 'bigint' : 'integer'
      const dt = dialect === 'postgres' ? 'timestamptz' : 'text'
      await id(db.schema.createTable('sys_transition_log'), dialect, 'log_id')
        .addColumn('entity', 'varchar(64)', (c) => c.notNull())
        .addColumn('row_id', ref, (c) => c.notNull())
        .addColumn('step', 'varchar(64)', (c) => c.notNull())
        .addColumn('from_state', 'varchar(32)', (c) => c.notNull())
        .addColumn('to_state', 'varchar(32)', (c) => c.notNull())
        // The step's input as JSON, as the caller entered it (a remark, a reason, a tracking number).
        .addColumn('input', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('user_id', ref, (c) => c.notNull())
        .addColumn('user_name', 'varchar(64)', (c) => c.notNull())
        .addColumn('oper_time', dt, (c) => c.notNull())
        .execute()
      await db.schema.createIndex('sys_transition_log_row').on('sys_transition_log').columns(['entity', 'row_id', 'log_id']).execute()
    },
  }
}
