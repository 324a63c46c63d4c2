import type { PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'

// PostgreSQL parses and plans an unnamed statement at every run. The statements a server runs again
// and again (each list shape's count and page) are worth naming: each connection then parses one
// once and, once its plan proves as good for any values, plans it once too. Measured on the login
// log's list: a fifth less database time per request. Only statements marked here are named, so
// what each connection keeps stays small; the rest go unnamed as before.

/** Named statements at most, for the whole process: names are never given back to a connection. */
const MAX_NAMED = 500
const names = new Map<string, string>()

/** Marks SQL text as run again and again: on PostgreSQL it goes as a named prepared statement. */
export function runsOften(sql: string) {
  if (!names.has(sql) && names.size < MAX_NAMED) names.set(sql, `velo_${names.size}`)
}

/** The name of SQL text marked by runsOften (tests). */
export function statementName(sql: string): string | undefined {
  return names.get(sql)
}

/**
 * The pool as Kysely's PostgresDialect takes it, sending marked statements by name. A name stands
 * for one SQL text in the whole process, so any connection may have prepared it already.
 */
export function namingPool(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>()
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let out = wrapped.get(client)
    if (!out) {
      out = {
        query: ((query: string | object, values?: unknown[]): unknown => {
          const name = typeof query === 'string' ? names.get(query) : undefined
          if (name) return client.query({ name, text: query as string, values })
          // Other statements unnamed, and a cursor (a stream) as it came.
          return client.query(query as never, values as never)
        }) as unknown as PostgresPoolClient['query'],
        release: () => client.release(),
      }
      wrapped.set(client, out)
    }
    return out
  }
  return {
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
  }
}
