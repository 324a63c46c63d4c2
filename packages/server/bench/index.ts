/**
 * Entity engine benchmark (`npm run bench`): not a test, a measurement. For each database it
 *
 *  1. bundles the server as `npm run build` does and starts it (src/main.ts) in a child process on a
 *     fresh database, so the memory read from /proc is the product's own;
 *  2. writes BENCH_ROWS login-log rows (sys_login_log, the `loginLog` definition) through the app's
 *     database layer in batched multi-row inserts;
 *  3. loads POST /monitor/logininfor/list (two filters and a sort, 20 rows) with 50 keep-alive HTTP
 *     clients (steady state only), then the same page for 1 client, then runs the very SQL the
 *     engine's repository compiles for that request bare on the same database (SQLite: one
 *     connection, back to back, as better-sqlite3 is synchronous; PostgreSQL: 50 workers on a pool of
 *     50); the throughput ratio is the tracked figure;
 *  4. restarts the server and exports every row (POST /monitor/logininfor/export), restarts it and
 *     exports them again as a job (POST …/export/job: the worker writes the file, which then
 *     downloads; bench/export-job.ts), then restarts it and imports BENCH_IMPORT_ROWS rows (POST /system/i18n/import, a file built from the import
 *     template), taking the server's peak resident memory over each, while another client lists the
 *     dictionary types (POST /system/dict/list, page 1, as the signed-in admin) every 100 ms: its
 *     longest wait, target 100 ms, shows whether the phase holds the event loop or the database
 *     (on SQLite, the one writer connection) from everyone else;
 *
 * then moves BENCH_TRANSITIONS (10000) repair service orders one step each (POST /service/repairOrder/{id}/submit,
 *     20 clients; bench/transitions.ts): p50/p99 and steps per second;
 *
 * and prints one markdown table. Progress goes to stderr, the table to stdout.
 *
 * SQLite runs (in a temporary directory) unless BENCH_SQLITE=0 with a PostgreSQL server named.
 * PostgreSQL runs when BENCH_DATABASE_URL, or a DATABASE_URL starting with postgres://, names a
 * server: a database bench_<random> is created there and dropped at the end. Sizes: BENCH_ROWS (1000000), BENCH_IMPORT_ROWS (100000), BENCH_SECONDS
 * per load run (10), BENCH_CONNECTIONS (50). BENCH_SIZE=smoke makes every part small (each size
 * variable given still wins), warms up for 0.25 s instead of 2, keeps each fleet part's first server process, caps uploads (and so the import bomb) at 5 MB, uses the embedded broker only (unless
 * BENCH_IOT_BROKERS says otherwise), runs two parts at a time and judges no target: about two minutes in all. BENCH_SERVER_ARGS adds node flags to the server (e.g. --cpu-prof
 * --cpu-prof-dir=/tmp/prof when looking into a figure).
 *
 * Then the members (bench/members.ts): the demo data at full size, the member list and a member
 * drawer's rides at 50 and 1 clients, and their SQL bare; then every ride exported (POST /member/ride/export and
 * as a job: rows/s, peak RSS over idle) beside the export's read bare (bench/ride-export.ts).
 *
 * Then the frame numbers (bench/orders.ts): BENCH_FRAME_NUMBERS (100000) generated for one order, the same
 * INSERTs bare, and a label sheet of BENCH_LABELS (10000).
 *
 * Then the App content (bench/content.ts): BENCH_MESSAGE_MEMBERS (100000) members written in one
 * INSERT … SELECT, a message pushed to all of them with deliverMessage (seconds, rows/s, peak RSS) beside
 * the same INSERT … SELECT bare, and the app's version check under BENCH_APP_CLIENTS (200) clients.
 *
 * Then the IoT gateway (bench/iot.ts): BENCH_IOT_DEVICES (10000) simulated devices connect to the
 * embedded broker and to Mosquitto (BENCH_MQTT_URL, default mqtt://127.0.0.1:1883, when it answers;
 * BENCH_IOT_BROKERS=embedded or external picks one), and one ping goes to all of them.
 * BENCH_IOT_CONCURRENCY (200) connects at a time, BENCH_IOT_TIMEOUT (30) s command timeout.
 *
 * Then the IoT fleet (bench/iot-config.ts, iot-telemetry.ts, iot-alarms.ts on bench/fleet-harness.ts), on the
 * same databases and brokers: a configuration template pushed to BENCH_IOT_DEVICES devices (every
 * acknowledgement in, server CPU and RSS); BENCH_TELEMETRY_DEVICES (default BENCH_IOT_DEVICES) sending
 * telemetry every 30 s for BENCH_TELEMETRY_SECONDS (300), then 30 days of history for
 * BENCH_TELEMETRY_FILL_DEVICES (100) and one device's day through the API and bare (BENCH_TELEMETRY_QUERIES,
 * 200); an alarm storm of BENCH_ALARM_DEVICES (1000) devices raising a fault at once.
 *
 * Then the browser (bench/browser.ts): the built web app (BENCH_WEB_DIR, default packages/web/dist;
 * `npm run build` first) in headless Chromium: the time until the sign-in page's password field is
 * visible (median of BENCH_BROWSER_LOADS, 10, cold loads) and the bytes of the five most used pages;
 * then the fleet map (bench/fleet-map.ts; BENCH_BROWSER_ONLY=map measures it alone).
 *
 * Then a file upload (bench/files.ts): one BENCH_FILE_MB (200) MB file through a `file` field's route,
 * with the server's RSS growth, the rate and the digests against sha256sum/md5sum.
 *
 * Then OTA (bench/ota.ts, on bench/fleet-harness.ts): a BENCH_OTA_MB (2) MB image to BENCH_OTA_DEVICES (10000)
 * devices through a campaign without a rate limit, on each database and broker (time until all
 * succeeded, bytes the devices received, server CPU and RSS), then a campaign limited to
 * BENCH_OTA_RATE (1000) devices a minute for BENCH_OTA_RATE_SECONDS (90): the measured rate.
 *
 * Then the dashboards (bench/dashboards.ts): the demo data at full size, the rollups rebuilt and refreshed, and
 * each dashboard's answer at BENCH_DASHBOARD_CLIENTS (20) and 1 clients.
 *
 * Then the metrics (bench/metrics.ts): the list's throughput with metrics off and on (METRICS_TOKEN), the cost
 * in % (target < 3 %), and a /metrics scrape's duration. BENCH_METRICS_ROWS (100000), BENCH_METRICS_ROUNDS (4),
 * BENCH_METRICS_SCRAPES (20).
 *
 * Then the telemetry ingest (bench/ingest.ts): BENCH_INGEST_DEVICES (2,000) devices reporting at rising rates
 * (BENCH_INGEST_RATES, BENCH_INGEST_STEP_SECONDS each), the rows stored per second, memory and CPU, one step at twice the
 * highest rate stored in full (BENCH_INGEST_OVERLOAD=0 skips it), and the same rows
 * bare (SQLite: the multi-row INSERT; PostgreSQL: COPY); then BENCH_INGEST_BIG_DEVICES (20,000) every 5 s.
 *
 * Then the geofences (bench/geofence.ts): positions a second checked against BENCH_GEOFENCES (1,000) fences for
 * BENCH_GEOFENCE_DEVICES (12,000) moving devices, by the evaluator alone and through the telemetry handler.
 *
 * BENCH_ONLY=engine, members, orders, content, iot, fleet, ingest, ota, browser, files, dashboards, metrics or geofence runs one part.
 * BENCH_ONLY=engine BENCH_IMPORT_ONLY=1 runs the engine part's import alone (no login-log rows, list,
 * export or transitions before it), for looking into the import figure; BENCH_LIST_ONLY=1 stops after
 * the list, BENCH_EXPORT_ONLY=1 runs the rows and the two exports alone.
 */
import { cpus, loadavg } from 'node:os'
import { systemEntities } from '@velo/shared'
import { type BrowserBench, runBrowser } from './browser'
import { type ContentBench, runContent } from './content'
import { buildFilesServer, type FilesBench, runFiles } from './files'
import { type IotBench, iotBrokers, runIot } from './iot'
import { runMembers } from './members'
import { runDashboards } from './dashboards'
import { runMetrics } from './metrics'
import { type OrdersBench, runOrders } from './orders'
import { type Bench, type Line, runTarget, type Target } from './run'
import { buildServer } from './server'
import { fmt } from './format'
import { FILE_RESERVE, readOpenFileLimits } from '../src/gateway/file-limit'

const SIZES = ['full', 'smoke'] as const
const size = process.env.BENCH_SIZE || 'full'
if (!(SIZES as readonly string[]).includes(size)) throw new Error(`BENCH_SIZE must be one of ${SIZES.join(', ')}, not ${JSON.stringify(size)}`)
/**
 * BENCH_SIZE=smoke makes every part small: a run of a couple of minutes that shows each part works.
 * Its figures say nothing against targets set for the full size, so they are not judged.
 */
const SMOKE = size === 'smoke'
// The import bomb fills the server's upload limit: a smoke run's server takes 5 MB (the bench and the
// servers it starts read the same variable), unless the caller set a limit.
if (SMOKE && !process.env.IMPORT_MAX_MB) process.env.IMPORT_MAX_MB = '5'

/** A size from its variable, else the full size's default, or the smoke run's. */
const int = (name: string, full: number, smoke = full) => {
  const fallback = SMOKE ? smoke : full
  const v = process.env[name]
  if (v === undefined || v === '') return fallback
  const n = Number(v.replace(/_/g, ''))
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, not ${JSON.stringify(v)}`)
  return n
}

/**
 * The realistic fleet's devices, no more than this machine's open-file limit carries: the simulator
 * (this process) and the broker each hold one socket a device, and both run under the hard limit this
 * process has (the server and the bench's Mosquitto are its children). Past it the devices over the
 * limit connect and drop in a loop, which measures the limit rather than the ingest
 * (docs/ops/capacity.md › Open files). The note says when the fleet was made smaller.
 */
function bigFleetThatFits(asked: number, notes: string[]): number {
  const limits = readOpenFileLimits()
  if (!limits || !Number.isFinite(limits.hard) || asked + FILE_RESERVE <= limits.hard) return asked
  const fits = Math.max(500, limits.hard - FILE_RESERVE)
  notes.push(`The realistic fleet is ${fmt(fits)} devices, not ${fmt(asked)}: this machine's open-file limit is ${fmt(limits.hard)} (hard), and the simulator and the broker each hold one socket a device beside ${fmt(FILE_RESERVE)} of their own.`)
  return fits
}
const bench: Bench = {
  rows: int('BENCH_ROWS', 1_000_000, 20_000),
  importRows: int('BENCH_IMPORT_ROWS', 100_000, 2_000),
  transitions: int('BENCH_TRANSITIONS', 10_000, 500),
  seconds: int('BENCH_SECONDS', 10, 1),
  connections: int('BENCH_CONNECTIONS', 50, 20),
  // The members and dashboards parts fill the demo data: 10,000 members and ~1,000,000 rides at 1.
  demoScale: SMOKE ? 0.02 : 1,
}

const iot: IotBench = {
  devices: int('BENCH_IOT_DEVICES', 10_000, 100),
  concurrency: int('BENCH_IOT_CONCURRENCY', 200),
  timeoutSeconds: int('BENCH_IOT_TIMEOUT', 30, 15),
}

const browser: BrowserBench = {
  loads: int('BENCH_BROWSER_LOADS', 10, 2),
  switches: int('BENCH_BROWSER_SWITCHES', 10, 4),
  signIns: int('BENCH_BROWSER_SIGNINS', 5, 2),
}

const orders: OrdersBench = {
  numbers: int('BENCH_FRAME_NUMBERS', 100_000, 2_000),
  labels: int('BENCH_LABELS', 10_000, 200),
}

const content: ContentBench = {
  members: int('BENCH_MESSAGE_MEMBERS', 100_000, 2_000),
  clients: int('BENCH_APP_CLIENTS', 200, 20),
  seconds: bench.seconds,
}

const files: FilesBench = {
  megabytes: int('BENCH_FILE_MB', 200, 5),
}

const PARTS = ['engine', 'members', 'orders', 'content', 'iot', 'fleet', 'ingest', 'ota', 'browser', 'files', 'dashboards', 'metrics', 'geofence'] as const
const only = process.env.BENCH_ONLY ?? ''
if (only && !(PARTS as readonly string[]).includes(only)) throw new Error(`BENCH_ONLY must be one of ${PARTS.join(', ')}, not ${JSON.stringify(only)}`)
const runs = (part: (typeof PARTS)[number]) => !only || only === part

const pgUrlOf = () => process.env.BENCH_DATABASE_URL || (/^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL : undefined)

function targets(): Target[] {
  // BENCH_SQLITE=0 with a PostgreSQL URL runs PostgreSQL alone, to look into one of its figures.
  const out: Target[] = process.env.BENCH_SQLITE === '0' && pgUrlOf() ? [] : [{ name: 'SQLite', dialect: 'sqlite' }]
  const pgUrl = pgUrlOf()
  if (pgUrl) out.push({ name: 'PostgreSQL', dialect: 'postgres', serverUrl: pgUrl })
  return out
}

const demoSize = bench.demoScale === 1 ? '10,000 members, about 1,000,000 rides' : `scale ${bench.demoScale}: ${fmt(Math.round(10_000 * bench.demoScale))} members, about ${fmt(Math.round(1_000_000 * bench.demoScale))} rides`

interface PartOutput {
  headings: string[]
  lines: Line[]
  notes: string[]
}
interface Part {
  name: (typeof PARTS)[number]
  run: (out: PartOutput) => Promise<void>
}

/** Each part's wall time, printed as it ends (to stderr, beside the parts' own progress) and under the table. */
const partTimes: [string, number][] = []
const benchStarted = performance.now()

/** Runs the parts, `at` of them at a time; their output in the parts' order, whatever order they end in. */
async function runParts(parts: Part[], at: number): Promise<PartOutput[]> {
  const outputs = parts.map((): PartOutput => ({ headings: [], lines: [], notes: [] }))
  let next = 0
  const worker = async () => {
    while (next < parts.length) {
      const i = next++
      const started = performance.now()
      await parts[i]!.run(outputs[i]!)
      const seconds = (performance.now() - started) / 1000
      partTimes.push([parts[i]!.name, seconds])
      process.stderr.write(`bench: ${parts[i]!.name} took ${seconds.toFixed(1)} s\n`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(at, parts.length) }, worker))
  return outputs
}

async function main() {
  // Other work on the machine skews every figure: say how busy it was when the run began.
  const load = loadavg()[0]!
  const lines: Line[] = []
  const notes: string[] = []
  const headings: string[] = []
  const server = await buildServer()
  try {
    const parts: Part[] = [
      {
        name: 'engine',
        run: async (out) => {
          out.headings.push(
            `Entity engine benchmark: ${fmt(bench.rows)} login-log rows (\`${systemEntities.loginLog.key}\`), list under ${bench.connections} clients for ${bench.seconds} s, ` +
              `import of ${fmt(bench.importRows)} rows (\`${systemEntities.i18n.key}\`).`,
          )
          for (const target of targets()) {
            const result = await runTarget(target, bench, server.entry)
            out.lines.push(...result.lines)
            out.notes.push(...result.notes)
          }
        },
      },
      {
        name: 'members',
        run: async (out) => {
          out.headings.push(`Members benchmark: the demo data (${demoSize}); the member list and a member drawer's rides at ${bench.connections} and 1 clients, and their SQL bare; every ride exported, directly and as a job, beside the export's read bare.`)
          for (const target of targets()) {
            const result = await runMembers(target, bench, server.entry)
            out.lines.push(...result.lines)
            out.notes.push(...result.notes)
          }
        },
      },
      {
        name: 'orders',
        run: async (out) => {
          out.headings.push(`Frame-number benchmark: ${fmt(orders.numbers)} numbers generated for one order (the Generate action's job), the same INSERTs bare, and a label sheet of ${fmt(orders.labels)}.`)
          for (const target of targets()) {
            const result = await runOrders(target, orders, server.entry)
            out.lines.push(...result.lines)
            out.notes.push(...result.notes)
          }
        },
      },
      {
        name: 'content',
        run: async (out) => {
          out.headings.push(
            `App content benchmark: a message pushed to ${fmt(content.members)} members (deliverMessage, as the Push job runs it) beside its INSERT … SELECT bare, ` +
              `and the app's version check under ${content.clients} clients for ${content.seconds} s.`,
          )
          for (const target of targets()) {
            const result = await runContent(target, content, server.entry)
            out.lines.push(...result.lines)
            out.notes.push(...result.notes)
          }
        },
      },
      {
        name: 'iot',
        run: async (out) => {
          const { brokers, notes: brokerNotes } = await iotBrokers()
          out.headings.push(`IoT gateway benchmark: ${fmt(iot.devices)} simulated devices (${iot.concurrency} connecting at a time), one ping to all of them.`)
          out.notes.push(...brokerNotes)
          for (const target of targets()) {
            for (const broker of brokers) {
              const result = await runIot(target, broker, iot, server.entry)
              out.lines.push(...result.lines)
              out.notes.push(...result.notes)
            }
          }
        },
      },
      {
        name: 'fleet',
        run: async (out) => {
          const { brokers, notes: brokerNotes } = await iotBrokers()
          out.notes.push(...brokerNotes)
          const collect = (result: { lines: Line[]; notes: string[] }) => {
            out.lines.push(...result.lines)
            out.notes.push(...result.notes)
          }
          const onEveryBroker = async (run: (target: Target, broker: (typeof brokers)[number]) => Promise<{ lines: Line[]; notes: string[] }>) => {
            for (const target of targets()) {
              for (const broker of brokers) collect(await run(target, broker))
            }
          }
          {
            const { runConfigPush } = await import('./iot-config')
            out.headings.push(`Configuration push benchmark: one template pushed to ${fmt(iot.devices)} connected simulated devices (setConfig through the command layer, acknowledged per device).`)
            await onEveryBroker((target, broker) => runConfigPush(target, broker, iot, server.entry))
          }
          {
            const { runTelemetry } = await import('./iot-telemetry')
            const telemetry = {
              devices: int('BENCH_TELEMETRY_DEVICES', iot.devices),
              seconds: int('BENCH_TELEMETRY_SECONDS', 300, 4),
              fillDevices: int('BENCH_TELEMETRY_FILL_DEVICES', 100, 3),
              queries: int('BENCH_TELEMETRY_QUERIES', 200, 10),
              concurrency: iot.concurrency,
            }
            out.headings.push(
              `Telemetry history benchmark: ${fmt(telemetry.devices)} devices reporting every 30 s for ${telemetry.seconds} s (server CPU, rows stored), ` +
                `then one device's day from 30 days of rows of ${fmt(telemetry.fillDevices)} devices (API and bare SQL).`,
            )
            // The embedded broker only: the recorder, not the broker, is what this measures.
            for (const target of targets()) collect(await runTelemetry(target, telemetry, server.entry))
          }
          {
            const { runAlarmStorm } = await import('./iot-alarms')
            const alarms = { devices: int('BENCH_ALARM_DEVICES', 1000, 50), concurrency: iot.concurrency }
            out.headings.push(`Alarm storm benchmark: ${fmt(alarms.devices)} connected simulated devices report a fault at once; time until the warnings list holds all of them, then the same storm again (counted as repeats).`)
            await onEveryBroker((target, broker) => runAlarmStorm(target, broker, alarms, server.entry))
          }
        },
      },
      {
        name: 'ingest',
        run: async (out) => {
          const { runIngest } = await import('./ingest')
          const { brokers, notes: brokerNotes } = await iotBrokers()
          out.notes.push(...brokerNotes)
          const ingest = {
            devices: int('BENCH_INGEST_DEVICES', 2000, 100),
            rates: (process.env.BENCH_INGEST_RATES ?? (process.env.BENCH_SIZE === 'smoke' ? '500,1000' : '2500,5000,10000,20000')).split(',').map(Number),
            stepSeconds: int('BENCH_INGEST_STEP_SECONDS', 60, 6),
            bareRows: int('BENCH_INGEST_BARE_ROWS', 200_000, 10_000),
            concurrency: iot.concurrency,
            overload: process.env.BENCH_INGEST_OVERLOAD !== '0',
          }
          out.headings.push(
            `Telemetry ingest benchmark: ${fmt(ingest.devices)} devices, QoS 1 reports at rising rates (${ingest.rates.map(fmt).join(', ')} a second, ${ingest.stepSeconds} s each)${ingest.overload ? ', then twice the highest rate stored in full' : ''}, then the same rows bare; ` +
              'then a realistic fleet (BENCH_INGEST_BIG_DEVICES devices every 5 s).',
          )
          const big = bigFleetThatFits(int('BENCH_INGEST_BIG_DEVICES', 20_000, 500), out.notes)
          // PostgreSQL behind Mosquitto, SQLite behind the embedded broker: how each is deployed.
          for (const target of targets()) {
            const broker = target.dialect === 'postgres' ? (brokers.find((b) => b.url) ?? brokers[0]!) : brokers[0]!
            const result = await runIngest(target, broker, ingest, server.entry, `${fmt(ingest.devices)} devices`)
            out.lines.push(...result.lines)
            out.notes.push(...result.notes)
            if (process.env.BENCH_INGEST_BIG !== '0') {
              const realistic = await runIngest(target, broker, { ...ingest, devices: big, rates: [big / 5] }, server.entry, `${fmt(big)} devices every 5 s`)
              out.lines.push(...realistic.lines)
              out.notes.push(...realistic.notes)
            }
          }
        },
      },
      {
        name: 'ota',
        run: async (out) => {
          const { runOta } = await import('./ota')
          const { brokers, notes: brokerNotes } = await iotBrokers()
          out.notes.push(...brokerNotes)
          const ota = {
            devices: int('BENCH_OTA_DEVICES', 10_000, 50),
            concurrency: iot.concurrency,
            megabytes: int('BENCH_OTA_MB', 2, 1),
            rate: int('BENCH_OTA_RATE', 1000, 600),
            rateSeconds: int('BENCH_OTA_RATE_SECONDS', 90, 5),
            timeoutSeconds: int('BENCH_OTA_TIMEOUT', 1800, 120),
          }
          out.headings.push(
            `OTA benchmark: a ${ota.megabytes} MB image to ${fmt(ota.devices)} connected simulated devices through a campaign without a rate limit (blocks over MQTT, until every device reports the new version), ` +
              `then a campaign limited to ${fmt(ota.rate)} devices a minute for ${ota.rateSeconds} s.`,
          )
          for (const target of targets()) {
            for (const broker of brokers) {
              const result = await runOta(target, broker, ota, server.entry)
              out.lines.push(...result.lines)
              out.notes.push(...result.notes)
            }
          }
        },
      },
      {
        name: 'browser',
        run: async (out) => {
          out.headings.push(`Browser benchmark: the sign-in page in headless Chromium, ${browser.loads} cold loads, then the bytes of the five most used pages.`)
          const result = await runBrowser(browser, server.entry)
          out.lines.push(...result.lines)
          out.notes.push(...result.notes)
        },
      },
      {
        name: 'files',
        run: async (out) => {
          out.headings.push(`File upload benchmark: one ${fmt(files.megabytes)} MB file through a definition's \`file\` field route (POST …/file/{field}), streamed to storage.`)
          const filesServer = await buildFilesServer()
          try {
            for (const target of targets()) {
              const result = await runFiles(target, files, filesServer.entry)
              out.lines.push(...result.lines)
              out.notes.push(...result.notes)
            }
          } finally {
            await filesServer.remove()
          }
        },
      },
      {
        name: 'dashboards',
        run: async (out) => {
          const dashboards = { seconds: bench.seconds, demoScale: bench.demoScale, clients: int('BENCH_DASHBOARD_CLIENTS', 20, 5), newRides: int('BENCH_DASHBOARD_NEW_RIDES', 10_000, 500) }
          out.headings.push(
            `Dashboards benchmark: the demo data (${demoSize}), the rollups rebuilt and refreshed after ${fmt(dashboards.newRides)} new rides, ` +
              `and each dashboard's answer (its default range) at ${dashboards.clients} and 1 clients.`,
          )
          for (const target of targets()) {
            const result = await runDashboards(target, dashboards, server.entry)
            out.lines.push(...result.lines)
            out.notes.push(...result.notes)
          }
        },
      },
      {
        name: 'metrics',
        run: async (out) => {
          const metrics = { rows: int('BENCH_METRICS_ROWS', 100_000, 5_000), seconds: bench.seconds, connections: bench.connections, rounds: int('BENCH_METRICS_ROUNDS', 4, 1), scrapes: int('BENCH_METRICS_SCRAPES', 20, 3) }
          out.headings.push(
            `Metrics benchmark: the login-log list (${fmt(metrics.rows)} rows) at ${metrics.connections} clients with metrics off and on (METRICS_TOKEN), ` +
              `best of ${metrics.rounds} runs each, and the duration of a /metrics scrape.`,
          )
          for (const target of targets()) {
            const result = await runMetrics(target, metrics, server.entry)
            out.lines.push(...result.lines)
            out.notes.push(...result.notes)
          }
        },
      },
      {
        name: 'geofence',
        run: async (out) => {
          const { runEvaluatorAlone, runGeofenceHandler } = await import('./geofence')
          const geofence = { fences: int('BENCH_GEOFENCES', 1000, 100), devices: int('BENCH_GEOFENCE_DEVICES', 12_000, 500), seconds: bench.seconds }
          out.headings.push(
            `Geofence benchmark: ${fmt(geofence.devices)} devices moving ~30 m a position near ${fmt(geofence.fences)} fences over Europe (polygons of 20–100 corners and circles), ` +
              'checked by the evaluator alone and through the telemetry handler (alarms counted, not written).',
          )
          const alone = runEvaluatorAlone(geofence)
          out.lines.push(...alone.lines)
          for (const target of targets()) {
            const result = await runGeofenceHandler(target, geofence)
            out.lines.push(...result.lines)
            out.notes.push(...result.notes)
          }
        },
      },
    ]
    // A smoke run shows that each part works, not how fast: two parts at a time (each has its own
    // server, database and ports), so the run takes about half as long. A full run, one at a time.
    const outputs = await runParts(parts.filter((p) => runs(p.name)), SMOKE ? 2 : 1)
    for (const out of outputs) {
      headings.push(...out.headings)
      lines.push(...out.lines)
      notes.push(...out.notes)
    }
  } finally {
    await server.remove()
  }
  const cpu = cpus()
  const table = [
    ...headings,
    `${cpu.length} CPUs (${cpu[0]?.model.trim() ?? 'unknown'}), load average ${load.toFixed(1)} at the start, Node ${process.version}.`,
    ...(SMOKE ? ['Smoke run (BENCH_SIZE=smoke): every part at a small size; the targets are for the full size and are not judged.'] : []),
    ...notes,
    '',
    '| database | measure | value | target | pass |',
    '|---|---|---|---|---|',
    ...lines.map((l) => `| ${l.db} | ${l.measure} | ${l.value} | ${l.target ?? ''} | ${l.pass === undefined ? '' : SMOKE ? '(smoke)' : l.pass ? '✅' : '❌'} |`),
    '',
    `Time per part${SMOKE ? ' (two at a time)' : ''}: ${partTimes.map(([part, seconds]) => `${part} ${seconds.toFixed(0)} s`).join(', ')}; in all ${((performance.now() - benchStarted) / 1000).toFixed(0)} s.`,
  ]
  process.stdout.write(`\n${table.join('\n')}\n`)
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
