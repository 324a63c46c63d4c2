import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { loadConfig } from '../src/config'
import { createDatabase } from '../src/db/database'
import { migrateToLatest } from '../src/db/migrate'
import { seed } from '../src/seed'

// Vitest's global setup: one database migrated and seeded as every test app's starts, made once per
// run (per project) before the workers start. createTestApp copies it (a file copy on SQLite,
// CREATE DATABASE … TEMPLATE on PostgreSQL) instead of migrating and seeding again: the suite builds
// ~200 apps, and that was a third of each on SQLite and half on PostgreSQL. The app still runs its
// migrations and seed at start, which find nothing to do; a test of the migrations or the seed
// builds its own database (freshDatabase) and never sees this one.

/** The admin's password in every test app's database (the template's seed). */
export const ADMIN_PASSWORD = 'admin123!'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated and seeded SQLite file, and the PostgreSQL template's name when TEST_DATABASE_URL is set. */
    templateDatabase: { sqliteFile: string; postgresName: string | null }
  }
}

async function migrateAndSeed(url: string, dir: string) {
  const config = loadConfig({ DATA_DIR: dir, DATABASE_URL: url, STORAGE_DIR: join(dir, 'files'), ADMIN_PASSWORD, LOG_LEVEL: 'silent', SQLITE_READER_THREADS: '0' })
  const { db, dialect } = createDatabase(config.database, { readerThreads: 0 })
  try {
    await migrateToLatest(db, dialect)
    await seed({ db, config })
  } finally {
    await db.destroy()
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'velo-template-'))
  const sqliteFile = join(dir, 'template.db')
  await migrateAndSeed(`sqlite:${sqliteFile}`, dir)

  const base = process.env.TEST_DATABASE_URL
  let postgresName: string | null = null
  if (base) {
    postgresName = `velo_template_${randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: base })
    await admin.connect()
    await admin.query(`create database ${postgresName}`)
    await admin.end()
    const url = new URL(base)
    url.pathname = `/${postgresName}`
    await migrateAndSeed(url.toString(), dir)
  }
  project.provide('templateDatabase', { sqliteFile, postgresName })

  return async () => {
    rmSync(dir, { recursive: true, force: true })
    if (base && postgresName) {
      const admin = new pg.Client({ connectionString: base })
      await admin.connect()
      await admin.query(`drop database if exists ${postgresName} with (force)`)
      await admin.end()
    }
  }
}
