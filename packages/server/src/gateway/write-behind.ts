import { sql, type Transaction } from 'kysely'
import type { Db } from '../db/database'
import type { Database } from '../db/schema'

export interface WriteBehindOptions<B> {
  /** How long the first item waits for company before the batch is written (add() may ask for less). */
  delayMs: number
  /** A batch this large is written at once. */
  maxSize: number
  empty: () => B
  size: (batch: B) => number
  /** Writes one batch (one transaction); batches are written one after another, never at once, and may exceed maxSize under load. */
  write: (batch: B) => Promise<void>
  onError: (err: unknown) => void
}

/**
 * Collects device traffic for a few tens of milliseconds and writes it in one transaction: a
 * thousand devices reporting at once cost a handful of writes, not a thousand. Handlers only add to
 * the open batch, so they never wait for the database.
 */
export class WriteBehind<B> {
  private open: B
  /** Settled when the open batch is written: made only when someone waits for it. */
  private openWritten: { promise: Promise<void>; resolve: () => void; reject: (err: unknown) => void } | null = null
  private timer: NodeJS.Timeout | null = null
  /** When the timer fires (performance.now()). */
  private due = 0
  private draining: Promise<void> | null = null
  private closed = false

  constructor(private readonly options: WriteBehindOptions<B>) {
    this.open = options.empty()
  }

  /** Adds to the open batch (the function mutates it) and schedules its write, in delayMs at most when given. */
  add(fill: (batch: B) => void, delayMs?: number): void {
    if (this.closed) return
    fill(this.open)
    this.schedule(delayMs)
  }

  /** Adds like add(), and resolves once the batch it went into is written (rejects if that write failed, or once closed). */
  addWritten(fill: (batch: B) => void): Promise<void> {
    if (this.closed) return Promise.reject(new Error('closed: not written'))
    fill(this.open)
    if (!this.openWritten) {
      let resolve!: () => void
      let reject!: (err: unknown) => void
      const promise = new Promise<void>((res, rej) => {
        resolve = res
        reject = rej
      })
      this.openWritten = { promise, resolve, reject }
    }
    const { promise } = this.openWritten
    this.schedule()
    return promise
  }

  private schedule(delayMs = this.options.delayMs) {
    const size = this.options.size(this.open)
    if (size >= this.options.maxSize) void this.flush()
    else if (size > 0) {
      const due = performance.now() + delayMs
      if (this.timer && this.due <= due) return
      if (this.timer) clearTimeout(this.timer)
      this.due = due
      this.timer = setTimeout(() => void this.flush(), delayMs)
      this.timer.unref()
    }
  }

  /** Resolves when everything added so far is written. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.draining ??= this.drain().finally(() => {
      this.draining = null
    })
    return this.draining
  }

  // While one batch is written the next one grows: under load batches get larger, not more numerous.
  private async drain() {
    while (this.options.size(this.open) > 0) {
      const batch = this.open
      const written = this.openWritten
      this.open = this.options.empty()
      this.openWritten = null
      try {
        await this.options.write(batch)
        written?.resolve()
      } catch (err) {
        this.options.onError(err)
        written?.reject(err)
      }
    }
  }

  /** Takes nothing more and writes what it holds. */
  async close(): Promise<void> {
    await this.flush()
    this.closed = true
  }
}

interface Part {
  write: (tx: Transaction<Database>) => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (err: unknown) => void
}

const SAVEPOINT = sql.raw('velo_shared_part')

/**
 * Writes of several buffers (the telemetry rows, the device state, the message log) that fall due
 * in the same turn of the event loop, or while an earlier one is committed, go into one transaction:
 * on SQLite every commit appends each page its transaction touched to the WAL (and every 1,000
 * pages the committing thread checkpoints them into the file), and the device state, written apart
 * every 50 ms, appended the same pages of iot_device many times a second (docs/ops/capacity.md › CPU
 * per report: ~23 commits a second at 5,000 reports/s became 4–7). Each write runs in a
 * savepoint of its own, so one that fails is undone alone and the others are committed, as when each
 * had its own transaction; a failed commit fails them all. Only for SQLite: PostgreSQL commits on
 * its own server, and its telemetry batch needs no transaction at all.
 */
export class SharedCommits {
  private queued: Part[] = []
  private scheduled = false
  private running = false

  constructor(private readonly db: Db) {}

  /** Runs `write` in the next shared transaction; resolves with its answer once that is committed. */
  run<T>(write: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queued.push({ write, resolve: resolve as (value: unknown) => void, reject })
      this.schedule()
    })
  }

  private schedule() {
    if (this.scheduled || this.running) return
    this.scheduled = true
    // setImmediate: the batches one report started fall due in the same timers phase and all join.
    setImmediate(() => {
      this.scheduled = false
      this.running = true
      void this.commit().finally(() => {
        this.running = false
        if (this.queued.length) this.schedule()
      })
    })
  }

  private async commit() {
    const parts = this.queued
    this.queued = []
    const answers: ({ ok: true; value: unknown } | { ok: false; err: unknown })[] = []
    try {
      await this.db.transaction().execute(async (tx) => {
        if (parts.length === 1) {
          answers.push({ ok: true, value: await parts[0]!.write(tx) })
          return
        }
        for (const part of parts) {
          await sql`savepoint ${SAVEPOINT}`.execute(tx)
          try {
            answers.push({ ok: true, value: await part.write(tx) })
          } catch (err) {
            await sql`rollback to ${SAVEPOINT}`.execute(tx)
            answers.push({ ok: false, err })
          }
          await sql`release ${SAVEPOINT}`.execute(tx)
        }
      })
    } catch (err) {
      for (const part of parts) part.reject(err)
      return
    }
    parts.forEach((part, i) => {
      const answer = answers[i]!
      if (answer.ok) part.resolve(answer.value)
      else part.reject(answer.err)
    })
  }
}

/** `write` in the shared transaction where there is one (SQLite), else in a transaction of its own. */
export function inCommit<T>(db: Db, commits: SharedCommits | undefined, write: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
  return commits ? commits.run(write) : db.transaction().execute(write)
}
