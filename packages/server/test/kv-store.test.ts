import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { type KeyValueStore, RedisKeyValueStore, SqlKeyValueStore } from '../src/platform/kv-store'
import { useTestApp } from './harness'
import { waitFor } from './iot-helpers'

const t = useTestApp()
// The SQL store on the suite's database; the Redis one too when REDIS_URL is set.
const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL) : undefined
afterAll(() => redis?.quit())

const stores: [string, () => KeyValueStore][] = [
  ['SQL', () => new SqlKeyValueStore(t.app.services.db)],
  ...(redis ? [['Redis', () => new RedisKeyValueStore(redis, `velo:test:${randomBytes(4).toString('hex')}:`)] as [string, () => KeyValueStore]] : []),
]

describe.each(stores)('%s key-value store: setIfAbsent', (_name, store) => {
  it('sets a key once, keeps the first value, and takes the key again once it expired', async () => {
    const kv = store()
    const key = `once:${randomBytes(6).toString('hex')}`
    expect(await kv.setIfAbsent(key, 'first', 1)).toBe(true)
    expect(await kv.setIfAbsent(key, 'second', 60)).toBe(false)
    expect(await kv.get(key)).toBe('first')
    await waitFor(() => kv.setIfAbsent(key, 'third', 60), 'the key to expire', 5000)
    expect(await kv.get(key)).toBe('third')
  })

  it('lets exactly one of many concurrent callers set a key', async () => {
    const kv = store()
    const key = `race:${randomBytes(6).toString('hex')}`
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => kv.setIfAbsent(key, String(i), 60)))
    expect(results.filter(Boolean)).toHaveLength(1)
    expect(await kv.get(key)).toBe(String(results.indexOf(true)))
  })
})
