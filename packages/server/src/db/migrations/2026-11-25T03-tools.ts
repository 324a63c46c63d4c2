import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** tool_gen_table. */
export function tools(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // tool_gen_table: new (definition genTable).
      await audited(
        id(db.schema.createTable('tool_gen_table'), dialect, 'table_id')
          .addColumn('table_name', 'varchar(128)', (c) => c.notNull().unique())
          .addColumn('table_comment', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('entity_key', 'varchar(63)', (c) => c.notNull())
          .addColumn('area', 'varchar(32)', (c) => c.notNull())
          .addColumn('template', 'varchar(8)', (c) => c.notNull().defaultTo('plain'))
          .addColumn('config', 'text', (c) => c.notNull()),
        dialect,
      ).execute()
    },
  }
}
