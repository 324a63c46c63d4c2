import type { Redis } from 'ioredis'
import type { AppConfig } from '../config'
import { createDatabase, type Db, type Dialect } from '../db/database'
import { lazyRequire } from '../lib/lazy-require'
import { Captchas, MemoryCaptchaStore } from './auth/captcha'
import { SecondFactors } from './auth/factors/second-factors'
import { SecretBox } from './auth/factors/secret-box'
import { StepUp } from './auth/factors/step-up'
import { announcingEnds, RedisSessionStore, type SessionStore, SqlSessionStore } from './auth/session-store'
import { ConfigValues } from './config-keys'
import { type KeyValueStore, RedisKeyValueStore, SqlKeyValueStore } from './kv-store'
import { Jobs } from './jobs'
import { Mailer } from './mailer'
import { AuthCache } from './rbac/auth-cache'
import { loadAuthContext } from './rbac/auth-context'
import { Storage } from './storage'

/** Everything a route needs, built once from the configuration. */
export interface Services {
  config: AppConfig
  db: Db
  dialect: Dialect
  redis?: Redis
  kv: KeyValueStore
  sessions: SessionStore
  /** Signed-in contexts kept per session; changes to what they are made of are announced to it, after commit. */
  authCache: AuthCache
  captchas: Captchas
  /** Staff identity: second factors and second proofs before dangerous actions (platform/auth/factors). */
  identity: { factors: SecondFactors; stepUp: StepUp }
  configValues: ConfigValues
  mailer: Mailer
  storage: Storage
  /** Background jobs: queue, cancel, list, and this instance's worker (started with the app). */
  jobs: Jobs
  close(): Promise<void>
}

export function createServices(config: AppConfig): Services {
  const { db, dialect } = createDatabase(config.database, { readerThreads: config.sqliteReaderThreads })
  // ioredis is loaded only when Redis is configured: the embedded default never needs it (issue 43).
  const redis = config.redisUrl ? new (lazyRequire<typeof import('ioredis')>('ioredis')().Redis)(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 }) : undefined
  const kv = redis ? new RedisKeyValueStore(redis, `${config.redisPrefix}kv:`) : new SqlKeyValueStore(db)
  // With Redis, every instance reads the stamp of everyone's rights beside each session (rbac/auth-cache.ts).
  const stampKey = `${config.redisPrefix}auth:stamp`
  const sessions = redis ? new RedisSessionStore(redis, `${config.redisPrefix}session:`, stampKey) : new SqlSessionStore(db)
  const authCache = new AuthCache({
    sessions,
    context: (userId) => loadAuthContext(db, userId),
    sessionTtlMinutes: config.sessionTtlMinutes,
    redis: redis && { client: redis, stampKey },
  })
  const factors = new SecondFactors(db, kv, SecretBox.fromConfig(config.dataDir, config.identityKey))
  const services: Services = {
    config,
    db,
    dialect,
    redis,
    kv,
    sessions: announcingEnds(sessions, (change) => authCache.changed(change)),
    authCache,
    // Kept out of the database: every visit to the sign-in page asks for one, signed in or not.
    captchas: new Captchas(redis ? kv : new MemoryCaptchaStore()),
    identity: { factors, stepUp: new StepUp(kv, factors, config.stepUpMinutes) },
    configValues: new ConfigValues(db),
    mailer: new Mailer(db, config.smtpUrl, config.mailFrom, config.mailDir),
    storage: new Storage(config.storageDir),
    jobs: new Jobs(() => services, redis, config.redisPrefix),
    async close() {
      // Running jobs first write their outcome (or go back to the queue) while the database is open.
      await services.jobs.close()
      await authCache.close()
      await db.destroy()
      if (redis) await redis.quit().catch(() => redis.disconnect())
    },
  }
  return services
}
