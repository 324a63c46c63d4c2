import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** iot_alarm, iot_config, iot_config_drift, iot_config_push, iot_config_report, iot_message_config, iot_message_config_role, iot_sim, iot_telemetry, tool_device, tool_user. */
export function iotFleet(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  const real = dialect === 'postgres' ? 'double precision' : 'real'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // iot_alarm: new (definition iotAlarm).
      await id(db.schema.createTable('iot_alarm'), dialect, 'alarm_id')
        .addColumn('device_id', bigint, (c) => c.notNull())
        .addColumn('model_id', bigint)
        .addColumn('type', 'varchar(10)', (c) => c.notNull())
        .addColumn('code', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .addColumn('severity', 'varchar(8)', (c) => c.notNull())
        .addColumn('state', 'varchar(12)', (c) => c.notNull().defaultTo('activeUnack'))
        .addColumn('detail', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .addColumn('count', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('start_time', datetime, (c) => c.notNull())
        .addColumn('last_time', datetime, (c) => c.notNull())
        .addColumn('end_time', datetime)
        .addColumn('ack_time', datetime)
        .addColumn('ack_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('ack_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('clear_time', datetime)
        .addColumn('clear_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('clear_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('active_key', 'varchar(80)', (c) => c.unique())
        .execute()
      await db.schema.createIndex('iot_alarm_state_last_time').on('iot_alarm').columns(['state', 'last_time']).execute()
      await db.schema.createIndex('iot_alarm_device_id_start_time').on('iot_alarm').columns(['device_id', 'start_time']).execute()

      // iot_config: new (definition iotConfig).
      await audited(
        id(db.schema.createTable('iot_config'), dialect, 'config_id')
          .addColumn('name', 'varchar(100)', (c) => c.notNull().unique())
          .addColumn('protocol_version', 'varchar(16)', (c) => c.notNull().defaultTo('1'))
          .addColumn('version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('low_battery_percent', 'integer', (c) => c.notNull().defaultTo(20))
          .addColumn('over_speed_kmh', 'integer', (c) => c.notNull().defaultTo(25))
          .addColumn('alarm_volume', 'integer', (c) => c.notNull().defaultTo(6))
          .addColumn('alarm_seconds', 'integer', (c) => c.notNull().defaultTo(15))
          .addColumn('fall_angle', 'integer', (c) => c.notNull().defaultTo(60))
          .addColumn('vibration_sensitivity', 'integer', (c) => c.notNull().defaultTo(3))
          .addColumn('wake_up_minutes', 'integer', (c) => c.notNull().defaultTo(60))
          .addColumn('low_power_minutes', 'integer', (c) => c.notNull().defaultTo(30))
          .addColumn('ultra_low_power_hours', 'integer', (c) => c.notNull().defaultTo(24))
          .addColumn('transceive_seconds', 'integer', (c) => c.notNull().defaultTo(60))
          .addColumn('riding_seconds', 'integer', (c) => c.notNull().defaultTo(10))
          .addColumn('gps_report_seconds', 'integer', (c) => c.notNull().defaultTo(30))
          .addColumn('trace_report_seconds', 'integer', (c) => c.notNull().defaultTo(5))
          .addColumn('trace_report_meters', 'integer', (c) => c.notNull().defaultTo(20))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      // iot_config_drift: new (definition iotConfigDrift).
      await id(db.schema.createTable('iot_config_drift'), dialect, 'drift_id')
        .addColumn('config_id', bigint, (c) => c.notNull())
        .addColumn('device_id', bigint, (c) => c.notNull())
        .addColumn('field', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('expected', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('reported', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('detected_at', datetime, (c) => c.notNull())
        .execute()
      await db.schema.createIndex('iot_config_drift_device').on('iot_config_drift').column('device_id').execute()
      await db.schema.createIndex('iot_config_drift_config').on('iot_config_drift').column('config_id').execute()

      // iot_config_push: new (definition iotConfigPush).
      await id(db.schema.createTable('iot_config_push'), dialect, 'push_id')
        .addColumn('config_id', bigint, (c) => c.notNull())
        .addColumn('device_id', bigint, (c) => c.notNull())
        .addColumn('version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .addColumn('status', 'varchar(12)', (c) => c.notNull().defaultTo('queued'))
        .addColumn('command_id', 'integer')
        .addColumn('applied', 'text')
        .addColumn('code', 'integer')
        .addColumn('message', 'varchar(500)')
        .addColumn('create_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_time', datetime, (c) => c.notNull())
        .addColumn('update_time', datetime)
        .execute()
      await db.schema.createIndex('iot_config_push_command').on('iot_config_push').column('command_id').execute()
      await db.schema.createIndex('iot_config_push_device').on('iot_config_push').columns(['device_id', 'push_id']).execute()
      await db.schema.createIndex('iot_config_push_config').on('iot_config_push').columns(['config_id', 'status']).execute()

      // iot_config_report: new (definition iotConfigReport).
      await id(db.schema.createTable('iot_config_report'), dialect, 'report_id')
        .addColumn('device_id', bigint, (c) => c.notNull().unique())
        .addColumn('version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .addColumn('values', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('reported_at', datetime, (c) => c.notNull())
        .execute()

      // iot_message_config: new (definition iotMessageConfig).
      await audited(
        id(db.schema.createTable('iot_message_config'), dialect, 'message_config_id')
          .addColumn('event_type', 'varchar(13)', (c) => c.notNull().unique())
          .addColumn('severity', 'varchar(8)', (c) => c.notNull().defaultTo('major'))
          .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
          .addColumn('notify_member', 'boolean', (c) => c.notNull().defaultTo(true))
          .addColumn('notify_staff', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('staff_emails', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('title_en', 'varchar(200)', (c) => c.notNull())
          .addColumn('text_en', 'varchar(1000)', (c) => c.notNull())
          .addColumn('title_zh', 'varchar(200)', (c) => c.notNull())
          .addColumn('text_zh', 'varchar(1000)', (c) => c.notNull())
          .addColumn('title_de', 'varchar(200)', (c) => c.notNull().defaultTo(''))
          .addColumn('text_de', 'varchar(1000)', (c) => c.notNull().defaultTo(''))
          .addColumn('title_nl', 'varchar(200)', (c) => c.notNull().defaultTo(''))
          .addColumn('text_nl', 'varchar(1000)', (c) => c.notNull().defaultTo(''))
          .addColumn('title_fr', 'varchar(200)', (c) => c.notNull().defaultTo(''))
          .addColumn('text_fr', 'varchar(1000)', (c) => c.notNull().defaultTo('')),
        dialect,
      ).execute()

      // iot_message_config_role: new (definition iotMessageConfig.staffRoleIds).
      await db.schema
        .createTable('iot_message_config_role')
        .addColumn('message_config_id', bigint, (c) => c.notNull())
        .addColumn('role_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('iot_message_config_role_pk', ['message_config_id', 'role_id'])
        .execute()

      // iot_sim: new (definition iotSim).
      await audited(
        id(db.schema.createTable('iot_sim'), dialect, 'sim_id')
          .addColumn('iccid', 'varchar(20)', (c) => c.notNull().unique())
          .addColumn('imei', 'varchar(15)', (c) => c.notNull().defaultTo(''))
          .addColumn('status', 'varchar(9)', (c) => c.notNull().defaultTo('silent'))
          .addColumn('flow_state', 'varchar(7)', (c) => c.notNull().defaultTo('normal'))
          .addColumn('limit_mb', real, (c) => c.notNull())
          .addColumn('used_mb', real, (c) => c.notNull().defaultTo(0))
          .addColumn('remaining_mb', real)
          .addColumn('warning_percent', 'integer', (c) => c.notNull().defaultTo(80))
          .addColumn('period_type', 'varchar(5)', (c) => c.notNull().defaultTo('month'))
          .addColumn('cycle_start_day', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('apn', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('device_id', bigint)
          .addColumn('carrier', 'varchar(32)', (c) => c.notNull().defaultTo('simulated'))
          .addColumn('carrier_state', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('last_sync_at', datetime)
          .addColumn('carrier_request_id', 'varchar(128)')
          .addColumn('pending_from', 'varchar(16)'),
        dialect,
      ).execute()
      await db.schema.createIndex('iot_sim_status_sim_id').on('iot_sim').columns(['status', 'sim_id']).execute()
      await db.schema.createIndex('iot_sim_device_id').on('iot_sim').column('device_id').execute()
      await db.schema.createIndex('iot_sim_carrier_request_id').on('iot_sim').column('carrier_request_id').execute()
      await db.schema.createIndex('iot_sim_last_sync_at').on('iot_sim').column('last_sync_at').execute()

      // iot_telemetry: new (definition iotTelemetry).
      await id(db.schema.createTable('iot_telemetry'), dialect, 'telemetry_id')
        .addColumn('device_id', bigint, (c) => c.notNull())
        .addColumn('received_at', datetime, (c) => c.notNull())
        .addColumn('device_time', datetime)
        .addColumn('battery', real)
        .addColumn('speed', real)
        .addColumn('latitude', real)
        .addColumn('longitude', real)
        .addColumn('satellites', 'integer')
        .addColumn('signal', 'integer')
        .addColumn('odometer', real)
        .addColumn('locked', 'boolean')
        .addColumn('tilt', real)
        .addColumn('vibration', real)
        .execute()
      await db.schema.createIndex('iot_telemetry_device_received').on('iot_telemetry').columns(['device_id', 'received_at']).execute()
      await db.schema.createIndex('iot_telemetry_received').on('iot_telemetry').column('received_at').execute()

      // tool_device: new (definition toolDevice).
      await id(db.schema.createTable('tool_device'), dialect, 'tool_device_id')
        .addColumn('device_id', bigint, (c) => c.notNull().unique())
        .addColumn('sn', 'varchar(32)', (c) => c.notNull())
        .addColumn('model_id', bigint, (c) => c.notNull())
        .addColumn('operator_id', bigint, (c) => c.notNull())
        .addColumn('user_type', 'varchar(16)', (c) => c.notNull().defaultTo('production'))
        .addColumn('registered_at', datetime, (c) => c.notNull())
        .addColumn('test_result', 'varchar(8)', (c) => c.notNull().defaultTo('pending'))
        .addColumn('ping_ms', 'integer')
        .addColumn('gnss_satellites', 'integer')
        .addColumn('gnss_latitude', real)
        .addColumn('gnss_longitude', real)
        .addColumn('gnss_at', datetime)
        .addColumn('sim_iccid', 'varchar(22)', (c) => c.notNull().defaultTo(''))
        .addColumn('tested_at', datetime)
        .addColumn('failure_reason', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .execute()
      await db.schema.createIndex('tool_device_operator_id_tool_device_id').on('tool_device').columns(['operator_id', 'tool_device_id']).execute()
      await db.schema.createIndex('tool_device_user_type_tool_device_id').on('tool_device').columns(['user_type', 'tool_device_id']).execute()

      // tool_user: new (definition toolUser).
      await audited(
        id(db.schema.createTable('tool_user'), dialect, 'tool_user_id')
          .addColumn('company_name', 'varchar(100)', (c) => c.notNull())
          .addColumn('email', 'varchar(128)', (c) => c.notNull().unique())
          .addColumn('password', 'varchar(255)', (c) => c.notNull())
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0'))
          .addColumn('user_type', 'varchar(16)', (c) => c.notNull().defaultTo('production'))
          .addColumn('login_ip', 'varchar(128)')
          .addColumn('login_time', datetime)
          .addColumn('session_generation', 'integer', (c) => c.notNull().defaultTo(0)),
        dialect,
      ).execute()
    },
  }
}
