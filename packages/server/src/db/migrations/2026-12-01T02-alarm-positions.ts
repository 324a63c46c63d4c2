import type { Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** iot_alarm. */
export function alarmPositions(dialect: Dialect) {
  const real = dialect === 'postgres' ? 'double precision' : 'real'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // iot_alarm (definition iotAlarm).
      await db.schema.alterTable('iot_alarm').addColumn('latitude', real).execute()
      await db.schema.alterTable('iot_alarm').addColumn('longitude', real).execute()
    },
  }
}
