import { Readable } from 'node:stream'
import memoryPersistence from 'aedes-persistence'
import { topicMatches } from './gateway'

const LEVELS = 3

/** velo/v1/{sn} of a topic, or of a filter whose first three levels are literal; else null. */
function bucketOf(topic: string): string | null {
  let end = -1
  for (let i = 0; i < LEVELS; i++) {
    end = topic.indexOf('/', end + 1)
    if (end < 0) return null
  }
  const key = topic.slice(0, end)
  return /[+#]/.test(key) || key.startsWith('$') ? null : key
}

/**
 * aedes' memory persistence, with its retained messages also indexed by their first three levels.
 * Its own answers a SUBSCRIBE by testing the filter against every retained message, so with one
 * retained presence per device, N devices connecting cost N²/2 topic matches: 50 million for
 * 10,000, which made connecting them take a minute of CPU. A filter whose first three levels are
 * literal (every device's velo/v1/{sn}/down/#) looks in its own bucket only; any other filter (the
 * debugger's velo/v1/+/up/#) is answered by the library as before.
 */
export function indexedMemoryPersistence() {
  const base = memoryPersistence()
  // The library's typings do not cover the callback-style methods aedes 1.2 calls: these are they.
  const persistence = base as unknown as {
    storeRetained: (packet: { topic: string; payload: Buffer }, cb?: (err?: Error) => void) => unknown
    createRetainedStreamCombi: (patterns: string[]) => unknown
  }
  const buckets = new Map<string, Map<string, unknown>>()
  const storeRetained = persistence.storeRetained.bind(persistence)
  persistence.storeRetained = (packet: { topic: string; payload: Buffer }, cb?: (err?: Error) => void) => {
    const key = bucketOf(packet.topic)
    if (key !== null) {
      const bucket = buckets.get(key) ?? new Map()
      // An empty retained payload clears the topic.
      if (packet.payload.length === 0) bucket.delete(packet.topic)
      else bucket.set(packet.topic, { ...packet })
      if (bucket.size) buckets.set(key, bucket)
      else buckets.delete(key)
    }
    // aedes 1.2 awaits what this returns.
    return storeRetained(packet, cb)
  }
  const combined = persistence.createRetainedStreamCombi.bind(persistence)
  persistence.createRetainedStreamCombi = (patterns: string[]) => {
    if (!patterns.every((p) => bucketOf(p) !== null)) return combined(patterns)
    const found: unknown[] = []
    for (const p of patterns) for (const [topic, packet] of buckets.get(bucketOf(p)!) ?? []) if (topicMatches(p, topic)) found.push(packet)
    return Readable.from(found)
  }
  return base
}
