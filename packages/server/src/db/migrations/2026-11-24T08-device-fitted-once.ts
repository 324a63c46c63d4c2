import type { Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** bike_bike. */
export function deviceFittedOnce(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // bike_bike (definition bike).
      await db.schema.dropIndex('bike_bike_iot_device_id').execute()
      await db.schema.createIndex('bike_bike_iot_device_id').on('bike_bike').column('iot_device_id').unique().execute()
    },
  }
}
