import { isValidTopicFilter, isValidTopicName, MAX_TOPIC_LENGTH } from '@velo/shared'
import { z } from 'zod'
import { bilingual } from '../platform/i18n/zod-messages'
import type { Gateway, ObservedMessage } from './types'
import { repeat } from '../platform/jobs/schedule'

/** Payloads shown in the browser are cut here: a firmware chunk on a watched topic would flood it. */
export const SHOWN_PAYLOAD_BYTES = 16 * 1024
/** The most an admin may publish by hand. */
export const MAX_PUBLISH_BYTES = 64 * 1024
/**
 * Messages per second one watcher is sent, live and replayed-retained each; the rest are counted and
 * reported as dropped.
 */
export const WATCH_RATE_PER_SECOND = 200

export const topicFilterSchema = z
  .string()
  .refine(isValidTopicFilter, {
    message: bilingual({
      en_US: `Not a valid topic filter: up to ${MAX_TOPIC_LENGTH} characters, + fills a whole level, # only as the last level, no $share/`,
      zh_CN: `主题过滤器无效：最多 ${MAX_TOPIC_LENGTH} 个字符，+ 必须占据整个层级，# 只能作为最后一级，不能使用 $share/`,
    }),
  })

export const topicNameSchema = z.string().refine(isValidTopicName, {
  message: bilingual({
    en_US: `Not a valid topic: 1 to ${MAX_TOPIC_LENGTH} characters, without + or # and not starting with $`,
    zh_CN: `主题无效：1 到 ${MAX_TOPIC_LENGTH} 个字符，不能包含 + 或 #，不能以 $ 开头`,
  }),
})

export const publishPayloadSchema = z.string().refine((p) => Buffer.byteLength(p, 'utf8') <= MAX_PUBLISH_BYTES, {
  message: bilingual({ en_US: 'The payload may be at most 64 kB', zh_CN: '消息内容最多 64 kB' }),
})

/** One observed message as the browser receives it. */
export interface WatchedMessage extends ObservedMessage {
  /** Bytes of the whole payload; `payload` holds at most SHOWN_PAYLOAD_BYTES of them. */
  size: number
  truncated: boolean
}

export function forDisplay(m: ObservedMessage): WatchedMessage {
  const size = Buffer.byteLength(m.payload, 'utf8')
  if (size <= SHOWN_PAYLOAD_BYTES) return { ...m, size, truncated: false }
  // Cut on the byte limit, then drop a character split in two by the cut.
  const payload = Buffer.from(m.payload, 'utf8').subarray(0, SHOWN_PAYLOAD_BYTES).toString('utf8').replace(/\uFFFD$/, '')
  return { ...m, payload, size, truncated: true }
}

export interface WatchListener {
  message(m: WatchedMessage): void
  /** How many messages were left out in the last second (of them, `retained` were replayed retained ones). */
  dropped(count: number, retained: number): void
}

/**
 * The administrators' message-queue debugger: watch a topic filter live, publish a test message.
 * Watching `#` is allowed (admins may see everything) but costs a broker-wide subscription for as
 * long as the page is open; the per-watcher rate cap keeps a busy fleet from flooding the browser.
 */
export class MqDebugger {
  constructor(private readonly gateway: Pick<Gateway, 'watch' | 'publishRaw'>) {}

  /**
   * Starts watching; the answer stops it. A new subscription first gets the broker's retained
   * messages (a fleet's presence: thousands), flagged retain; live traffic never is. Each has a
   * budget of its own, so the replay cannot crowd out what happens now.
   */
  async watch(filter: string, listener: WatchListener): Promise<() => Promise<void>> {
    const budget = { live: WATCH_RATE_PER_SECOND, retained: WATCH_RATE_PER_SECOND }
    const dropped = { live: 0, retained: 0 }
    const stopRefill = repeat(1000, () => {
      budget.live = budget.retained = WATCH_RATE_PER_SECOND
      if (dropped.live + dropped.retained > 0) listener.dropped(dropped.live + dropped.retained, dropped.retained)
      dropped.live = dropped.retained = 0
    })
    let unwatch: () => Promise<void>
    try {
      unwatch = await this.gateway.watch(filter, (m) => {
        const kind = m.retain ? 'retained' : 'live'
        if (budget[kind] <= 0) {
          dropped[kind]++
          return
        }
        budget[kind]--
        listener.message(forDisplay(m))
      })
    } catch (err) {
      stopRefill()
      throw err
    }
    return async () => {
      stopRefill()
      await unwatch()
    }
  }

  publish(topic: string, payload: string, options: { qos: 0 | 1; retain: boolean }): Promise<void> {
    return this.gateway.publishRaw(topic, payload, options)
  }
}
