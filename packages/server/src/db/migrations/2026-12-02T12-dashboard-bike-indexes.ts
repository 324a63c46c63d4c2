import type { Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/**
 * bike_bike, mem_member: the columns the registered-bikes dashboard's passes read (modules/dashboard/bike-stats.ts),
 * so they walk narrow index entries instead of the wide rows (issue 43).
 */
export function dashboardBikeIndexes(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // bike_bike (definition bike).
      await db.schema.createIndex('bike_bike_bind_status_model_id_member_id').on('bike_bike').columns(['bind_status', 'model_id', 'member_id']).execute()
      await db.schema.createIndex('bike_bike_iot_device_id_model_id_member_id').on('bike_bike').columns(['iot_device_id', 'model_id', 'member_id']).execute()

      // mem_member (definition member).
      await db.schema.createIndex('mem_member_member_id_country_id').on('mem_member').columns(['member_id', 'country_id']).execute()
    },
  }
}
