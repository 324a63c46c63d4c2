import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/**
 * Read-only connections to a SQLite file, each in its own worker thread. better-sqlite3 answers on
 * the thread that asks: on the event loop's thread, a list's count over ten thousand rows, or a
 * dashboard's aggregate over a million, holds every other request, the MQTT gateway and the jobs
 * for as long as it runs. In a worker the statement runs beside the loop, which goes on parsing,
 * authorizing and serializing the next requests; with more workers, reads use more cores.
 *
 * A worker runs what it is sent only if SQLite itself says the statement is a read (a write, a
 * pragma or a statement it cannot prepare is answered `notRead`, and the caller takes the writer,
 * which prepares it again and says what is wrong with it). In WAL mode a read started after a
 * commit sees that commit, so a request reads what it has just written.
 *
 * The worker is a script given as text (eval), not a file: the same code then runs from the
 * sources (tsx, vitest) and from the bundle, and it needs nothing but better-sqlite3, whose resolved
 * path it is handed.
 */
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads')
const SQLite = require(workerData.driver)
const db = new SQLite(workerData.file, { readonly: true, fileMustExist: true })
db.pragma('busy_timeout = 5000')
const kept = new Map()
function prepared(sql) {
  let found = kept.get(sql)
  if (found) {
    kept.delete(sql)
    kept.set(sql, found)
    return found
  }
  let stmt
  try {
    stmt = db.prepare(sql)
  } catch {
    return null
  }
  found = stmt.reader && stmt.readonly && !/^\s*pragma\b/i.test(sql) ? stmt : null
  if (found) {
    kept.set(sql, found)
    if (kept.size > workerData.keep) kept.delete(kept.keys().next().value)
  }
  return found
}
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close()
    parentPort.close()
    return
  }
  const stmt = prepared(m.sql)
  if (!stmt) return parentPort.postMessage({ id: m.id, notRead: true })
  let rows
  try {
    // Arrays of values for an export's pages: a third of the bytes to copy across, no keys to read back.
    if (m.raw) stmt.raw(true)
    rows = stmt.all(m.params)
  } catch (err) {
    return parentPort.postMessage({ id: m.id, error: { message: err.message, code: err.code, name: err.name } })
  } finally {
    if (m.raw) stmt.raw(false)
  }
  parentPort.postMessage({ id: m.id, rows })
})
`

/** How long a reader goes without answering, work outstanding, before a read starts another beside it. */
const BUSY_MS = 10

/** What a reader answers: the rows, or that the statement is not one it runs. */
export type ReaderAnswer = { rows: unknown[] } | { notRead: true }

interface Pending {
  resolve: (answer: ReaderAnswer) => void
  reject: (err: Error) => void
}

class Reader {
  readonly pending = new Map<number, Pending>()
  /** When it last began work or answered: with work outstanding, how long it has gone without answering. */
  since = 0
  private readonly worker: Worker
  private gone: Error | undefined

  constructor(file: string, driver: string, keep: number, onGone: (reader: Reader) => void) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, keep } })
    // An idle reader must not keep a finished process (a script, a test) alive.
    this.worker.unref()
    this.worker.on('message', (m: { id: number; rows?: unknown[]; notRead?: true; error?: { message: string; code?: string; name?: string } }) => {
      const p = this.pending.get(m.id)
      if (!p) return
      this.since = performance.now()
      this.pending.delete(m.id)
      if (this.pending.size === 0) this.worker.unref()
      if (m.error) p.reject(Object.assign(new Error(m.error.message), { code: m.error.code, name: m.error.name ?? 'SqliteError' }))
      else p.resolve(m.notRead ? { notRead: true } : { rows: m.rows! })
    })
    const fail = (err: Error) => {
      if (this.gone) return
      this.gone = err
      for (const p of this.pending.values()) p.reject(err)
      this.pending.clear()
      onGone(this)
    }
    this.worker.on('error', fail)
    this.worker.on('exit', (code) => fail(new Error(`SQLite reader exited (${code})`)))
  }

  query(id: number, sql: string, params: readonly unknown[], raw: boolean): Promise<ReaderAnswer> {
    if (this.gone) return Promise.reject(this.gone)
    if (this.pending.size === 0) {
      this.worker.ref()
      this.since = performance.now()
    }
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.worker.postMessage(raw ? { id, sql, params, raw } : { id, sql, params })
    })
  }

  async close() {
    if (this.gone) return
    const exited = new Promise((resolve) => this.worker.once('exit', resolve))
    this.worker.postMessage('close')
    await exited
  }
}

/**
 * Up to `size` readers; each query goes to the one with the fewest outstanding, so a long report on one
 * does not queue the short reads behind it while another is free. One reader answers in the order
 * it was asked, as a single connection does; several answer concurrent reads as they finish, so
 * code that needs one read's answer before another's awaits the first (SQLITE_READER_THREADS). A reader that dies (it should
 * not) fails what it held and leaves the pool; when none is left, `query` answers `undefined` and
 * the caller reads on its own connection.
 */
export class SqliteReaders {
  private readers: Reader[] = []
  private nextId = 1
  /** Readers started so far: one at first, more (up to `size`) while every one is busy. */
  private started = 0

  constructor(
    private readonly file: string,
    private readonly size: number,
    private readonly keepStatements: number,
    private readonly driver = createRequire(import.meta.url).resolve('better-sqlite3'),
  ) {
    this.start()
  }

  /** The number of reader threads running now. */
  get threads(): number {
    return this.readers.length
  }

  // A thread holds its own heap (~10 MB): an idle server keeps one, and the others start the first
  // time a read finds every running one held (BUSY_MS without an answer), not for a start-up's few
  // quick reads at once. A reader that died is not replaced.
  private start(): Reader {
    this.started++
    const reader = new Reader(this.file, this.driver, this.keepStatements, (r) => (this.readers = this.readers.filter((x) => x !== r)))
    this.readers.push(reader)
    return reader
  }

  /** `raw`: each row as an array of its values in the statement's column order, not an object. */
  query(sql: string, params: readonly unknown[], raw = false): Promise<ReaderAnswer> | undefined {
    let best: Reader | undefined
    for (const r of this.readers) if (!best || r.pending.size < best.pending.size) best = r
    if (best && best.pending.size > 0 && this.started < this.size && performance.now() - best.since > BUSY_MS) best = this.start()
    return best?.query(this.nextId++, sql, params, raw)
  }

  async close() {
    const readers = this.readers
    this.readers = []
    await Promise.all(readers.map((r) => r.close()))
  }
}
