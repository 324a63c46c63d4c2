/**
 * What the fleet benches (bench/iot.ts, iot-config.ts, iot-alarms.ts, iot-telemetry.ts) stand on: the
 * brokers to run against, the server's CPU and memory over a phase, and `fleetBench`, which gives a
 * bench a fresh server with its devices written straight into the database (the server's own
 * newDeviceRow, each with a known secret hashed by its hashSecret: the HTTP self-registration is rate
 * limited per address, and is not what is measured), restarted so nothing is cached, and connects
 * them all from this process with the simulator's Fleet.
 */
import { randomBytes } from 'node:crypto'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { type AddressInfo, createServer, connect as tcpConnect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type DeviceBehaviour, Fleet, givenCredentials, snFor } from '@velo/device-sim'
import { type Paged, upTopic } from '@velo/shared'
import mqtt from 'mqtt'
import { createDatabase, type Db } from '../src/db/database'
import { hashSecret } from '../src/gateway/device-auth'
import { newDeviceRow } from '../src/modules/iot/devices'
import { onCleanup, onExit } from './cleanup'
import { fmt, log } from './format'
import { api, freshDatabase, type Line, message, signIn, type Target } from './run'
import { ServerProcess } from './server'

export interface Broker {
  name: string
  /** MQTT_URL for the server; none = the embedded broker. */
  url?: string
}

export const EMBEDDED_BROKER: Broker = { name: 'embedded broker' }

/** The demo model: the bench SNs take its prefix VL, then a letter of their own. */
const PRODUCT_ID = 'VELO-4G'

export const seconds = (ms: number) => `${fmt(ms / 1000, ms < 10_000 ? 2 : 1)} s`
export const mb = (bytes: number) => `${fmt(bytes / 1024 / 1024)} MB`
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * The settings docs/ops/deploy.md asks of a Mosquitto that carries the fleet: its defaults (20
 * messages in flight to a client, 1,000 queued) drop QoS 1 reports an instance has not yet taken
 * once it stops reading (at its limit, or while it restarts), after the broker acknowledged them.
 */
const MOSQUITTO_DEPLOYED = ['max_inflight_messages 0', 'max_queued_messages 100000', 'max_packet_size 131072']

let privateBroker: Promise<Broker | string> | undefined

/**
 * A Mosquitto of the bench's own, configured as deployed (MOSQUITTO_DEPLOYED), on a free port, for
 * as long as the bench runs; the reason as text where there is no `mosquitto` to start.
 */
function privateMosquitto(): Promise<Broker | string> {
  privateBroker ??= (async () => {
    const bin = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto', '/usr/local/sbin/mosquitto', '/usr/local/bin/mosquitto'].find((f) => existsSync(f))
    if (!bin) return 'no mosquitto binary found'
    const port = await new Promise<number>((resolve, reject) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo
        probe.close(() => resolve(port))
      })
      probe.once('error', reject)
    })
    const dir = mkdtempSync(join(tmpdir(), 'velo-bench-mosquitto-'))
    const conf = join(dir, 'mosquitto.conf')
    writeFileSync(conf, [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', ...MOSQUITTO_DEPLOYED, ''].join('\n'))
    const child = spawn(bin, ['-c', conf], { stdio: 'ignore' })
    // The bench ends when its work does, not when the broker does: the exit hook below stops it.
    child.unref()
    const stop = () => {
      child.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    }
    onExit(stop)
    onCleanup(stop)
    const url = `mqtt://127.0.0.1:${port}`
    for (let i = 0; i < 50; i++) {
      if ((await mqttAnswers(url)) === true) return { name: `Mosquitto (the bench's own, ${MOSQUITTO_DEPLOYED.slice(0, 2).join(', ')})`, url }
      await sleep(100)
    }
    stop()
    return `the bench's Mosquitto (${bin}) did not answer on ${url}`
  })()
  return privateBroker
}

/**
 * The brokers to run against: embedded always; and Mosquitto at BENCH_MQTT_URL when it is given and
 * answers, or else one the bench starts with the deployed settings (`mosquitto` on this machine),
 * or else the one on 127.0.0.1:1883 if something answers MQTT there (with its own settings).
 */
export async function iotBrokers(): Promise<{ brokers: Broker[]; notes: string[] }> {
  // A smoke run shows each part works once: through the embedded broker, unless asked for more.
  const fallback = process.env.BENCH_SIZE === 'smoke' ? 'embedded' : 'embedded,external'
  const only = (process.env.BENCH_IOT_BROKERS || fallback).split(',').map((s) => s.trim())
  const brokers: Broker[] = []
  const notes: string[] = []
  if (only.includes('embedded')) brokers.push(EMBEDDED_BROKER)
  if (only.includes('external')) {
    const own = process.env.BENCH_MQTT_URL ? 'BENCH_MQTT_URL is given' : await privateMosquitto()
    if (typeof own !== 'string') brokers.push(own)
    else {
      const url = process.env.BENCH_MQTT_URL || 'mqtt://127.0.0.1:1883'
      const why = await mqttAnswers(url)
      if (why === true) brokers.push({ name: `Mosquitto (${url})`, url })
      else notes.push(`External broker ${url} skipped: ${why} (BENCH_MQTT_URL names another).`)
      if (!process.env.BENCH_MQTT_URL) notes.push(`No Mosquitto of the bench's own (${own}): the broker at ${url} keeps its own settings, which may drop reports past the limit.`)
    }
  }
  return { brokers, notes }
}

async function mqttAnswers(url: string): Promise<true | string> {
  const { hostname, port } = new URL(url)
  const open = await new Promise<boolean>((resolve) => {
    const s = tcpConnect(Number(port || 1883), hostname)
    s.setTimeout(2000)
    s.once('connect', () => (s.destroy(), resolve(true)))
    s.once('error', () => resolve(false))
    s.once('timeout', () => (s.destroy(), resolve(false)))
  })
  if (!open) return 'nothing listens there'
  try {
    const c = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 3000, clientId: `velo-bench-probe-${randomBytes(4).toString('hex')}` }, false)
    await c.endAsync()
    return true
  } catch (err) {
    return `it does not accept an MQTT connection (${(err as Error).message})`
  }
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat; null where there is no /proc. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
  } catch {
    return null
  }
}
/** USER_HZ; 100 on every Linux this runs on (getconf CLK_TCK). */
const CLOCK_TICKS = 100

/** A phase's wall time, the server's CPU over it and its peak RSS, and this process's CPU. */
export function phase(server: ServerProcess) {
  const started = performance.now()
  const cpu0 = cpuSeconds(server.pid)
  const own0 = process.cpuUsage()
  const memory = server.watchMemory()
  return {
    started,
    stop() {
      const wall = (performance.now() - started) / 1000
      const cpu1 = cpuSeconds(server.pid)
      const own = process.cpuUsage(own0)
      return {
        wall,
        serverCpu: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0,
        benchCpu: (own.user + own.system) / 1e6,
        peakRss: memory.stop(),
        startRss: memory.startRss,
      }
    },
  }
}
export type Phase = ReturnType<ReturnType<typeof phase>['stop']>
export const cpuText = (p: Phase) =>
  `${p.serverCpu === null ? 'n/a' : `${fmt(p.serverCpu, 1)} s CPU (${fmt((p.serverCpu / p.wall) * 100)}% of one core)`}, peak RSS ${mb(p.peakRss)} (${mb(p.startRss)} at start)`

/** Writes the devices with known secrets in batches; answers SN → secret and SN → device id (in id order). */
async function insertDevices(db: Db, prefix: string, sns: string[]) {
  const model = await db.selectFrom('iotModel').select('modelId').where('productId', '=', PRODUCT_ID).executeTakeFirst()
  if (!model) throw new Error(`the seed has no ${PRODUCT_ID} model`)
  const secrets = new Map<string, string>()
  for (let from = 0; from < sns.length; from += 500) {
    const rows = sns.slice(from, from + 500).map((sn) => {
      const secret = randomBytes(32).toString('base64url')
      secrets.set(sn, secret)
      return newDeviceRow({ sn, modelId: Number(model.modelId), secretHash: hashSecret(secret), createBy: 'bench' })
    })
    await db.insertInto('iotDevice').values(rows).execute()
  }
  const ids = await db.selectFrom('iotDevice').select(['deviceId', 'sn']).where('sn', 'like', `${prefix}%`).orderBy('deviceId').execute()
  return { secrets, ids: new Map(ids.map((r) => [r.sn, Number(r.deviceId)])) }
}

/** Where the embedded broker listens: GET /iot/gateway, else the line the server prints at start. */
async function embeddedBrokerUrl(base: string, headers: Record<string, string>, server: ServerProcess): Promise<string> {
  const res = await api<{ mqtt?: { port?: number }; port?: number }>(base, '/iot/gateway', { headers })
  const port = res.code === 200 ? (res.data?.mqtt?.port ?? res.data?.port) : undefined
  if (typeof port === 'number') return `mqtt://127.0.0.1:${port}`
  const m = /Embedded MQTT broker on port (\d+)|listens on (\d+) instead/.exec(server.log)
  if (!m) throw new Error('could not tell where the embedded MQTT broker listens')
  return `mqtt://127.0.0.1:${m[1] ?? m[2]}`
}

/** How many of the bench's devices the server lists online (its devices list, filtered by state). */
async function onlineCount(base: string, headers: Record<string, string>, prefix: string): Promise<number> {
  const res = await api<Paged<unknown>>(base, '/iot/device/list', { method: 'POST', headers, body: { state: ['online', 'activated'], sn: prefix, pageNum: 1, pageSize: 1 } })
  if (res.code !== 200) throw new Error(`device list answered ${res.status} ${res.msg}`)
  return Number(res.data?.total ?? 0)
}

/** Clears the retained presence the bench devices left on an external broker (it outlives the run). */
async function clearRetained(url: string, sns: string[]) {
  const c = await mqtt.connectAsync(url, { reconnectPeriod: 0, clientId: `velo-bench-clean-${randomBytes(4).toString('hex')}` }, false)
  try {
    for (let i = 0; i < sns.length; i += 1000) {
      await Promise.all(sns.slice(i, i + 1000).map((sn) => c.publishAsync(upTopic(sn, 'presence'), '', { qos: 1, retain: true })))
    }
  } finally {
    await c.endAsync()
  }
}

export interface FleetSetup {
  target: Target
  broker: Broker
  serverEntry: string
  /** Each bench has its own, so its devices never meet another bench's (nor the simulator's VL0…). */
  prefix: string
  devices: number
  /** Devices connecting at a time. */
  concurrency: number
  /** Over the default: no telemetry, no status reports, a heartbeat a minute. */
  behaviour?: Partial<DeviceBehaviour>
  /** Names the temporary folder (velo-bench-<label>-…). */
  label: string
  /** The table's measure for a run that fails. */
  failure?: string
}

export interface Connected {
  fleet: Fleet
  /** Devices connected at least once, and those that could not connect. */
  started: number
  failed: number
  /** Until every device was CONNACKed, subscribed and announced. */
  clientsMs: number
  /** Devices the server listed online when the wait ended. */
  online: number
}

export interface FleetRun {
  /** `<database> · <broker>`: the table's first column, and what the progress lines start with. */
  name: string
  add: (measure: string, value: string, extra?: { target?: string; pass?: boolean }) => void
  notes: string[]
  /** The restarted server. */
  server: ServerProcess
  db: Db
  /** The server's DATABASE_URL (sqlite:<file> or postgres://…): for what the bench runs bare beside it. */
  databaseUrl: string
  base: string
  headers: Record<string, string>
  /** The broker the devices connect to. */
  url: string
  sns: string[]
  /** SN → device id, in id order. */
  ids: Map<string, number>
  /** SN → the device's secret, for a bench that connects devices of its own (bench/raw-devices.ts). */
  secrets: Map<string, string>
  /** Waits (2 minutes at most) until the server lists this many of the bench's devices online: how many it lists. */
  waitOnline(count: number): Promise<number>
  /** Connects every device, then waits (2 minutes at most) until the server lists them all online. */
  connect(): Promise<Connected>
  /** Every device says goodbye now rather than at the clean-up. */
  disconnect(): Promise<void>
  /** At the clean-up, after the fleet has gone and before the server stops. */
  beforeServerStops(fn: () => Promise<void> | void): void
}

/**
 * Runs `body` on a fresh server with `setup.devices` devices: its table lines and notes. A failure
 * becomes a failed line; the server, database, folder and fleet go however it ends (a signal too).
 */
export async function fleetBench(setup: FleetSetup, body: (run: FleetRun) => Promise<void>): Promise<{ lines: Line[]; notes: string[] }> {
  const { target, broker, prefix } = setup
  const name = `${target.name} · ${broker.name}`
  const lines: Line[] = []
  const notes: string[] = []
  const add: FleetRun['add'] = (measure, value, extra = {}) => lines.push({ db: name, measure, value, ...extra })
  const n = setup.devices
  const sns = Array.from({ length: n }, (_, i) => snFor(prefix, i + 1))
  const dir = mkdtempSync(join(tmpdir(), `velo-bench-${setup.label}-`))
  const forgetDir = onExit(() => rmSync(dir, { recursive: true, force: true }))
  const database = await freshDatabase(target, dir)
  let server: ServerProcess | undefined
  let db: Db | undefined
  let fleet: Fleet | undefined
  const beforeStop: (() => Promise<void> | void)[] = []
  const cleanup = onCleanup(async () => {
    if (fleet) log(`${name}: disconnecting the fleet`)
    await fleet?.closeAll().catch(() => {})
    for (const fn of beforeStop) await Promise.resolve().then(fn).catch((err: unknown) => log(`${name}: clean-up: ${String(err)}`))
    await server?.stop()
    await db?.destroy()
    if (broker.url) await clearRetained(broker.url, sns).catch((err: unknown) => log(`could not clear retained presence on ${broker.url}: ${String(err)}`))
    await database.drop()
    rmSync(dir, { recursive: true, force: true })
    forgetDir()
  })
  // Its own shared-subscription group: other servers on the same broker (tests, a dev server) must
  // not be handed this run's device traffic, nor this server theirs.
  const external: Record<string, string> = broker.url ? { MQTT_URL: broker.url, MQTT_SHARE_GROUP: `bench${randomBytes(4).toString('hex')}` } : {}
  const env = { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), ...external }
  try {
    // Leftovers of an earlier run that crashed would greet the gateway as thousands of retained presences.
    if (broker.url) await clearRetained(broker.url, sns)
    log(`${name}: starting the server, writing ${fmt(n)} devices`)
    server = await ServerProcess.start(setup.serverEntry, env)
    db = createDatabase(database.config).db
    const { secrets, ids } = await insertDevices(db, prefix, sns)
    // A fresh process: nothing cached, and its memory is the gateway's own from here. A smoke run
    // measures nothing against a target, so it keeps the first process (a start is ~3 s of its time).
    if (process.env.BENCH_SIZE !== 'smoke') {
      const port = server.port
      await server.stop()
      server = await ServerProcess.start(setup.serverEntry, env, port)
    }
    const base = `${server.baseUrl}/api`
    const headers = { authorization: await signIn(base), currentlanguage: 'en_US' }
    const url = broker.url ?? (await embeddedBrokerUrl(base, headers, server))

    const connect = async (): Promise<Connected> => {
      log(`${name}: connecting ${fmt(n)} devices to ${url}, ${setup.concurrency} at a time`)
      const t0 = performance.now()
      fleet = new Fleet({
        count: n,
        prefix,
        credentials: givenCredentials(url, (sn) => secrets.get(sn)!),
        concurrency: setup.concurrency,
        keepalive: 60,
        behaviour: { telemetrySeconds: 0, heartbeatSeconds: 60, statusSeconds: 0, ...setup.behaviour },
      })
      const started = await fleet.start()
      const clientsMs = performance.now() - t0
      if (started.failed) notes.push(`${name}: ${started.failed} devices could not connect: ${[...started.failures].map(([r, c]) => `${c} × ${r}`).join('; ')}.`)
      log(`${name}: ${fmt(started.started)} connected in ${seconds(clientsMs)}; waiting for the server to list them online`)
      const online = await waitOnline(started.started)
      return { fleet, started: started.started, failed: started.failed, clientsMs, online }
    }
    const waitOnline = async (count: number) => {
      let online = 0
      const deadline = performance.now() + 120_000
      while (performance.now() < deadline) {
        online = await onlineCount(base, headers, prefix)
        if (online >= count) break
        await sleep(250)
      }
      return online
    }
    await body({
      name,
      add,
      notes,
      server,
      db,
      databaseUrl: database.url,
      base,
      headers,
      url,
      sns,
      ids,
      secrets,
      waitOnline,
      connect,
      disconnect: async () => {
        await fleet?.closeAll()
        fleet = undefined
      },
      beforeServerStops: (fn) => beforeStop.push(fn),
    })
  } catch (err) {
    add(setup.failure ?? 'run', `failed: ${message(err, server)}`, { pass: false })
    log(`${name} failed: ${err instanceof Error ? err.stack : String(err)}`)
    // What the server said last: a failure of the bench's own request says little on its own.
    if (server) log(`${name}: the server's last lines:\n${server.log}`)
  } finally {
    await cleanup()
  }
  return { lines, notes }
}
