import type { Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** mem_member. */
export function memberRequests(dialect: Dialect) {
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // mem_member (definition member).
      await db.schema.alterTable('mem_member').addColumn('legal_hold', 'varchar(200)', (c) => c.notNull().defaultTo('')).execute()
      await db.schema.alterTable('mem_member').addColumn('erased_time', datetime).execute()
      await db.schema.alterTable('mem_member').addColumn('erasure_notice_time', datetime).execute()
    },
  }
}
