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
      this.open = this.options.empty()
      try {
        await this.options.write(batch)
      } catch (err) {
        this.options.onError(err)
      }
    }
  }

  /** Takes nothing more and writes what it holds. */
  async close(): Promise<void> {
    await this.flush()
    this.closed = true
  }
}
