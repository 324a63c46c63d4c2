import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** iot_geofence, iot_geofence_country, iot_geofence_device, iot_geofence_model. */
export function geofences(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // iot_geofence: new (definition iotGeofence).
      await audited(
        id(db.schema.createTable('iot_geofence'), dialect, 'geofence_id')
          .addColumn('name', 'varchar(100)', (c) => c.notNull().unique())
          .addColumn('shape', 'varchar(7)', (c) => c.notNull())
          .addColumn('geometry', 'text', (c) => c.notNull())
          .addColumn('trigger', 'varchar(5)', (c) => c.notNull().defaultTo('exit'))
          .addColumn('all_devices', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      // iot_geofence_country: new (definition iotGeofence.countryIds).
      await db.schema
        .createTable('iot_geofence_country')
        .addColumn('geofence_id', bigint, (c) => c.notNull())
        .addColumn('country_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('iot_geofence_country_pk', ['geofence_id', 'country_id'])
        .execute()

      // iot_geofence_device: new (definition iotGeofence.deviceIds).
      await db.schema
        .createTable('iot_geofence_device')
        .addColumn('geofence_id', bigint, (c) => c.notNull())
        .addColumn('device_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('iot_geofence_device_pk', ['geofence_id', 'device_id'])
        .execute()

      // iot_geofence_model: new (definition iotGeofence.modelIds).
      await db.schema
        .createTable('iot_geofence_model')
        .addColumn('geofence_id', bigint, (c) => c.notNull())
        .addColumn('model_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('iot_geofence_model_pk', ['geofence_id', 'model_id'])
        .execute()
    },
  }
}
