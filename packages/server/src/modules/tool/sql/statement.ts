import type { Dialect } from '../../../db/database'
import { badRequest } from '../../../platform/errors'

const READ_KEYWORDS = new Set(['SELECT', 'WITH', 'VALUES', 'EXPLAIN'])
const WRITE_KEYWORDS = new Set(['INSERT', 'UPDATE', 'DELETE'])

/**
 * The statement's first keyword, past whitespace, `--` and `/* *\/` comments (nested on PostgreSQL)
 * and opening parentheses; '' when there is none.
 */
export function firstKeyword(sql: string, dialect: Dialect): string {
  let i = 0
  const n = sql.length
  while (i < n) {
    const c = sql[i]!
    if (/\s/.test(c) || c === '(') {
      i++
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++
    } else if (c === '/' && sql[i + 1] === '*') {
      let depth = 1
      i += 2
      while (i < n && depth > 0) {
        if (sql[i] === '*' && sql[i + 1] === '/') {
          depth--
          i += 2
        } else if (dialect === 'postgres' && sql[i] === '/' && sql[i + 1] === '*') {
          depth++
          i += 2
        } else i++
      }
    } else break
  }
  const m = /^[A-Za-z_]+/.exec(sql.slice(i))
  return m ? m[0].toUpperCase() : ''
}

export type StatementClass = 'read' | 'write'

/**
 * Read or write by the first keyword, or 400 naming a keyword this tool never runs (PRAGMA, ATTACH,
 * COPY, DDL, transaction control, SET …). The database has the last word: a "read" that writes
 * (a CTE with DML, nextval) is caught where it runs.
 */
export function classify(sql: string, dialect: Dialect): StatementClass {
  if (!sql.trim()) throw badRequest('sql.empty')
  const keyword = firstKeyword(sql, dialect)
  if (READ_KEYWORDS.has(keyword) || (dialect === 'postgres' && keyword === 'TABLE')) return 'read'
  if (WRITE_KEYWORDS.has(keyword) || (dialect === 'sqlite' && keyword === 'REPLACE') || (dialect === 'postgres' && keyword === 'MERGE')) return 'write'
  throw badRequest('sql.statement', { keyword: keyword || sql.trim().slice(0, 20) })
}

/** Thrown by a runner when the statement writes but was sent to be read. */
export class WritesError extends Error {
  constructor() {
    super('the statement writes')
  }
}
