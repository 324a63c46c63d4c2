import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/**
 * iot_model.registration_serials: the serials a model lets register themselves with its key. A model
 * made from now on lets none until staff name them; the models already there keep what they allowed
 * (every SN of their prefix, `VL*`), written out where staff see it and narrow it to what the
 * factory made, so a factory line registering today does not stop at the upgrade.
 */
export function iotRegistrationSerials(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // iot_model (definition iotModel).
      await db.schema.alterTable('iot_model').addColumn('registration_serials', 'varchar(1000)', (c) => c.notNull().defaultTo('')).execute()
      await sql`update iot_model set registration_serials = sn_prefix || '*'`.execute(db)
    },
  }
}
