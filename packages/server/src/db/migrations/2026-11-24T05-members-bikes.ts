import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** bike_bike, bike_model, bike_model_colour, bike_model_size, bike_picture, bike_record, bike_static_image, mem_feedback, mem_feedback_tag, mem_feedback_tag_link, mem_member, mem_ride. */
export function membersBikes(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  const real = dialect === 'postgres' ? 'double precision' : 'real'
  const date = dialect === 'postgres' ? 'date' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // bike_bike: new (definition bike).
      await audited(
        id(db.schema.createTable('bike_bike'), dialect, 'bike_id')
          .addColumn('frame_number', 'varchar(32)', (c) => c.notNull().unique())
          .addColumn('category', 'varchar(16)', (c) => c.notNull())
          .addColumn('model_id', bigint, (c) => c.notNull())
          .addColumn('colour_id', bigint, (c) => c.notNull())
          .addColumn('size_id', bigint, (c) => c.notNull())
          .addColumn('bind_status', 'varchar(7)', (c) => c.notNull().defaultTo('unbound'))
          .addColumn('member_id', bigint)
          .addColumn('bound_time', datetime)
          .addColumn('access', 'varchar(7)', (c) => c.notNull().defaultTo('private'))
          .addColumn('bluetooth_serial', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('protocol_version', 'varchar(11)')
          .addColumn('mac', 'varchar(17)', (c) => c.notNull().defaultTo(''))
          .addColumn('default_bike', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('order_id', 'integer')
          .addColumn('frame_type', 'varchar(11)', (c) => c.notNull().defaultTo('regular'))
          .addColumn('replacement_reason', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('iot_device_id', bigint)
          .addColumn('battery_health', real)
          .addColumn('cycle_times', 'integer')
          .addColumn('ride_count', 'integer', (c) => c.notNull().defaultTo(0)),
        dialect,
      ).execute()
      await db.schema.createIndex('bike_bike_create_time').on('bike_bike').column('create_time').execute()
      await db.schema.createIndex('bike_bike_model_id').on('bike_bike').column('model_id').execute()
      await db.schema.createIndex('bike_bike_member_id').on('bike_bike').column('member_id').execute()
      await db.schema.createIndex('bike_bike_iot_device_id').on('bike_bike').column('iot_device_id').execute()
      await db.schema.createIndex('bike_bike_bind_status_create_time').on('bike_bike').columns(['bind_status', 'create_time']).execute()

      // bike_model: new (definition bikeModel).
      await audited(
        id(db.schema.createTable('bike_model'), dialect, 'model_id')
          .addColumn('category', 'varchar(16)', (c) => c.notNull())
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('code', 'varchar(16)', (c) => c.notNull().unique())
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      // bike_model_colour: new (definition modelColour).
      await audited(
        id(db.schema.createTable('bike_model_colour'), dialect, 'colour_id')
          .addColumn('model_id', bigint, (c) => c.notNull())
          .addColumn('name', 'varchar(50)', (c) => c.notNull())
          .addColumn('code', 'varchar(8)', (c) => c.notNull())
          .addColumn('swatch', 'varchar(7)', (c) => c.notNull().defaultTo(''))
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()
      await db.schema.createIndex('bike_model_colour_model_code').on('bike_model_colour').columns(['model_id', 'code']).unique().execute()

      // bike_model_size: new (definition modelSize).
      await audited(
        id(db.schema.createTable('bike_model_size'), dialect, 'size_id')
          .addColumn('model_id', bigint, (c) => c.notNull())
          .addColumn('name', 'varchar(32)', (c) => c.notNull())
          .addColumn('code', 'varchar(8)', (c) => c.notNull())
          .addColumn('frame_size_min', real)
          .addColumn('frame_size_max', real)
          .addColumn('rider_height_min', 'integer')
          .addColumn('rider_height_max', 'integer')
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()
      await db.schema.createIndex('bike_model_size_model_code').on('bike_model_size').columns(['model_id', 'code']).unique().execute()

      // bike_picture: new (definition bikePicture).
      await audited(
        id(db.schema.createTable('bike_picture'), dialect, 'picture_id')
          .addColumn('model_id', bigint, (c) => c.notNull())
          .addColumn('colour_id', bigint, (c) => c.notNull())
          .addColumn('image', 'varchar(255)', (c) => c.notNull())
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0)),
        dialect,
      ).execute()
      await db.schema.createIndex('bike_picture_model_id_colour_id').on('bike_picture').columns(['model_id', 'colour_id']).execute()

      // bike_record: new (definition bikeRecord).
      await id(db.schema.createTable('bike_record'), dialect, 'record_id')
        .addColumn('bike_id', bigint, (c) => c.notNull())
        .addColumn('frame_number', 'varchar(32)', (c) => c.notNull())
        .addColumn('event_kind', 'varchar(13)', (c) => c.notNull())
        .addColumn('detail', 'varchar(1000)', (c) => c.notNull().defaultTo(''))
        .addColumn('member_id', bigint)
        .addColumn('event_time', datetime, (c) => c.notNull())
        .addColumn('oper_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .execute()
      await db.schema.createIndex('bike_record_bike_time').on('bike_record').columns(['bike_id', 'event_time']).execute()
      await db.schema.createIndex('bike_record_kind_time').on('bike_record').columns(['event_kind', 'event_time']).execute()
      await db.schema.createIndex('bike_record_time').on('bike_record').column('event_time').execute()

      // bike_static_image: new (definition staticImage).
      await audited(
        id(db.schema.createTable('bike_static_image'), dialect, 'image_id')
          .addColumn('image_key', 'varchar(64)', (c) => c.notNull().unique())
          .addColumn('usage', 'varchar(200)', (c) => c.notNull().defaultTo(''))
          .addColumn('image', 'varchar(255)', (c) => c.notNull())
          .addColumn('language', 'varchar(16)', (c) => c.notNull().defaultTo('en_US'))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      // mem_feedback: new (definition feedback).
      await audited(
        id(db.schema.createTable('mem_feedback'), dialect, 'feedback_id')
          .addColumn('member_id', bigint, (c) => c.notNull())
          .addColumn('stars', 'integer', (c) => c.notNull())
          .addColumn('content', 'varchar(2000)', (c) => c.notNull())
          .addColumn('image1', 'varchar(255)')
          .addColumn('image2', 'varchar(255)')
          .addColumn('image3', 'varchar(255)')
          .addColumn('image4', 'varchar(255)')
          .addColumn('read_state', 'varchar(6)', (c) => c.notNull().defaultTo('unread'))
          .addColumn('read_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('read_time', datetime)
          .addColumn('reply', 'varchar(2000)', (c) => c.notNull().defaultTo(''))
          .addColumn('reply_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('reply_time', datetime),
        dialect,
      ).execute()
      await db.schema.createIndex('mem_feedback_create_time').on('mem_feedback').column('create_time').execute()
      await db.schema.createIndex('mem_feedback_read_state_create_time').on('mem_feedback').columns(['read_state', 'create_time']).execute()
      await db.schema.createIndex('mem_feedback_stars_create_time').on('mem_feedback').columns(['stars', 'create_time']).execute()
      await db.schema.createIndex('mem_feedback_member_id_create_time').on('mem_feedback').columns(['member_id', 'create_time']).execute()

      // mem_feedback_tag: new (definition feedbackTag).
      await audited(
        id(db.schema.createTable('mem_feedback_tag'), dialect, 'tag_id')
          .addColumn('name', 'varchar(50)', (c) => c.notNull().unique())
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      // mem_feedback_tag_link: new (definition feedback.tagIds).
      await db.schema
        .createTable('mem_feedback_tag_link')
        .addColumn('feedback_id', bigint, (c) => c.notNull())
        .addColumn('tag_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('mem_feedback_tag_link_pk', ['feedback_id', 'tag_id'])
        .execute()

      // mem_member: new (definition member).
      await audited(
        id(db.schema.createTable('mem_member'), dialect, 'member_id')
          .addColumn('email', 'varchar(128)', (c) => c.notNull().unique())
          .addColumn('first_name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('last_name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('avatar', 'varchar(255)')
          .addColumn('phone', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('birthday', date)
          .addColumn('height', 'integer')
          .addColumn('weight', real)
          .addColumn('gender', 'varchar(1)', (c) => c.notNull().defaultTo('2'))
          .addColumn('country_id', bigint)
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0'))
          .addColumn('email_confirmed', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('bind_status', 'varchar(7)', (c) => c.notNull().defaultTo('unbound'))
          .addColumn('privacy_agreement', 'varchar(9)', (c) => c.notNull().defaultTo('disagreed'))
          .addColumn('riding_mode', 'varchar(6)', (c) => c.notNull().defaultTo('manual'))
          .addColumn('bluetooth_unlock', 'boolean', (c) => c.notNull().defaultTo(false))
          .addColumn('last_login_time', datetime)
          .addColumn('password_hash', 'varchar(255)'),
        dialect,
      ).execute()
      await db.schema.createIndex('mem_member_create_time').on('mem_member').column('create_time').execute()
      await db.schema.createIndex('mem_member_status_create_time').on('mem_member').columns(['status', 'create_time']).execute()
      await db.schema.createIndex('mem_member_country_id').on('mem_member').column('country_id').execute()

      // mem_ride: new (definition ride).
      await id(db.schema.createTable('mem_ride'), dialect, 'ride_id')
        .addColumn('member_id', bigint, (c) => c.notNull())
        .addColumn('bike_id', bigint)
        .addColumn('upload_time', datetime, (c) => c.notNull())
        .addColumn('distance', real, (c) => c.notNull().defaultTo(0))
        .addColumn('duration', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('avg_speed', real, (c) => c.notNull().defaultTo(0))
        .addColumn('max_speed', real, (c) => c.notNull().defaultTo(0))
        .addColumn('cadence', real)
        .addColumn('calories', real)
        .execute()
      await db.schema.createIndex('mem_ride_member_time').on('mem_ride').columns(['member_id', 'upload_time']).execute()
      await db.schema.createIndex('mem_ride_bike_time').on('mem_ride').columns(['bike_id', 'upload_time']).execute()
      await db.schema.createIndex('mem_ride_time').on('mem_ride').column('upload_time').execute()
    },
  }
}
