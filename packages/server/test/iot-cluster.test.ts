import { randomBytes } from 'node:crypto'
import type { SimulatedDevice } from '@velo/device-sim'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IotOptions } from '../src/gateway'
import { createTestApp, type TestApp } from './harness'
import { clearRetained, insertDevice, type IotStreamEvent, openStream, simulated, waitFor } from './iot-helpers'

// Several stateless instances are the production shape: one PostgreSQL, one Redis, one broker.
const mqttUrl = process.env.TEST_MQTT_URL
const cluster = !!(process.env.TEST_DATABASE_URL && process.env.REDIS_URL && mqttUrl)

describe.skipIf(!cluster)('two server instances on one database, Redis and broker', () => {
  let a: TestApp
  let b: TestApp
  let token = ''
  const iot: IotOptions = { presence: { flushMs: 10 }, messageLog: { flushMs: 10 } }
  const devices: SimulatedDevice[] = []

  beforeAll(async () => {
    // One shared-subscription group: the broker hands each device message to one of the two.
    const env = { MQTT_URL: mqttUrl!, MQTT_SHARE_GROUP: `cluster${randomBytes(6).toString('hex')}` }
    a = await createTestApp(env, { iot })
    b = await createTestApp(env, { iot, databaseUrl: a.databaseUrl })
    await Promise.all([a.app.iot.gateway.ready(), b.app.iot.gateway.ready()])
    token = await a.login()
  })

  afterAll(async () => {
    for (const d of devices) await d.disconnect().catch(() => {})
    if (a) await clearRetained(a.app, devices.map((d) => d.sn))
    // The second instance first: the first one drops the database they share.
    await b?.close()
    await a?.close()
  })

  /** Counts, per instance, the messages of one kind of one device it handled. */
  function countHandled(kind: 'telemetry' | 'status', sn: string) {
    const handled = { a: [] as Record<string, unknown>[], b: [] as Record<string, unknown>[] }
    a.app.iot.gateway.on(kind, (m) => void (m.device.sn === sn && handled.a.push(m.payload)))
    b.app.iot.gateway.on(kind, (m) => void (m.device.sn === sn && handled.b.push(m.payload)))
    return handled
  }

  it('handles each device message once: N telemetry messages make N rows of the telemetry history, split between the instances', async () => {
    const d = await insertDevice(a)
    const handled = countHandled('telemetry', d.sn)
    const device = simulated(a.app, d, { telemetrySeconds: 0 })
    devices.push(device)
    await device.connect()
    const N = 40
    for (let i = 0; i < N; i++) await device.publish('telemetry', { battery: i, odometer: 1000 + i }, { qos: 1 })
    // The message log keeps one telemetry report in a while (iot.message.telemetrySeconds); the history keeps each.
    const telemetryRows = () => a.app.services.db.selectFrom('iotTelemetry').select('odometer').where('deviceId', '=', d.deviceId).execute()
    // The one on connect, and the N (the broker acknowledged them to the device: they are written soon after).
    await waitFor(async () => (await telemetryRows()).length >= N + 1, `${N + 1} telemetry rows`)
    const rows = await telemetryRows()
    expect(rows).toHaveLength(N + 1)
    const odometers = rows.map((r) => r.odometer).filter((o) => o !== null)
    expect(new Set(odometers).size).toBe(N)
    expect(handled.a.length + handled.b.length).toBe(N + 1)
    expect(handled.a.length).toBeGreaterThan(0)
    expect(handled.b.length).toBeGreaterThan(0)
  })

  it('a console on one instance sees the state changes the other one handled', async () => {
    const d = await insertDevice(a)
    const handled = countHandled('status', d.sn)
    const stream = await openStream<IotStreamEvent>(a.app, '/api/iot/stream', token)
    try {
      const device = simulated(a.app, d)
      devices.push(device)
      await device.connect()
      for (let i = 1; i <= 6; i++) await device.reportStatus({ configVersion: `9.0.${i}` })
      // Reports arriving together are written together, as the last of them: one of b's is in an event.
      const byB = (version: unknown) => handled.b.some((s) => s.configVersion === version)
      const event = await stream.next((e) => e.event === 'device' && e.data.sn === d.sn && byB(e.data.configVersion), 'an event of a status the other instance handled')
      expect(event.data).toMatchObject({ deviceId: d.deviceId, state: 'online' })
      // The message-log events are for device views only.
      expect(stream.events.some((e) => e.event === 'message')).toBe(false)
      // Each write reaches this console once, whichever instance made it: no event comes twice.
      await device.publish('telemetry', { battery: 33 }, { qos: 1 })
      await waitFor(() => stream.events.some((e) => e.event === 'device' && e.data.sn === d.sn && e.data.battery === 33), 'the telemetry event')
      await Promise.all([a.app.iot.presence.flush(), b.app.iot.presence.flush()])
      const events = stream.events.filter((e) => e.event === 'device' && e.data.sn === d.sn).map((e) => JSON.stringify(e.data))
      expect(new Set(events).size).toBe(events.length)
    } finally {
      await stream.close()
    }
  })
})
