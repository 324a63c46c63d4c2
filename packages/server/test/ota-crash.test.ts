import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { registerDevice, SimulatedDevice } from '@velo/device-sim'
import { type Envelope, type OtaCampaignOverview, otaDownPayload } from '@velo/shared'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config'
import { createDatabase, type Db } from '../src/db/database'
import { freshDatabase, multipart } from './harness'
import { randomSn, waitFor } from './iot-helpers'
import { freePort, serverEnv, signInAdmin, startServer } from './server-process'

// An OTA campaign survives a kill -9 of the server (issue 18): the real server (src/main.ts) in a
// child process rolls out a firmware to simulated devices and is killed, without a chance to write
// anything, while the first wave downloads. Started again on the same database, storage and broker
// port, it finishes the campaign: the wave's downloads resume, the next wave follows, and the
// canary that had already succeeded is never offered the upgrade again.

/**
 * The ids of the offers that reached this device (down/ota, op offer): what the device saw, not
 * what a server meant to send or managed to log before it died.
 */
function offersReceived(sim: SimulatedDevice): string[] {
  const ids: string[] = []
  const ota = sim.ota
  const handle = ota.onControl.bind(ota)
  ota.onControl = (raw: Buffer) => {
    try {
      const parsed = otaDownPayload.safeParse(JSON.parse(raw.toString()))
      if (parsed.success && parsed.data.op === 'offer') ids.push(parsed.data.id)
    } catch {
      // Not JSON: the device ignores it, and it is no offer.
    }
    handle(raw)
  }
  return ids
}

describe('an OTA campaign and a server killed with kill -9', () => {
  const dir = mkdtempSync(join(tmpdir(), 'velo-ota-crash-'))
  const sims: SimulatedDevice[] = []
  const cleanups: (() => Promise<unknown> | unknown)[] = []
  afterAll(async () => {
    await Promise.all(sims.map((s) => s.disconnect().catch(() => {})))
    for (const c of cleanups.reverse()) await c()
    rmSync(dir, { recursive: true, force: true })
  })

  it('resumes after the restart: the downloads under way finish, the next wave follows, the finished canary gets no second offer', async () => {
    const database = await freshDatabase(dir)
    cleanups.push(database.drop)
    const [port, mqttPort] = [await freePort(), await freePort()]
    // A fixed MQTT port: the devices reconnect to the restarted server's broker where they knew it.
    const env = serverEnv(dir, database.url, port, { MQTT_PORT: String(mqttPort) })
    let server = await startServer(env)
    cleanups.push(() => server.child.kill('SIGKILL'))
    expect(server.output()).toContain(`Embedded MQTT broker on port ${mqttPort}`)

    // The test reads rows straight from the server's database; every change it makes goes through the API.
    let db: Db | undefined = createDatabase(loadConfig({ DATABASE_URL: database.url }).database).db
    cleanups.push(() => db?.destroy())
    // What the closures below read through: `db` is a let (cleared once destroyed), which a closure cannot narrow.
    const otaTables = db

    const base = `http://127.0.0.1:${port}/api`
    const token = await signInAdmin(base)
    const api = async <T = unknown>(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
      const res = await fetch(`${base}${url}`, { method, headers: { authorization: token, ...headers }, body: body === undefined ? (method === 'GET' ? undefined : '{}') : body instanceof Buffer ? body : JSON.stringify(body) })
      const answer = (await res.json()) as Envelope<T>
      if (answer.code !== 200) throw new Error(`${method} ${url}: ${answer.code} ${answer.msg}`)
      return answer.data
    }

    // Campaigns start without a second person's approval here.
    const approval = await db.selectFrom('sysConfig').select('configId').where('configKey', '=', 'ota.approvalRequired').executeTakeFirstOrThrow()
    await api('PUT', '/system/config', { configId: approval.configId, configValue: 'false' })

    // Six modules register themselves with the demo model's key and connect.
    const model = await db.selectFrom('iotModel').select('modelId').where('productId', '=', 'VELO-4G').executeTakeFirstOrThrow()
    const { registrationKey } = await api<{ registrationKey: string }>('GET', `/iot/model/${model.modelId}/registrationKey`)
    const devices: { sim: SimulatedDevice; offers: string[] }[] = []
    for (let i = 0; i < 6; i++) {
      const registration = await registerDevice(base, 'VELO-4G', registrationKey, randomSn())
      const sim = new SimulatedDevice({
        url: `mqtt://127.0.0.1:${mqttPort}`,
        sn: registration.sn,
        secret: registration.secret,
        otaKeys: registration.otaKeys,
        heartbeatSeconds: 0,
        connectTimeout: 5000,
        firmwareVersion: '1.0.0',
        otaInstallMs: 5,
        // Two blocks per request: a slowed download reports its progress in steps, and a restart lands between them.
        otaWindow: 2,
        mqtt: { reconnectPeriod: 300 },
      })
      sims.push(sim)
      devices.push({ sim, offers: offersReceived(sim) })
    }
    await Promise.all(devices.map((d) => d.sim.connect()))
    const deviceRows = await waitFor(async () => {
      const found = await db!
        .selectFrom('iotDevice')
        .select(['deviceId', 'sn'])
        .where(
          'sn',
          'in',
          devices.map((d) => d.sim.sn),
        )
        .where('online', '=', 1)
        .where('firmwareVersion', '=', '1.0.0')
        .execute()
      return found.length === devices.length ? found : null
    }, 'the modules online with their versions')
    const deviceIdOf = new Map(deviceRows.map((r) => [r.sn, Number(r.deviceId)]))

    // A firmware of the IoT module, its binary uploaded (40 kB: ten blocks of the default 4 kB).
    const supplier = await api<{ supplierId: number }>('POST', '/ota/iotpart/supplier', { name: 'Quectel crash', supplierCode: 'QT', iotCode: 'Q' })
    const product = await api<{ productId: number }>('POST', '/ota/iotpart/product', { supplierId: supplier.supplierId, name: 'EC200 crash', productCode: 'EC', hardwareRevision: 'HW-A1' })
    const upload = multipart([{ name: 'fw.bin', bytes: randomBytes(40_000) }])
    const file = await api<{ fileName: string }>('POST', '/iot/firmware/file/file', upload.payload, upload.headers)
    const firmware = await api<{ firmwareId: number }>('POST', '/iot/firmware', {
      name: 'EC200 2.0.0',
      code: `ec200-crash-${Date.now()}`,
      supplierId: supplier.supplierId,
      productId: product.productId,
      customVersion: '2.0.0',
      file: file.fileName,
    })

    // One canary, then two waves (three devices, then two).
    const campaign = await api<{ campaignId: number }>('POST', '/iot/upgrade', {
      name: 'Crash rollout',
      payload: 'firmware',
      firmwareId: firmware.firmwareId,
      deviceIds: devices.map((d) => deviceIdOf.get(d.sim.sn)),
      randomOrder: false,
      canaryCount: 1,
      waveCount: 2,
      successPercent: 100,
      errorPercent: 50,
      errorMinFinished: 1,
      alarmRateFactor: 0,
      retries: 1,
      retryBackoffSeconds: 1,
      timeoutMinutes: 10,
      ratePerMinute: 0,
      minBattery: 0,
    })
    const campaignId = Number(campaign.campaignId)
    expect((await api<{ status: string }>('POST', `/iot/upgrade/${campaignId}/submit`)).status).toBe('scheduled')
    const campaignRow = () => otaTables.selectFrom('otaCampaign').selectAll().where('campaignId', '=', campaignId).executeTakeFirstOrThrow()
    const deviceStates = () => otaTables.selectFrom('otaCampaignDevice').selectAll().where('campaignId', '=', campaignId).orderBy('position').execute()
    const planned = await deviceStates()
    expect(planned.map((r) => r.wave)).toEqual([0, 1, 1, 1, 2, 2])
    const simOf = (deviceId: number) => devices.find((d) => deviceIdOf.get(d.sim.sn) === deviceId)!
    const inWave = (wave: number) => planned.filter((r) => r.wave === wave).map((r) => simOf(Number(r.deviceId)))
    const [canary] = inWave(0)
    const firstWave = inWave(1)
    // The first wave downloads slowly (about ten seconds), so the kill lands in the middle of it.
    for (const d of firstWave) d.sim.behaviour.otaBytesPerSecond = 4000
    expect((await api<{ status: string }>('POST', `/iot/upgrade/${campaignId}/start`)).status).toBe('running')

    await waitFor(
      async () => {
        const states = await deviceStates()
        return states[0]!.state === 'succeeded' && states.filter((r) => r.wave === 1).every((r) => r.state === 'downloading' && r.percent! > 0 && r.percent! < 100)
      },
      'the canary upgraded and the first wave downloading',
      30_000,
    )
    server.child.kill('SIGKILL')
    await server.exited

    // The dead server could write nothing more: the campaign still runs, the wave is mid-download.
    const left = await deviceStates()
    expect((await campaignRow()).status).toBe('running')
    expect(left.map((r) => r.state)).toEqual(['succeeded', 'downloading', 'downloading', 'downloading', 'queued', 'queued'])
    expect(canary!.offers).toHaveLength(1)
    for (const d of firstWave) expect(d.sim.ota.state).toMatchObject({ stage: 'downloading' })
    expect(firstWave.every((d) => d.sim.ota.state!.next < d.sim.ota.state!.offer.blocks)).toBe(true)

    server = await startServer(env)
    expect(server.output()).toContain(`Embedded MQTT broker on port ${mqttPort}`)
    const finished = await waitFor(
      async () => {
        const c = await campaignRow()
        return ['finished', 'paused', 'cancelled'].includes(c.status) ? c : null
      },
      'the campaign to end after the restart',
      45_000,
    )
    expect(finished).toMatchObject({ status: 'finished', totalDevices: 6, succeededCount: 6, failedCount: 0 })

    const after = await deviceStates()
    // Every device upgraded on its first attempt: the downloads under way resumed, none was retried.
    expect(after.map((r) => [r.state, Number(r.attempt)])).toEqual(Array(6).fill(['succeeded', 1]))
    for (const d of devices) expect(d.sim.behaviour.firmwareVersion).toBe('2.0.0')
    // The canary, finished before the kill, was offered the upgrade once. Every other device had one
    // offer: those mid-download got it again as they subscribed to the restarted broker (which asks
    // for what is pending), with the same id, and carried on.
    expect(canary!.offers).toHaveLength(1)
    for (const d of devices) expect([...new Set(d.offers)], d.sim.sn).toHaveLength(1)
    for (const d of firstWave) expect(d.sim.ota.state).toMatchObject({ id: d.offers[0], stage: 'committed' })
    // What the campaign's page shows, from the restarted server.
    const overview = await api<OtaCampaignOverview>('GET', `/iot/upgrade/${campaignId}/overview`)
    expect(overview).toMatchObject({ status: 'finished', totalDevices: 6, counts: { succeeded: 6 }, failed: [] })

    await Promise.all(sims.map((s) => s.disconnect()))
    server.child.kill('SIGTERM')
    await server.exited
    await db.destroy()
    db = undefined
  }, 150_000)
})
