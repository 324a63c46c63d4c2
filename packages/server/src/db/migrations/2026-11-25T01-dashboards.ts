import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** bike_bike, dash_tracking_event, dash_tracking_node, mem_feedback, sys_dept_country. */
export function dashboards(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const real = dialect === 'postgres' ? 'double precision' : 'real'
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // bike_bike (definition bike).
      await db.schema.createIndex('bike_bike_bind_status_bound_time').on('bike_bike').columns(['bind_status', 'bound_time']).execute()

      // dash_tracking_event: new (definition trackingEvent).
      await id(db.schema.createTable('dash_tracking_event'), dialect, 'event_id')
        .addColumn('member_id', bigint, (c) => c.notNull())
        .addColumn('code', 'varchar(64)', (c) => c.notNull())
        .addColumn('session_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('platform', 'varchar(7)', (c) => c.notNull())
        .addColumn('app_version', 'varchar(11)', (c) => c.notNull())
        .addColumn('value', real)
        .addColumn('event_time', datetime, (c) => c.notNull())
        .addColumn('receive_time', datetime, (c) => c.notNull())
        .execute()
      await db.schema.createIndex('dash_tracking_event_event_time').on('dash_tracking_event').column('event_time').execute()
      await db.schema.createIndex('dash_tracking_event_code_event_time').on('dash_tracking_event').columns(['code', 'event_time']).execute()
      await db.schema.createIndex('dash_tracking_event_member_id_event_time').on('dash_tracking_event').columns(['member_id', 'event_time']).execute()

      // dash_tracking_node: new (definition trackingNode).
      await audited(
        id(db.schema.createTable('dash_tracking_node'), dialect, 'node_id')
          .addColumn('parent_id', bigint, (c) => c.notNull().defaultTo(0))
          .addColumn('name', 'varchar(64)', (c) => c.notNull())
          .addColumn('code', 'varchar(64)', (c) => c.notNull().unique())
          .addColumn('label', 'varchar(100)', (c) => c.notNull().defaultTo(''))
          .addColumn('path', 'varchar(200)', (c) => c.notNull().defaultTo(''))
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      // mem_feedback (definition feedback).
      await db.schema.alterTable('mem_feedback').addColumn('replied', 'boolean', (c) => c.notNull().defaultTo(false)).execute()
      // Feedback replied before the column existed: the reply action sets it from now on.
      await sql`update mem_feedback set replied = true where reply <> ''`.execute(db)
      await db.schema.createIndex('mem_feedback_replied_create_time').on('mem_feedback').columns(['replied', 'create_time']).execute()

      // sys_dept_country: new (definition dept.countryIds).
      await db.schema
        .createTable('sys_dept_country')
        .addColumn('dept_id', bigint, (c) => c.notNull())
        .addColumn('country_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('sys_dept_country_pk', ['dept_id', 'country_id'])
        .execute()
    },
  }
}
