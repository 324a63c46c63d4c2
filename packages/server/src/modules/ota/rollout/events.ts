import type { OtaEvent, OtaPart } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'

/** One campaign's events of a moment; the part lets a part's stream skip the others'. */
export interface OtaEventBatch {
  part: OtaPart
  events: OtaEvent[]
}

type Listener = (batch: OtaEventBatch) => void

/**
 * The rollout's live events to every instance's open streams: through a Redis channel when the
 * servers share one (an event raised where a device's report landed reaches a browser on another
 * instance), else straight to this process's listeners.
 */
export interface OtaEventBus {
  publish(batch: OtaEventBatch): Promise<void>
  subscribe(listener: Listener): () => void
  close(): Promise<void>
}

function deliver(listeners: Iterable<Listener>, batch: OtaEventBatch, logger: FastifyBaseLogger) {
  for (const listener of listeners) {
    try {
      listener(batch)
    } catch (err) {
      logger.error({ err }, 'OTA event listener failed')
    }
  }
}

export function createOtaEvents(redis: Redis | undefined, channel: string, logger: FastifyBaseLogger): OtaEventBus {
  const listeners = new Set<Listener>()
  const subscribe = (listener: Listener) => {
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }
  if (!redis) {
    return {
      // On a later tick, as through Redis: a publisher never runs listeners inside its own call.
      publish: async (batch) => void setImmediate(() => deliver(listeners, batch, logger)),
      subscribe,
      close: async () => listeners.clear(),
    }
  }
  // A connection in subscriber mode can do nothing else: it gets one of its own.
  const subscriber = redis.duplicate()
  subscriber.on('error', (err) => logger.warn({ err }, 'Redis subscriber of OTA events'))
  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel) return
    try {
      deliver(listeners, JSON.parse(message) as OtaEventBatch, logger)
    } catch (err) {
      logger.warn({ err }, 'unreadable OTA event message on Redis')
    }
  })
  // Not awaited (the module registers synchronously): only events of the first moments after start can be missed.
  subscriber.subscribe(channel).catch((err: unknown) => logger.error({ err }, 'could not subscribe to OTA events'))
  return {
    publish: async (batch) => void (await redis.publish(channel, JSON.stringify(batch))),
    subscribe,
    async close() {
      listeners.clear()
      await subscriber.quit().catch(() => subscriber.disconnect())
    },
  }
}
