import DataLoader from 'dataloader'

/** Keys one statement reads at most: well under either database's limit of bound parameters. */
export const KEYS_A_READ = 500

/**
 * One key's answer, read together with every key asked for in the same tick: `read` answers what it
 * found for a batch of keys, `missing` stands for a key it did not find. Parts that keep a
 * per-device cache ask for each device as it comes due; with a fleet of 20,000 one query each was
 * most of an instance's work (docs/ops/capacity.md › Per-device reads at fleet scale). No cache of
 * its own (DataLoader's is off): the callers keep theirs, with their own lifetimes.
 */
export function readTogether<K, V>(read: (keys: readonly K[]) => Promise<Map<K, V>>, missing: V): (key: K) => Promise<V> {
  const loader = new DataLoader<K, V>(
    async (keys) => {
      const found = await read(keys)
      return keys.map((k) => (found.has(k) ? found.get(k)! : missing))
    },
    { cache: false, maxBatchSize: KEYS_A_READ },
  )
  return (key) => loader.load(key)
}
