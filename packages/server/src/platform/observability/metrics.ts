import { timingSafeEqual } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { dbProbes } from '../../db/database'
import type { Services } from '../services'
import { openEventStreamCount } from '../sse'

/** Scrape-time counts (commands, jobs, devices) are read at most this often: a scrape storm costs one query each. */
const SNAPSHOT_MS = 5_000
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5]

interface Snapshot {
  commands: { state: string; n: number }[]
  jobs: { kind: string; state: string; n: number }[]
  devicesOnline: number
}

/** One app's metrics: a registry of its own, as tests build several apps in one process. */
export class AppMetrics {
  readonly registry = new Registry()
  readonly httpRequests: Counter<'method' | 'route' | 'status'>
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>
  readonly dbQuery: Histogram<'kind'>
  readonly mqttMessages: Counter<'direction'>
  readonly ingestSaturatedSeconds: Counter
  /** Brings the counters read from the gateway up to date (set once the app's gateway is known). */
  beforeScrape: () => void = () => {}
  readonly rows: Counter<'direction' | 'entity'>
  /** The metrics listener's port once it listens (METRICS_PORT 0 takes a free one). */
  listenerPort?: number
  private snapshot?: { at: number; value: Promise<Snapshot> }

  constructor(private readonly services: Services) {
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry, prefix: 'velo_' })
    this.httpRequests = new Counter({
      name: 'velo_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    })
    this.httpDuration = new Histogram({
      name: 'velo_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    })
    this.dbQuery = new Histogram({
      name: 'velo_db_query_duration_seconds',
      help: 'Database query time, by statement kind',
      labelNames: ['kind'],
      buckets: QUERY_BUCKETS,
      registers,
    })
    this.mqttMessages = new Counter({
      name: 'velo_mqtt_messages_total',
      help: "MQTT messages of the gateway's client: in (from devices) and out (to devices)",
      labelNames: ['direction'],
      registers,
    })
    this.ingestSaturatedSeconds = new Counter({
      name: 'velo_ingest_saturated_seconds_total',
      help: 'Seconds this instance spent saturated: device messages waited, unacknowledged, for earlier ones to be written',
      registers,
    })
    this.rows = new Counter({
      name: 'velo_rows_total',
      help: 'Rows imported (written) and exported, by entity',
      labelNames: ['direction', 'entity'],
      registers,
    })
    new Gauge({
      name: 'velo_sse_clients',
      help: 'Open event streams (server-sent events) of this instance',
      registers,
      collect() {
        this.set(openEventStreamCount(services))
      },
    })
    // A failed read (the database away) leaves these series out of the scrape, not the scrape failed.
    const snap = () => this.read().catch(() => undefined)
    new Gauge({
      name: 'velo_mqtt_devices_online',
      help: 'Devices online (all instances: read from the database)',
      registers,
      async collect() {
        const s = await snap()
        if (s) this.set(s.devicesOnline)
      },
    })
    new Gauge({
      name: 'velo_commands',
      help: 'Device commands by state (all instances)',
      labelNames: ['state'],
      registers,
      async collect() {
        const s = await snap()
        this.reset()
        for (const c of s?.commands ?? []) this.set({ state: c.state }, c.n)
      },
    })
    new Gauge({
      name: 'velo_jobs',
      help: 'Background jobs by kind and state (all instances)',
      labelNames: ['kind', 'state'],
      registers,
      async collect() {
        const s = await snap()
        this.reset()
        for (const j of s?.jobs ?? []) this.set({ kind: j.kind, state: j.state }, j.n)
      },
    })
    const probe = dbProbes.get(services.db)
    if (probe) {
      const dbQuery = this.dbQuery
      // The statement's kind, not its text: a label per SQL would be unbounded.
      probe.onQuery = (e) => dbQuery.observe({ kind: KINDS[e.query.query.kind] ?? 'other' }, e.queryDurationMillis / 1000)
    }
    const pool = probe?.pool
    if (pool) {
      new Gauge({
        name: 'velo_db_pool_connections',
        help: 'PostgreSQL pool connections: total, idle and clients waiting for one',
        labelNames: ['state'],
        registers,
        collect() {
          this.set({ state: 'total' }, pool.totalCount)
          this.set({ state: 'idle' }, pool.idleCount)
          this.set({ state: 'waiting' }, pool.waitingCount)
        },
      })
    }
  }

  private read(): Promise<Snapshot> {
    const now = Date.now()
    if (this.snapshot && now - this.snapshot.at < SNAPSHOT_MS) return this.snapshot.value
    const value = this.query()
    this.snapshot = { at: now, value }
    // A failed read is not kept: the next scrape tries again.
    value.catch(() => {
      if (this.snapshot?.value === value) this.snapshot = undefined
    })
    return value
  }

  private async query(): Promise<Snapshot> {
    const { db } = this.services
    const [commands, jobs, devices] = await Promise.all([
      db.selectFrom('iotCommand').select((eb) => ['status', eb.fn.countAll<number>().as('n')]).groupBy('status').execute(),
      db.selectFrom('sysJob').select((eb) => ['kind', 'state', eb.fn.countAll<number>().as('n')]).groupBy(['kind', 'state']).execute(),
      db.selectFrom('iotDevice').select((eb) => eb.fn.countAll<number>().as('n')).where('online', '=', 1).executeTakeFirst(),
    ])
    return {
      commands: commands.map((c) => ({ state: String(c.status), n: Number(c.n) })),
      jobs: jobs.map((j) => ({ kind: j.kind, state: j.state, n: Number(j.n) })),
      devicesOnline: Number(devices?.n ?? 0),
    }
  }
}

const KINDS: Record<string, string> = {
  SelectQueryNode: 'select',
  InsertQueryNode: 'insert',
  UpdateQueryNode: 'update',
  DeleteQueryNode: 'delete',
  RawNode: 'raw',
}

const byServices = new WeakMap<object, AppMetrics>()

/** Counts rows imported or exported (instrumentation hooks in platform/crud and platform/jobs). */
export function countRows(services: object, direction: 'import' | 'export', entity: string, n: number): void {
  if (n > 0) byServices.get(services)?.rows.inc({ direction, entity }, n)
}

/** Counts an import's written rows; answers its result. */
export function countImported<R extends { inserted: number; updated: number }>(services: object, entity: string, result: R): R {
  countRows(services, 'import', entity, result.inserted + result.updated)
  return result
}

/** Passes an export's batches on, counting their rows. */
export async function* countedRows<T>(services: object, entity: string, batches: AsyncIterable<T[]>): AsyncIterable<T[]> {
  for await (const rows of batches) {
    countRows(services, 'export', entity, rows.length)
    yield rows
  }
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '')
  const wanted = Buffer.from(token)
  return given.length === wanted.length && timingSafeEqual(given, wanted)
}

/**
 * Metrics: request counts and latency by route pattern, the database's query time (and pool), MQTT
 * messages, scrape-time counts, and prom-client's process metrics, on a registry of this app's.
 * GET /metrics on the main port takes METRICS_TOKEN as a bearer token (404 without one configured);
 * METRICS_PORT opens a second listener (METRICS_HOST, 127.0.0.1 by default) that serves only /metrics.
 * With neither, nothing is measured: answers null.
 */
export async function installMetrics(app: FastifyInstance): Promise<AppMetrics | null> {
  const { services } = app
  const { config } = services
  const token = config.metricsToken
  const hidden = { schema: { hide: true } }
  // Nobody can read them: nothing is measured (no hooks, no query timing), and /metrics is not there.
  if (!token && !config.metrics) {
    app.get('/metrics', hidden, async (_req, reply) => reply.code(404).type('text/plain; charset=utf-8').send('Not Found'))
    return null
  }
  const metrics = new AppMetrics(services)
  byServices.set(services, metrics)

  app.addHook('onResponse', (req, reply, done) => {
    // The pattern, never the URL: ids and queries would make a series per request.
    const labels = { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }
    metrics.httpRequests.inc(labels)
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000)
    done()
  })

  const client = app.iot.gateway.client
  const onSend = (packet: { cmd: string }) => {
    if (packet.cmd === 'publish') metrics.mqttMessages.inc({ direction: 'out' })
  }
  client.on('packetsend', onSend)
  // Device messages in: what the gateway took, from its client or from the embedded broker in process.
  const gate = app.iot.gateway.gate
  let countedIn = 0
  let countedSaturated = 0
  metrics.beforeScrape = () => {
    const stats = gate.stats
    metrics.mqttMessages.inc({ direction: 'in' }, stats.taken - countedIn)
    countedIn = stats.taken
    metrics.ingestSaturatedSeconds.inc(stats.saturatedSeconds - countedSaturated)
    countedSaturated = stats.saturatedSeconds
  }
  new Gauge({
    name: 'velo_ingest_pending',
    help: 'Device messages this instance took in and has not yet written (at most INGEST_MAX_PENDING)',
    registers: [metrics.registry],
    collect() {
      this.set(gate.stats.pending)
    },
  })
  new Gauge({
    name: 'velo_ingest_saturated',
    help: '1 while this instance takes no more device messages until earlier ones are written (INGEST_MAX_PENDING reached)',
    registers: [metrics.registry],
    collect() {
      this.set(gate.stats.saturated ? 1 : 0)
    },
  })
  // Both directions present from the start, so a rate reads 0 rather than nothing.
  metrics.mqttMessages.inc({ direction: 'in' }, 0)
  metrics.mqttMessages.inc({ direction: 'out' }, 0)

  const scrape = async (reply: FastifyReply) => {
    metrics.beforeScrape()
    const text = await metrics.registry.metrics()
    return reply.type(metrics.registry.contentType).header('cache-control', 'no-store').send(text)
  }
  app.get('/metrics', hidden, async (req: FastifyRequest, reply) => {
    if (!token) return reply.code(404).type('text/plain; charset=utf-8').send('Not Found')
    if (!tokenMatches(req.headers.authorization, token)) {
      return reply.code(401).header('www-authenticate', 'Bearer').type('text/plain; charset=utf-8').send('Unauthorized')
    }
    return scrape(reply)
  })

  let server: Server | undefined
  if (config.metrics) {
    const { host, port } = config.metrics
    app.addHook('onReady', async () => {
      server = createServer((req, res) => {
        if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
          res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found')
          return
        }
        metrics.beforeScrape()
        metrics.registry.metrics().then(
          (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' }).end(text),
          (err: unknown) => {
            app.log.error({ err }, 'metrics could not be collected')
            res.writeHead(500).end()
          },
        )
      })
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject)
        server!.listen(port, host, () => {
          server!.off('error', reject)
          resolve()
        })
      })
      metrics.listenerPort = (server.address() as AddressInfo).port
      app.log.info({ host, port: metrics.listenerPort }, 'metrics listening')
    })
  }
  app.addHook('onClose', async () => {
    client.off('packetsend', onSend)
    const probe = dbProbes.get(services.db)
    if (probe) probe.onQuery = undefined
    // A scraper's keep-alive connection would hold the close.
    server?.closeAllConnections()
    if (server) await new Promise<void>((resolve) => server!.close(() => resolve()))
    metrics.registry.clear()
  })
  return metrics
}
