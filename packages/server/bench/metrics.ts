/**
 * Metrics benchmark (part of `npm run bench`; alone with BENCH_ONLY=metrics). For each database it
 * starts the bundled server on a fresh database with BENCH_METRICS_ROWS (100,000) login-log rows,
 * then loads the login-log list (the engine part's request) at BENCH_CONNECTIONS clients for
 * BENCH_SECONDS, alternately with metrics off (no METRICS_TOKEN: nothing is measured) and on
 * (METRICS_TOKEN set: every request, query and message counted), BENCH_METRICS_ROUNDS (4) times each,
 * each on a fresh server process; the best run of each side is compared: the cost in % (target < 3 %).
 * Then it times BENCH_METRICS_SCRAPES (20) scrapes of /metrics on the server that served the load,
 * one every 250 ms (so some read the commands and jobs again and some find them cached). Each run also
 * reads the server process's CPU time over its measured window (/proc): the CPU a request costs, with
 * metrics off and on, is the steadier measure of their cost on a machine the database shares.
 */
import { join } from 'node:path'
import { systemEntities } from '@velo/shared'
import { createDatabase, dynamicDb } from '../src/db/database'
import { loginLogRows } from './data'
import { fmt, log, ms } from './format'
import { httpLoad, percentile, WARMUP_SECONDS } from './measure'
import { collectGarbage, type Line, message, results, scratch, signIn, type Target } from './run'
import { ServerProcess } from './server'

const TARGET_COST_PCT = 3
const TOKEN = 'bench-metrics-token-0123456789'
const loginLog = systemEntities.loginLog

export interface MetricsBench {
  rows: number
  seconds: number
  connections: number
  rounds: number
  scrapes: number
}

export async function runMetrics(target: Target, bench: MetricsBench, entry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const { lines, notes, add } = results(target)
  let server: ServerProcess | undefined
  const { dir, database, cleanup } = await scratch(target, 'metrics', async () => {
    await server?.stop()
  })
  const start = async (on: boolean) => {
    const port = server?.port
    await server?.stop()
    server = await ServerProcess.start(entry, { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), ...(on ? { METRICS_TOKEN: TOKEN } : {}) }, port)
    return server
  }
  try {
    log(`${target.name}: starting the server, then ${fmt(bench.rows)} login-log rows`)
    let base = `${(await start(false)).baseUrl}/api`
    const { db } = createDatabase(database.config)
    try {
      // The table as its definition names it.
      const byName = dynamicDb(db)
      for (const batch of loginLogRows(bench.rows, new Date(), 1000)) await byName.insertInto(loginLog.table).values(batch).execute()
    } finally {
      await db.destroy()
    }
    const day = (d: Date) => d.toISOString().slice(0, 10)
    const now = new Date()
    const body = JSON.stringify({
      pageNum: 1,
      pageSize: 20,
      status: '1',
      loginTime: [day(new Date(now.getTime() - 89 * 24 * 3600_000)), day(now)],
      orderByColumn: 'loginTime',
      isAsc: 'descending',
    })

    const best = { off: 0, on: 0 }
    const cpuPerRequest: Record<'off' | 'on', number[]> = { off: [], on: [] }
    for (let round = 0; round < bench.rounds; round++) {
      for (const side of ['off', 'on'] as const) {
        const running = await start(side === 'on')
        base = `${running.baseUrl}/api`
        const token = await signIn(base)
        collectGarbage()
        let cpuFrom: number | null = null
        let cpuUsed: number | null = null
        const run = await httpLoad({
          window: {
            open: () => (cpuFrom = running.cpuMillis()),
            close: () => {
              const to = running.cpuMillis()
              cpuUsed = to !== null && cpuFrom !== null ? to - cpuFrom : null
            },
          },
          url: `${base}${loginLog.path}/list`,
          method: 'POST',
          headers: { authorization: token, currentlanguage: 'en_US', 'content-type': 'application/json' },
          body,
          connections: bench.connections,
          warmup: WARMUP_SECONDS,
          seconds: bench.seconds,
        })
        if (run.errors) notes.push(`${target.name}: ${fmt(run.errors)} list requests failed with metrics ${side}.`)
        const cpu = cpuUsed !== null && run.count ? ((cpuUsed as number) * 1000) / run.count : null
        if (cpu !== null) cpuPerRequest[side].push(cpu)
        log(`${target.name}: metrics ${side}, round ${round + 1}: ${fmt(run.perSecond)} req/s${cpu === null ? '' : `, ${fmt(cpu)} µs server CPU a request`}`)
        best[side] = Math.max(best[side], run.perSecond)
      }
    }
    const cost = ((best.off - best.on) / best.off) * 100
    add(`list throughput, metrics off (${bench.connections} clients, best of ${bench.rounds})`, `${fmt(best.off)} req/s`)
    add(`list throughput, metrics on (${bench.connections} clients, best of ${bench.rounds})`, `${fmt(best.on)} req/s`)
    add('cost of metrics on list throughput', `${fmt(cost, 1)} %`, { target: `< ${TARGET_COST_PCT} %`, pass: cost < TARGET_COST_PCT })
    // Throughput on a shared 2-core machine moves a few % from run to run (on PostgreSQL the database
    // takes its share of the same cores); the server's CPU time a request is the steadier figure.
    if (cpuPerRequest.off.length && cpuPerRequest.on.length) {
      const off = median(cpuPerRequest.off)
      const on = median(cpuPerRequest.on)
      add(`server CPU a list request, metrics off / on (median of ${bench.rounds})`, `${fmt(off)} µs / ${fmt(on)} µs`)
      const cpuCost = ((on - off) / off) * 100
      add('cost of metrics in server CPU a request', `${fmt(cpuCost, 1)} %`, { target: `< ${TARGET_COST_PCT} %`, pass: cpuCost < TARGET_COST_PCT })
    }

    // The server that served the last load (metrics on) is scraped as Prometheus would.
    const root = base.slice(0, -'/api'.length)
    const times: number[] = []
    let bytes = 0
    for (let i = 0; i < bench.scrapes; i++) {
      const started = performance.now()
      const res = await fetch(`${root}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
      const text = await res.text()
      times.push(performance.now() - started)
      if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`)
      bytes = text.length
      await new Promise((r) => setTimeout(r, 250))
    }
    const sorted = Float64Array.from(times).sort()
    add(`/metrics scrape p50 / max (${bench.scrapes} scrapes)`, `${ms(percentile(sorted, 50))} / ${ms(sorted[sorted.length - 1]!)} (${fmt(bytes / 1024)} KB)`)
  } catch (err) {
    add('metrics benchmark', `failed: ${message(err, server)}`, { pass: false })
  } finally {
    await cleanup()
  }
  return { lines, notes }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
