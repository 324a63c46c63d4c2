export interface WriteBehindOptions<B> {
  /** How long the first item waits for company before the batch is written. */
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
  private draining: Promise<void> | null = null
  private closed = false

  constructor(private readonly options: WriteBehindOptions<B>) {
    this.open = options.empty()
  }

  /** Adds to the open batch (the function mutates it) and schedules its write. */
  add(fill: (batch: B) => void): void {
    if (this.closed) return
    fill(this.open)
    this.schedule()
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

  private schedule() {
    const size = this.options.size(this.open)
    if (size >= this.options.maxSize) void this.flush()
    else if (!this.timer && size > 0) {
      this.timer = setTimeout(() => void this.flush(), this.options.delayMs)
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
