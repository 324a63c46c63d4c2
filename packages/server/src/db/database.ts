import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import { CamelCasePlugin, type CompiledQuery, type ExpressionBuilder, Kysely, type LogEvent, PostgresDialect, type Transaction } from 'kysely'
import type { Pool } from 'pg'
import type { DatabaseTarget } from '../config'
import { lazyRequire } from '../lib/lazy-require'
import { namingPool, statementName } from './pg-named'
import type { Database } from './schema'
import { KEEP_STATEMENTS, MAY_READ, readsOnly, SqliteReadWriteDialect } from './sqlite-driver'
import { SqliteReaders } from './sqlite-readers'

export type Db = Kysely<Database>

/**
 * Any table by name, its columns of unknown value: how code over definitions sees the tables it
 * reads and writes — the generic engine (platform/crud, the files' and export job's checks, data
 * scope) and the few module helpers that take an entity (app reads, a bike spec's code, an image's
 * links). It works on whichever table a definition names, generated modules' included, which no
 * type written before them can list; its names come only from the definitions. It is the one place
 * the SQL is not typed by column, and it is still typed by value (unknown, not any). A function
 * takes Db and widens inside (dynamicDb), so hooks and callers always hold the typed database.
 * Code that names its tables uses Db.
 */
export type DynamicTables = Database & Record<string, Record<string, unknown>>
export type DynamicDb = Kysely<DynamicTables>
export type DynamicTx = Transaction<DynamicTables>
/** An expression builder over any of those tables (a definition names the table and columns). */
export type DynamicEb = ExpressionBuilder<DynamicTables, string>
/** The database as the generic engine sees it (Kysely's own widening, no cast). */
export const dynamicDb = (db: Db): DynamicDb => db.withTables<Record<string, Record<string, unknown>>>()
/** A transaction as the generic engine sees it. */
export const dynamicTx = (tx: Transaction<Database>): DynamicTx => tx.withTables<Record<string, Record<string, unknown>>>()
export type Dialect = DatabaseTarget['dialect']

/** What the metrics (platform/observability) watch of a database: each query's time, PostgreSQL's pool. */
export interface DbProbe {
  onQuery?: (event: LogEvent) => void
  pool?: Pool
}
export const dbProbes = new WeakMap<object, DbProbe>()

/** Rows as arrays of values, or undefined when this path does not run the statement (Kysely's does). */
type ArrayReader = (sql: string, parameters: readonly unknown[]) => Promise<unknown[][] | undefined>
const arrayReaders = new WeakMap<object, ArrayReader>()

/**
 * A read answered as arrays of values in the statement's column order, past Kysely's result plugins:
 * an export's million rows were each an object from the driver, then a camel-cased copy, most of its
 * garbage. SQLite reads it on a reader thread when there is one, else on the read-only connection;
 * PostgreSQL on the pool, by name when runsOften marked it. Outside a transaction only,
 * on `db` as createDatabase made it; elsewhere (another Kysely, an in-memory SQLite whose one
 * connection a transaction may hold) Kysely's own path answers, keys in the same order.
 */
export async function readRowArrays(db: Db, query: CompiledQuery): Promise<unknown[][]> {
  const started = performance.now()
  const rows = await arrayReaders.get(db)?.(query.sql, query.parameters)
  if (!rows) return (await db.executeQuery<Record<string, unknown>>(query)).rows.map((r) => Object.values(r))
  // What Kysely's log would have told the metrics of this statement.
  dbProbes.get(db)?.onQuery?.({ level: 'query', query, queryDurationMillis: performance.now() - started })
  return rows
}

const requirePg = lazyRequire<typeof import('pg')>('pg')
let typesSet = false

/**
 * node-postgres, loaded when PostgreSQL is first used: a server on SQLite never loads it (~3 MB of
 * an idle server's heap, docs/ops/capacity.md › Idle memory). As it loads, its answers are made the
 * database layer's.
 */
export function nodePostgres(): typeof import('pg') {
  const pg = requirePg()
  if (!typesSet) {
    typesSet = true
    // timestamptz comes back as an ISO string, as SQLite keeps it, so both dialects answer alike.
    pg.types.setTypeParser(1184, (v) => new Date(v).toISOString())
    // int8 (count(*), bigserial) fits in a JS number for every table we keep.
    pg.types.setTypeParser(20, (v) => Number(v))
    // A calendar date stays the 'YYYY-MM-DD' it was stored as, not a Date at local midnight.
    pg.types.setTypeParser(1082, (v) => v)
  }
  return pg
}

/**
 * `readerThreads`: SQLite connections that answer reads in worker threads (db/sqlite-readers.ts);
 * 0 keeps every read on the event loop's thread, as a script needs.
 */
export function createDatabase(target: DatabaseTarget, o: { readerThreads?: number } = {}): { db: Db; dialect: Dialect } {
  const plugins = [new CamelCasePlugin()]
  const probe: DbProbe = {}
  const log = (event: LogEvent) => probe.onQuery?.(event)
  if (target.dialect === 'postgres') {
    const pool = new (nodePostgres().Pool)({ connectionString: target.url, max: 10 })
    probe.pool = pool
    // A connection lost (the database restarted, a network cut) emits 'error', which unheard ends the
    // process; the query on it fails instead, and the pool drops the connection and opens another.
    pool.on('error', () => {})
    pool.on('connect', (client) => client.on('error', () => {}))
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: namingPool(pool) }), plugins, log })
    dbProbes.set(db, probe)
    arrayReaders.set(db, async (text, values) => {
      const name = statementName(text)
      return (await pool.query({ text, values: values as unknown[], rowMode: 'array', ...(name ? { name } : {}) })).rows as unknown[][]
    })
    return { db, dialect: 'postgres' }
  }
  if (target.file !== ':memory:') mkdirSync(dirname(target.file), { recursive: true })
  const writer = new SQLite(target.file)
  const wal = writer.pragma('journal_mode = WAL', { simple: true }) === 'wal'
  // Said, not left to defaults (SQLite's own is FULL; better-sqlite3 builds it with NORMAL for WAL,
  // which is what the writer has run). NORMAL in WAL: a commit outlives the process (a kill -9 loses
  // nothing committed, so no acknowledged device report); a power cut may take the last commits back,
  // never corrupts the file. FULL would sync the disk at every commit on the event loop's thread:
  // 0.3 ms each on the reference machine's disk, milliseconds on a network volume, for every request
  // that writes.
  writer.pragma('synchronous = NORMAL')
  // Only WAL lets a reader go on beside a writer; outside it a read could wait for the write lock,
  // and better-sqlite3 would wait with the event loop held. An in-memory database has no second connection.
  const reader = wal ? new SQLite(target.file, { readonly: true, fileMustExist: true }) : undefined
  for (const connection of [writer, reader]) {
    connection?.pragma('foreign_keys = ON')
    connection?.pragma('busy_timeout = 5000')
  }
  // Statistics for the planner where tables have none or changed much since (SQLite's advice for a
  // long-lived connection; the retention job asks again every hour), each table sampled, so it
  // stays quick on a large file.
  writer.pragma('analysis_limit = 1000')
  writer.pragma('optimize = 0x10002')
  const readers = reader && o.readerThreads ? new SqliteReaders(target.file, o.readerThreads, KEEP_STATEMENTS) : undefined
  const db = new Kysely<Database>({ dialect: new SqliteReadWriteDialect({ writer, reader, readers }), plugins, log })
  dbProbes.set(db, probe)
  if (reader) {
    arrayReaders.set(db, async (text, values) => {
      if (!MAY_READ.test(text)) return undefined
      const threaded = readers?.query(text, values, true)
      if (threaded) {
        const answer = await threaded
        return 'rows' in answer ? (answer.rows as unknown[][]) : undefined
      }
      // Prepared afresh, so no kept statement of the driver's is left in raw mode.
      let stmt: SQLite.Statement
      try {
        stmt = reader.prepare(text)
      } catch {
        return undefined
      }
      return readsOnly(stmt, text) ? (stmt.raw(true).all(values as unknown[]) as unknown[][]) : undefined
    })
  }
  return { db, dialect: 'sqlite' }
}
