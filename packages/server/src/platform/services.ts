import { Redis } from 'ioredis'
import type { AppConfig } from '../config'
import { createDatabase, type Db, type Dialect } from '../db/database'
import { Captchas, MemoryCaptchaStore } from './auth/captcha'
import { RedisSessionStore, type SessionStore, SqlSessionStore } from './auth/session-store'
import { ConfigValues } from './config-keys'
import { type KeyValueStore, RedisKeyValueStore, SqlKeyValueStore } from './kv-store'
import { Mailer } from './mailer'
import { Storage } from './storage'

/** Everything a route needs, built once from the configuration. */
export interface Services {
  config: AppConfig
  db: Db
  dialect: Dialect
  redis?: Redis
  kv: KeyValueStore
  sessions: SessionStore
  captchas: Captchas
  configValues: ConfigValues
  mailer: Mailer
  storage: Storage
  close(): Promise<void>
}

export function createServices(config: AppConfig): Services {
  const { db, dialect } = createDatabase(config.database)
  const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 }) : undefined
  const kv = redis ? new RedisKeyValueStore(redis, `${config.redisPrefix}kv:`) : new SqlKeyValueStore(db)
  return {
    config,
    db,
    dialect,
    redis,
    kv,
    sessions: redis ? new RedisSessionStore(redis, `${config.redisPrefix}session:`) : new SqlSessionStore(db),
    // Kept out of the database: every visit to the sign-in page asks for one, signed in or not.
    captchas: new Captchas(redis ? kv : new MemoryCaptchaStore()),
    configValues: new ConfigValues(db),
    mailer: new Mailer(db, config.smtpUrl, config.mailFrom, config.mailDir),
    storage: new Storage(config.storageDir),
    async close() {
      await db.destroy()
      if (redis) await redis.quit().catch(() => redis.disconnect())
    },
  }
}
