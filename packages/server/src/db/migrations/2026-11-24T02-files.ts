import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.

/**
 * Files uploaded through a definition's `file` fields (platform/files): what each stored name is,
 * who sent it for which entity and field, and its digests, computed while it streamed to disk so
 * firmware can be checked against them later without reading it again.
 */
export function files(dialect: Dialect) {
  const time = dialect === 'postgres' ? 'timestamptz' : 'text'
  // Files of several GB outgrow a 32-bit integer.
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await id(db.schema.createTable('sys_file'), dialect, 'file_id')
        .addColumn('file_name', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('original_name', 'varchar(255)', (c) => c.notNull())
        .addColumn('size', bigint, (c) => c.notNull())
        .addColumn('content_type', 'varchar(128)', (c) => c.notNull())
        .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
        .addColumn('md5', 'varchar(32)', (c) => c.notNull())
        // Two hex digits, and the catalogue name of the CRC-8 that made them: there are a dozen.
        .addColumn('crc8', 'varchar(2)', (c) => c.notNull())
        .addColumn('crc8_variant', 'varchar(32)', (c) => c.notNull())
        .addColumn('entity', 'varchar(64)', (c) => c.notNull())
        .addColumn('field', 'varchar(64)', (c) => c.notNull())
        .addColumn('create_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_time', time, (c) => c.notNull())
        .execute()
      await db.schema.createIndex('sys_file_entity_field').on('sys_file').columns(['entity', 'field']).execute()
    },
  }
}
