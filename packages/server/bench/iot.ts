/**
 * IoT gateway benchmark (part of `npm run bench`; alone with BENCH_ONLY=iot). For each broker (the
 * embedded one in the server process, and Mosquitto through MQTT_URL when it answers) and each
 * database of the engine benchmark it
 *
 *  1. starts the bundled server on a fresh database and writes BENCH_IOT_DEVICES devices of the demo
 *     model straight into it, then restarts the server so it starts with nothing cached (the fleet
 *     harness, bench/fleet-harness.ts, which the fleet part's benches share);
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
import { FINAL_COMMAND_STATUSES, type SendCommandResult } from '@velo/shared'
import { cpuText, fleetBench, type Broker, phase, seconds, mb, sleep } from './fleet-harness'
import { percentile } from './measure'
import { api, type Line, type Target } from './run'
import { log, fmt } from './format'

export { type Broker, iotBrokers } from './fleet-harness'

export interface IotBench {
  devices: number
  concurrency: number
  /** The command's timeout (the server marks a silent device timed out after it). */
  timeoutSeconds: number
}

const PING_TARGET_MS = 5000
/** Bench SNs: the demo model's prefix VL, then B (so they never meet the simulator's VL000001…). */
const SN_PREFIX = 'VLB'
const MAX_PER_SEND = 10_000

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

export async function runIot(target: Target, broker: Broker, bench: IotBench, serverEntry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const n = bench.devices
  const setup = { target, broker, serverEntry, prefix: SN_PREFIX, devices: n, concurrency: bench.concurrency, label: 'iot' }
  return fleetBench(setup, async ({ name, add, notes, server, db, base, headers, sns, ids, connect: connectAll, beforeServerStops }) => {
    // Where the phases lie in a --cpu-prof profile of the server (BENCH_SERVER_ARGS): seconds before it exits.
    const marks: [string, number][] = []
    beforeServerStops(() => {
      const stopping = performance.now()
      if (marks.length) log(`${name}: before the server's exit: ${marks.map(([m, t]) => `${m} ${fmt((stopping - t) / 1000, 1)} s`).join(', ')}`)
    })

    // --- connect
    const connect = phase(server)
    marks.push(['connect', connect.started])
    const { fleet, started, failed, clientsMs, online } = await connectAll()
    const connectPhase = connect.stop()
    const seenMs = connectPhase.wall * 1000
    add(`connect ${fmt(n)} devices (all CONNACKed, subscribed, announced)`, `${seconds(clientsMs)} (${fmt(started / (clientsMs / 1000))}/s)${failed ? `, ${fmt(failed)} failed` : ''}`, {
      pass: failed === 0 ? undefined : false,
    })
    add('… all listed online by the server', online >= started ? seconds(seenMs) : `only ${fmt(online)} after ${seconds(seenMs)}`, { pass: online >= n ? undefined : false })
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
    const stream = await watchCommands(base, headers)
    beforeServerStops(stream.close)
    const finalsSeen = stream.finals
    log(`${name}: ping to all ${fmt(deviceIds.length)} devices`)
    const ping = phase(server)
    marks.push(['ping', ping.started])
    const sends = []
    for (let i = 0; i < deviceIds.length; i += MAX_PER_SEND) {
      sends.push(api<SendCommandResult>(base, '/iot/device/command', { method: 'POST', headers, body: { deviceIds: deviceIds.slice(i, i + MAX_PER_SEND), command: 'ping', params: {}, timeoutSeconds: bench.timeoutSeconds } }))
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
  })
}
