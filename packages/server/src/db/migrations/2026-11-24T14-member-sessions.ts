import type { Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.

/**
 * Sessions of members signed in to the riders' app API (modules/app). A table of their own, apart
 * from staff sessions (sys_session): a member's token can never open the console, nor a staff token
 * the app's member routes, whichever store staff sessions use. Only the token's SHA-256 is kept.
 */
export function memberSessions(dialect: Dialect) {
  const time = dialect === 'postgres' ? 'timestamptz' : 'text'
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('mem_session')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('member_id', bigint, (c) => c.notNull())
        .addColumn('created', time, (c) => c.notNull())
        .addColumn('last_seen', time, (c) => c.notNull())
        .addColumn('expires_at', time, (c) => c.notNull())
        // When the member signed out; null while the session stands.
        .addColumn('ended', time)
        .execute()
      await db.schema.createIndex('mem_session_member_id').on('mem_session').column('member_id').execute()
      // Sign-ins delete sessions long past their expiry: found by this, not by reading the table.
      await db.schema.createIndex('mem_session_expires_at').on('mem_session').column('expires_at').execute()
    },
  }
}
