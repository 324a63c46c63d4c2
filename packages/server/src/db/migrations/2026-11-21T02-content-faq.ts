import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.

/** Help centre FAQ (definition in shared/entities/content.ts). */
export function contentFaq(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await audited(
        id(db.schema.createTable('content_faq'), dialect, 'faq_id')
          .addColumn('type', 'varchar(16)', (c) => c.notNull())
          .addColumn('title', 'varchar(200)', (c) => c.notNull())
          .addColumn('introduction', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('content', 'text', (c) => c.notNull())
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()
    },
  }
}
