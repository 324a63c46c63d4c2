import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import type { SqlRunResult } from '@velo/shared'
import { secretsForRunner } from './secrets'

/**
 * The child's script, given as text (the server is one bundled file; see db/sqlite-readers.ts). It
 * reads one job as JSON from stdin and writes one answer as JSON to stdout. In its own process a
 * statement that runs away is stopped by SIGKILL, and an unfinished write transaction dies with it.
 *
 * Before running it walks the bytecode of `EXPLAIN <statement>`: every cursor opened on a table or
 * index (OpenRead, OpenWrite, ReopenIdx: p2 is the root page) and every column read (Column: p1 the
 * cursor, p2 the column) is mapped to its name, and a secret table or column anywhere refuses the
 * statement before a row is read (views and subqueries are compiled into the same program).
 */
const RUNNER_SOURCE = String.raw`
let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (d) => (input += d))
process.stdin.on('end', () => {
  let answer
  try {
    answer = run(JSON.parse(input))
  } catch (err) {
    answer = { error: { key: 'sql.error', params: { message: String(err && err.message || err) } } }
  }
  process.stdout.write(JSON.stringify(answer))
})

function run(job) {
  const SQLite = require(job.driver)
  const write = job.mode === 'write'
  const db = new SQLite(job.file, write ? { fileMustExist: true } : { readonly: true, fileMustExist: true })
  db.pragma('busy_timeout = 5000')
  let stmt
  try {
    stmt = db.prepare(job.sql)
  } catch (err) {
    if (/more than one statement/i.test(err.message)) return { error: { key: 'sql.multiple' } }
    return { error: { key: 'sql.error', params: { message: err.message } } }
  }
  if (!write && !stmt.readonly) return { writes: true }
  const refusal = inspect(db, job)
  if (refusal) return { error: refusal }
  const columns = stmt.reader ? stmt.columns().map((c) => ({ name: c.name, type: c.type ? c.type.toLowerCase() : null })) : []
  const rows = []
  let truncated = null
  let size = 0
  let changes = null
  const cell = (v) =>
    typeof v === 'bigint' ? (v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : String(v)) : Buffer.isBuffer(v) ? '\\x' + v.toString('hex') : v
  const collect = () => {
    if (!stmt.reader) return
    stmt.raw(true)
    stmt.safeIntegers(true)
    for (const raw of stmt.iterate()) {
      if (rows.length >= job.maxRows) { truncated = 'rows'; break }
      const row = raw.map(cell)
      size += JSON.stringify(row).length
      if (size > job.maxBytes) { truncated = 'size'; break }
      rows.push(row)
    }
  }
  if (write) {
    db.exec('BEGIN IMMEDIATE')
    if (stmt.reader) {
      // RETURNING: every row must be stepped for the write to finish, even past the caps.
      collect()
      changes = db.prepare('SELECT changes() AS n').get().n
    } else {
      changes = stmt.run().changes
    }
    db.exec('COMMIT')
  } else {
    collect()
  }
  return { result: { kind: write ? 'write' : 'rows', columns, rows, truncated, rowsAffected: changes } }
}

function inspect(db, job) {
  const secretTables = new Set(job.secrets.tables)
  const secretColumns = job.secrets.columns
  const byRoot = new Map()
  for (const r of db.prepare("SELECT type, name, tbl_name AS tbl, rootpage FROM sqlite_schema WHERE rootpage > 0").all()) byRoot.set(r.rootpage, r)
  const tableColumns = (t) => db.prepare('SELECT name FROM pragma_table_info(?)').all(t).map((r) => r.name)
  const indexColumns = (i) => db.prepare('SELECT cid, name, key FROM pragma_index_xinfo(?)').all(i)
  let program
  try {
    // EXPLAIN [QUERY PLAN] x runs nothing, but x is walked all the same: a plan of a secret read is refused too.
    program = db.prepare('EXPLAIN ' + job.sql.replace(/^\s*EXPLAIN\s+(QUERY\s+PLAN\s+)?/i, '')).all()
  } catch (err) {
    return { key: 'sql.error', params: { message: err.message } }
  }
  const cursors = new Map()
  const found = new Set()
  let vtab = false
  for (const op of program) {
    if (op.opcode === 'OpenRead' || op.opcode === 'OpenWrite' || op.opcode === 'ReopenIdx') {
      if (op.p3 !== 0) return { key: 'sql.error', params: { message: 'only the main database can be read' } }
      const obj = byRoot.get(op.p2)
      if (!obj) continue
      if (secretTables.has(obj.tbl)) { found.add(obj.tbl); continue }
      const secret = secretColumns[obj.tbl] || []
      if (obj.type === 'table') {
        if (op.opcode === 'OpenWrite' && secret.length) secret.forEach((c) => found.add(obj.tbl + '.' + c))
        cursors.set(op.p1, { table: obj.tbl, columns: tableColumns(obj.tbl) })
      } else {
        const cols = indexColumns(obj.name)
        // An index holding a secret answers comparisons on it without a Column read (WHERE password = ...).
        if (secret.length && cols.some((c) => c.key && (secret.includes(c.name) || c.cid === -2))) secret.forEach((c) => found.add(obj.tbl + '.' + c))
        cursors.set(op.p1, { table: obj.tbl, columns: cols.map((c) => (c.cid === -2 ? null : c.cid === -1 ? 'rowid' : c.name)) })
      }
    } else if (op.opcode === 'Clear') {
      // DELETE without WHERE empties the b-tree (p1: its root page) without opening a cursor.
      const obj = byRoot.get(op.p1)
      if (!obj) continue
      const secret = secretTables.has(obj.tbl) ? [] : secretColumns[obj.tbl] || []
      if (secretTables.has(obj.tbl)) found.add(obj.tbl)
      secret.forEach((c) => found.add(obj.tbl + '.' + c))
    } else if (op.opcode === 'Column') {
      const cur = cursors.get(op.p1)
      if (!cur) continue
      const name = cur.columns[op.p2]
      const secret = secretColumns[cur.table] || []
      if (name === null || name === undefined) { if (secret.length) secret.forEach((c) => found.add(cur.table + '.' + c)) }
      else if (secret.includes(name)) found.add(cur.table + '.' + name)
    } else if (op.opcode === 'RowData' || op.opcode === 'RowCell') {
      // Whole records copied without a Column read (INSERT … SELECT's transfer): every column is read.
      const cur = cursors.get(op.opcode === 'RowData' ? op.p1 : op.p2)
      if (cur) (secretColumns[cur.table] || []).forEach((c) => found.add(cur.table + '.' + c))
    } else if (op.opcode === 'VOpen') {
      vtab = true
    }
  }
  if (found.size) return { key: 'sql.secret', params: { columns: [...found].sort().join(', ') } }
  if (vtab) {
    // EXPLAIN names a virtual table only by its address: a statement that opens one may name none
    // but json_each, json_tree and the pragma_* functions (dbstat and the like read raw pages).
    const text = job.sql.toLowerCase()
    const names = db.prepare("SELECT name FROM pragma_module_list WHERE name NOT IN ('json_each', 'json_tree') AND name NOT LIKE 'pragma\\_%' ESCAPE '\\'").all().map((r) => r.name)
    const virtual = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'").all().map((r) => r.name)
    for (const name of [...names, ...virtual]) if (text.includes(name.toLowerCase())) return { key: 'sql.virtual', params: { name } }
  }
  return null
}
`

export interface SqliteJob {
  file: string
  sql: string
  mode: 'read' | 'write'
  maxRows: number
  maxBytes: number
  timeoutMs: number
}

export type SqliteAnswer =
  | { result: Omit<SqlRunResult, 'durationMs'> }
  | { writes: true }
  | { error: { key: string; params?: Record<string, string> } }
  | { timeout: true }
  | { cancelled: true }

let driver: string | undefined

/** Runs one statement in a child process, killed at the timeout or when `signal` aborts (the client went away). */
export function runSqlite(job: SqliteJob, signal?: AbortSignal): Promise<SqliteAnswer> {
  driver ??= createRequire(import.meta.url).resolve('better-sqlite3')
  if (signal?.aborted) return Promise.resolve({ cancelled: true })
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', RUNNER_SOURCE], { stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    let timedOut = false
    let cancelled = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, job.timeoutMs)
    const cancel = () => {
      cancelled = true
      child.kill('SIGKILL')
    }
    signal?.addEventListener('abort', cancel, { once: true })
    const settle = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', cancel)
    }
    child.stdout.on('data', (d: Buffer) => out.push(d))
    child.stderr.on('data', (d: Buffer) => err.push(d))
    child.on('error', (e) => {
      settle()
      reject(e)
    })
    child.on('close', () => {
      settle()
      if (timedOut) return resolve({ timeout: true })
      const text = Buffer.concat(out).toString('utf8')
      try {
        // A child that finished as it was being killed has answered: its write may have committed.
        resolve(JSON.parse(text) as SqliteAnswer)
      } catch {
        if (cancelled) return resolve({ cancelled: true })
        reject(new Error(`SQL runner failed: ${Buffer.concat(err).toString('utf8').slice(0, 500)}`))
      }
    })
    // Killed before it read the job (the client went away at once): the pipe breaks, which is no error here.
    child.stdin.on('error', () => {})
    child.stdin.end(JSON.stringify({ ...job, driver, secrets: secretsForRunner() }))
  })
}
