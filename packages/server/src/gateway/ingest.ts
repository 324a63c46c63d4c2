import Denque from 'denque'

/**
 * How many device messages this instance has taken in and not yet settled (their rows committed),
 * with a cap. Below the cap a message is taken at once; at the cap it waits, unacknowledged, until
 * earlier ones are settled. Waiting is the back-off the protocol states (docs/iot-protocol.md ›
 * Overload): on the embedded broker the device's connection is not read further and its QoS 1
 * messages stay with it; behind an external broker the gateway stops reading and the broker keeps
 * them. So an overload costs latency, never acknowledged data, and memory stays bounded by the cap.
 */
export class IngestGate {
  private pending = 0
  /**
   * Tens of thousands wait while the ingest is full. Not an array: past ~16,000 entries its store
   * is a large object V8 cannot trim from the front, so each shift() copied the whole queue — at 2×
   * the limit that copying took half the main thread and the stored rate fell by a third.
   */
  private readonly waiting = new Denque<() => void>()
  private stopped = false
  private saturatedAt: number | null = null
  private saturatedMs = 0
  private drained: (() => void) | null = null
  /** Messages taken in since start, and those that had to wait for room. */
  taken = 0
  waited = 0

  constructor(
    readonly cap: number,
    private readonly onSaturation: (saturated: boolean, pending: number) => void = () => {},
    /** Nothing is taken until open(): messages of a server still starting wait for every handler to be there. */
    private paused = false,
  ) {}

  /** Starts taking messages (the server is ready: every handler of device messages is registered). */
  open(): void {
    if (!this.paused) return
    this.paused = false
    this.wake()
  }

  /** Takes one message in: undefined at once, or a promise resolved when there is room (never, once stopped). */
  admit(): Promise<void> | undefined {
    if (!this.stopped && !this.paused && this.pending < this.cap && this.waiting.length === 0) {
      this.pending++
      this.taken++
      return undefined
    }
    if (this.paused) return new Promise((resolve) => this.waiting.push(resolve))
    this.waited++
    if (this.saturatedAt === null) {
      this.saturatedAt = Date.now()
      this.onSaturation(true, this.pending)
    }
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  /** One message taken in is settled: written, or refused for good. */
  settle(): void {
    this.pending--
    this.wake()
    if (this.pending === 0) this.drained?.()
  }

  private wake() {
    while (!this.stopped && !this.paused && this.pending < this.cap && this.waiting.length) {
      this.pending++
      this.taken++
      this.waiting.shift()!()
    }
    if (this.saturatedAt !== null && this.waiting.length === 0 && !this.stopped) {
      this.saturatedMs += Date.now() - this.saturatedAt
      this.saturatedAt = null
      this.onSaturation(false, this.pending)
    }
  }

  /**
   * Takes nothing more (shutdown): messages still waiting are never acknowledged, so their devices
   * or the broker keep them for the next instance. Resolves once everything taken in is settled, or
   * after `graceMs`.
   */
  stop(graceMs: number): Promise<boolean> {
    this.stopped = true
    this.waiting.clear()
    if (this.pending === 0) return Promise.resolve(true)
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), graceMs)
      this.drained = () => {
        clearTimeout(timer)
        resolve(true)
      }
    })
  }

  get stats() {
    return {
      pending: this.pending,
      waiting: this.waiting.length,
      cap: this.cap,
      saturated: this.saturatedAt !== null,
      saturatedSeconds: (this.saturatedMs + (this.saturatedAt === null ? 0 : Date.now() - this.saturatedAt)) / 1000,
      taken: this.taken,
      waited: this.waited,
    }
  }
}
