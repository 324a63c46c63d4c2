/**
 * IoT gateway benchmark (part of `npm run bench`; alone with BENCH_ONLY=iot). For each broker (the
 * embedded one in the server process, and Mosquitto through MQTT_URL when it answers) and each
 * database of the engine benchmark it
 *
 *  1. starts the bundled server on a fresh database and writes BENCH_IOT_DEVICES devices of the demo
 *     model straight into it (the server's own newDeviceRow), each with a known secret hashed by its hashSecret (the
 *     HTTP self-registration is rate limited per address, and is not what is measured here), then
 *     restarts the server so it starts with nothing cached;
 *  2. connects every device from this process with the simulator's Fleet (telemetry off, heartbeat
 *     60 s, BENCH_IOT_CONCURRENCY connects at a time) and takes the time until all are connected and
 *     until the server lists all of them online;
 *  3. sends one `ping` to all of them in one POST /iot/device/command and takes the time until the
 *     server has a final status for every one (its `command` server-sent events; the rows are read
 *     after), the round-trip times the server recorded, and per stage: the API's answer, the first
 *     and last device to receive it, the last device's reply, the server's last final status;
 *
 * with the server's CPU time (/proc/<pid>/stat) and peak RSS over each phase, and this process's CPU
 * (10,000 MQTT clients share the machine's two cores with the server).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect as tcpConnect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Fleet, givenCredentials, snFor } from '@velo/device-sim'
import { FINAL_COMMAND_STATUSES, upTopic } from '@velo/shared'
import mqtt from 'mqtt'
import { createDatabase, type Db } from '../src/db/database'
import { hashSecret } from '../src/iot/device-auth'
import { newDeviceRow } from '../src/modules/iot/devices'
import { onCleanup, onExit } from './cleanup'
import { percentile } from './measure'
import { api, freshDatabase, type Line, message, signIn, type Target } from './run'
import { ServerProcess } from './server'
import { log, fmt } from './format'

export interface IotBench {
  devices: number
  concurrency: number
  /** The command's timeout (the server marks a silent device timed out after it). */
  timeoutSeconds: number
}

export interface Broker {
  name: string
  /** MQTT_URL for the server; none = the embedded broker. */
  url?: string
}

const PING_TARGET_MS = 5000
const PRODUCT_ID = 'VELO-4G'
/** Bench SNs: the demo model's prefix VL, then B (so they never meet the simulator's VL000001…). */
const SN_PREFIX = 'VLB'
const MAX_PER_SEND = 10_000

const seconds = (ms: number) => `${fmt(ms / 1000, ms < 10_000 ? 2 : 1)} s`
const mb = (bytes: number) => `${fmt(bytes / 1024 / 1024)} MB`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The brokers to run against: embedded always, the external one when something answers MQTT there. */
export async function iotBrokers(): Promise<{ brokers: Broker[]; notes: string[] }> {
  const only = (process.env.BENCH_IOT_BROKERS ?? 'embedded,external').split(',').map((s) => s.trim())
  const url = process.env.BENCH_MQTT_URL || 'mqtt://127.0.0.1:1883'
  const brokers: Broker[] = []
  const notes: string[] = []
  if (only.includes('embedded')) brokers.push({ name: 'embedded broker' })
  if (only.includes('external')) {
    const why = await mqttAnswers(url)
    if (why === true) brokers.push({ name: `Mosquitto (${url})`, url })
    else notes.push(`External broker ${url} skipped: ${why} (BENCH_MQTT_URL names another).`)
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
function cpuSeconds(pid: number): number | null {
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
function phase(server: ServerProcess) {
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
type Phase = ReturnType<ReturnType<typeof phase>['stop']>
const cpuText = (p: Phase) =>
  `${p.serverCpu === null ? 'n/a' : `${fmt(p.serverCpu, 1)} s CPU (${fmt((p.serverCpu / p.wall) * 100)}% of one core)`}, peak RSS ${mb(p.peakRss)} (${mb(p.startRss)} at start)`

/** Writes the devices with known secrets in batches; answers SN → secret and SN → device id. */
async function insertDevices(db: Db, count: number) {
  const model = await db.selectFrom('iotModel').select('modelId').where('productId', '=', PRODUCT_ID).executeTakeFirst()
  if (!model) throw new Error(`the seed has no ${PRODUCT_ID} model`)
  const secrets = new Map<string, string>()
  for (let from = 0; from < count; from += 500) {
    const rows = []
    for (let i = from; i < Math.min(count, from + 500); i++) {
      const sn = snFor(SN_PREFIX, i + 1)
      const secret = randomBytes(32).toString('base64url')
      secrets.set(sn, secret)
      rows.push(newDeviceRow({ sn, modelId: Number(model.modelId), secretHash: hashSecret(secret), createBy: 'bench' }))
    }
    await db.insertInto('iotDevice').values(rows).execute()
  }
  const ids = await db.selectFrom('iotDevice').select(['deviceId', 'sn']).where('sn', 'like', `${SN_PREFIX}%`).execute()
  return { secrets, ids: new Map(ids.map((r) => [r.sn, Number(r.deviceId)])) }
}

/** Where the embedded broker listens: GET /iot/gateway, else the line the server prints at start. */
async function embeddedBrokerUrl(base: string, headers: Record<string, string>, server: ServerProcess): Promise<string> {
  const res = await api(base, '/iot/gateway', { headers })
  const port = res.code === 200 ? (res.data?.mqtt?.port ?? res.data?.port) : undefined
  if (typeof port === 'number') return `mqtt://127.0.0.1:${port}`
  const m = /Embedded MQTT broker on port (\d+)|listens on (\d+) instead/.exec(server.log)
  if (!m) throw new Error('could not tell where the embedded MQTT broker listens')
  return `mqtt://127.0.0.1:${m[1] ?? m[2]}`
}

/** How many bench devices the server lists online (its devices list, filtered by state). */
async function onlineCount(base: string, headers: Record<string, string>): Promise<number> {
  const res = await api(base, '/iot/device/list', { method: 'POST', headers, body: { state: ['online', 'activated'], sn: SN_PREFIX, pageNum: 1, pageSize: 1 } })
  if (res.code !== 200) throw new Error(`device list answered ${res.status} ${res.msg}`)
  return Number(res.data?.total ?? 0)
}

interface CommandEventData {
  commandId: number
  status: string
  roundTripMs: number | null
}

/** Reads GET /iot/stream and keeps each command's final status and when it arrived here. */
async function watchCommands(base: string, headers: Record<string, string>) {
  const finals = new Map<number, { status: string; at: number; roundTripMs: number | null }>()
  const controller = new AbortController()
  const res = await fetch(`${base}/iot/stream`, { headers, signal: controller.signal })
  if (res.status !== 200 || !res.body) throw new Error(`GET /iot/stream answered ${res.status}`)
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
  let connected!: () => void
  const ready = new Promise<void>((r) => (connected = r))
  const final = new Set<string>(FINAL_COMMAND_STATUSES)
  const pump = (async () => {
    let buffer = ''
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }))
      if (done) return
      buffer += value
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (block.startsWith(':')) {
          connected()
          continue
        }
        let event = 'message'
        let data = ''
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim()
          else if (line.startsWith('data:')) data += line.slice(5).trim()
        }
        if (event !== 'command') continue
        const items = JSON.parse(data) as CommandEventData | CommandEventData[]
        const at = performance.now()
        for (const e of Array.isArray(items) ? items : [items]) {
          if (final.has(e.status) && !finals.has(e.commandId)) finals.set(e.commandId, { status: e.status, at, roundTripMs: e.roundTripMs })
        }
      }
    }
  })()
  await Promise.race([ready, sleep(5000)])
  return {
    finals,
    close: async () => {
      controller.abort()
      await pump
    },
  }
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

export async function runIot(target: Target, broker: Broker, bench: IotBench, serverEntry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const name = `${target.name} · ${broker.name}`
  const lines: Line[] = []
  const notes: string[] = []
  const add = (measure: string, value: string, extra: { target?: string; pass?: boolean } = {}) => lines.push({ db: name, measure, value, ...extra })
  const n = bench.devices
  const dir = mkdtempSync(join(tmpdir(), 'velo-bench-iot-'))
  const forgetDir = onExit(() => rmSync(dir, { recursive: true, force: true }))
  const database = await freshDatabase(target, dir)
  let server: ServerProcess | undefined
  let db: Db | undefined
  let fleet: Fleet | undefined
  let stream: Awaited<ReturnType<typeof watchCommands>> | undefined
  const sns = Array.from({ length: n }, (_, i) => snFor(SN_PREFIX, i + 1))
  // Where the phases lie in a --cpu-prof profile of the server (BENCH_SERVER_ARGS): seconds before it exits.
  const marks: [string, number][] = []
  const cleanup = onCleanup(async () => {
    await stream?.close()
    await fleet?.closeAll().catch(() => {})
    const stopping = performance.now()
    if (marks.length) log(`${name}: before the server's exit: ${marks.map(([m, t]) => `${m} ${fmt((stopping - t) / 1000, 1)} s`).join(', ')}`)
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
    // Leftovers of an earlier run that crashed would greet the gateway as 10,000 retained presences.
    if (broker.url) await clearRetained(broker.url, sns)
    log(`${name}: starting the server, writing ${fmt(n)} devices`)
    server = await ServerProcess.start(serverEntry, env)
    db = createDatabase(database.config).db
    const { secrets, ids } = await insertDevices(db, n)
    // A fresh process: nothing cached, and its memory is the gateway's own from here.
    const port = server.port
    await server.stop()
    server = await ServerProcess.start(serverEntry, env, port)
    const base = `${server.baseUrl}/api`
    const headers = { authorization: await signIn(base), currentlanguage: 'en_US' }
    const url = broker.url ?? (await embeddedBrokerUrl(base, headers, server))

    // --- connect
    log(`${name}: connecting ${fmt(n)} devices to ${url}, ${bench.concurrency} at a time`)
    const connect = phase(server)
    marks.push(['connect', connect.started])
    fleet = new Fleet({
      count: n,
      prefix: SN_PREFIX,
      credentials: givenCredentials(url, (sn) => secrets.get(sn)!),
      concurrency: bench.concurrency,
      keepalive: 60,
      behaviour: { telemetrySeconds: 0, heartbeatSeconds: 60, statusSeconds: 0 },
    })
    const started = await fleet.start()
    const clientsMs = performance.now() - connect.started
    if (started.failed) notes.push(`${name}: ${started.failed} devices could not connect: ${[...started.failures].map(([r, c]) => `${c} × ${r}`).join('; ')}.`)
    log(`${name}: ${fmt(started.started)} connected in ${seconds(clientsMs)}; waiting for the server to list them online`)
    let online = 0
    const deadline = performance.now() + 120_000
    while (performance.now() < deadline) {
      online = await onlineCount(base, headers)
      if (online >= started.started) break
      await sleep(250)
    }
    const connectPhase = connect.stop()
    const seenMs = connectPhase.wall * 1000
    add(`connect ${fmt(n)} devices (all CONNACKed, subscribed, announced)`, `${seconds(clientsMs)} (${fmt(started.started / (clientsMs / 1000))}/s)${started.failed ? `, ${fmt(started.failed)} failed` : ''}`, {
      pass: started.failed === 0 ? undefined : false,
    })
    add('… all listed online by the server', online >= started.started ? seconds(seenMs) : `only ${fmt(online)} after ${seconds(seenMs)}`, { pass: online >= n ? undefined : false })
    add('connect: server', cpuText(connectPhase))
    add('connect: bench process (the fleet)', `${fmt(connectPhase.benchCpu, 1)} s CPU, RSS ${mb(process.memoryUsage().rss)}`)

    await sleep(2000)
    add(`server RSS with ${fmt(n)} devices connected, idle`, mb(server.watchMemory().stop()))

    // --- ping to all
    const deviceIds = sns.map((sn) => ids.get(sn)!).filter(Boolean)
    const received: number[] = []
    const replied: number[] = []
    for (const d of fleet.devices) {
      d.onCommand(() => received.push(performance.now()))
      d.onReply((r) => {
        if (r.status !== 'accepted') replied.push(performance.now())
      })
    }
    stream = await watchCommands(base, headers)
    const finalsSeen = stream.finals
    log(`${name}: ping to all ${fmt(deviceIds.length)} devices`)
    const ping = phase(server)
    marks.push(['ping', ping.started])
    const sends = []
    for (let i = 0; i < deviceIds.length; i += MAX_PER_SEND) {
      sends.push(api(base, '/iot/device/command', { method: 'POST', headers, body: { deviceIds: deviceIds.slice(i, i + MAX_PER_SEND), command: 'ping', params: {}, timeoutSeconds: bench.timeoutSeconds } }))
    }
    const answers = await Promise.all(sends)
    const answeredMs = performance.now() - ping.started
    const bad = answers.find((a) => a.code !== 200)
    if (bad) throw new Error(`POST /iot/device/command answered ${bad.status} ${bad.msg}`)
    const commandIds = new Set<number>(answers.flatMap((a) => (a.data?.commands ?? []).map((c: { commandId: number }) => Number(c.commandId))))
    const queued = answers.reduce((s, a) => s + Number(a.data?.queued ?? 0), 0)
    const waitUntil = performance.now() + (bench.timeoutSeconds + 15) * 1000
    const allFinal = () => finalsSeen.size >= commandIds.size && [...commandIds].every((id) => finalsSeen.has(id))
    while (!allFinal() && performance.now() < waitUntil) await sleep(20)
    const pingPhase = ping.stop()
    marks.push(['ping done', performance.now()])
    await stream.close()
    const finals = [...commandIds].map((id) => finalsSeen.get(id)).filter((f) => f !== undefined)
    const lastFinalMs = finals.length ? finals.reduce((m, f) => Math.max(m, f.at), 0) - ping.started : NaN

    // The rows as the server recorded them (its write-behind may take a moment to land).
    await sleep(1000)
    const all = await db.selectFrom('iotCommand').select(['commandId', 'status', 'roundTripMs']).where('command', '=', 'ping').execute()
    const byStatus = new Map<string, number>()
    for (const r of all) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1)
    const rtts = Float64Array.from(all.filter((r) => r.status === 'succeeded' && r.roundTripMs !== null).map((r) => Number(r.roundTripMs))).sort()
    const succeeded = byStatus.get('succeeded') ?? 0
    const complete = finals.length === commandIds.size && succeeded === n
    add(`ping to all ${fmt(n)}: API answer (${fmt(commandIds.size)} commands, ${fmt(queued)} queued)`, seconds(answeredMs))
    add(
      `ping to all ${fmt(n)}: every final reply in the server`,
      finals.length === commandIds.size ? seconds(lastFinalMs) : `${fmt(finals.length)} of ${fmt(commandIds.size)} final after ${seconds(pingPhase.wall * 1000)}`,
      { target: `< ${PING_TARGET_MS / 1000} s`, pass: complete && lastFinalMs < PING_TARGET_MS },
    )
    add('ping round trip p50 / p99 (server roundTripMs)', rtts.length ? `${fmt(percentile(rtts, 50))} / ${fmt(percentile(rtts, 99))} ms` : 'n/a')
    add(
      'ping outcome (rows)',
      [...byStatus].map(([s, c]) => `${fmt(c)} ${s}`).join(', ') || 'no rows',
      { target: `${fmt(n)} succeeded`, pass: succeeded === n },
    )
    add('ping: server', cpuText(pingPhase))
    add('ping: bench process (the fleet)', `${fmt(pingPhase.benchCpu, 1)} s CPU`)
    const at = (list: number[], pick: 'min' | 'max') =>
      list.length ? seconds(list.reduce((m, t) => (pick === 'min' ? Math.min(m, t) : Math.max(m, t))) - ping.started) : 'n/a'
    notes.push(
      `${name}, ping stages from the POST: API answered ${seconds(answeredMs)}; devices received it from ${at(received, 'min')} to ${at(received, 'max')} (${fmt(received.length)}); ` +
        `last device reply acknowledged by the broker ${at(replied, 'max')}; last final status in the server ${Number.isNaN(lastFinalMs) ? 'n/a' : seconds(lastFinalMs)}.`,
    )
  } catch (err) {
    add('run', `failed: ${message(err, server)}`, { pass: false })
    log(`${name} failed: ${err instanceof Error ? err.stack : String(err)}`)
  } finally {
    log(`${name}: disconnecting the fleet`)
    await cleanup()
  }
  return { lines, notes }
}
