import { AppError } from '../../../platform/errors'

/** The caps of concurrent runs (config keys tool.sql.maxConcurrentPerUser and tool.sql.maxConcurrent). */
export interface RunCaps {
  perUser: number
  total: number
}

/**
 * The statements running on this instance. Each holds a child process (SQLite) or a connection
 * (PostgreSQL) for up to tool.sql.timeoutSeconds, and a few at once slow every other request, so
 * they are capped per user and in all; the next one is refused at once (429) rather than queued
 * behind them, where it would hold a request open for as long again.
 */
export class SqlRunLimiter {
  private total = 0
  private readonly byUser = new Map<number, number>()

  /** Statements running now. */
  get running(): number {
    return this.total
  }

  /** Takes a slot for the user, or throws 429 naming the cap that is full. The release runs once however often it is called. */
  acquire(userId: number, caps: RunCaps): () => void {
    const mine = this.byUser.get(userId) ?? 0
    if (mine >= caps.perUser) throw new AppError(429, 'sql.busyUser', { max: caps.perUser })
    if (this.total >= caps.total) throw new AppError(429, 'sql.busy', { max: caps.total })
    this.total++
    this.byUser.set(userId, mine + 1)
    let held = true
    return () => {
      if (!held) return
      held = false
      this.total--
      const left = (this.byUser.get(userId) ?? 1) - 1
      if (left > 0) this.byUser.set(userId, left)
      else this.byUser.delete(userId)
    }
  }
}

/** One limiter per app (keyed by its services): apps in one process (the tests) count apart. */
const limiters = new WeakMap<object, SqlRunLimiter>()

export function sqlRunLimiter(services: object): SqlRunLimiter {
  let limiter = limiters.get(services)
  if (!limiter) limiters.set(services, (limiter = new SqlRunLimiter()))
  return limiter
}
