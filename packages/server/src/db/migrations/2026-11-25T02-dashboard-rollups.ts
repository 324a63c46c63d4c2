import { sql, type Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Hand-written (no entity definition owns these tables): the dashboards' rollups (docs/dashboards.md).

/**
 * The dashboards' daily rollups, kept by modules/dashboard/rollups.ts: per member and UTC day (rides,
 * app events), who was active per week and month, per member, day, platform and app version
 * (sessions, crashes), and a histogram of cold-start times. Days are 'YYYY-MM-DD' text on both
 * databases, so the rollups compare and group the same way everywhere. dash_rollup_state holds each
 * fact table's watermark (the last id added).
 */
export function dashboardRollups(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const real = dialect === 'postgres' ? 'double precision' : 'real'
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  // SQLite: the rollups are stored in their primary key's order (a range of days is one contiguous
  // read with every column, no lookup per row). PostgreSQL keeps its heap and the key's index.
  const clustered = <T extends { modifyEnd: (s: ReturnType<typeof sql>) => T }>(t: T): T => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t)
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('dash_rollup_state')
        .addColumn('name', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('last_id', bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('refreshed_time', datetime)
        .execute()
      // One row per fact table: the refresh only ever updates them (the conditional watermark move).
      for (const name of ['ride', 'event', 'upload']) await sql`insert into dash_rollup_state (name, last_id) values (${name}, 0)`.execute(db)

      await db.schema
        .createTable('dash_member_day')
        .addColumn('day', 'varchar(10)', (c) => c.notNull())
        .addColumn('member_id', bigint, (c) => c.notNull())
        .addColumn('country_id', bigint)
        .addColumn('rides', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('distance', real, (c) => c.notNull().defaultTo(0))
        .addColumn('app_events', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('dash_member_day_pk', ['day', 'member_id'])
        .$call(clustered)
        .execute()
      // A member's active days (retention: "active on sign-up day + N").
      await db.schema.createIndex('dash_member_day_member').on('dash_member_day').columns(['member_id', 'day']).execute()

      // Per day and member's country (0: none): active members and rides, the daily figure without a
      // platform filter. Recounted from dash_member_day for the days a refresh touched.
      await db.schema
        .createTable('dash_day')
        .addColumn('day', 'varchar(10)', (c) => c.notNull())
        .addColumn('country_id', bigint, (c) => c.notNull())
        .addColumn('dau', 'integer', (c) => c.notNull())
        .addColumn('rides', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('dash_day_pk', ['day', 'country_id'])
        .$call(clustered)
        .execute()

      // Who was active in an ISO week (kind 'w', period = its Monday) or a month ('m', 'YYYY-MM'): with
      // any activity (platform '') or with an app event on a platform. The weekly and monthly figures
      // count rows here instead of distinct members over every day's rows.
      await db.schema
        .createTable('dash_member_period')
        .addColumn('kind', 'varchar(1)', (c) => c.notNull())
        .addColumn('period', 'varchar(10)', (c) => c.notNull())
        .addColumn('platform', 'varchar(7)', (c) => c.notNull())
        .addColumn('member_id', bigint, (c) => c.notNull())
        .addColumn('country_id', bigint)
        .addPrimaryKeyConstraint('dash_member_period_pk', ['kind', 'period', 'platform', 'member_id'])
        .$call(clustered)
        .execute()

      await db.schema
        .createTable('dash_app_day')
        .addColumn('day', 'varchar(10)', (c) => c.notNull())
        .addColumn('member_id', bigint, (c) => c.notNull())
        .addColumn('platform', 'varchar(7)', (c) => c.notNull())
        .addColumn('app_version', 'varchar(11)', (c) => c.notNull())
        .addColumn('country_id', bigint)
        .addColumn('events', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('sessions', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('crashed_sessions', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('crash_reports', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('dash_app_day_pk', ['day', 'member_id', 'platform', 'app_version'])
        .$call(clustered)
        .execute()
      // The platform filter: "members with an app event on this platform on that day".
      await db.schema.createIndex('dash_app_day_member').on('dash_app_day').columns(['member_id', 'day', 'platform']).execute()

      await db.schema
        .createTable('dash_start_hist')
        .addColumn('day', 'varchar(10)', (c) => c.notNull())
        .addColumn('platform', 'varchar(7)', (c) => c.notNull())
        .addColumn('app_version', 'varchar(11)', (c) => c.notNull())
        // 0: a member without a country (counted only under the "all" data scope).
        .addColumn('country_id', bigint, (c) => c.notNull())
        .addColumn('bucket', 'integer', (c) => c.notNull())
        .addColumn('n', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('dash_start_hist_pk', ['day', 'platform', 'app_version', 'country_id', 'bucket'])
        .$call(clustered)
        .execute()
    },
  }
}
