import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.

/**
 * The IoT gateway (definitions in shared/entities/iot.ts): models and their functions, devices with
 * their credentials and reported state, commands with their outcome, and the message log.
 */
export function iot(dialect: Dialect) {
  const time = dialect === 'postgres' ? 'timestamptz' : 'text'
  const real = dialect === 'postgres' ? 'double precision' : 'real'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await audited(
        id(db.schema.createTable('iot_model'), dialect, 'model_id')
          .addColumn('product_id', 'varchar(64)', (c) => c.notNull().unique())
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('provider', 'varchar(100)', (c) => c.notNull().defaultTo(''))
          .addColumn('tag', 'varchar(50)', (c) => c.notNull().defaultTo(''))
          .addColumn('product_code', 'varchar(2)', (c) => c.notNull())
          .addColumn('sn_prefix', 'varchar(8)', (c) => c.notNull())
          .addColumn('supports_audio', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('bike_models', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          // Signs devices' self-registration (POST /iot/register); never listed.
          .addColumn('registration_key', 'varchar(64)', (c) => c.notNull())
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      await audited(
        id(db.schema.createTable('iot_function'), dialect, 'function_id')
          .addColumn('name', 'varchar(100)', (c) => c.notNull().unique())
          .addColumn('command', 'varchar(32)', (c) => c.notNull())
          .addColumn('description', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('firmware_versions', 'varchar(200)', (c) => c.notNull())
          .addColumn('min_app_version', 'varchar(11)')
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()
      await db.schema
        .createTable('iot_function_model')
        .addColumn('function_id', 'bigint', (c) => c.notNull())
        .addColumn('model_id', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('iot_function_model_pk', ['function_id', 'model_id'])
        .execute()

      await audited(
        id(db.schema.createTable('iot_device'), dialect, 'device_id')
          .addColumn('sn', 'varchar(32)', (c) => c.notNull().unique())
          .addColumn('uuid', 'varchar(36)', (c) => c.notNull())
          .addColumn('model_id', 'bigint', (c) => c.notNull())
          // SHA-256 of a 256-bit random secret: a slow hash adds nothing to that much entropy and
          // would cost every one of 10,000 reconnects tens of milliseconds.
          .addColumn('secret_hash', 'varchar(64)')
          .addColumn('state', 'varchar(16)', (c) => c.notNull().defaultTo('inactive'))
          .addColumn('online', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('activated', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('last_seen_at', time)
          .addColumn('activated_at', time)
          .addColumn('firmware_version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('hardware_version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('config_version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('thing_model', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('flow_state', 'varchar(8)', (c) => c.notNull().defaultTo('normal'))
          .addColumn('bind_state', 'varchar(8)', (c) => c.notNull().defaultTo('unbound'))
          .addColumn('sim_number', 'varchar(22)', (c) => c.notNull().defaultTo(''))
          .addColumn('sim_used_mb', real)
          .addColumn('sim_limit_mb', real)
          .addColumn('remaining_flow', real)
          .addColumn('transport_mode', 'varchar(3)', (c) => c.notNull().defaultTo('off'))
          .addColumn('battery', real)
          .addColumn('signal', real)
          .addColumn('latitude', real)
          .addColumn('longitude', real),
        dialect,
      ).execute()
      await db.schema.createIndex('iot_device_state').on('iot_device').columns(['state']).execute()
      await db.schema.createIndex('iot_device_model').on('iot_device').columns(['model_id']).execute()
      await db.schema.createIndex('iot_device_online_seen').on('iot_device').columns(['online', 'last_seen_at']).execute()

      await audited(
        id(db.schema.createTable('iot_command'), dialect, 'command_id')
          .addColumn('request_id', 'varchar(64)', (c) => c.notNull().unique())
          .addColumn('device_id', 'bigint', (c) => c.notNull())
          .addColumn('command', 'varchar(32)', (c) => c.notNull())
          .addColumn('params', 'text', (c) => c.notNull().defaultTo('{}'))
          .addColumn('status', 'varchar(12)', (c) => c.notNull())
          .addColumn('reply', 'text')
          .addColumn('timeout_seconds', 'integer', (c) => c.notNull())
          .addColumn('sent_at', time)
          .addColumn('delivered_at', time)
          .addColumn('replied_at', time)
          // sent_at + timeout: when a sent command without a final reply times out.
          .addColumn('deadline_at', time)
          .addColumn('expires_at', time, (c) => c.notNull())
          .addColumn('round_trip_ms', 'integer'),
        dialect,
      ).execute()
      await db.schema.createIndex('iot_command_device_status').on('iot_command').columns(['device_id', 'status']).execute()
      await db.schema.createIndex('iot_command_status_deadline').on('iot_command').columns(['status', 'deadline_at']).execute()

      await db.schema
        .createTable('iot_message')
        .$call((t) => id(t, dialect, 'message_id'))
        .addColumn('device_id', 'bigint')
        .addColumn('direction', 'varchar(4)', (c) => c.notNull())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('topic', 'varchar(255)', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('create_time', time, (c) => c.notNull())
        .execute()
      await db.schema.createIndex('iot_message_device').on('iot_message').columns(['device_id', 'message_id']).execute()
      await db.schema.createIndex('iot_message_time').on('iot_message').columns(['create_time']).execute()
    },
  }
}
