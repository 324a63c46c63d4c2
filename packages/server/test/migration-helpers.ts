import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Migrator } from 'kysely'
import { afterAll } from 'vitest'
import { createDatabase, type Db, type Dialect } from '../src/db/database'
import { all as productMigrations } from '../src/db/migrate'
import { freshDatabase } from './harness'

// Empty databases of either dialect for tests of migrations themselves (not the app's harness,
// which migrates to the latest and seeds): the dialects to run on, a database per call, dropped
// after the file's tests.

/** SQLite always; PostgreSQL with TEST_DATABASE_URL. */
export const migrationDialects: Dialect[] = ['sqlite', ...(process.env.TEST_DATABASE_URL ? (['postgres'] as const) : [])]

const cleanups: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** An empty database of the dialect (PostgreSQL: a new database on TEST_DATABASE_URL's server). */
export async function emptyDatabase(dialect: Dialect, label = 'migration'): Promise<Db> {
  const dir = mkdtempSync(join(tmpdir(), `velo-${label}-`))
  const fresh = await freshDatabase(dir, dialect)
  const { db } = createDatabase(dialect === 'sqlite' ? { dialect, file: join(dir, 'test.db') } : { dialect, url: fresh.url })
  cleanups.push(async () => {
    await db.destroy()
    await fresh.drop()
    rmSync(dir, { recursive: true, force: true })
  })
  return db
}

/** Runs the product's migrations: those before `before` only, or all of them. */
export async function migrateProduct(db: Db, dialect: Dialect, before?: string) {
  const migrations = Object.fromEntries(Object.entries(productMigrations(dialect)).filter(([name]) => !before || name < before))
  const { error } = await new Migrator({ db: db.withoutPlugins(), provider: { getMigrations: async () => migrations } }).migrateToLatest()
  if (error) throw error
}
