import { existsSync } from 'node:fs'
import { Redis } from 'ioredis'
import { createDatabase } from '../src/db/database'
import { AdminPasswordRefused, ADMIN_USER_NAME, resetAdminPassword } from '../src/ops/admin/password'
import { RedisSessionStore, type SessionStore, SqlSessionStore } from '../src/platform/auth/session-store'
import { commandConfig, commandLine, databaseWhere, fail } from './cli'

// npm run admin:password
// A new password for the administrator ("admin") on the server's database, for when it is lost:
// ADMIN_PASSWORD's, or a generated one printed here. Ends the administrator's sessions, clears a
// lockout and writes a row to the operation log (operator "cli"). README, "Lost the admin password?".

const USAGE = `usage: [ADMIN_PASSWORD=<new password>] npm run admin:password
  Sets a new password for the user "${ADMIN_USER_NAME}" on the server's database: ADMIN_PASSWORD's
  (6 to 20 letters, digits or special characters), else a generated one, printed once. The
  administrator's sessions end, a lockout after failed sign-ins is cleared, and the operation log
  says so. The server may be running.
  --help     this text
DATABASE_URL (and REDIS_URL, where sessions live with it) are read as the server reads them.`

commandLine(USAGE, { options: { help: { type: 'boolean', default: false } } })

// Read as the server reads it; a relative path in an option is where the command was typed.
const config = commandConfig()
const where = databaseWhere(config)

// Opening a missing SQLite file would create an empty database: say where the server's is instead.
if (config.database.dialect === 'sqlite' && config.database.file !== ':memory:' && !existsSync(config.database.file)) {
  fail(`There is no database at ${where}: start the server once (its first start prints the administrator's password), or set DATABASE_URL or DATA_DIR as the server has them`, 2)
}

const { db } = createDatabase(config.database)
const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 }) : undefined
const sessions: SessionStore = redis ? new RedisSessionStore(redis, `${config.redisPrefix}session:`, `${config.redisPrefix}auth:stamp`) : new SqlSessionStore(db)
try {
  const result = await resetAdminPassword({ db, sessions, password: config.adminPassword, operator: 'cli' })
  console.log(`New password of ${ADMIN_USER_NAME} in ${where}`)
  if (result.generated) console.log(`\n  ${ADMIN_USER_NAME} / ${result.password}\n  (printed once; set ADMIN_PASSWORD to choose it)\n`)
  else console.log('  (the one in ADMIN_PASSWORD)')
  console.log(`The administrator's sessions have ended and any lockout is cleared; the operation log has a row by "cli".`)
} catch (e) {
  if (e instanceof AdminPasswordRefused) fail(e.message, 2)
  throw e
} finally {
  await db.destroy()
  if (redis) await redis.quit().catch(() => redis.disconnect())
}
