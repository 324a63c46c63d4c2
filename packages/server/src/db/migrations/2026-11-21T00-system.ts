import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.

/** The system area's own tables: internationalisation data and countries (definitions in shared/entities/system.ts). */
export function system(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await audited(
        id(db.schema.createTable('sys_i18n'), dialect, 'i18n_id')
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('type', 'varchar(32)', (c) => c.notNull())
          .addColumn('source_key', 'varchar(200)', (c) => c.notNull())
          .addColumn('language', 'varchar(16)', (c) => c.notNull().defaultTo('en_US'))
          .addColumn('value_en_us', 'varchar(2000)', (c) => c.notNull())
          .addColumn('value_zh_cn', 'varchar(2000)', (c) => c.notNull())
          .addColumn('value_de_de', 'varchar(2000)', (c) => c.notNull().defaultTo(''))
          .addColumn('value_nl_nl', 'varchar(2000)', (c) => c.notNull().defaultTo(''))
          .addColumn('value_fr_fr', 'varchar(2000)', (c) => c.notNull().defaultTo('')),
        dialect,
      ).execute()
      await db.schema.createIndex('sys_i18n_source_key').on('sys_i18n').column('source_key').unique().execute()
      await db.schema.createIndex('sys_i18n_type').on('sys_i18n').column('type').execute()

      await audited(
        id(db.schema.createTable('sys_country'), dialect, 'country_id')
          .addColumn('code', 'varchar(2)', (c) => c.notNull())
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('name_en', 'varchar(100)', (c) => c.notNull())
          .addColumn('time_zone', 'varchar(64)', (c) => c.notNull())
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()
      await db.schema.createIndex('sys_country_code').on('sys_country').column('code').unique().execute()
    },
  }
}
