import type { Redis } from 'ioredis'
import type { Db } from '../db/database'

/** Short-lived values (captcha answers, reset codes): the database by default, Redis when configured. */
export interface KeyValueStore {
  set(key: string, value: string, ttlSeconds: number): Promise<void>
  /** Sets a key that holds no live value, in one step even across instances; false when it held one (and keeps it). */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>
  get(key: string): Promise<string | null>
  /** Reads and deletes in one step, so a value can be used once only, even across instances. */
  take(key: string): Promise<string | null>
  delete(key: string): Promise<void>
}

const deadline = (ttlSeconds: number) => new Date(Date.now() + ttlSeconds * 1000).toISOString()

export class SqlKeyValueStore implements KeyValueStore {
  constructor(private readonly db: Db) {}

  async set(key: string, value: string, ttlSeconds: number) {
    const expiresAt = deadline(ttlSeconds)
    await this.db
      .insertInto('sysCache')
      .values({ cacheKey: key, cacheValue: value, expiresAt })
      .onConflict((oc) => oc.column('cacheKey').doUpdateSet({ cacheValue: value, expiresAt }))
      .execute()
    await this.sweepNowAndThen()
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number) {
    const expiresAt = deadline(ttlSeconds)
    // An expired row is taken over; a live one is left alone, and then no row comes back.
    const row = await this.db
      .insertInto('sysCache')
      .values({ cacheKey: key, cacheValue: value, expiresAt })
      .onConflict((oc) => oc.column('cacheKey').doUpdateSet({ cacheValue: value, expiresAt }).where('sysCache.expiresAt', '<=', new Date().toISOString()))
      .returning('cacheKey')
      .executeTakeFirst()
    await this.sweepNowAndThen()
    return row !== undefined
  }

  // Now and then rather than on a timer the tests would have to stop.
  private async sweepNowAndThen() {
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

  private static stamped(value: string, ttlSeconds: number) {
    return `${Date.now() + ttlSeconds * 1000}|${value}`
  }

  async set(key: string, value: string, ttlSeconds: number) {
    await this.redis.set(this.prefix + key, RedisKeyValueStore.stamped(value, ttlSeconds), 'EX', ttlSeconds)
  }
  async setIfAbsent(key: string, value: string, ttlSeconds: number) {
    return (await this.redis.set(this.prefix + key, RedisKeyValueStore.stamped(value, ttlSeconds), 'EX', ttlSeconds, 'NX')) === 'OK'
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
