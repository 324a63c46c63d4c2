import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** bike_bike, ord_device_order, ord_frame_number, and ord_frame_series (by hand). */
export function bikeOrders(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  const real = dialect === 'postgres' ? 'double precision' : 'real'
  const date = dialect === 'postgres' ? 'date' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // bike_bike (definition bike).
      if (dialect === 'sqlite') {
        // SQLite changes no column in place: the table is made anew in its new shape and its rows copied over.
        await db.schema.dropTable('bike_bike__new').ifExists().execute()
        await audited(
          id(db.schema.createTable('bike_bike__new'), dialect, 'bike_id')
            .addColumn('frame_number', 'varchar(32)', (c) => c.notNull().unique())
            .addColumn('category', 'varchar(16)', (c) => c.notNull())
            .addColumn('model_id', bigint, (c) => c.notNull())
            .addColumn('colour_id', bigint, (c) => c.notNull())
            .addColumn('size_id', bigint, (c) => c.notNull())
            .addColumn('bind_status', 'varchar(7)', (c) => c.notNull().defaultTo('unbound'))
            .addColumn('member_id', bigint)
            .addColumn('bound_time', datetime)
            .addColumn('access', 'varchar(7)', (c) => c.notNull().defaultTo('private'))
            .addColumn('bluetooth_serial', 'varchar(64)', (c) => c.notNull().defaultTo(''))
            .addColumn('protocol_version', 'varchar(11)')
            .addColumn('mac', 'varchar(17)', (c) => c.notNull().defaultTo(''))
            .addColumn('default_bike', 'boolean', (c) => c.notNull().defaultTo(false))
            .addColumn('order_id', bigint)
            .addColumn('frame_type', 'varchar(11)', (c) => c.notNull().defaultTo('regular'))
            .addColumn('replacement_reason', 'varchar(500)', (c) => c.notNull().defaultTo(''))
            .addColumn('iot_device_id', bigint)
            .addColumn('battery_health', real)
            .addColumn('cycle_times', 'integer')
            .addColumn('ride_count', 'integer', (c) => c.notNull().defaultTo(0)),
          dialect,
        ).execute()
        // The columns both shapes have.
        const copied = ['bike_id', 'frame_number', 'category', 'model_id', 'colour_id', 'size_id', 'bind_status', 'member_id', 'bound_time', 'access', 'bluetooth_serial', 'protocol_version', 'mac', 'default_bike', 'order_id', 'frame_type', 'replacement_reason', 'iot_device_id', 'battery_health', 'cycle_times', 'ride_count', 'remark', 'create_time', 'create_by', 'update_by', 'update_time']
        const values = copied.map((c) => sql.ref(c))
        await sql`insert into ${sql.table('bike_bike__new')} (${sql.join(copied.map((c) => sql.ref(c)))}) select ${sql.join(values)} from ${sql.table('bike_bike')}`.execute(db)
        await db.schema.dropTable('bike_bike').execute()
        await db.schema.alterTable('bike_bike__new').renameTo('bike_bike').execute()
        await db.schema.createIndex('bike_bike_create_time').on('bike_bike').column('create_time').execute()
        await db.schema.createIndex('bike_bike_model_id').on('bike_bike').column('model_id').execute()
        await db.schema.createIndex('bike_bike_member_id').on('bike_bike').column('member_id').execute()
        await db.schema.createIndex('bike_bike_iot_device_id').on('bike_bike').column('iot_device_id').unique().execute()
        await db.schema.createIndex('bike_bike_bind_status_create_time').on('bike_bike').columns(['bind_status', 'create_time']).execute()
      } else {
        await sql`alter table ${sql.table('bike_bike')} alter column ${sql.ref('order_id')} type bigint using ${sql.ref('order_id')}::bigint`.execute(db)
      }

      // ord_device_order: new (definition deviceOrder).
      await audited(
        id(db.schema.createTable('ord_device_order'), dialect, 'order_id')
          .addColumn('order_no', 'varchar(32)', (c) => c.notNull().unique())
          .addColumn('order_type', 'varchar(7)', (c) => c.notNull().defaultTo('regular'))
          .addColumn('model_id', bigint, (c) => c.notNull())
          .addColumn('quantity', 'integer', (c) => c.notNull())
          .addColumn('numbers_generated', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('overrun', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('sales_region', 'varchar(64)', (c) => c.notNull())
          .addColumn('delivery_date', date, (c) => c.notNull())
          .addColumn('purchasing_entity', 'varchar(100)', (c) => c.notNull())
          .addColumn('tp_number', 'varchar(64)', (c) => c.notNull())
          .addColumn('frame_supplier', 'varchar(100)', (c) => c.notNull())
          .addColumn('brand_code', 'varchar(3)', (c) => c.notNull())
          .addColumn('manufacturer_code', 'varchar(2)', (c) => c.notNull())
          .addColumn('model_year', 'integer', (c) => c.notNull())
          .addColumn('spec_code', 'varchar(6)', (c) => c.notNull())
          .addColumn('repair_code', 'varchar(2)', (c) => c.notNull().defaultTo(''))
          .addColumn('serial_start', 'integer')
          .addColumn('serial_end', 'integer')
          .addColumn('serial_digits', 'integer', (c) => c.notNull().defaultTo(6))
          .addColumn('check_character', 'boolean', (c) => c.notNull().defaultTo(true))
          .addColumn('count_generated', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('count_printed', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('count_bound', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('count_voided', 'integer', (c) => c.notNull().defaultTo(0)),
        dialect,
      ).execute()
      await db.schema.createIndex('ord_device_order_create_time').on('ord_device_order').column('create_time').execute()
      await db.schema.createIndex('ord_device_order_delivery_date').on('ord_device_order').column('delivery_date').execute()

      // ord_frame_number: new (definition frameNumber).
      await audited(
        id(db.schema.createTable('ord_frame_number'), dialect, 'number_id')
          .addColumn('order_id', bigint, (c) => c.notNull())
          .addColumn('frame_number', 'varchar(32)', (c) => c.notNull().unique())
          .addColumn('serial', 'integer', (c) => c.notNull())
          .addColumn('number_type', 'varchar(11)', (c) => c.notNull().defaultTo('regular'))
          .addColumn('status', 'varchar(9)', (c) => c.notNull().defaultTo('generated'))
          .addColumn('bike_id', bigint)
          .addColumn('replaces_id', bigint)
          .addColumn('reason', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('printed_time', datetime),
        dialect,
      ).execute()
      await db.schema.createIndex('ord_frame_number_order_id_serial').on('ord_frame_number').columns(['order_id', 'serial']).execute()
      await db.schema.createIndex('ord_frame_number_order_id_status').on('ord_frame_number').columns(['order_id', 'status']).execute()
      await db.schema.createIndex('ord_frame_number_bike_id').on('ord_frame_number').column('bike_id').execute()

      // By hand: the serial counter of each frame-number prefix (modules/order/series.ts). One row per
      // prefix, raised in the same transaction that inserts the numbers, so two generations at once
      // never take the same serial and a serial once taken is never taken again.
      await db.schema
        .createTable('ord_frame_series')
        .addColumn('prefix', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('last_serial', 'integer', (c) => c.notNull())
        .execute()
    },
  }
}
