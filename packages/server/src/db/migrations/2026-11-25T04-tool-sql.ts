import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Hand-written (no entity definition owns these tables): Tool system › SQL execution (docs/tools.md).

/**
 * tool_sql_history: each user's statements, newest first, with how they ended (the page's history;
 * the operation log keeps them too). tool_sql_credential: on PostgreSQL, the passwords of the login
 * roles SQL execution connects as (read-only and write), which the server creates and keeps; a
 * secret table, never readable through SQL execution itself.
 */
export function toolSql(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await id(db.schema.createTable('tool_sql_history'), dialect, 'history_id')
        .addColumn('user_id', bigint, (c) => c.notNull())
        .addColumn('sql_text', 'text', (c) => c.notNull())
        .addColumn('mode', 'varchar(5)', (c) => c.notNull())
        .addColumn('outcome', 'varchar(8)', (c) => c.notNull())
        .addColumn('row_count', 'integer')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('create_time', datetime, (c) => c.notNull())
        .execute()
      await db.schema.createIndex('tool_sql_history_user_id_history_id').on('tool_sql_history').columns(['user_id', 'history_id']).execute()
      await db.schema
        .createTable('tool_sql_credential')
        .addColumn('role_name', 'varchar(63)', (c) => c.primaryKey())
        .addColumn('password', 'varchar(64)', (c) => c.notNull())
        .addColumn('create_time', datetime, (c) => c.notNull())
        .execute()
    },
  }
}
