/**
 * Dashboards benchmark (part of `npm run bench`; alone with BENCH_ONLY=dashboards). For each database it
 * starts the bundled server on a fresh database, fills it with the demo data at full size (10,000
 * members, about 1,000,000 rides, the tracking events of 120 days), then
 *
 *  - rebuilds the rollups from nothing (resetRollups + refreshRollups: what the demo does once) and
 *    times it, then adds BENCH_DASHBOARD_NEW_RIDES (10,000) rides and times the incremental refresh
 *    that takes them in (what the 30 s timer or the next answer does);
 *  - loads each dashboard's answer as its page first asks it (GET /analytics/{key}, the default range)
 *    at BENCH_DASHBOARD_CLIENTS (20) keep-alive clients and at 1, as the admin (every country).
 *
 * Target: each answer under 200 ms at p99 with 1 client (the "a dashboard answers in under
 * 200 ms"). No bare-SQL column: an answer is a dozen statements, and their sum is what the page waits for.
 */
import { join } from 'node:path'
import { DASHBOARD_DEFAULT_DAYS, DASHBOARDS } from '@velo/shared'
import { sql } from 'kysely'
import { loadConfig } from '../src/config'
import { createDatabase } from '../src/db/database'
import { DEFAULT_SEED, runDemo } from '../src/demo'
import { refreshRollups, resetRollups } from '../src/modules/dashboard/rollups'
import { httpLoad, WARMUP_SECONDS } from './measure'
import { type Bench, collectGarbage, type Line, message, results, scratch, signIn, type Target } from './run'
import { ADMIN_PASSWORD, ServerProcess } from './server'
import { fmt, log, ms } from './format'

const TARGET_MS = 200

export async function runDashboards(
  target: Target,
  bench: Pick<Bench, 'seconds' | 'demoScale'> & { clients: number; newRides: number },
  entry: string,
): Promise<{ lines: Line[]; notes: string[] }> {
  const { lines, notes, add } = results(target)
  let server: ServerProcess | undefined
  const { dir, database, cleanup } = await scratch(target, 'dashboards', async () => {
    await server?.stop()
  })
  try {
    log(`${target.name}: starting the server, then the demo data`)
    server = await ServerProcess.start(entry, { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files') })
    const base = `${server.baseUrl}/api`
    const token = await signIn(base)
    const config = loadConfig({ DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), ADMIN_PASSWORD })
    const { db: typed, dialect } = createDatabase(config.database)
    const db = typed
    try {
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
    } finally {
      await typed.destroy()
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
      add(`${def.title.en_US} (${DASHBOARD_DEFAULT_DAYS} days) p50 / p99 (1 client)`, `${ms(one.p50)} / ${ms(one.p99)}`, { target: `< ${TARGET_MS} ms`, pass: one.p99 < TARGET_MS })
    }
  } catch (err) {
    add('dashboards', `failed: ${message(err, server)}`, { pass: false })
  } finally {
    await cleanup()
  }
  return { lines, notes }
}
