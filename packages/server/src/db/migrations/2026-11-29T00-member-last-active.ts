import { sql, type Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/**
 * mem_member.last_active_day: the member's last UTC day with a ride or an app event, which the
 * dashboards' rollups keep from now on (modules/dashboard/rollups.ts). The facts already rolled up
 * are past the rollups' watermarks, so it starts from their days.
 */
export function memberLastActive(dialect: Dialect) {
  const date = dialect === 'postgres' ? 'date' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // mem_member (definition member).
      await db.schema.alterTable('mem_member').addColumn('last_active_day', date).execute()
      await db.schema.createIndex('mem_member_last_active_day').on('mem_member').column('last_active_day').execute()
      const lastDay = sql`(select max(md.day) from dash_member_day md where md.member_id = mem_member.member_id)`
      await sql`update mem_member set last_active_day = ${dialect === 'postgres' ? sql`${lastDay}::date` : lastDay}`.execute(db)
    },
  }
}
