import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { allEntities } from '@velo/shared'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { createDatabase, type Db, type Dialect } from '../src/db/database'
import { migrateToLatest } from '../src/db/migrate'
import { snapshotOf } from '../src/db/schema-gen/shape'
import { productTables, SERVICE_TABLES } from '../src/db/tables'
import { freshDatabase } from './harness'

// The code generator offers the tables of the database that are not the product's. A migration
// that adds a service table without listing it in SERVICE_TABLES (or a stale entry) fails here.

const dialects: Dialect[] = ['sqlite', ...(process.env.TEST_DATABASE_URL ? (['postgres'] as const) : [])]

const cleanups: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

/** A freshly migrated database of the dialect (harness.ts makes it: a file, or a PostgreSQL database of its own). */
async function migratedDatabase(dialect: Dialect): Promise<Db> {
  const dir = mkdtempSync(join(tmpdir(), 'velo-tables-'))
  const fresh = dialect === 'sqlite' ? { url: `sqlite:${join(dir, 'test.db')}`, drop: async () => {} } : await freshDatabase(dir)
  const { db } = createDatabase(fresh.url.startsWith('sqlite:') ? { dialect: 'sqlite', file: fresh.url.slice('sqlite:'.length) } : { dialect: 'postgres', url: fresh.url })
  cleanups.push(async () => {
    await db.destroy()
    await fresh.drop()
    rmSync(dir, { recursive: true, force: true })
  })
  await migrateToLatest(db, dialect)
  return db
}

/** Tables and views as the database's catalogue lists them (SQLite's own sqlite_* aside; PostgreSQL's partitions, which the generator does not offer either, aside). */
async function tablesOf(db: Db, dialect: Dialect): Promise<string[]> {
  const bare = db.withoutPlugins()
  const rows =
    dialect === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables t where table_schema = current_schema()
          and not exists (select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = t.table_schema and c.relname = t.table_name and c.relispartition)`.execute(bare)
      : await sql<{ name: string }>`select name from sqlite_schema where type in ('table', 'view') and name not like 'sqlite\\_%' escape '\\'`.execute(bare)
  return rows.rows.map((r) => r.name).sort()
}

describe.each(dialects)('product tables (%s)', (dialect) => {
  it('a freshly migrated database has exactly the definitions’ tables and the service tables', async () => {
    const db = await migratedDatabase(dialect)
    expect(await tablesOf(db, dialect)).toEqual([...productTables()].sort())
  })

  it('names each service table once, none of them a definition’s', () => {
    const defined = Object.keys(snapshotOf(allEntities()).tables)
    expect(new Set(SERVICE_TABLES).size).toBe(SERVICE_TABLES.length)
    expect(SERVICE_TABLES.filter((t) => defined.includes(t))).toEqual([])
  })
})
