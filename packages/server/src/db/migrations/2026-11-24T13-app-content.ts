import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** cnt_achievement, cnt_activity, cnt_app_version, cnt_banner, cnt_error_code, cnt_guide, cnt_message, cnt_message_member, cnt_message_recipient, cnt_policy, cnt_protocol, cnt_protocol_signature, cnt_service_centre, cnt_user_help, content_faq, mon_app_upload_log. */
export function appContent(dialect: Dialect) {
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const real = dialect === 'postgres' ? 'double precision' : 'real'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // cnt_achievement: new (definition achievement).
      await audited(
        id(db.schema.createTable('cnt_achievement'), dialect, 'achievement_id')
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('description', 'varchar(500)', (c) => c.notNull())
          .addColumn('default_image', 'varchar(255)', (c) => c.notNull())
          .addColumn('image', 'varchar(255)', (c) => c.notNull())
          .addColumn('level', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('target_value', 'integer', (c) => c.notNull())
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()
      await db.schema.createIndex('cnt_achievement_name_level').on('cnt_achievement').columns(['name', 'level']).unique().execute()

      // cnt_activity: new (definition activity).
      await audited(
        id(db.schema.createTable('cnt_activity'), dialect, 'activity_id')
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('subtitle', 'varchar(200)', (c) => c.notNull().defaultTo(''))
          .addColumn('image', 'varchar(255)')
          .addColumn('start_time', datetime, (c) => c.notNull())
          .addColumn('end_time', datetime, (c) => c.notNull())
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('contact_us', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('country_id', bigint)
          .addColumn('language', 'varchar(5)', (c) => c.notNull().defaultTo('en_US'))
          .addColumn('description', 'text', (c) => c.notNull())
          .addColumn('reminder', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('tag_end_time', datetime)
          .addColumn('bike_type', 'varchar(16)', (c) => c.notNull().defaultTo(''))
          .addColumn('function_id', bigint)
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      // cnt_app_version: new (definition appVersion).
      await audited(
        id(db.schema.createTable('cnt_app_version'), dialect, 'version_id')
          .addColumn('platform', 'varchar(7)', (c) => c.notNull())
          .addColumn('version_code', 'varchar(11)', (c) => c.notNull())
          .addColumn('version_type', 'varchar(6)', (c) => c.notNull().defaultTo('normal'))
          .addColumn('download_url', 'varchar(500)', (c) => c.notNull())
          .addColumn('update_interval', 'integer', (c) => c.notNull().defaultTo(24))
          .addColumn('current', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('release_time', datetime, (c) => c.notNull())
          .addColumn('notes_en', 'varchar(2000)', (c) => c.notNull().defaultTo(''))
          .addColumn('notes_de', 'varchar(2000)', (c) => c.notNull().defaultTo(''))
          .addColumn('notes_nl', 'varchar(2000)', (c) => c.notNull().defaultTo(''))
          .addColumn('notes_fr', 'varchar(2000)', (c) => c.notNull().defaultTo('')),
        dialect,
      ).execute()
      await db.schema.createIndex('cnt_app_version_platform_version_code').on('cnt_app_version').columns(['platform', 'version_code']).unique().execute()
      await db.schema.createIndex('cnt_app_version_platform_current').on('cnt_app_version').columns(['platform', 'current']).execute()

      // cnt_banner: new (definition banner).
      await audited(
        id(db.schema.createTable('cnt_banner'), dialect, 'banner_id')
          .addColumn('title', 'varchar(200)', (c) => c.notNull())
          .addColumn('image', 'varchar(255)', (c) => c.notNull())
          .addColumn('link_url', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('start_time', datetime)
          .addColumn('end_time', datetime)
          .addColumn('language', 'varchar(5)', (c) => c.notNull().defaultTo('en_US'))
          .addColumn('country_id', bigint)
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      // cnt_error_code: new (definition errorCode).
      await audited(
        id(db.schema.createTable('cnt_error_code'), dialect, 'error_code_id')
          .addColumn('code', 'varchar(32)', (c) => c.notNull().unique())
          .addColumn('level', 'varchar(8)', (c) => c.notNull())
          .addColumn('description', 'varchar(1000)', (c) => c.notNull())
          .addColumn('solution', 'varchar(2000)', (c) => c.notNull())
          .addColumn('error_type', 'varchar(9)', (c) => c.notNull())
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      // cnt_guide: new (definition guide).
      await audited(
        id(db.schema.createTable('cnt_guide'), dialect, 'guide_id')
          .addColumn('title', 'varchar(200)', (c) => c.notNull())
          .addColumn('description', 'varchar(1000)', (c) => c.notNull())
          .addColumn('image', 'varchar(255)', (c) => c.notNull())
          .addColumn('function_id', bigint)
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('language', 'varchar(5)', (c) => c.notNull().defaultTo('en_US'))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      // cnt_message: new (definition message).
      await audited(
        id(db.schema.createTable('cnt_message'), dialect, 'message_id')
          .addColumn('title', 'varchar(200)', (c) => c.notNull())
          .addColumn('content', 'text', (c) => c.notNull())
          .addColumn('audience', 'varchar(7)', (c) => c.notNull().defaultTo('all'))
          .addColumn('country_id', bigint)
          .addColumn('send_mode', 'varchar(9)', (c) => c.notNull().defaultTo('now'))
          .addColumn('send_time', datetime)
          .addColumn('status', 'varchar(9)', (c) => c.notNull().defaultTo('draft'))
          .addColumn('sent_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('read_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('sent_time', datetime),
        dialect,
      ).execute()
      await db.schema.createIndex('cnt_message_status_send_time').on('cnt_message').columns(['status', 'send_time']).execute()

      // cnt_message_member: new (definition message.memberIds).
      await db.schema
        .createTable('cnt_message_member')
        .addColumn('message_id', bigint, (c) => c.notNull())
        .addColumn('member_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('cnt_message_member_pk', ['message_id', 'member_id'])
        .execute()

      // cnt_message_recipient: new (definition messageRecipient).
      await id(db.schema.createTable('cnt_message_recipient'), dialect, 'recipient_id')
        .addColumn('message_id', bigint, (c) => c.notNull())
        .addColumn('member_id', bigint, (c) => c.notNull())
        .addColumn('create_time', datetime, (c) => c.notNull())
        .addColumn('read_time', datetime)
        .execute()
      await db.schema.createIndex('cnt_message_recipient_message_id_member_id').on('cnt_message_recipient').columns(['message_id', 'member_id']).unique().execute()
      await db.schema.createIndex('cnt_message_recipient_member_id_create_time').on('cnt_message_recipient').columns(['member_id', 'create_time']).execute()

      // cnt_policy: new (definition policy).
      await audited(
        id(db.schema.createTable('cnt_policy'), dialect, 'policy_id')
          .addColumn('title', 'varchar(200)', (c) => c.notNull())
          .addColumn('type', 'varchar(9)', (c) => c.notNull())
          .addColumn('content', 'text', (c) => c.notNull())
          .addColumn('coverage_months', 'integer')
          .addColumn('link_url', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('language', 'varchar(5)', (c) => c.notNull().defaultTo('en_US'))
          .addColumn('country_id', bigint)
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      // cnt_protocol: new (definition protocol).
      await audited(
        id(db.schema.createTable('cnt_protocol'), dialect, 'protocol_id')
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('type', 'varchar(17)', (c) => c.notNull())
          .addColumn('content', 'text', (c) => c.notNull())
          .addColumn('language', 'varchar(5)', (c) => c.notNull().defaultTo('en_US'))
          .addColumn('version_code', 'varchar(11)', (c) => c.notNull())
          .addColumn('is_update', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('status', 'varchar(9)', (c) => c.notNull().defaultTo('draft'))
          .addColumn('sign_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('cancel_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('publish_time', datetime),
        dialect,
      ).execute()
      await db.schema.createIndex('cnt_protocol_type_language_version_code').on('cnt_protocol').columns(['type', 'language', 'version_code']).unique().execute()

      // cnt_protocol_signature: new (definition protocolSignature).
      await id(db.schema.createTable('cnt_protocol_signature'), dialect, 'signature_id')
        .addColumn('protocol_id', bigint, (c) => c.notNull())
        .addColumn('member_id', bigint, (c) => c.notNull())
        .addColumn('type', 'varchar(17)', (c) => c.notNull())
        .addColumn('language', 'varchar(5)', (c) => c.notNull().defaultTo('en_US'))
        .addColumn('version_code', 'varchar(11)', (c) => c.notNull())
        .addColumn('state', 'varchar(9)', (c) => c.notNull().defaultTo('signed'))
        .addColumn('sign_time', datetime, (c) => c.notNull())
        .addColumn('cancel_time', datetime)
        .execute()
      await db.schema.createIndex('cnt_protocol_signature_protocol_id_member_id').on('cnt_protocol_signature').columns(['protocol_id', 'member_id']).unique().execute()
      await db.schema.createIndex('cnt_protocol_signature_member_id_type_language').on('cnt_protocol_signature').columns(['member_id', 'type', 'language']).execute()

      // cnt_service_centre: new (definition serviceCentre).
      await audited(
        id(db.schema.createTable('cnt_service_centre'), dialect, 'centre_id')
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('address', 'varchar(300)', (c) => c.notNull())
          .addColumn('country_id', bigint, (c) => c.notNull())
          .addColumn('latitude', real, (c) => c.notNull())
          .addColumn('longitude', real, (c) => c.notNull())
          .addColumn('phone', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('email', 'varchar(128)', (c) => c.notNull().defaultTo(''))
          .addColumn('opening_hours', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('offers_sales', 'boolean', (c) => c.notNull().defaultTo(true))
          .addColumn('offers_repair', 'boolean', (c) => c.notNull().defaultTo(true))
          .addColumn('offers_test_ride', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('offers_warranty', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()
      await db.schema.createIndex('cnt_service_centre_latitude_longitude').on('cnt_service_centre').columns(['latitude', 'longitude']).execute()

      // cnt_user_help: new (definition userHelp).
      await audited(
        id(db.schema.createTable('cnt_user_help'), dialect, 'help_id')
          .addColumn('title', 'varchar(200)', (c) => c.notNull())
          .addColumn('type', 'varchar(6)', (c) => c.notNull())
          .addColumn('model_id', bigint)
          .addColumn('language', 'varchar(5)', (c) => c.notNull().defaultTo('en_US'))
          .addColumn('cover_image', 'varchar(255)')
          .addColumn('video', 'varchar(255)')
          .addColumn('video_duration', 'integer')
          .addColumn('document', 'varchar(255)')
          .addColumn('link_url', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      // content_faq (definition faq).
      await db.schema.alterTable('content_faq').addColumn('language', 'varchar(5)', (c) => c.notNull().defaultTo('en_US')).execute()

      // mon_app_upload_log: new (definition appUploadLog).
      await id(db.schema.createTable('mon_app_upload_log'), dialect, 'upload_id')
        .addColumn('member_id', bigint)
        .addColumn('device_id', 'varchar(128)', (c) => c.notNull().defaultTo(''))
        .addColumn('log_type', 'varchar(5)', (c) => c.notNull())
        .addColumn('platform', 'varchar(7)', (c) => c.notNull())
        .addColumn('app_version', 'varchar(11)', (c) => c.notNull().defaultTo(''))
        .addColumn('os_version', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('file', 'varchar(255)')
        .addColumn('original_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('file_size', 'integer')
        .addColumn('upload_time', datetime, (c) => c.notNull())
        .execute()
      await db.schema.createIndex('mon_app_upload_log_upload_time').on('mon_app_upload_log').column('upload_time').execute()
      await db.schema.createIndex('mon_app_upload_log_member_id_upload_time').on('mon_app_upload_log').columns(['member_id', 'upload_time']).execute()
    },
  }
}
