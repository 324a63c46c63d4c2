import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import { CamelCasePlugin, Kysely, PostgresDialect, SqliteDialect } from 'kysely'
import pg from 'pg'
import type { DatabaseTarget } from '../config'
import type { Database } from './schema'

export type Db = Kysely<Database>
export type Dialect = DatabaseTarget['dialect']

// timestamptz comes back as an ISO string, as SQLite keeps it, so both dialects answer alike.
pg.types.setTypeParser(1184, (v) => new Date(v).toISOString())
// int8 (count(*), bigserial) fits in a JS number for every table we keep.
pg.types.setTypeParser(20, (v) => Number(v))
// A calendar date stays the 'YYYY-MM-DD' it was stored as, not a Date at local midnight.
pg.types.setTypeParser(1082, (v) => v)

export function createDatabase(target: DatabaseTarget): { db: Db; dialect: Dialect } {
  const plugins = [new CamelCasePlugin()]
  if (target.dialect === 'postgres') {
    const pool = new pg.Pool({ connectionString: target.url, max: 10 })
    return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins }), dialect: 'postgres' }
  }
  if (target.file !== ':memory:') mkdirSync(dirname(target.file), { recursive: true })
  const sqlite = new SQLite(target.file)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), plugins }), dialect: 'sqlite' }
}
