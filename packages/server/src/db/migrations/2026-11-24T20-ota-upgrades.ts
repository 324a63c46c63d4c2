import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** iot_audio, iot_device, ota_campaign, ota_campaign_country, ota_campaign_device, ota_campaign_model, ota_campaign_target, ota_firmware, ota_firmware_function, ota_product, ota_product_bike_model, ota_supplier. */
export function otaUpgrades(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const real = dialect === 'postgres' ? 'double precision' : 'real'
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // iot_audio: new (definition iotAudio).
      await audited(
        id(db.schema.createTable('iot_audio'), dialect, 'audio_id')
          .addColumn('app_name', 'varchar(100)', (c) => c.notNull())
          .addColumn('iot_name', 'varchar(64)', (c) => c.notNull().unique())
          .addColumn('version', 'varchar(11)', (c) => c.notNull().defaultTo('1.0.0'))
          .addColumn('file', 'varchar(255)', (c) => c.notNull())
          .addColumn('size', 'integer')
          .addColumn('built_in', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('deploy_status', 'varchar(11)', (c) => c.notNull().defaultTo('notDeployed'))
          .addColumn('md5', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('sha256', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('crc8', 'varchar(2)', (c) => c.notNull().defaultTo('')),
        dialect,
      ).execute()

      // iot_device (definition iotDevice).
      await db.schema.alterTable('iot_device').addColumn('display_version', 'varchar(32)').execute()
      await db.schema.alterTable('iot_device').addColumn('display_hardware', 'varchar(32)').execute()
      await db.schema.alterTable('iot_device').addColumn('bms_version', 'varchar(32)').execute()
      await db.schema.alterTable('iot_device').addColumn('bms_hardware', 'varchar(32)').execute()
      await db.schema.alterTable('iot_device').addColumn('ecu_version', 'varchar(32)').execute()
      await db.schema.alterTable('iot_device').addColumn('ecu_hardware', 'varchar(32)').execute()

      // ota_campaign: new (definition bmsUpgrade).
      await audited(
        id(db.schema.createTable('ota_campaign'), dialect, 'campaign_id')
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('draft'))
          .addColumn('firmware_id', bigint)
          .addColumn('target_version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('product_id', bigint)
          .addColumn('hardware_revision', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('from_version_min', 'varchar(11)')
          .addColumn('from_version_max', 'varchar(11)')
          .addColumn('allow_downgrade', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('canary_percent', 'integer', (c) => c.notNull().defaultTo(10))
          .addColumn('canary_count', 'integer')
          .addColumn('wave_count', 'integer', (c) => c.notNull().defaultTo(3))
          .addColumn('success_percent', 'integer', (c) => c.notNull().defaultTo(95))
          .addColumn('error_percent', 'integer', (c) => c.notNull().defaultTo(10))
          .addColumn('error_count', 'integer')
          .addColumn('error_min_finished', 'integer', (c) => c.notNull().defaultTo(5))
          .addColumn('alarm_rate_factor', real, (c) => c.notNull().defaultTo(2))
          .addColumn('rate_per_minute', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('start_at', datetime)
          .addColumn('window_start', 'varchar(5)', (c) => c.notNull().defaultTo(''))
          .addColumn('window_end', 'varchar(5)', (c) => c.notNull().defaultTo(''))
          .addColumn('random_order', 'boolean', (c) => c.notNull().defaultTo(true))
          .addColumn('timeout_minutes', 'integer', (c) => c.notNull().defaultTo(30))
          .addColumn('retries', 'integer', (c) => c.notNull().defaultTo(2))
          .addColumn('retry_backoff_seconds', 'integer', (c) => c.notNull().defaultTo(60))
          .addColumn('min_battery', 'integer', (c) => c.notNull().defaultTo(30))
          .addColumn('current_wave', 'integer')
          .addColumn('total_devices', 'integer')
          .addColumn('succeeded_count', 'integer')
          .addColumn('failed_count', 'integer')
          .addColumn('pause_reason', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('approved_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('started_at', datetime)
          .addColumn('finished_at', datetime)
          .addColumn('part_kind', 'varchar(8)', (c) => c.notNull())
          .addColumn('baseline_alarm_rate', real)
          .addColumn('resumed_at', datetime)
          .addColumn('payload', 'varchar(8)', (c) => c.notNull().defaultTo('firmware'))
          .addColumn('audio_id', bigint),
        dialect,
      ).execute()
      await db.schema.createIndex('ota_campaign_part_kind_campaign_id').on('ota_campaign').columns(['part_kind', 'campaign_id']).execute()
      await db.schema.createIndex('ota_campaign_status').on('ota_campaign').column('status').execute()
      await db.schema.createIndex('ota_campaign_firmware_id').on('ota_campaign').column('firmware_id').execute()

      // ota_campaign_country: new (definition bmsUpgrade.countryIds).
      await db.schema
        .createTable('ota_campaign_country')
        .addColumn('campaign_id', bigint, (c) => c.notNull())
        .addColumn('country_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('ota_campaign_country_pk', ['campaign_id', 'country_id'])
        .execute()

      // ota_campaign_device: new (definition bmsUpgradeDevice).
      await id(db.schema.createTable('ota_campaign_device'), dialect, 'upgrade_id')
        .addColumn('campaign_id', bigint, (c) => c.notNull())
        .addColumn('device_id', bigint, (c) => c.notNull())
        .addColumn('wave', 'integer')
        .addColumn('state', 'varchar(12)', (c) => c.notNull().defaultTo('queued'))
        .addColumn('percent', 'integer')
        .addColumn('attempt', 'integer')
        .addColumn('from_version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .addColumn('to_version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .addColumn('code', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .addColumn('message', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .addColumn('notified_at', datetime)
        .addColumn('finished_at', datetime)
        .addColumn('updated_at', datetime)
        .addColumn('part_kind', 'varchar(8)', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', datetime)
        .addColumn('time_zone', 'varchar(64)', (c) => c.notNull().defaultTo('UTC'))
        .execute()
      await db.schema.createIndex('ota_campaign_device_campaign_id_device_id').on('ota_campaign_device').columns(['campaign_id', 'device_id']).unique().execute()
      await db.schema.createIndex('ota_campaign_device_campaign_id_state_wave').on('ota_campaign_device').columns(['campaign_id', 'state', 'wave']).execute()
      await db.schema.createIndex('ota_campaign_device_campaign_id_wave_position').on('ota_campaign_device').columns(['campaign_id', 'wave', 'position']).execute()
      await db.schema.createIndex('ota_campaign_device_device_id_state').on('ota_campaign_device').columns(['device_id', 'state']).execute()
      await db.schema.createIndex('ota_campaign_device_state_updated_at').on('ota_campaign_device').columns(['state', 'updated_at']).execute()

      // ota_campaign_model: new (definition bmsUpgrade.modelIds).
      await db.schema
        .createTable('ota_campaign_model')
        .addColumn('campaign_id', bigint, (c) => c.notNull())
        .addColumn('model_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('ota_campaign_model_pk', ['campaign_id', 'model_id'])
        .execute()

      // ota_campaign_target: new (definition bmsUpgrade.deviceIds).
      await db.schema
        .createTable('ota_campaign_target')
        .addColumn('campaign_id', bigint, (c) => c.notNull())
        .addColumn('device_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('ota_campaign_target_pk', ['campaign_id', 'device_id'])
        .execute()

      // ota_firmware: new (definition bmsFirmware).
      await audited(
        id(db.schema.createTable('ota_firmware'), dialect, 'firmware_id')
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('code', 'varchar(64)', (c) => c.notNull().unique())
          .addColumn('supplier_id', bigint, (c) => c.notNull())
          .addColumn('product_id', bigint, (c) => c.notNull())
          .addColumn('module_type', 'varchar(9)', (c) => c.notNull().defaultTo('whole'))
          .addColumn('has_bluetooth', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('original_version', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('custom_version', 'varchar(11)', (c) => c.notNull())
          .addColumn('protocol_version', 'varchar(16)', (c) => c.notNull().defaultTo('1'))
          .addColumn('hardware_revisions', 'varchar(200)', (c) => c.notNull().defaultTo(''))
          .addColumn('file', 'varchar(255)', (c) => c.notNull())
          .addColumn('size', 'integer')
          .addColumn('sha256', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('crc8', 'varchar(2)', (c) => c.notNull().defaultTo(''))
          .addColumn('crc_variant', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('ble_version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('ble_file', 'varchar(255)')
          .addColumn('gnss_version', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('gnss_file', 'varchar(255)')
          .addColumn('download_url', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('serial_number', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('min_app_version', 'varchar(11)')
          .addColumn('part_kind', 'varchar(8)', (c) => c.notNull())
          .addColumn('version_number', bigint, (c) => c.notNull().defaultTo(0)),
        dialect,
      ).execute()
      await db.schema.createIndex('ota_firmware_part_kind_firmware_id').on('ota_firmware').columns(['part_kind', 'firmware_id']).execute()
      await db.schema.createIndex('ota_firmware_part_kind_version_number').on('ota_firmware').columns(['part_kind', 'version_number']).execute()
      await db.schema.createIndex('ota_firmware_supplier_id').on('ota_firmware').column('supplier_id').execute()

      // ota_firmware_function: new (definition bmsFirmware.functionIds).
      await db.schema
        .createTable('ota_firmware_function')
        .addColumn('firmware_id', bigint, (c) => c.notNull())
        .addColumn('function_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('ota_firmware_function_pk', ['firmware_id', 'function_id'])
        .execute()

      // ota_product: new (definition bmsPartProduct).
      await audited(
        id(db.schema.createTable('ota_product'), dialect, 'product_id')
          .addColumn('supplier_id', bigint, (c) => c.notNull())
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('product_code', 'varchar(2)', (c) => c.notNull())
          .addColumn('hardware_revision', 'varchar(32)', (c) => c.notNull())
          .addColumn('part_kind', 'varchar(8)', (c) => c.notNull()),
        dialect,
      ).execute()
      await db.schema.createIndex('ota_product_part_kind_product_id').on('ota_product').columns(['part_kind', 'product_id']).execute()
      await db.schema.createIndex('ota_product_supplier_id').on('ota_product').column('supplier_id').execute()

      // ota_product_bike_model: new (definition bmsPartProduct.bikeModelIds).
      await db.schema
        .createTable('ota_product_bike_model')
        .addColumn('product_id', bigint, (c) => c.notNull())
        .addColumn('model_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('ota_product_bike_model_pk', ['product_id', 'model_id'])
        .execute()
      await db.schema.createIndex('ota_product_bike_model_model_id_product_id').on('ota_product_bike_model').columns(['model_id', 'product_id']).execute()

      // ota_supplier: new (definition bmsPartSupplier).
      await audited(
        id(db.schema.createTable('ota_supplier'), dialect, 'supplier_id')
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('supplier_code', 'varchar(2)', (c) => c.notNull())
          .addColumn('iot_code', 'varchar(2)', (c) => c.notNull())
          .addColumn('contact', 'varchar(100)', (c) => c.notNull().defaultTo(''))
          .addColumn('part_kind', 'varchar(8)', (c) => c.notNull()),
        dialect,
      ).execute()
      await db.schema.createIndex('ota_supplier_part_kind_supplier_id').on('ota_supplier').columns(['part_kind', 'supplier_id']).execute()
    },
  }
}
