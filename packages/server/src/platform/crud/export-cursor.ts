// An export's rows on PostgreSQL: one statement read through a server-side cursor (pg-cursor, a
// portal of the extended protocol), batch after batch as arrays of values, the next batch asked for
// as soon as one arrives so the database and the socket work while the workbook is written. Pages
// read by key (one statement a page, each found again through the index) cost the server a
// statement's round trip, parse and start every 2,000 rows, and the read was most of the export's
// time there (issue 43). The cursor also reads one snapshot: rows written while a long export runs
// neither appear in it half-way nor shift its pages.
import type { CompiledQuery } from 'kysely'
import type { CustomTypesConfig } from 'pg'
import { type Db, dbProbes, nodePostgres } from '../../db/database'
import { lazyRequire } from '../../lib/lazy-require'

/** Loaded with the first export on PostgreSQL (it loads parts of node-postgres: not on SQLite). */
const requireCursor = lazyRequire<typeof import('pg-cursor')>('pg-cursor')

const TIMESTAMPTZ = 1184
/** timestamptz as PostgreSQL writes it in the ISO DateStyle at UTC: 2026-06-01 12:34:56[.789123]+00. */
const UTC_TEXT = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\+00$/

/**
 * timestamptz text as the database layer answers it (an ISO string, db/database.ts), by slicing
 * when it is UTC text: the layer's Date round trip through V8's parser of free-form dates was the
 * read's largest cost per row (a million rides: 1.2 s of 4). A Date keeps milliseconds and drops
 * what is finer, as this does; any other text goes the layer's way.
 */
export function isoTimestamp(text: string): string {
  if (!UTC_TEXT.test(text)) return (nodePostgres().types.getTypeParser(TIMESTAMPTZ, 'text') as (v: string) => string)(text)
  const dot = text.indexOf('.', 19)
  const millis = dot < 0 ? '000' : text.slice(dot + 1, text.length - 3).padEnd(3, '0').slice(0, 3)
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${millis}Z`
}

const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === TIMESTAMPTZ && format !== 'binary' ? isoTimestamp : nodePostgres().types.getTypeParser(oid, format as 'text')),
} as CustomTypesConfig

/**
 * The rows of `query` in batches of `batch` rows, each an array of its values in the statement's
 * column order (as readRowArrays answers them), or undefined when `db` is not on PostgreSQL. The
 * cursor holds one of the pool's connections until the last batch is read or the consumer stops.
 */
export function readCursorArrays(db: Db, query: CompiledQuery, batch: number): AsyncGenerator<unknown[][]> | undefined {
  const pool = dbProbes.get(db)?.pool
  if (!pool) return undefined
  const probe = dbProbes.get(db)
  return (async function* () {
    const client = await pool.connect()
    const cursor = client.query(new (requireCursor())<unknown[]>(query.sql, [...query.parameters], { rowMode: 'array', types }))
    let failed = false
    let next: Promise<unknown[][]> | undefined
    const read = () => {
      const started = performance.now()
      return cursor.read(batch).then((rows) => {
        // What the statement's page reads told the metrics, a batch at a time.
        probe?.onQuery?.({ level: 'query', query, queryDurationMillis: performance.now() - started })
        return rows
      })
    }
    try {
      next = read()
      while (next) {
        const rows: unknown[][] = await next
        next = rows.length < batch ? undefined : read()
        // A consumer that stops early leaves this batch unread: its failure is heard in finally.
        next?.catch(() => undefined)
        if (rows.length) yield rows
      }
    } catch (err) {
      failed = true
      throw err
    } finally {
      try {
        // The batch asked for is read before the portal is closed: pg-cursor closes only an idle one.
        if (next) await next
        await cursor.close()
      } catch {
        failed = true
      }
      // A connection a read failed on goes, rather than back to the pool in a state no one knows.
      client.release(failed)
    }
  })()
}
