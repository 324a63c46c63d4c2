import type { Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.

/**
 * ota_campaign, ota_campaign_device: campaigns that finish (issue 35 §4). A held device has a limit
 * (hold_limit_hours) after which it is skipped, and the wave counts it as skipped_as says; the alarm
 * rate needs alarm_min_count alarms of alarm_types; the row keeps its rolled-back and skipped counts.
 */
export function otaHolds(dialect: Dialect) {
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // ota_campaign (definition iotUpgrade and the other parts' slices).
      await db.schema.alterTable('ota_campaign').addColumn('alarm_min_count', 'integer', (c) => c.notNull().defaultTo(5)).execute()
      await db.schema
        .alterTable('ota_campaign')
        .addColumn('alarm_types', 'varchar(100)', (c) => c.notNull().defaultTo('fault,offline,fall,theft'))
        .execute()
      await db.schema.alterTable('ota_campaign').addColumn('hold_limit_hours', 'integer', (c) => c.notNull().defaultTo(72)).execute()
      await db.schema.alterTable('ota_campaign').addColumn('skipped_as', 'varchar(11)', (c) => c.notNull().defaultTo('leftOut')).execute()
      await db.schema.alterTable('ota_campaign').addColumn('rolled_back_count', 'integer', (c) => c.notNull().defaultTo(0)).execute()
      await db.schema.alterTable('ota_campaign').addColumn('skipped_count', 'integer', (c) => c.notNull().defaultTo(0)).execute()
      // ota_campaign_device (definition iotUpgradeDevice and the other parts' slices).
      await db.schema.alterTable('ota_campaign_device').addColumn('held_since', datetime).execute()
      // Offers a device answered with a passing refusal (riding): they use no retry (attempt − held_offers does).
      await db.schema.alterTable('ota_campaign_device').addColumn('held_offers', 'integer', (c) => c.notNull().defaultTo(0)).execute()
    },
  }
}
