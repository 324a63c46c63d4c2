/**
 * Telemetry ingest under rising load (issue 45; BENCH_ONLY=ingest). For each database and broker,
 * on a fresh bundled server with BENCH_INGEST_DEVICES (2,000) devices written into it and connected
 * as devices that only report (bench/raw-devices.ts: raw MQTT, so the load generator costs little
 * beside the server on the same cores):
 *
 *  1. steps the offered rate through BENCH_INGEST_RATES (2500,5000,10000,20000 reports a second, all
 *     devices taking turns; QoS 1, each report with its device time) for BENCH_INGEST_STEP_SECONDS
 *     (60) each: the rows stored per second over the step, steady and in its slowest 5-second window (by
 *     the time each was taken in), the
 *     reports acknowledged, the server's CPU and peak RSS. Past the limit the stored rate should hold
 *     (the gateway stops reading, the devices keep what is not acknowledged) and memory stay bounded;
 *  2. between steps, waits until the devices' backlog is acknowledged (or 60 s), so each step starts even;
 *  3. then one step at twice the highest rate stored in full (BENCH_INGEST_OVERLOAD=0 skips it): the
 *     stored rate should hold at that limit in every 5-second window;
 *  4. then the same rows bare into the same table, as fast as the database takes them: SQLite the
 *     server's own multi-row INSERT in transactions of 5,000 through the same driver; PostgreSQL a
 *     `\copy … from` CSV through psql (COPY), BENCH_INGEST_BARE_ROWS (200,000) rows.
 *
 * Then the realistic fleet: BENCH_INGEST_BIG_DEVICES (20,000) devices each reporting every 5 s
 * (4,000 a second) for one step, when BENCH_INGEST_BIG is not 0.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CompiledQuery } from 'kysely'
import type { Db } from '../src/db/database'
import { type Broker, cpuText, fleetBench, phase, sleep } from './fleet-harness'
import { connectRawDevices } from './raw-devices'
import { fmt, log } from './format'
import type { Line, Target } from './run'

export interface IngestBench {
  devices: number
  rates: number[]
  stepSeconds: number
  bareRows: number
  concurrency: number
  /** After the steps, one more at twice the limit they found (BENCH_INGEST_OVERLOAD, on unless 0). */
  overload: boolean
}

const COLUMNS = ['device_id', 'received_at', 'device_time', 'battery', 'speed', 'latitude', 'longitude', 'satellites', 'signal', 'odometer', 'locked', 'tilt', 'vibration']
const WINDOW_MS = 5000

/**
 * Rows stored per second in each 5-s window of a step, by the time each report was taken in
 * (received_at), read once the step's backlog is written. Counting by the table's highest id
 * every 5 s instead jumps by whole batches (thousands of rows at a commit), which past the limit
 * made a window look up to 4,000/s slower or faster than it was.
 */
async function takenPerWindow(db: Db, afterId: number, from: number, to: number): Promise<number[]> {
  const rows = await db.selectFrom('iotTelemetry').select('receivedAt').where('telemetryId', '>', afterId).execute()
  const counts = new Array<number>(Math.floor((to - from) / WINDOW_MS)).fill(0)
  for (const r of rows) {
    const i = Math.floor((new Date(r.receivedAt as string | Date).getTime() - from) / WINDOW_MS)
    if (i >= 0 && i < counts.length) counts[i]!++
  }
  return counts.map((n) => (n * 1000) / WINDOW_MS)
}

/** The server's open file descriptors (docs/ops/capacity.md › Open files); null where there is no /proc. */
function openFiles(pid: number): number | null {
  try {
    return readdirSync(`/proc/${pid}/fd`).length
  } catch {
    return null
  }
}

const maxId = async (db: Db) => Number((await db.selectFrom('iotTelemetry').select((eb) => eb.fn.max('telemetryId').as('n')).executeTakeFirstOrThrow()).n ?? 0)

/** A telemetry row as the recorder writes it, for the bare figure. */
function bareRow(deviceId: number, i: number, now: number): unknown[] {
  const t = new Date(now + i).toISOString()
  return [deviceId, t, t, 80, 12.5, 52.37 + (i % 1000) / 1e5, 4.89, 9, -70, null, 1, 0, 0]
}

async function bareSqlite(db: Db, ids: number[], rows: number): Promise<number> {
  const chunk = 500
  const text = `insert into iot_telemetry (${COLUMNS.join(', ')}) values ${Array.from({ length: chunk }, () => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ')}`
  const now = Date.now()
  const t0 = performance.now()
  for (let done = 0; done < rows; done += 5000) {
    await db.transaction().execute(async (tx) => {
      for (let i = done; i < done + 5000; i += chunk) {
        const values: unknown[] = []
        for (let r = i; r < i + chunk; r++) values.push(...bareRow(ids[r % ids.length]!, r, now))
        await tx.executeQuery(CompiledQuery.raw(text, values))
      }
    })
  }
  return rows / ((performance.now() - t0) / 1000)
}

function barePostgres(url: string, ids: number[], rows: number): number {
  const file = join(tmpdir(), `velo-bench-ingest-${process.pid}.csv`)
  const now = Date.now()
  const csv: string[] = []
  // An empty field is NULL in CSV; 1 is true for the boolean locked.
  for (let r = 0; r < rows; r++) csv.push(bareRow(ids[r % ids.length]!, r, now).map((v) => (v === null ? '' : String(v))).join(','))
  writeFileSync(file, `${csv.join('\n')}\n`)
  try {
    const t0 = performance.now()
    execFileSync('psql', [url, '-v', 'ON_ERROR_STOP=1', '-q', '-c', `\\copy iot_telemetry (${COLUMNS.join(', ')}) from '${file}' with (format csv)`], { stdio: ['ignore', 'ignore', 'inherit'] })
    return rows / ((performance.now() - t0) / 1000)
  } finally {
    rmSync(file, { force: true })
  }
}

export async function runIngest(target: Target, broker: Broker, bench: IngestBench, serverEntry: string, label: string): Promise<{ lines: Line[]; notes: string[] }> {
  return fleetBench(
    { target, broker, serverEntry, prefix: 'VLI', devices: bench.devices, concurrency: bench.concurrency, behaviour: { telemetrySeconds: 0 }, label: 'ingest' },
    async ({ name, add, server, db, databaseUrl, url, sns, secrets, ids, waitOnline, beforeServerStops }) => {
      log(`${name}: connecting ${fmt(sns.length)} reporting devices to ${url}, ${bench.concurrency} at a time`)
      const files0 = openFiles(server.pid)
      const t0Connect = performance.now()
      const fleet = await connectRawDevices(url, sns.map((sn) => ({ sn, secret: secrets.get(sn)! })), bench.concurrency)
      beforeServerStops(() => fleet.close())
      const started = fleet.devices.length
      const connectedS = (performance.now() - t0Connect) / 1000
      // Reports start once the server has taken the connections in (their presence written), as a fleet that is up would send them.
      const online = await waitOnline(started)
      add(
        `${label}: connected`,
        `${fmt(started)} devices in ${fmt(connectedS, 1)} s${fleet.failed ? `, ${fmt(fleet.failed)} could not connect` : ''}; listed online after ${fmt((performance.now() - t0Connect) / 1000, 1)} s (${fmt(online)})`,
      )
      const files1 = openFiles(server.pid)
      if (files0 !== null && files1 !== null) add(`${label}: server's open files`, `${fmt(files0)} before the devices connected, ${fmt(files1)} with ${fmt(started)} connected (${fmt((files1 - files0) / Math.max(1, started), 2)} a device)`)
      const devices = fleet.devices
      /** One step at `rate` reports a second: its steady stored rate, and whether it stored what was offered. */
      const step = async (rate: number, what: string) => {
        const sent0 = fleet.sent
        const acked0 = fleet.acked
        let sent = 0
        const stepPhase = phase(server)
        const id0 = await maxId(db)
        const t0 = performance.now()
        const wall0 = Date.now()
        let due = 0
        let next = 0
        // Ticks of 20 ms: the offered rate follows the clock, not the acknowledgements.
        const ticker = setInterval(() => {
          due = ((performance.now() - t0) / 1000) * rate
          while (sent < due) {
            const d = devices[next++ % devices.length]!
            sent++
            // QoS 1 with the device's clock, as the protocol asks of telemetry.
            d.report({ battery: 80, gps: { lat: 52.37, lng: 4.89, speed: 12, satellites: 9 } })
          }
        }, 20)
        await sleep(bench.stepSeconds * 1000)
        clearInterval(ticker)
        const wall = (performance.now() - t0) / 1000
        const wall1 = Date.now()
        const id1 = await maxId(db)
        const p = stepPhase.stop()
        const acked = fleet.acked - acked0
        const stored = (id1 - id0) / wall
        const cpuPerReport = p.serverCpu !== null && id1 > id0 ? `, ${fmt((p.serverCpu * 1e6) / (id1 - id0))} µs of server CPU a stored report` : ''
        log(`${name}: ${label} offered ${fmt(sent / wall)}/s → stored ${fmt(stored)}/s; waiting for the backlog`)
        const deadline = performance.now() + 60_000
        const backlog = () => fleet.sent - sent0 - (fleet.acked - acked0)
        while (backlog() > 0 && performance.now() < deadline) await sleep(250)
        if (backlog() > 0) add(`${label}: backlog after ${fmt(rate)}/s`, `${fmt(backlog())} reports still unacknowledged after 60 s`)
        const windows = await takenPerWindow(db, id0, wall0, wall1)
        // The first window holds the step's start (and the last step's backlog): steady from the second on.
        const steady = windows.slice(1)
        const slowest = steady.length ? Math.min(...steady) : stored
        const steadyRate = steady.length ? steady.reduce((a, b) => a + b, 0) / steady.length : stored
        add(
          `${label}: ${what}offered ${fmt(sent / wall)}/s for ${fmt(wall)} s`,
          `stored ${fmt(stored)}/s over the step, ${fmt(steadyRate)}/s steady (slowest 5 s: ${fmt(slowest)}/s), acknowledged ${fmt(acked)} of ${fmt(sent)}; ${cpuText(p)}${cpuPerReport}`,
        )
        // Stored in full: what is offered is written as it comes (reports in flight at the end aside).
        return { steadyRate, slowest, inFull: steadyRate >= (sent / wall) * 0.9 }
      }
      let limit = 0
      // Whether a step fell short: else every rate offered was taken, and the limit is only "at least".
      let reached = false
      for (const rate of bench.rates) {
        const s = await step(rate, '')
        if (s.inFull) limit = Math.max(limit, s.steadyRate)
        else reached = true
      }
      if (limit) add(`${label}: limit (highest rate stored in full)`, `${reached ? '' : 'at least '}${fmt(limit)}/s${reached ? '' : ' (every rate offered was stored in full)'}`)
      // The issue's overload row: twice the limit just found, the stored rate held at the limit throughout.
      if (limit && bench.overload) {
        const s = await step(2 * limit, 'twice the limit: ')
        add(`${label}: twice the limit, slowest 5 s ÷ limit`, fmt(s.slowest / limit, 2), { target: '≥ 0.9', pass: s.slowest / limit >= 0.9 })
      }
      await fleet.close()

      const idList = [...ids.values()]
      const bare = target.dialect === 'postgres' ? barePostgres(databaseUrl, idList, bench.bareRows) : await bareSqlite(db, idList, bench.bareRows)
      const how = target.dialect === 'postgres' ? 'COPY (psql \\copy, CSV)' : "the server's multi-row INSERT, 5,000 rows a transaction"
      add(`bare: ${fmt(bench.bareRows)} rows into the same table, ${how}`, `${fmt(bare)} rows/s`)
      if (limit && reached) add(`${label}: limit ÷ bare`, fmt(limit / bare, 2), { target: '≥ 0.5', pass: limit / bare >= 0.5 })
      else if (limit) add(`${label}: limit ÷ bare`, `at least ${fmt(limit / bare, 2)} (no step reached the limit)`)
      log(`${name}: ${started} devices; bare ${fmt(bare)} rows/s`)
    },
  )
}
