import type { Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.

/**
 * ota_campaign, ota_campaign_device: the A/B commit contract (docs/ota.md › Commit or roll back). A
 * campaign's commit deadline (the offer carries it), and when each device went on trial (its
 * deadline runs from there). Campaigns from before get the default deadline.
 */
export function otaCommit(dialect: Dialect) {
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // ota_campaign (definition bmsUpgrade).
      await db.schema.alterTable('ota_campaign').addColumn('commit_seconds', 'integer', (c) => c.notNull().defaultTo(300)).execute()
      // ota_campaign_device (definition bmsUpgradeDevice).
      await db.schema.alterTable('ota_campaign_device').addColumn('trial_at', datetime).execute()
    },
  }
}
