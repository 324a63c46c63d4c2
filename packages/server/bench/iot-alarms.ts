/**
 * Alarm storm benchmark (the `fleet` part of `npm run bench`; alone with BENCH_ONLY=fleet). For each
 * broker and database, through bench/fleet-harness.ts as the other fleet benches: a fresh server with BENCH_ALARM_DEVICES
 * devices written straight into its database, restarted so nothing is cached, every device
 * connected from this process with the simulator's Fleet; then every device reports a fault at
 * once (up/event) and the time is taken until the warnings list holds all of them, with the server's
 * CPU time and peak RSS. A second storm of the same fault is counted on the same rows (repeats):
 * timed until every row's count is 2.
 */
import type { Paged } from '@velo/shared'
import { cpuText, fleetBench, type Broker, phase, seconds, sleep } from './fleet-harness'
import { fmt, log } from './format'
import { type Line, api, type Target } from './run'

export interface AlarmBench {
  devices: number
  concurrency: number
}

/** Bench SNs: the demo model's prefix VL, then A (apart from the other benches' VLB and VLC). */
const SN_PREFIX = 'VLA'
const STORM_TARGET_MS = 10_000
const FAULT = 'E-BENCH-01'

export async function runAlarmStorm(target: Target, broker: Broker, bench: AlarmBench, serverEntry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const setup = { target, broker, serverEntry, prefix: SN_PREFIX, devices: bench.devices, concurrency: bench.concurrency, label: 'alarms', failure: 'alarm storm' }
  return fleetBench(setup, async ({ name, add, server, db, base, headers, connect }) => {
    const { fleet } = await connect()
    await sleep(1000)
    const devices = fleet.devices

    const listed = async () => Number((await api<Paged<unknown>>(base, '/iot/warning/list', { method: 'POST', headers, body: { type: 'fault', code: FAULT, pageNum: 1, pageSize: 1 } })).data?.total ?? 0)
    const repeated = async () => {
      const row = await db
        .selectFrom('iotAlarm' as never)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('count' as never, '>=', 2 as never)
        .executeTakeFirstOrThrow()
      return Number((row as { n: number }).n)
    }
    const storm = async (label: string, done: () => Promise<number>) => {
      log(`${name}: ${devices.length} devices report ${FAULT} at once (${label})`)
      const storming = phase(server)
      const t0 = storming.started
      await Promise.all(devices.map((d) => d.fault(FAULT, 'bench storm')))
      const sentMs = performance.now() - t0
      let seen = 0
      const until = performance.now() + 120_000
      while (performance.now() < until && (seen = await done()) < devices.length) await sleep(100)
      const allMs = performance.now() - t0
      return { sentMs, allMs, seen, server: storming.stop() }
    }

    const first = await storm('new alarms', listed)
    add(`alarm storm of ${fmt(devices.length)}: faults published`, seconds(first.sentMs))
    add(`alarm storm of ${fmt(devices.length)}: all in the warnings list`, first.seen === devices.length ? seconds(first.allMs) : `${fmt(first.seen)} of ${fmt(devices.length)} after ${seconds(first.allMs)}`, {
      target: `< ${STORM_TARGET_MS / 1000} s`,
      pass: first.seen === devices.length && first.allMs < STORM_TARGET_MS,
    })
    add('alarm storm: server', cpuText(first.server))
    const again = await storm('repeats', repeated)
    add(`alarm storm repeated: all ${fmt(devices.length)} counted on their rows`, again.seen === devices.length ? seconds(again.allMs) : `${fmt(again.seen)} of ${fmt(devices.length)} after ${seconds(again.allMs)}`)
    const rows = Number((await db.selectFrom('iotAlarm' as never).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow() as { n: number }).n)
    add('alarm storm: alarm rows after both storms', fmt(rows), { target: fmt(devices.length), pass: rows === devices.length })
  })
}
