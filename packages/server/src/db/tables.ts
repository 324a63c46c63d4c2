import { allEntities } from '@velo/shared'
import { snapshotOf } from './schema-gen/shape'

/**
 * The tables the migrations create that no entity definition describes: the services' own
 * (sessions, cache, jobs, files, transition log, dashboard rollups, SQL execution's history and
 * credential, frame-number series) and Kysely's. With the definitions' tables they are all the
 * product's tables (test/product-tables.test.ts checks a freshly migrated database has exactly
 * these), so the code generator offers only the tables someone added to the database themselves.
 */
export const SERVICE_TABLES: readonly string[] = [
  'dash_app_day',
  'dash_day',
  'dash_member_day',
  'dash_member_period',
  'dash_rollup_state',
  'dash_start_hist',
  'kysely_migration',
  'kysely_migration_lock',
  'kysely_migration_generated',
  'kysely_migration_generated_lock',
  'mem_session',
  'ord_frame_series',
  'sys_cache',
  'sys_file',
  'sys_job',
  'sys_job_schedule',
  'sys_session',
  'sys_user_factor',
  'sys_user_recovery_code',
  'sys_user_sso_role',
  'sys_transition_log',
  'tool_sql_credential',
  'tool_sql_history',
]

/**
 * Every table of the product, by its database name: the definitions' tables and join tables
 * (generated modules' included) and the service tables.
 */
export function productTables(): Set<string> {
  return new Set([...Object.keys(snapshotOf(allEntities()).tables), ...SERVICE_TABLES])
}
