import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { SimulatedDevice } from '@velo/device-sim'
import type { JobInfo, SendCommandResult } from '@velo/shared'
import { afterAll, describe, expect, it } from 'vitest'
import ExcelJS from 'exceljs'
import { multipart, useTestApp } from './harness'
import { demoModelId, openStream, randomSn, simulated, waitFor } from './iot-helpers'

// /metrics after real work: a list, an export (direct and as a job), a command to a simulated device
// over the real broker, an open event stream. Values are read from the Prometheus text.

const TOKEN = 'metrics-token-0123456789abcdef'

/** The value of one series of the text format ({} in labels means any labels), or undefined. */
function series(text: string, name: string, labels: Record<string, string | RegExp> = {}): number[] {
  const values: number[] = []
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m || m[1] !== name) continue
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]))
    const match = Object.entries(labels).every(([k, v]) => (typeof v === 'string' ? got[k] === v : v.test(got[k] ?? '')))
    if (match) values.push(Number(m[3]))
  }
  return values
}
const total = (values: number[]) => values.reduce((a, b) => a + b, 0)

describe('metrics', () => {
  const t = useTestApp({ METRICS_TOKEN: TOKEN, METRICS_PORT: '0' })
  const devices: SimulatedDevice[] = []
  let closeStream: (() => Promise<unknown>) | undefined
  afterAll(async () => {
    await closeStream?.()
    await Promise.all(devices.map((d) => d.disconnect().catch(() => {})))
  })

  const scrape = async (authorization?: string) => {
    const res = await t.app.inject({ url: '/metrics', headers: authorization ? { authorization } : {} })
    return { status: res.statusCode, text: res.body, type: String(res.headers['content-type']) }
  }

  it('refuses a scrape without the token, or with another', async () => {
    expect((await scrape()).status).toBe(401)
    expect((await scrape(`Bearer ${TOKEN}x`)).status).toBe(401)
    expect((await scrape(TOKEN)).status).toBe(401)
  })

  it('exposes every family after a list, an export, a job and a command', async () => {
    const list = await t.call({ method: 'POST', url: '/api/monitor/logininfor/list', token: t.admin, body: { pageNum: 1, pageSize: 10 } })
    expect(list.code, list.msg).toBe(200)
    const user = await t.call({ url: '/api/system/user/1', token: t.admin })
    expect(user.code, user.msg).toBe(200)
    const exported = await t.call({ method: 'POST', url: '/api/system/menu/export', token: t.admin, body: {} })
    expect(exported.status).toBe(200)
    const menus = Number((await t.app.services.db.selectFrom('sysMenu').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
    const job = await t.call<JobInfo>({ method: 'POST', url: '/api/monitor/logininfor/export/job', token: t.admin, body: {} })
    expect(job.code, job.msg).toBe(200)
    await waitFor(async () => {
      const row = await t.app.services.db.selectFrom('sysJob').select('state').where('jobId', '=', job.data.jobId).executeTakeFirstOrThrow()
      return row.state === 'succeeded' ? row : null
    }, 'the export job')

    // A device of the demo model, added through the API, connected over the broker, sent a ping it answers.
    const sn = randomSn()
    const added = await t.call<{ secret: string }>({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn, modelId: await demoModelId(t) } })
    expect(added.code, added.msg).toBe(200)
    const device = simulated(t.app, { sn, secret: added.data.secret })
    devices.push(device)
    await device.connect()
    const deviceId = Number((await t.app.services.db.selectFrom('iotDevice').select('deviceId').where('sn', '=', sn).executeTakeFirstOrThrow()).deviceId)
    await waitFor(async () => {
      const row = await t.app.services.db.selectFrom('iotDevice').select('online').where('deviceId', '=', deviceId).executeTakeFirstOrThrow()
      return row.online ? true : null
    }, 'the device online')
    const sent = await t.call<SendCommandResult>({ method: 'POST', url: '/api/iot/device/command', token: t.admin, body: { deviceIds: [deviceId], command: 'ping' } })
    expect(sent.code, sent.msg).toBe(200)
    const { commandId } = sent.data.commands[0]!
    await waitFor(async () => {
      const row = await t.app.services.db.selectFrom('iotCommand').select('status').where('commandId', '=', commandId).executeTakeFirstOrThrow()
      return row.status === 'succeeded' ? true : null
    }, 'the command succeeded')

    const stream = await openStream(t.app, '/api/iot/stream', t.admin)
    expect(stream.status).toBe(200)
    closeStream = stream.close

    const { status, text, type } = await scrape(`Bearer ${TOKEN}`)
    expect(status).toBe(200)
    expect(type).toContain('text/plain')

    // HTTP: by the route's pattern, never the URL.
    expect(total(series(text, 'velo_http_requests_total', { method: 'POST', route: '/api/monitor/logininfor/list', status: '200' }))).toBeGreaterThanOrEqual(1)
    expect(total(series(text, 'velo_http_requests_total', { method: 'GET', route: /^\/api\/system\/user\/:\w+$/, status: '200' }))).toBeGreaterThanOrEqual(1)
    expect(text).not.toContain('route="/api/system/user/1"')
    expect(series(text, 'velo_http_request_duration_seconds_count', { route: '/api/monitor/logininfor/list' })[0]).toBeGreaterThanOrEqual(1)
    expect(series(text, 'velo_http_request_duration_seconds_bucket', { route: '/api/monitor/logininfor/list', le: '+Inf' })[0]).toBeGreaterThanOrEqual(1)
    // Database.
    expect(series(text, 'velo_db_query_duration_seconds_count', { kind: 'select' })[0]).toBeGreaterThan(10)
    expect(series(text, 'velo_db_query_duration_seconds_sum', { kind: 'select' })[0]).toBeGreaterThan(0)
    if (t.app.services.dialect === 'postgres') expect(series(text, 'velo_db_pool_connections', { state: 'total' })[0]).toBeGreaterThanOrEqual(1)
    // MQTT: the ping went out, its replies came in; the device is online.
    expect(series(text, 'velo_mqtt_messages_total', { direction: 'out' })[0]).toBeGreaterThanOrEqual(1)
    expect(series(text, 'velo_mqtt_messages_total', { direction: 'in' })[0]).toBeGreaterThanOrEqual(2)
    expect(series(text, 'velo_mqtt_devices_online')[0]).toBeGreaterThanOrEqual(1)
    // Ingest: nothing waiting once the replies are written, not saturated.
    expect(series(text, 'velo_ingest_pending')[0]).toBeGreaterThanOrEqual(0)
    expect(series(text, 'velo_ingest_saturated')[0]).toBe(0)
    expect(series(text, 'velo_ingest_saturated_seconds_total')[0]).toBe(0)
    // Commands and jobs, counted at scrape time.
    expect(series(text, 'velo_commands', { state: 'succeeded' })[0]).toBeGreaterThanOrEqual(1)
    expect(series(text, 'velo_jobs', { kind: 'export', state: 'succeeded' })[0]).toBeGreaterThanOrEqual(1)
    // Rows: the direct export's every menu row, and the job's.
    expect(series(text, 'velo_rows_total', { direction: 'export', entity: 'menu' })[0]).toBe(menus)
    expect(series(text, 'velo_rows_total', { direction: 'export', entity: /^login/i }).length).toBe(1)
    // Event streams, process memory and event loop.
    expect(series(text, 'velo_sse_clients')[0]).toBe(1)
    expect(series(text, 'velo_process_resident_memory_bytes')[0]).toBeGreaterThan(10_000_000)
    expect(series(text, 'velo_nodejs_eventloop_lag_p99_seconds')[0]).toBeGreaterThanOrEqual(0)
    expect(series(text, 'velo_nodejs_heap_size_used_bytes')[0]).toBeGreaterThan(0)

    // Every series the Grafana dashboard reads is one the server writes.
    const dashboard = readFileSync(fileURLToPath(new URL('../../../docs/ops/grafana-dashboard.json', import.meta.url)), 'utf8')
    const read = new Set([...dashboard.matchAll(/velo_[a-z0-9_]+/g)].map((m) => m[0]))
    for (const name of read) {
      if (name === 'velo_db_pool_connections' && t.app.services.dialect !== 'postgres') continue
      expect(series(text, name).length, name).toBeGreaterThan(0)
    }
  })

  it('counts rows imported', async () => {
    const wb = new ExcelJS.Workbook()
    const ws = wb.addWorksheet('Dictionaries')
    ws.addRow(['Dictionary name', 'Dictionary type'])
    for (let i = 0; i < 25; i++) ws.addRow([`Metrics ${i}`, `metrics_${i}`])
    const file = Buffer.from(await wb.xlsx.writeBuffer())
    const res = await t.call({ method: 'POST', url: '/api/system/dict/import', token: t.admin, ...multipart([{ name: 'dictionaries.xlsx', bytes: file }]) })
    expect(res.code, res.msg).toBe(200)
    const { text } = await scrape(`Bearer ${TOKEN}`)
    expect(series(text, 'velo_rows_total', { direction: 'import', entity: /^dict/ })).toEqual([25])
  })

  it('serves /metrics without a token on the metrics listener, and nothing else there', async () => {
    const port = t.app.metrics?.listenerPort
    expect(port).toBeGreaterThan(0)
    const res = await fetch(`http://127.0.0.1:${port}/metrics`)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('velo_http_requests_total')
    expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(404)
  })

  it('keeps the scrape-time counts for a few seconds: a burst of scrapes makes no more queries', async () => {
    await scrape(`Bearer ${TOKEN}`)
    const before = series((await scrape(`Bearer ${TOKEN}`)).text, 'velo_db_query_duration_seconds_count', { kind: 'select' })[0]!
    for (let i = 0; i < 10; i++) await scrape(`Bearer ${TOKEN}`)
    const after = series((await scrape(`Bearer ${TOKEN}`)).text, 'velo_db_query_duration_seconds_count', { kind: 'select' })[0]!
    // A job worker's poll may fall in between; ten scrapes without the cache would be thirty.
    expect(after - before).toBeLessThan(10)
  })
})

describe('metrics without a token or listener', () => {
  const t = useTestApp()
  it('answers 404', async () => {
    const res = await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer anything-at-all-here' } })
    expect(res.statusCode).toBe(404)
    // Nothing measured either: nobody could read it.
    expect(t.app.metrics).toBeNull()
  })
})
