import { type Migration, type MigrationProvider, Migrator } from 'kysely'
import type { Db, Dialect } from './database'
// Before the dated imports: migration:new lists a new migration's import after the last of those.
import { generatedMigrations } from './migrations/generated'
import { foundation } from './migrations/2026-11-20T00-foundation'
import { system } from './migrations/2026-11-21T00-system'
import { listIndexes } from './migrations/2026-11-21T01-list-indexes'
import { contentFaq } from './migrations/2026-11-21T02-content-faq'
import { iot } from './migrations/2026-11-22T00-iot'
import { transitions } from './migrations/2026-11-24T00-transitions'
import { jobs } from './migrations/2026-11-24T01-jobs'
import { files } from './migrations/2026-11-24T02-files'
import { serviceOrders } from './migrations/2026-11-24T03-service-orders'
import { membersBikes } from './migrations/2026-11-24T05-members-bikes'
import { feedbackTagFilter } from './migrations/2026-11-24T06-feedback-tag-filter'
import { deviceFittedOnce } from './migrations/2026-11-24T08-device-fitted-once'
import { bikeOrders } from './migrations/2026-11-24T11-bike-orders'
import { appContent } from './migrations/2026-11-24T13-app-content'
import { memberSessions } from './migrations/2026-11-24T14-member-sessions'
import { iotFleet } from './migrations/2026-11-24T18-iot-fleet'
import { otaUpgrades } from './migrations/2026-11-24T20-ota-upgrades'
import { dashboards } from './migrations/2026-11-25T01-dashboards'
import { dashboardRollups } from './migrations/2026-11-25T02-dashboard-rollups'
import { tools } from './migrations/2026-11-25T03-tools'
import { toolSql } from './migrations/2026-11-25T04-tool-sql'
import { jobSchedules } from './migrations/2026-11-25T05-job-schedules'
import { serviceOrderBike } from './migrations/2026-11-28T19-service-order-bike'
import { approvalBinds } from './migrations/2026-11-28T20-approval-binds'
import { otaCommit } from './migrations/2026-11-28T22-ota-commit'
import { otaHolds } from './migrations/2026-11-28T23-ota-holds'
import { memberLastActive } from './migrations/2026-11-29T00-member-last-active'
import { feedbackLanguage } from './migrations/2026-11-29T01-feedback-language'
import { sweepRuns } from './migrations/2026-11-29T02-sweep-runs'
import { iotRegistrationSerials } from './migrations/2026-11-30T05-iot-registration-serials'
import { secondFactors } from './migrations/2026-11-30T06-second-factors'
import { ssoGroupRoles } from './migrations/2026-11-30T14-sso-group-roles'
import { memberRequests } from './migrations/2026-11-30T21-member-requests'
import { stolenMode } from './migrations/2026-12-01T00-stolen-mode'
import { geofences } from './migrations/2026-12-01T01-geofences'
import { alarmPositions } from './migrations/2026-12-01T02-alarm-positions'
import { telemetryPartitions } from './migrations/2026-12-01T04-telemetry-partitions'
import { dashboardBikeIndexes } from './migrations/2026-12-02T12-dashboard-bike-indexes'

// Listed, not read from disk, so the bundled server and the tests run the same set. Generated
// modules' migrations (Tool system › Code generation) come last, from their own list.
export const all = (dialect: Dialect): Record<string, Migration> => ({
  '2026-11-20T00-foundation': foundation(dialect),
  '2026-11-21T00-system': system(dialect),
  '2026-11-21T01-list-indexes': listIndexes(dialect),
  '2026-11-21T02-content-faq': contentFaq(dialect),
  '2026-11-22T00-iot': iot(dialect),
  '2026-11-24T00-transitions': transitions(dialect),
  '2026-11-24T01-jobs': jobs(dialect),
  '2026-11-24T02-files': files(dialect),
  '2026-11-24T03-service-orders': serviceOrders(dialect),
  '2026-11-24T05-members-bikes': membersBikes(dialect),
  '2026-11-24T06-feedback-tag-filter': feedbackTagFilter(dialect),
  '2026-11-24T08-device-fitted-once': deviceFittedOnce(dialect),
  '2026-11-24T11-bike-orders': bikeOrders(dialect),
  '2026-11-24T13-app-content': appContent(dialect),
  '2026-11-24T14-member-sessions': memberSessions(dialect),
  '2026-11-24T18-iot-fleet': iotFleet(dialect),
  '2026-11-24T20-ota-upgrades': otaUpgrades(dialect),
  '2026-11-25T01-dashboards': dashboards(dialect),
  '2026-11-25T02-dashboard-rollups': dashboardRollups(dialect),
  '2026-11-25T03-tools': tools(dialect),
  '2026-11-25T04-tool-sql': toolSql(dialect),
  '2026-11-25T05-job-schedules': jobSchedules(dialect),
  '2026-11-28T19-service-order-bike': serviceOrderBike(dialect),
  '2026-11-28T20-approval-binds': approvalBinds(dialect),
  '2026-11-28T22-ota-commit': otaCommit(dialect),
  '2026-11-28T23-ota-holds': otaHolds(dialect),
  '2026-11-29T00-member-last-active': memberLastActive(dialect),
  '2026-11-29T01-feedback-language': feedbackLanguage(dialect),
  '2026-11-29T02-sweep-runs': sweepRuns(dialect),
  '2026-11-30T05-iot-registration-serials': iotRegistrationSerials(dialect),
  '2026-11-30T06-second-factors': secondFactors(dialect),
  '2026-11-30T14-sso-group-roles': ssoGroupRoles(dialect),
  '2026-11-30T21-member-requests': memberRequests(dialect),
  '2026-12-01T00-stolen-mode': stolenMode(dialect),
  '2026-12-01T01-geofences': geofences(dialect),
  '2026-12-01T02-alarm-positions': alarmPositions(dialect),
  '2026-12-01T04-telemetry-partitions': telemetryPartitions(dialect),
  '2026-12-02T12-dashboard-bike-indexes': dashboardBikeIndexes(dialect),
})

/**
 * Modules made by code generation (Tool system › Code generation) keep a migration table of their
 * own, run after the product's: their migrations are dated when they were generated, and in one
 * table with the product's a later product migration dated before them would be refused (Kysely
 * refuses a new migration that sorts before the last one it ran).
 */
export const GENERATED_MIGRATION_TABLE = 'kysely_migration_generated'

/** The migrations this build knows, by table (the readiness check compares them with those applied). */
export function knownMigrations(dialect: Dialect): Record<string, string[]> {
  return { kysely_migration: Object.keys(all(dialect)), [GENERATED_MIGRATION_TABLE]: Object.keys(generatedMigrations(dialect)) }
}

async function run(migrator: Migrator): Promise<string[]> {
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error instanceof Error ? error : new Error(String(error))
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

export async function migrateToLatest(db: Db, dialect: Dialect): Promise<string[]> {
  const product: MigrationProvider = { getMigrations: async () => all(dialect) }
  const generated: MigrationProvider = { getMigrations: async () => generatedMigrations(dialect) }
  return [
    ...(await run(new Migrator({ db: db.withoutPlugins(), provider: product }))),
    ...(await run(
      new Migrator({
        db: db.withoutPlugins(),
        provider: generated,
        migrationTableName: GENERATED_MIGRATION_TABLE,
        migrationLockTableName: `${GENERATED_MIGRATION_TABLE}_lock`,
      }),
    )),
  ]
}
