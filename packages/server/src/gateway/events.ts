import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import type { IotEvent, IotEvents } from './types'

/** The Redis channel every instance publishes to and listens on. */
export const IOT_EVENTS_CHANNEL = 'velo:iot:events'

export interface IotEventBus extends IotEvents {
  /** Several events in one delivery (one Redis message): what the write-behind buffers publish. */
  publishBatch(events: IotEvent[]): Promise<void>
}

type Listener = (event: IotEvent) => void

/** Runs each listener on its own: one that throws must not keep the event from the others. */
function deliver(listeners: Iterable<Listener>, events: IotEvent[], logger: FastifyBaseLogger) {
  for (const listener of listeners) {
    for (const event of events) {
      try {
        listener(event)
      } catch (err) {
        logger.error({ err }, 'IoT event listener failed')
      }
    }
  }
}

/** This process's listeners; how events reach them is the transport's. */
abstract class ListeningBus implements IotEventBus {
  protected readonly listeners = new Set<Listener>()

  publish(event: IotEvent) {
    return this.publishBatch([event])
  }

  abstract publishBatch(events: IotEvent[]): Promise<void>

  subscribe(listener: Listener) {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  async close() {
    this.listeners.clear()
  }
}

/** One server: events go straight to this process's listeners. */
class LocalIotEvents extends ListeningBus {
  constructor(private readonly logger: FastifyBaseLogger) {
    super()
  }

  async publishBatch(events: IotEvent[]) {
    // Delivered on a later tick, as through Redis: a publisher never runs listeners inside its own call.
    if (events.length) setImmediate(() => deliver(this.listeners, events, this.logger))
  }
}

/**
 * Several servers: every event goes through one Redis channel, and each instance delivers what comes
 * back to its own listeners, so every browser sees every event once, whichever instance it reached.
 */
class RedisIotEvents extends ListeningBus {
  private constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly channel: string,
    private readonly logger: FastifyBaseLogger,
  ) {
    super()
    subscriber.on('message', (from: string, message: string) => {
      if (from !== channel) return
      let events: IotEvent[]
      try {
        events = JSON.parse(message) as IotEvent[]
      } catch (err) {
        logger.warn({ err }, 'unreadable IoT event message on Redis')
        return
      }
      deliver(this.listeners, events, this.logger)
    })
  }

  /** Resolves once this instance listens, so nothing published after start is missed. */
  static async start(redis: Redis, channel: string, logger: FastifyBaseLogger): Promise<RedisIotEvents> {
    // A connection in subscriber mode can do nothing else: it gets one of its own.
    const subscriber = redis.duplicate()
    subscriber.on('error', (err) => logger.warn({ err }, 'Redis subscriber of IoT events'))
    await subscriber.subscribe(channel)
    return new RedisIotEvents(redis, subscriber, channel, logger)
  }

  async publishBatch(events: IotEvent[]) {
    if (events.length) await this.redis.publish(this.channel, JSON.stringify(events))
  }

  override async close() {
    await super.close()
    await this.subscriber.quit().catch(() => this.subscriber.disconnect())
  }
}

/** `channel`: another one keeps deployments (or test databases) that share a Redis apart. */
export async function createIotEvents(redis: Redis | undefined, logger: FastifyBaseLogger, channel = IOT_EVENTS_CHANNEL): Promise<IotEventBus> {
  return redis ? RedisIotEvents.start(redis, channel, logger) : new LocalIotEvents(logger)
}
