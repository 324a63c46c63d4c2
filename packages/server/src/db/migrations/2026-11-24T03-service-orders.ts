import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** service_repair_order. */
export function serviceOrders(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // service_repair_order: new (definition repairOrder).
      await audited(
        id(db.schema.createTable('service_repair_order'), dialect, 'repair_order_id')
          .addColumn('order_no', 'varchar(32)', (c) => c.notNull().unique())
          .addColumn('status', 'varchar(19)', (c) => c.notNull().defaultTo('draft'))
          .addColumn('service_type', 'varchar(6)', (c) => c.notNull())
          .addColumn('contact_email', 'varchar(128)', (c) => c.notNull())
          .addColumn('bike_id', 'varchar(32)', (c) => c.notNull())
          .addColumn('first_name', 'varchar(64)', (c) => c.notNull())
          .addColumn('last_name', 'varchar(64)', (c) => c.notNull())
          .addColumn('country_id', bigint)
          .addColumn('return_address', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('issue_description', 'varchar(2000)', (c) => c.notNull())
          .addColumn('photo', 'varchar(255)')
          .addColumn('video', 'varchar(255)')
          .addColumn('shipping_label', 'varchar(255)')
          .addColumn('sku', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('product_name', 'varchar(128)', (c) => c.notNull().defaultTo(''))
          .addColumn('due_time', datetime)
          .addColumn('evaluation_stars', 'integer')
          .addColumn('evaluation_text', 'varchar(1000)', (c) => c.notNull().defaultTo('')),
        dialect,
      ).execute()
      await db.schema.createIndex('service_repair_order_status_create_time').on('service_repair_order').columns(['status', 'create_time']).execute()
    },
  }
}
