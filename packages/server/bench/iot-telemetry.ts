/**
 * Telemetry history benchmark (issue 17; part of `npm run bench`'s fleet part, BENCH_ONLY=fleet).
 * For each database of the engine benchmark, with the embedded broker:
 *
 *  1. starts the bundled server on a fresh database, writes BENCH_TELEMETRY_DEVICES (10,000) devices
 *     straight into it, and restarts it with nothing cached (bench/fleet-harness.ts);
 *  2. connects them all with the simulator's Fleet, each reporting telemetry every 30 s, and lets them
 *     report for BENCH_TELEMETRY_SECONDS (300): the server's CPU share over that window (from
 *     /proc/<pid>/stat) and the rows the recorder stored against the reports sent;
 *  3. fills 30 days of 30-second rows for BENCH_TELEMETRY_FILL_DEVICES (100) devices with bare
 *     INSERT … SELECT statements (86,400 rows a device; the whole fleet's 864 M rows would take this
 *     machine hours to write, and an index range scan does not grow with the rows of other devices),
 *     then asks one device's day BENCH_TELEMETRY_QUERIES (200) times through the API (the raw points'
 *     first page with its count, and the chart's series) and as the bare SQL of the same rows: p50 / p99.
 */
import type { Paged } from '@velo/shared'
import { sql } from 'kysely'
import type { Db } from '../src/db/database'
import { cpuSeconds, EMBEDDED_BROKER, fleetBench, sleep } from './fleet-harness'
import { fmt, log, ms } from './format'
import { percentile } from './measure'
import { api, type Line, type Target } from './run'

export interface TelemetryBench {
  devices: number
  seconds: number
  fillDevices: number
  queries: number
  /** Devices connecting at a time. */
  concurrency: number
}

const REPORT_SECONDS = 30
const DAY_MS = 86_400_000
const QUERY_TARGET_MS = 50
/** Bench SNs: the demo model's prefix VL, then T (apart from the IoT part's VLB… and the simulator's VL0…). */
const SN_PREFIX = 'VLT'

const countRows = async (db: Db) => Number((await db.selectFrom('iotTelemetry').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

/** 30 days of one report every 30 s for one device, written by the database itself. */
async function fillDevice(db: Db, dialect: 'sqlite' | 'postgres', deviceId: number, now: number) {
  const rows = (30 * DAY_MS) / (REPORT_SECONDS * 1000)
  const start = now - 30 * DAY_MS
  if (dialect === 'postgres') {
    await sql`insert into iot_telemetry (device_id, received_at, battery, speed, latitude, longitude, satellites, signal, locked)
      select ${deviceId}::bigint, to_timestamp((${start}::bigint + s * ${REPORT_SECONDS * 1000}::bigint) / 1000.0), 100 - (s % 100), s % 30, 52.5, 13.4, 9, -70 - (s % 30), false
      from generate_series(0, ${rows - 1}::integer) s`.execute(db)
  } else {
    await sql`with recursive s(i) as (select 0 union all select i + 1 from s where i < ${rows - 1})
      insert into iot_telemetry (device_id, received_at, battery, speed, latitude, longitude, satellites, signal, locked)
      select ${deviceId}, strftime('%Y-%m-%dT%H:%M:%fZ', (${start} + i * ${REPORT_SECONDS * 1000}) / 1000.0, 'unixepoch'), 100 - (i % 100), i % 30, 52.5, 13.4, 9, -70 - (i % 30), 0 from s`.execute(db)
  }
}

const p50p99 = (samples: number[]) => {
  const sorted = Float64Array.from(samples).sort()
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }
}

export async function runTelemetry(target: Target, bench: TelemetryBench, serverEntry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const n = bench.devices
  const setup = {
    target,
    broker: EMBEDDED_BROKER,
    serverEntry,
    prefix: SN_PREFIX,
    devices: n,
    concurrency: bench.concurrency,
    behaviour: { telemetrySeconds: REPORT_SECONDS },
    label: 'telemetry',
  }
  return fleetBench(setup, async ({ name, add, server, db, base, headers, ids, connect, disconnect }) => {
    const raw = db

    // --- the fleet reporting
    const { started } = await connect()
    // The window starts once all are connected and their reports on connect are stored: the connect
    // storm is the IoT part's measure.
    await sleep(2500)
    const rows0 = await countRows(raw)
    const cpu0 = cpuSeconds(server.pid)
    const t0 = performance.now()
    log(`${name}: ${fmt(started)} connected; measuring ${bench.seconds} s of telemetry`)
    await sleep(bench.seconds * 1000)
    const cpu1 = cpuSeconds(server.pid)
    const wall = (performance.now() - t0) / 1000
    // What was sent in the window lands within the recorder's one-second batch.
    await sleep(2500)
    const stored = (await countRows(raw)) - rows0
    const expected = (started * wall) / REPORT_SECONDS
    await disconnect()
    const share = cpu0 === null || cpu1 === null ? null : (cpu1 - cpu0) / wall
    add(
      `${fmt(started)} devices × telemetry every ${REPORT_SECONDS} s for ${fmt(wall)} s: server CPU`,
      share === null ? 'n/a' : `${fmt(share * 100, 1)}% of one core (${fmt((cpu1! - cpu0!), 1)} s)`,
    )
    add('… rows stored in the window', `${fmt(stored)} (${fmt(stored / wall)}/s; about ${fmt(expected)} reports expected)`, { pass: stored >= expected * 0.9 ? undefined : false })

    // --- 30 days for some devices, then one device's day
    const filled = [...ids.values()].slice(0, bench.fillDevices)
    log(`${name}: filling 30 days for ${fmt(filled.length)} devices`)
    const now = Date.now()
    const fillStarted = performance.now()
    for (const deviceId of filled) await fillDevice(raw, target.dialect, deviceId, now)
    if (target.dialect === 'postgres') await sql`analyze iot_telemetry`.execute(raw)
    const total = await countRows(raw)
    add('table filled (30 days × 2,880 rows for each filled device)', `${fmt(total)} rows, ${fmt(filled.length)} devices, ${fmt((performance.now() - fillStarted) / 1000, 1)} s`)

    const pick = () => {
      const deviceId = filled[Math.floor(Math.random() * filled.length)]!
      const from = now - 30 * DAY_MS + Math.floor(Math.random() * 29) * DAY_MS
      return { deviceId, from: new Date(from).toISOString(), to: new Date(from + DAY_MS).toISOString() }
    }
    const timeIt = async (fn: () => Promise<unknown>) => {
      // A few untimed first: the first reads of a freshly written table fetch its pages from disk.
      for (let i = 0; i < 10; i++) await fn()
      const samples: number[] = []
      for (let i = 0; i < bench.queries; i++) {
        const t = performance.now()
        await fn()
        samples.push(performance.now() - t)
      }
      return p50p99(samples)
    }
    const listPage = await timeIt(async () => {
      const q = pick()
      const res = await api<Paged<unknown>>(base, '/iot/collection/list', { method: 'POST', headers, body: { deviceId: q.deviceId, receivedAt: [q.from, q.to], pageNum: 1, pageSize: 20 } })
      if (res.code !== 200 || res.data!.total < 2800) throw new Error(`list answered ${res.status} ${res.msg} (${res.data?.total} rows)`)
    })
    const chart = await timeIt(async () => {
      const q = pick()
      const res = await api(base, '/iot/collection/series', { method: 'POST', headers, body: q })
      if (res.code !== 200) throw new Error(`series answered ${res.status} ${res.msg}`)
    })
    const day = (q: ReturnType<typeof pick>) => raw.selectFrom('iotTelemetry').where('deviceId', '=', q.deviceId).where('receivedAt', '>=', q.from).where('receivedAt', '<', q.to)
    // The list's SQL bare: the newest page of the day and its count.
    const bare = await timeIt(async () => {
      const q = pick()
      const [rows, count] = await Promise.all([
        day(q).selectAll().orderBy('receivedAt', 'desc').limit(20).execute(),
        day(q).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ])
      if (rows.length < 20 || Number(count.n) < 2800) throw new Error(`bare day query found ${rows.length} / ${count.n} rows`)
    })
    // Every row of the day into this process (what a day's export reads), for scale: mostly row decoding.
    const wholeDay = await timeIt(async () => {
      const rows = await day(pick()).selectAll().execute()
      if (rows.length < 2800) throw new Error(`bare day query found ${rows.length} rows`)
    })
    const line = (what: string, r: { p50: number; p99: number }) =>
      add(what, `${ms(r.p50)} / ${ms(r.p99)}`, { target: `p99 < ${QUERY_TARGET_MS} ms`, pass: r.p99 < QUERY_TARGET_MS })
    line(`one device's day, API list page + count (p50 / p99 of ${bench.queries})`, listPage)
    line("one device's day, API chart series", chart)
    line("one device's day, the list's SQL bare (page of 20 + count)", bare)
    add("one device's day, all 2,880 rows read bare (p50 / p99)", `${ms(wholeDay.p50)} / ${ms(wholeDay.p99)}`)
  })
}
