import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../database'
import { id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** iot_config_push, iot_device, iot_theft. */
export function stolenMode(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // iot_config_push (definition iotConfigPush).
      if (dialect === 'sqlite') {
        // SQLite changes no column in place: the table is made anew in its new shape and its rows copied over.
        await db.schema.dropTable('iot_config_push__new').ifExists().execute()
        await id(db.schema.createTable('iot_config_push__new'), dialect, 'push_id')
          .addColumn('config_id', bigint)
          .addColumn('device_id', bigint, (c) => c.notNull())
          .addColumn('version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('status', 'varchar(12)', (c) => c.notNull().defaultTo('queued'))
          .addColumn('command_id', 'integer')
          .addColumn('applied', 'text')
          .addColumn('code', 'integer')
          .addColumn('message', 'varchar(500)')
          .addColumn('create_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('create_time', datetime, (c) => c.notNull())
          .addColumn('update_time', datetime)
          .execute()
        // The columns both shapes have.
        const copied = ['push_id', 'config_id', 'device_id', 'version', 'status', 'command_id', 'applied', 'code', 'message', 'create_by', 'create_time', 'update_time']
        const values = copied.map((c) => sql.ref(c))
        await sql`insert into ${sql.table('iot_config_push__new')} (${sql.join(copied.map((c) => sql.ref(c)))}) select ${sql.join(values)} from ${sql.table('iot_config_push')}`.execute(db)
        await db.schema.dropTable('iot_config_push').execute()
        await db.schema.alterTable('iot_config_push__new').renameTo('iot_config_push').execute()
        await db.schema.createIndex('iot_config_push_command').on('iot_config_push').column('command_id').execute()
        await db.schema.createIndex('iot_config_push_device').on('iot_config_push').columns(['device_id', 'push_id']).execute()
        await db.schema.createIndex('iot_config_push_config').on('iot_config_push').columns(['config_id', 'status']).execute()
      } else {
        await db.schema.alterTable('iot_config_push').alterColumn('config_id', (col) => col.dropNotNull()).execute()
      }

      // iot_device (definition iotDevice).
      await db.schema.alterTable('iot_device').addColumn('theft', 'varchar(8)', (c) => c.notNull().defaultTo('normal')).execute()

      // iot_theft: new (definition iotTheft).
      await id(db.schema.createTable('iot_theft'), dialect, 'theft_id')
        .addColumn('device_id', bigint, (c) => c.notNull())
        .addColumn('status', 'varchar(10)', (c) => c.notNull().defaultTo('stolen'))
        .addColumn('reason', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .addColumn('reported_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('reported_at', datetime, (c) => c.notNull())
        .addColumn('previous_config_id', bigint)
        .addColumn('previous_version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .addColumn('previous_values', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('recovery_reason', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .addColumn('recovered_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('recovered_at', datetime)
        .execute()
      await db.schema.createIndex('iot_theft_device').on('iot_theft').columns(['device_id', 'status']).execute()
    },
  }
}
