import { stat } from 'node:fs/promises'
import { connect } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { knownMigrations } from '../../db/migrate'

/** Each check gives up after this long: a probe must answer before the orchestrator's own timeout. */
const CHECK_TIMEOUT_MS = 2_000

export type Check = () => Promise<void>

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)
    timer.unref()
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/** Opens and closes a TCP connection: the embedded broker's listener takes connections. */
function tcpAnswers(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve()
    })
    socket.once('error', reject)
  })
}

/** The readiness checks of an app, by name (the names go to the server log only). */
export async function readinessChecks(app: FastifyInstance): Promise<Record<string, Check>> {
  const { services } = app
  const { db, dialect, redis, config } = services
  const known = knownMigrations(dialect)
  const target = config.database
  // The file the server opened: replaced or gone (a volume unmounted, a restore copied over it), the
  // server would go on writing into a file nobody will find again.
  const sqliteFile = target.dialect === 'sqlite' && target.file !== ':memory:' ? target.file : undefined
  const opened = sqliteFile ? (await stat(sqliteFile)).ino : undefined
  const checks: Record<string, Check> = {
    database: async () => {
      await sql`select 1`.execute(db)
      if (sqliteFile && (await stat(sqliteFile)).ino !== opened) throw new Error('the database file is not the one the server opened')
    },
    migrations: async () => {
      for (const [table, names] of Object.entries(known)) {
        if (names.length === 0) continue
        const { rows } = await sql<{ name: string }>`select name from ${sql.table(table)}`.execute(db.withoutPlugins())
        const applied = new Set(rows.map((r) => r.name))
        const missing = names.filter((n) => !applied.has(n))
        if (missing.length) throw new Error(`${missing.length} migrations of ${table} not applied`)
      }
    },
    broker: async () => {
      if (app.broker) await tcpAnswers(app.broker.port)
      else if (!app.iot.gateway.connected) throw new Error('the MQTT client is not connected to the broker')
    },
    // JOB_CONCURRENCY=0 runs no jobs here by design: nothing to be running.
    jobs: async () => {
      if (config.jobConcurrency > 0 && !services.jobs.working) throw new Error('the job worker is not running')
    },
  }
  if (redis) {
    checks.redis = async () => {
      await redis.ping()
    }
  }
  return checks
}

/** Runs every check at once; answers the names of those that failed, each with why (for the log). */
export async function failedChecks(checks: Record<string, Check>, timeoutMs = CHECK_TIMEOUT_MS): Promise<{ check: string; reason: string }[]> {
  const names = Object.keys(checks)
  const outcomes = await Promise.allSettled(names.map((name) => within(timeoutMs, checks[name]!())))
  return outcomes.flatMap((o, i) => (o.status === 'rejected' ? [{ check: names[i]!, reason: o.reason instanceof Error ? o.reason.message : String(o.reason) }] : []))
}

/**
 * GET /health/live and /health/ready at the root (not under API_PREFIX), without a token, rate limit
 * or operation log. Outside gets only {status}; which check failed, and why, goes to the server log.
 */
export async function installHealth(app: FastifyInstance): Promise<void> {
  const checks = await readinessChecks(app)
  const hidden = { schema: { hide: true } }
  app.get('/health/live', hidden, async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }))
  app.get('/health/ready', hidden, async (_req, reply) => {
    const failed = await failedChecks(checks)
    reply.header('cache-control', 'no-store')
    if (failed.length === 0) return reply.send({ status: 'ok' })
    app.log.warn({ failed }, 'not ready')
    return reply.code(503).send({ status: 'unavailable' })
  })
}
