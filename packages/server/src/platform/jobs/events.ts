import type { Redis } from 'ioredis'
import type { JobRow } from './jobs'

/**
 * What instances tell each other about jobs: a job changed (its owner's browsers follow it), a cancel
 * for whichever instance holds the job, and a new job for whichever worker is idle.
 */
export type JobMessage = { type: 'job'; job: JobRow } | { type: 'cancel'; jobId: number } | { type: 'wake' }

type Listener = (message: JobMessage) => void

/** This process's listeners; how messages reach them is the transport's. */
export abstract class JobBus {
  private readonly listeners = new Set<Listener>()

  abstract publish(message: JobMessage): Promise<void>

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  protected deliver(message: JobMessage, onError: (err: unknown) => void) {
    for (const listener of this.listeners) {
      // One listener that throws (a closed stream) must not keep the message from the others.
      try {
        listener(message)
      } catch (err) {
        onError(err)
      }
    }
  }

  async close() {
    this.listeners.clear()
  }
}

/** One server: messages go straight to this process's listeners, on a later tick as through Redis. */
export class LocalJobBus extends JobBus {
  constructor(private readonly onError: (err: unknown) => void) {
    super()
  }

  async publish(message: JobMessage) {
    setImmediate(() => this.deliver(message, this.onError))
  }
}

/**
 * Several servers: every message goes through one Redis channel and each instance delivers what comes
 * back to its own listeners, so a browser follows its job whichever instance runs it.
 */
export class RedisJobBus extends JobBus {
  private readonly subscriber: Redis
  /** Resolves once this instance listens. */
  readonly ready: Promise<unknown>

  constructor(
    private readonly redis: Redis,
    private readonly channel: string,
    private readonly onError: (err: unknown) => void,
  ) {
    super()
    // A connection in subscriber mode can do nothing else: it gets one of its own.
    this.subscriber = redis.duplicate()
    this.subscriber.on('error', onError)
    this.subscriber.on('message', (from: string, text: string) => {
      if (from !== channel) return
      let message: JobMessage
      try {
        message = JSON.parse(text) as JobMessage
      } catch (err) {
        onError(err)
        return
      }
      this.deliver(message, onError)
    })
    this.ready = this.subscriber.subscribe(channel).catch(onError)
  }

  async publish(message: JobMessage) {
    await this.redis.publish(this.channel, JSON.stringify(message))
  }

  override async close() {
    await super.close()
    await this.subscriber.quit().catch(() => this.subscriber.disconnect())
  }
}
