import { type Migration, type MigrationProvider, Migrator } from 'kysely'
import type { Db, Dialect } from './database'
import { foundation } from './migrations/2026-11-20T00-foundation'

// Listed, not read from disk, so the bundled server and the tests run the same set.
const all = (dialect: Dialect): Record<string, Migration> => ({
  '2026-11-20T00-foundation': foundation(dialect),
})

export async function migrateToLatest(db: Db, dialect: Dialect): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => all(dialect) }
  const migrator = new Migrator({ db: db.withoutPlugins(), provider })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error instanceof Error ? error : new Error(String(error))
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
