import type SQLite from 'better-sqlite3'
import {
  CompiledQuery,
  createQueryId,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  IdentifierNode,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  RawNode,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely'
import { yieldWhenDue } from '../lib/event-loop'
import type { SqliteReaders } from './sqlite-readers'

/**
 * SQLite for a server, after Kysely's SqliteDialect (its adapter, introspector and compiler) with one
 * difference: beside the one writer connection, whose mutex serializes every write and holds it for
 * a whole transaction, a read-only connection to the same file answers reads made outside any
 * transaction. In WAL mode that reader never waits for the writer and sees only committed data, so
 * a long all-or-nothing import no longer keeps every other request waiting for its commit.
 *
 * Without a reader (an in-memory database cannot have a second connection) every statement takes
 * the writer, as Kysely's own driver does.
 */
export class SqliteReadWriteDialect implements Dialect {
  constructor(private readonly connections: { writer: SQLite.Database; reader?: SQLite.Database; readers?: SqliteReaders }) {}

  createDriver(): Driver {
    return new SqliteReadWriteDriver(this.connections.writer, this.connections.reader, this.connections.readers)
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler()
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter()
  }

  // Kysely hands its dialect whichever Kysely it builds: no table of ours is named here.
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db)
  }
}

class SqliteReadWriteDriver implements Driver {
  private readonly writerLock = new Mutex()
  private readonly writer: Statements
  private readonly reader: Statements | undefined

  constructor(
    writer: SQLite.Database,
    reader: SQLite.Database | undefined,
    private readonly readers: SqliteReaders | undefined,
  ) {
    this.writer = new Statements(writer)
    this.reader = reader && new Statements(reader)
  }

  async init() {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const session = new Session(this.writer, this.reader, this.writerLock, this.readers)
    if (!this.reader) await session.takeWriter()
    return session
  }

  async beginTransaction(connection: DatabaseConnection) {
    await (connection as Session).takeWriter()
    await connection.executeQuery(CompiledQuery.raw('begin'))
  }

  async commitTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw('commit'))
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw('rollback'))
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await connection.executeQuery(compile(savepointCommand('savepoint', name), createQueryId()))
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await connection.executeQuery(compile(savepointCommand('rollback to', name), createQueryId()))
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await connection.executeQuery(compile(savepointCommand('release', name), createQueryId()))
  }

  async releaseConnection(connection: DatabaseConnection) {
    ;(connection as Session).release()
  }

  async destroy() {
    await this.readers?.close()
    // The writer last: closing the file's last connection checkpoints the WAL into it.
    this.reader?.db.close()
    this.writer.db.close()
  }
}

/** As Kysely's parseSavepointCommand, which it does not export: the name goes in as an identifier. */
function savepointCommand(command: string, name: string) {
  return RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)])
}

/**
 * One acquired connection as Kysely sees it. It starts on the reader and moves to the writer, for
 * good, at its first statement that may write, at a transaction or at a stream; so a
 * `db.connection()` that has written keeps the writer, and reads after its writes, as before.
 */
class Session implements DatabaseConnection {
  private writing = false

  constructor(
    private readonly writer: Statements,
    private readonly reader: Statements | undefined,
    private readonly writerLock: Mutex,
    private readonly readers: SqliteReaders | undefined,
  ) {}

  async takeWriter() {
    if (this.writing) return
    await this.writerLock.lock()
    this.writing = true
  }

  release() {
    if (!this.writing) return
    this.writing = false
    this.writerLock.unlock()
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // Statements answer synchronously: an import's thousands would otherwise hold the event loop.
    await yieldWhenDue()
    const { sql, parameters } = compiledQuery
    if (!this.writing && this.reader) {
      // Only a query can be a read: an insert, update or delete goes straight to the writer, prepared once.
      if (MAY_READ.test(sql)) {
        // Off the event loop's thread when there are reader threads; on this thread's reader when not.
        const answer = this.readers?.query(sql, parameters)
        if (answer) {
          const read = await answer
          if ('rows' in read) return { rows: read.rows as R[] }
        } else {
          const prepared = this.reader.preparedOrNull(sql)
          if (prepared?.readsOnly) return run<R>(prepared.stmt, parameters)
        }
      }
      await this.takeWriter()
    }
    return run<R>(this.writer.prepared(sql).stmt, parameters)
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const { sql, parameters, query } = compiledQuery
    if (!SelectQueryNode.is(query)) throw new Error('Sqlite driver only supports streaming of select queries')
    // An open iterator keeps its connection busy between rows: only the writer's mutex guards that.
    await this.takeWriter()
    // Prepared afresh: a statement that iterates is busy until the stream ends, and a kept one may be asked for meanwhile.
    for (const row of this.writer.db.prepare(sql).iterate(parameters as unknown[])) yield { rows: [row as R] }
  }
}

export const MAY_READ = /^\s*(select|with)\b/i

/** A statement the reader may run for anyone: no write, and no pragma, which sets or reads a connection's own state. */
export function readsOnly(stmt: SQLite.Statement, sql: string) {
  return stmt.reader && stmt.readonly && !/^\s*pragma\b/i.test(sql)
}

/** Statements kept per connection, by SQL text. */
export const KEEP_STATEMENTS = 500

/**
 * One connection with its statements prepared once and kept, the most recently used, by SQL text:
 * compiling a statement costs about as much as running a short one, and the engine runs the same
 * few shapes again and again. SQLite prepares a kept statement again by itself when the schema
 * changes (a migration), and better-sqlite3 binds fresh values at each run.
 */
class Statements {
  private readonly kept = new Map<string, { stmt: SQLite.Statement; readsOnly: boolean }>()

  constructor(readonly db: SQLite.Database) {}

  prepared(sql: string) {
    const found = this.kept.get(sql)
    if (found) {
      // Most recently used last: the first key is the one to drop.
      this.kept.delete(sql)
      this.kept.set(sql, found)
      return found
    }
    const stmt = this.db.prepare(sql)
    const made = { stmt, readsOnly: readsOnly(stmt, sql) }
    this.kept.set(sql, made)
    if (this.kept.size > KEEP_STATEMENTS) this.kept.delete(this.kept.keys().next().value!)
    return made
  }

  /**
   * The reader's schema may lag behind an open transaction's (a table it created): such a statement
   * is left to the writer, which prepares it after the commit or says what is wrong with it; it is
   * not kept, so the reader tries again next time.
   */
  preparedOrNull(sql: string) {
    try {
      return this.prepared(sql)
    } catch {
      return null
    }
  }
}

function run<R>(stmt: SQLite.Statement, parameters: readonly unknown[]): QueryResult<R> {
  if (stmt.reader) return { rows: stmt.all(parameters) as R[] }
  const { changes, lastInsertRowid } = stmt.run(parameters)
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] }
}

/** First come, first served: the writer goes to waiters in the order they asked. */
class Mutex {
  private locked = false
  private readonly waiting: (() => void)[] = []

  async lock() {
    if (!this.locked) {
      this.locked = true
      return
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve))
  }

  unlock() {
    const next = this.waiting.shift()
    if (next) next()
    else this.locked = false
  }
}
