import type { Redis } from 'ioredis'
import type { Db } from '../db/database'

/** Short-lived values (captcha answers, reset codes): the database by default, Redis when configured. */
export interface KeyValueStore {
  set(key: string, value: string, ttlSeconds: number): Promise<void>
  get(key: string): Promise<string | null>
  /** Reads and deletes in one step, so a value can be used once only, even across instances. */
  take(key: string): Promise<string | null>
  delete(key: string): Promise<void>
}

export class SqlKeyValueStore implements KeyValueStore {
  constructor(private readonly db: Db) {}

  async set(key: string, value: string, ttlSeconds: number) {
    const expiresAt = new Date(Date.now() + ttlSeconds * 1000).toISOString()
    await this.db
      .insertInto('sysCache')
      .values({ cacheKey: key, cacheValue: value, expiresAt })
      .onConflict((oc) => oc.column('cacheKey').doUpdateSet({ cacheValue: value, expiresAt }))
      .execute()
    // Sweep expired rows now and then rather than on a timer the tests would have to stop.
    if (Math.random() < 0.05) {
      await this.db.deleteFrom('sysCache').where('expiresAt', '<', new Date().toISOString()).execute()
    }
  }

  async get(key: string) {
    const row = await this.db
      .selectFrom('sysCache')
      .select('cacheValue')
      .where('cacheKey', '=', key)
      .where('expiresAt', '>', new Date().toISOString())
      .executeTakeFirst()
    return row?.cacheValue ?? null
  }

  async take(key: string) {
    const row = await this.db
      .deleteFrom('sysCache')
      .where('cacheKey', '=', key)
      .returning(['cacheValue', 'expiresAt'])
      .executeTakeFirst()
    if (!row || row.expiresAt <= new Date().toISOString()) return null
    return row.cacheValue
  }

  async delete(key: string) {
    await this.db.deleteFrom('sysCache').where('cacheKey', '=', key).execute()
  }
}

/** Redis keeps the value with a TTL; the deadline is stored too, so both stores judge expiry by the same clock. */
export class RedisKeyValueStore implements KeyValueStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'velo:kv:',
  ) {}

  private static live(raw: string | null): string | null {
    if (raw === null) return null
    const bar = raw.indexOf('|')
    return Number(raw.slice(0, bar)) > Date.now() ? raw.slice(bar + 1) : null
  }

  async set(key: string, value: string, ttlSeconds: number) {
    await this.redis.set(this.prefix + key, `${Date.now() + ttlSeconds * 1000}|${value}`, 'EX', ttlSeconds)
  }
  async get(key: string) {
    return RedisKeyValueStore.live(await this.redis.get(this.prefix + key))
  }
  async take(key: string) {
    return RedisKeyValueStore.live(await this.redis.getdel(this.prefix + key))
  }
  async delete(key: string) {
    await this.redis.del(this.prefix + key)
  }
}
