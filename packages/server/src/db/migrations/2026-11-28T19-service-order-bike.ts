import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/**
 * The id of the bike a stored order names, as its typed frame number converts: the bike registered with that
 * frame number now, else the bike a frame number was bound to before it was replaced; null when no
 * registered bike has it (a typed frame number of a bike we do not know).
 */
const bikeOf = (column: ReturnType<typeof sql.ref>) =>
  sql`coalesce((select b.bike_id from bike_bike b where b.frame_number = upper(trim(${column}))), (select f.bike_id from ord_frame_number f where f.frame_number = upper(trim(${column})) and f.bike_id is not null))`

/** service_repair_order: its bike is a reference to a registered bike, no longer a typed frame number. */
export function serviceOrderBike(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // service_repair_order (definition repairOrder). bike_id: a frame number becomes the id of the
      // bike with it (bikeOf), or null.
      if (dialect === 'sqlite') {
        // SQLite changes no column in place: the table is made anew in its new shape and its rows copied over.
        await db.schema.dropTable('service_repair_order__new').ifExists().execute()
        await audited(
          id(db.schema.createTable('service_repair_order__new'), dialect, 'repair_order_id')
            .addColumn('order_no', 'varchar(32)', (c) => c.notNull().unique())
            .addColumn('status', 'varchar(19)', (c) => c.notNull().defaultTo('draft'))
            .addColumn('service_type', 'varchar(6)', (c) => c.notNull())
            .addColumn('contact_email', 'varchar(128)', (c) => c.notNull())
            .addColumn('bike_id', bigint)
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
        // The columns both shapes have.
        const copied = ['repair_order_id', 'order_no', 'status', 'service_type', 'contact_email', 'bike_id', 'first_name', 'last_name', 'country_id', 'return_address', 'issue_description', 'photo', 'video', 'shipping_label', 'sku', 'product_name', 'remark', 'due_time', 'evaluation_stars', 'evaluation_text', 'create_time', 'create_by', 'update_by', 'update_time']
        const values = copied.map((c) => (c === 'bike_id' ? bikeOf(sql.ref('service_repair_order.bike_id')) : sql.ref(c)))
        await sql`insert into ${sql.table('service_repair_order__new')} (${sql.join(copied.map((c) => sql.ref(c)))}) select ${sql.join(values)} from ${sql.table('service_repair_order')}`.execute(db)
        await db.schema.dropTable('service_repair_order').execute()
        await db.schema.alterTable('service_repair_order__new').renameTo('service_repair_order').execute()
        await db.schema.createIndex('service_repair_order_status_create_time').on('service_repair_order').columns(['status', 'create_time']).execute()
      } else {
        // USING takes no subquery: the frame numbers become the ids as text first, then the type changes.
        await db.schema.alterTable('service_repair_order').alterColumn('bike_id', (col) => col.dropNotNull()).execute()
        await sql`update ${sql.table('service_repair_order')} set ${sql.ref('bike_id')} = cast(${bikeOf(sql.ref('service_repair_order.bike_id'))} as varchar(32))`.execute(db)
        await sql`alter table ${sql.table('service_repair_order')} alter column ${sql.ref('bike_id')} type bigint using ${sql.ref('bike_id')}::bigint`.execute(db)
      }
    },
  }
}
