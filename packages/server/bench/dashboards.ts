/**
 * Dashboards benchmark (part of `npm run bench`; alone with BENCH_ONLY=dashboards). For each database it
 * starts the bundled server on a fresh database, fills it with the demo data at full size (10,000
 * members, about 1,000,000 rides, the tracking events of 120 days), then
 *
 *  - rebuilds the rollups from nothing (resetRollups + refreshRollups: what the demo does once) and
 *    times it, then adds BENCH_DASHBOARD_NEW_RIDES (10,000) rides and times the incremental refresh
 *    that takes them in (what the 30 s timer or the next answer does);
 *  - loads each dashboard's answer as its page first asks it (GET /analytics/{key}, the default range)
 *    at BENCH_DASHBOARD_CLIENTS (20) keep-alive clients and at 1, as the admin (every country);
 *  - runs the statements of one answer bare, from this process (no HTTP, no kept answer): computed
 *    once with the module's own code, each statement seen then is run again alone, one after another,
 *    and the medians summed. For engagement and performance that is a cache miss (an answer after new
 *    facts): the page is served that figure once per change of the rollups, the kept answer otherwise.
 *
 * Target (issue 43): each answer warm, at 1 client, p50 at most 30 ms.
 */
import { join } from 'node:path'
import { DASHBOARD_DEFAULT_DAYS, DASHBOARDS, type DashboardDef } from '@velo/shared'
import { CompiledQuery, sql } from 'kysely'
import { loadConfig } from '../src/config'
import { createDatabase, dbProbes } from '../src/db/database'
import { DEFAULT_SEED, runDemo } from '../src/demo'
import { bikeStatsDashboard } from '../src/modules/dashboard/bike-stats'
import type { DashboardContext } from '../src/modules/dashboard/context'
import { engagementFigures } from '../src/modules/dashboard/engagement'
import { homeDashboard } from '../src/modules/dashboard/home'
import { performanceFigures } from '../src/modules/dashboard/performance'
import { resolveQuery } from '../src/modules/dashboard/query'
import type { Services } from '../src/platform/services'
import type { AuthContext } from '../src/platform/rbac/auth-context'
import { refreshRollups, resetRollups } from '../src/modules/dashboard/rollups'
import { satisfactionDashboard } from '../src/modules/dashboard/satisfaction'
import { httpLoad, WARMUP_SECONDS } from './measure'
import { type Bench, collectGarbage, type Line, message, results, scratch, signIn, type Target } from './run'
import { ADMIN_PASSWORD, ServerProcess } from './server'
import { fmt, log, ms } from './format'

const TARGET_MS = 30
/** Runs of each statement bare; the median counts. */
const BARE_RUNS = 5

/** One answer's statements as the module computes it, uncached (engagement and performance: their figures without the kept answer). */
const UNCACHED = {
  home: (ctx: DashboardContext) => homeDashboard(ctx),
  engagement: (ctx: DashboardContext) => engagementFigures(ctx),
  performance: (ctx: DashboardContext) => performanceFigures(ctx),
  satisfaction: (ctx: DashboardContext) => satisfactionDashboard(ctx),
  bikeStats: (ctx: DashboardContext) => bikeStatsDashboard(ctx),
} as const

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export async function runDashboards(
  target: Target,
  bench: Pick<Bench, 'seconds' | 'demoScale'> & { clients: number; newRides: number },
  entry: string,
): Promise<{ lines: Line[]; notes: string[] }> {
  const { lines, notes, add } = results(target)
  let server: ServerProcess | undefined
  let own: { destroy: () => Promise<void> } | undefined
  const { dir, database, cleanup } = await scratch(target, 'dashboards', async () => {
    await server?.stop()
    await own?.destroy()
  })
  try {
    log(`${target.name}: starting the server, then the demo data`)
    server = await ServerProcess.start(entry, { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files') })
    const base = `${server.baseUrl}/api`
    const token = await signIn(base)
    const config = loadConfig({ DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), ADMIN_PASSWORD })
    const { db: typed, dialect } = createDatabase(config.database)
    own = typed
    const db = typed
    {
      const demo = await runDemo({ db: typed, dialect, config }, { seed: DEFAULT_SEED, scale: bench.demoScale, force: false })
      notes.push(
        `${target.name}: demo data ${fmt(demo.rows.mem_member ?? 0)} members, ${fmt(demo.rows.mem_ride ?? 0)} rides, ` +
          `${fmt(demo.rows.dash_tracking_event ?? 0)} tracking events, ${fmt(demo.rows.mon_app_upload_log ?? 0)} app uploads, written in ${fmt(demo.seconds, 1)} s.`,
      )
      log(`${target.name}: rebuilding the rollups`)
      await typed.transaction().execute((tx) => resetRollups(tx, dialect))
      collectGarbage()
      const full = await refreshRollups(typed, dialect)
      add('rollups rebuilt from nothing (all rides, events, uploads)', `${fmt(full.ms / 1000, 2)} s, ${fmt(full.rows)} facts`)

      const last = await db.selectFrom('memRide').select((eb) => eb.fn.max('rideId').as('id')).executeTakeFirstOrThrow()
      const sample = await db.selectFrom('memRide').selectAll().orderBy('rideId', 'desc').limit(bench.newRides).execute()
      const now = new Date().toISOString()
      let id = Number(last.id)
      for (let i = 0; i < sample.length; i += 1000) {
        await db
          .insertInto('memRide')
          // PostgreSQL is given a Date; the schema types the column as the text SQLite keeps.
          .values(sample.slice(i, i + 1000).map((r) => ({ ...r, rideId: ++id, uploadTime: dialect === 'postgres' ? sql<string>`${new Date(now)}` : now })))
          .execute()
      }
      const incremental = await refreshRollups(db, dialect)
      add(`rollups refreshed after ${fmt(sample.length)} new rides`, `${ms(incremental.ms)}, ${fmt(incremental.rows)} facts`)
    }
    /** The sum of the medians of one answer's statements run alone, and how many there are. */
    const bare = async (def: DashboardDef): Promise<{ ms: number; statements: number }> => {
      const seen = new Map<string, readonly unknown[]>()
      const probe = dbProbes.get(db)!
      probe.onQuery = (e) => void seen.set(e.query.sql, e.query.parameters)
      const now = new Date()
      const ctx = { services: {} as Services, db, dialect, def, query: resolveQuery(def, {}, now), scope: { all: true }, rows: { all: true }, auth: {} as AuthContext, lang: 'en_US', now, may: () => true } satisfies DashboardContext
      try {
        await UNCACHED[def.key](ctx)
      } finally {
        probe.onQuery = undefined
      }
      let total = 0
      let statements = 0
      for (const [text, parameters] of seen) {
        // The request-time refresh's stamp (a write, at most every 5 s) is not part of the answer's reads.
        if (!/^\s*(select|with)\b/i.test(text)) continue
        const times: number[] = []
        for (let i = 0; i < BARE_RUNS; i++) {
          const t = performance.now()
          await db.executeQuery(CompiledQuery.raw(text, [...parameters]))
          times.push(performance.now() - t)
        }
        total += median(times)
        statements++
      }
      return { ms: total, statements }
    }

    const headers = { authorization: token, currentlanguage: 'en_US' }
    for (const def of Object.values(DASHBOARDS)) {
      const url = `${base}/analytics/${def.key}`
      const check = await fetch(url, { headers })
      const body = (await check.json()) as { code: number; msg: string }
      if (body.code !== 200) throw new Error(`${def.key}: ${body.msg}`)
      const load = (connections: number, seconds: number) => {
        collectGarbage()
        return httpLoad({ url, method: 'GET', headers, connections, warmup: WARMUP_SECONDS, seconds })
      }
      log(`${target.name}: ${def.key}, ${bench.clients} clients, then 1`)
      const many = await load(bench.clients, bench.seconds)
      const one = await load(1, Math.min(bench.seconds, 5))
      if (many.errors || one.errors) notes.push(`${target.name}: ${fmt(many.errors + one.errors)} ${def.key} requests failed or answered non-2xx.`)
      add(`${def.title.en_US} (${DASHBOARD_DEFAULT_DAYS} days) p50 / p99 (${bench.clients} clients)`, `${ms(many.p50)} / ${ms(many.p99)}, ${fmt(many.perSecond)} req/s`)
      add(`${def.title.en_US} (${DASHBOARD_DEFAULT_DAYS} days) p50 warm (1 client; p99 beside)`, `${ms(one.p50)} (p99 ${ms(one.p99)})`, { target: `≤ ${TARGET_MS} ms`, pass: one.p50 <= TARGET_MS })
      const sqlAlone = await bare(def)
      add(`${def.title.en_US} (${DASHBOARD_DEFAULT_DAYS} days) the same SQL bare (${sqlAlone.statements} statements one after another${def.key === 'engagement' || def.key === 'performance' ? ', uncached' : ''})`, ms(sqlAlone.ms))
    }
  } catch (err) {
    add('dashboards', `failed: ${message(err, server)}`, { pass: false })
  } finally {
    await cleanup()
  }
  return { lines, notes }
}
