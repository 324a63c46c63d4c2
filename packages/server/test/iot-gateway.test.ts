import { type IotGatewayStatus, upTopic } from '@velo/shared'
import type { SimulatedDevice } from '@velo/device-sim'
import mqtt from 'mqtt'
import { afterEach, describe, expect, it } from 'vitest'
import { DeviceAuthority } from '../src/gateway/device-auth'
import { startEmbeddedBroker } from '../src/gateway/embedded-broker'
import { MqttGateway } from '../src/gateway/gateway'
import type { ObservedMessage, UpMessage } from '../src/gateway/types'
import { useTestApp } from './harness'
import { clearRetained, deviceRow, insertDevice, type IotStreamEvent, openStream, randomSn, simulated, waitFor } from './iot-helpers'

// Short buffers and a quick sweeper keep the waits short; the behaviour is the same.
const t = useTestApp({}, { iot: { presence: { flushMs: 10, sweepEveryMs: 100 }, messageLog: { flushMs: 10 } } })

const devices: SimulatedDevice[] = []
afterEach(async () => {
  const done = devices.splice(0)
  for (const d of done) await d.disconnect().catch(() => {})
  await clearRetained(t.app, done.map((d) => d.sn))
})

async function connected(options: Parameters<typeof simulated>[2] = {}) {
  const d = await insertDevice(t)
  const device = simulated(t.app, d, options)
  devices.push(device)
  await device.connect()
  return { ...d, device }
}

const messages = (deviceId: number) =>
  t.app.services.db.selectFrom('iotMessage').selectAll().where('deviceId', '=', deviceId).orderBy('messageId').execute()

describe('IoT gateway: device state from what devices report', () => {
  it('a device with its secret connects and is online, with what its status and telemetry said; activated once it says so', async () => {
    const { deviceId, device } = await connected({ activated: false, firmwareVersion: '1.2.3', simUsedMb: 120, simLimitMb: 1024, battery: 80 })
    const row = await waitFor(async () => {
      const r = await deviceRow(t, deviceId)
      return r.state === 'online' && r.firmwareVersion && r.battery !== null ? r : null
    }, 'device online')
    expect(Boolean(row.online)).toBe(true)
    expect(row.lastSeenAt).not.toBeNull()
    expect(row).toMatchObject({ firmwareVersion: '1.2.3', hardwareVersion: 'HW-A1', configVersion: '1.0.0', transportMode: 'off', simNumber: device.behaviour.iccid })
    expect(row).toMatchObject({ simUsedMb: 120, simLimitMb: 1024, remainingFlow: 904, flowState: 'normal' })
    expect(row.latitude).toBeCloseTo(52.37, 1)
    expect(Boolean(row.activated)).toBe(false)
    expect(row.activatedAt).toBeNull()

    await device.reportStatus({ activated: true, transportMode: true })
    const activated = await waitFor(async () => {
      const r = await deviceRow(t, deviceId)
      return r.state === 'activated' ? r : null
    }, 'device activated')
    expect(activated.activatedAt).not.toBeNull()
    expect(activated.transportMode).toBe('on')
    // The first activation time stays.
    await device.reportStatus({ activated: true, configVersion: '2.0.0' })
    const again = await waitFor(async () => {
      const r = await deviceRow(t, deviceId)
      return r.configVersion === '2.0.0' ? r : null
    }, 'config version')
    expect(again.activatedAt).toBe(activated.activatedAt)
  })

  it('turns the flow state to warning when less than iot.flow.warningPercent of the SIM package is left', async () => {
    const { deviceId, device } = await connected({ simUsedMb: 100, simLimitMb: 1000 })
    await waitFor(async () => (await deviceRow(t, deviceId)).remainingFlow === 900, 'flow reported')
    expect((await deviceRow(t, deviceId)).flowState).toBe('normal')
    await device.reportStatus({ sim: { iccid: '8931000000000000001', usedMb: 950, limitMb: 1000 } })
    const row = await waitFor(async () => {
      const r = await deviceRow(t, deviceId)
      return r.remainingFlow === 50 ? r : null
    }, 'little flow left')
    expect(row).toMatchObject({ flowState: 'warning', simNumber: '8931000000000000001' })

    // The share comes from the system configuration: at 4 % the same 5 % left is normal.
    const db = t.app.services.db
    await db.updateTable('sysConfig').set({ configValue: '4' }).where('configKey', '=', 'iot.flow.warningPercent').execute()
    try {
      await device.reportStatus({ sim: { iccid: '8931000000000000001', usedMb: 950.5, limitMb: 1000 } })
      const normal = await waitFor(async () => {
        const r = await deviceRow(t, deviceId)
        return r.remainingFlow === 49.5 ? r : null
      }, 'flow reported again')
      expect(normal.flowState).toBe('normal')
    } finally {
      await db.updateTable('sysConfig').set({ configValue: '10' }).where('configKey', '=', 'iot.flow.warningPercent').execute()
    }
  })

  it('a device that dies without a word goes offline through its last will, and an open console sees it at once', async () => {
    const { deviceId, sn, device } = await connected({ activated: true })
    await waitFor(async () => (await deviceRow(t, deviceId)).state === 'activated', 'activated')
    const stream = await openStream<IotStreamEvent>(t.app, '/api/iot/stream', t.admin)
    try {
      expect(stream.status).toBe(200)
      expect(stream.contentType).toContain('text/event-stream')
      device.kill()
      const event = await stream.next((e) => e.event === 'device' && e.data.sn === sn && e.data.state === 'activatedOffline', 'the offline event')
      // Everything the list shows of a device's reports travels in the event, so the row updates without a refetch.
      expect(event.data).toMatchObject({ deviceId, flowState: 'normal', firmwareVersion: '1.0.0', hardwareVersion: 'HW-A1', transportMode: 'off', simNumber: expect.stringMatching(/^\d{18,22}F?$/) })
      const row = await deviceRow(t, deviceId)
      expect(Boolean(row.online)).toBe(false)
      expect(row.state).toBe('activatedOffline')
      // Messages of other devices are not streamed to a console that looks at the whole fleet.
      expect(stream.events.some((e) => e.event === 'message')).toBe(false)
    } finally {
      await stream.close()
    }
  })

  it('a clean disconnect says offline too', async () => {
    const { deviceId, device } = await connected()
    await waitFor(async () => (await deviceRow(t, deviceId)).state === 'online', 'online')
    await device.disconnect()
    await waitFor(async () => (await deviceRow(t, deviceId)).state === 'offline', 'offline')
  })

  it('takes no offline that arrived before the device was last heard from (another instance wrote a later message first)', async () => {
    const { deviceId, sn } = await connected()
    // Everything said on connect is written (nothing left to move lastSeenAt).
    await waitFor(async () => (await messages(deviceId)).length >= 3, 'connect messages')
    await t.app.iot.presence.flush()
    expect((await deviceRow(t, deviceId)).state).toBe('online')
    const db = t.app.services.db
    const later = new Date(Date.now() + 60_000).toISOString()
    await db.updateTable('iotDevice').set({ lastSeenAt: later }).where('deviceId', '=', deviceId).execute()
    const offline = JSON.stringify({ v: 1, state: 'offline', reason: 'reboot' })
    await t.app.iot.gateway.publishRaw(upTopic(sn, 'presence'), offline, { qos: 1, retain: false })
    await waitFor(async () => (await messages(deviceId)).some((m) => m.payload.includes('reboot')), 'the offline logged')
    await t.app.iot.presence.flush()
    expect(await deviceRow(t, deviceId)).toMatchObject({ state: 'online', lastSeenAt: later })

    await db.updateTable('iotDevice').set({ lastSeenAt: new Date(Date.now() - 1000).toISOString() }).where('deviceId', '=', deviceId).execute()
    await t.app.iot.gateway.publishRaw(upTopic(sn, 'presence'), offline, { qos: 1, retain: false })
    await waitFor(async () => (await deviceRow(t, deviceId)).state === 'offline', 'offline')
  })

  it('marks a device offline that has been silent for 3 heartbeat intervals, and online again when it speaks', async () => {
    const { deviceId, device } = await connected()
    await waitFor(async () => (await messages(deviceId)).length >= 3, 'connect messages')
    await t.app.iot.presence.flush()
    expect((await deviceRow(t, deviceId)).state).toBe('online')
    // As if its last message had come 3 intervals (of 60 s) and a moment ago.
    const longAgo = new Date(Date.now() - 181_000).toISOString()
    await t.app.services.db.updateTable('iotDevice').set({ lastSeenAt: longAgo }).where('deviceId', '=', deviceId).execute()
    await waitFor(async () => (await deviceRow(t, deviceId)).state === 'offline', 'swept offline')

    const cameOnline: number[] = []
    const stop = t.app.iot.presence.onOnline((d) => cameOnline.push(d.deviceId))
    const events: { deviceId: number; state: string }[] = []
    const unsubscribe = t.app.iot.events.subscribe((e) => {
      if (e.type === 'device' && e.data.deviceId === deviceId) events.push(e.data)
    })
    try {
      await device.heartbeat()
      const row = await waitFor(async () => {
        const r = await deviceRow(t, deviceId)
        return r.state === 'online' ? r : null
      }, 'back online')
      expect(row.lastSeenAt! > longAgo).toBe(true)
      // Listeners hear of it after the commit and the event's publication (a Redis round trip with REDIS_URL): the row may be read first.
      await waitFor(() => cameOnline.includes(deviceId), 'the onOnline listener')
      await waitFor(async () => events.some((e) => e.state === 'online'), 'the back-online event')

      // A heartbeat of a device that is online anyway moves its last-seen time and tells no console.
      const before = events.length
      const seen = row.lastSeenAt!
      await device.heartbeat()
      await waitFor(async () => (await deviceRow(t, deviceId)).lastSeenAt! > seen, 'last seen moved')
      await t.app.iot.presence.flush()
      expect(events.length).toBe(before)
    } finally {
      stop()
      unsubscribe()
    }
  })

  it('tells onOnline listeners about a device once its online state is written', async () => {
    const seen: { deviceId: number; state: string }[] = []
    const stop = t.app.iot.presence.onOnline((d) => {
      void deviceRow(t, d.deviceId).then((r) => seen.push({ deviceId: d.deviceId, state: r.state }))
    })
    try {
      const { deviceId } = await connected()
      await waitFor(() => seen.find((s) => s.deviceId === deviceId), 'online listener')
      expect(seen.find((s) => s.deviceId === deviceId)!.state).toBe('online')
    } finally {
      stop()
    }
  })
})

describe('IoT gateway: message log', () => {
  it('keeps every message but heartbeats, what the server sent, and invalid payloads as such; a device view streams them', async () => {
    const { deviceId, sn, device } = await connected()
    await waitFor(async () => (await messages(deviceId)).length >= 3, 'connect messages')
    const stream = await openStream<IotStreamEvent>(t.app, `/api/iot/stream?deviceId=${deviceId}`, t.admin)
    try {
      await device.heartbeat()
      await device.reportTelemetry({ battery: 55 })
      await device.publish('telemetry', { battery: 250 })
      const known = await t.app.iot.gateway.findDevice(sn)
      // Listening before sending: the command may arrive before publishToDevice resolves.
      const received = device.nextCommand('ping')
      await t.app.iot.gateway.publishToDevice(known!, 'command', { id: 'req-1', name: 'ping', params: {} })
      await received

      const rows = await waitFor(async () => {
        const r = await messages(deviceId)
        return r.some((m) => m.direction === 'down') && r.some((m) => m.kind === 'invalid') ? r : null
      }, 'logged messages')
      // Telemetry: the report on connect; the next one, seconds later, only in the telemetry history (iot.message.telemetrySeconds).
      await t.app.iot.messageLog.flush()
      expect(rows.filter((r) => r.kind === 'telemetry')).toHaveLength(1)
      await waitFor(async () => (await t.app.services.db.selectFrom('iotTelemetry').select('battery').where('deviceId', '=', deviceId).where('battery', '=', 55).execute()).length > 0, 'the report in the history')
      expect((await messages(deviceId)).some((r) => r.payload.includes('"battery":55'))).toBe(false)
      const kinds = rows.map((r) => `${r.direction}:${r.kind}`)
      expect(kinds).toEqual(expect.arrayContaining(['up:presence', 'up:status', 'up:telemetry', 'down:command', 'up:invalid']))
      expect(kinds).not.toContain('up:heartbeat')
      const down = rows.find((r) => r.direction === 'down')!
      expect(down.topic).toBe(`velo/v1/${sn}/down/command`)
      expect(JSON.parse(down.payload)).toEqual({ v: 1, id: 'req-1', name: 'ping', params: {} })
      expect(rows.find((r) => r.kind === 'invalid')!.topic).toBe(upTopic(sn, 'telemetry'))

      const event = await stream.next((e) => e.event === 'message' && e.data.direction === 'down', 'the down message event')
      expect(event.data).toMatchObject({ deviceId, sn, kind: 'command', topic: `velo/v1/${sn}/down/command` })
      // Only this device's messages.
      expect(stream.events.filter((e) => e.event === 'message').every((e) => e.data.deviceId === deviceId)).toBe(true)
    } finally {
      await stream.close()
    }
  })

  it('cuts payloads at 4 kB and drops messages of devices nobody registered', async () => {
    const { deviceId, sn } = await connected()
    const gateway = t.app.iot.gateway
    const big = JSON.stringify({ v: 1, id: 'x'.repeat(10), name: 'setConfig', params: { values: { blob: 'y'.repeat(6000) } } })
    await gateway.publishRaw(`velo/v1/${sn}/down/command`, big, { qos: 1, retain: false })
    const row = await waitFor(async () => (await messages(deviceId)).find((m) => m.direction === 'down'), 'down row')
    expect(row.payload.length).toBe(4096)

    const stranger = randomSn()
    await gateway.publishRaw(upTopic(stranger, 'telemetry'), JSON.stringify({ v: 1, battery: 10 }), { qos: 1, retain: false })
    // A later message of a known device is logged; the stranger's never is.
    await gateway.publishRaw(upTopic(sn, 'status'), JSON.stringify({ v: 1, firmwareVersion: '1.0.11' }), { qos: 1, retain: false })
    await waitFor(async () => (await messages(deviceId)).some((m) => m.payload.includes('"1.0.11"')), 'known device logged')
    await t.app.iot.messageLog.flush()
    const strangers = await t.app.services.db.selectFrom('iotMessage').select('messageId').where('topic', 'like', `%${stranger}%`).execute()
    expect(strangers).toEqual([])
    expect(await gateway.findDevice(stranger)).toBeNull()
  })

  it('keeps one telemetry report per device every iot.message.telemetrySeconds, and each one at 0', async () => {
    const { deviceId, device } = await connected()
    const setSeconds = async (v: string) => {
      await t.app.services.db.updateTable('sysConfig').set({ configValue: v }).where('configKey', '=', 'iot.message.telemetrySeconds').execute()
      await t.app.iot.messageLog.readSettings()
    }
    const logged = async () => (await messages(deviceId)).filter((m) => m.kind === 'telemetry').map((m) => JSON.parse(m.payload).battery)
    try {
      await setSeconds('300')
      await device.reportTelemetry({ battery: 61 })
      // Written to the history (behind an external broker, soon after the broker's acknowledgement), and not logged.
      await waitFor(async () => (await t.app.services.db.selectFrom('iotTelemetry').select('battery').where('deviceId', '=', deviceId).where('battery', '=', 61).execute()).length > 0, 'the report written')
      await t.app.iot.messageLog.flush()
      expect(await logged()).not.toContain(61)
      await setSeconds('0')
      await device.reportTelemetry({ battery: 62 })
      await device.reportTelemetry({ battery: 63 })
      await waitFor(async () => (await logged()).includes(63), 'the last report logged')
      expect(await logged()).toEqual(expect.arrayContaining([62, 63]))
    } finally {
      await setSeconds('300')
    }
  })

  it('deletes messages older than iot.message.retentionDays', async () => {
    const { deviceId } = await connected()
    await waitFor(async () => (await messages(deviceId)).length >= 3, 'messages')
    const db = t.app.services.db
    const old = new Date(Date.now() - 8 * 86_400_000).toISOString()
    const first = (await messages(deviceId))[0]!
    await db.updateTable('iotMessage').set({ createTime: old }).where('messageId', '=', first.messageId).execute()
    expect(await t.app.iot.messageLog.prune()).toBeGreaterThanOrEqual(1)
    expect((await messages(deviceId)).some((m) => m.messageId === first.messageId)).toBe(false)
  })
})

describe('IoT gateway: watching topics', () => {
  it('watches a filter with its own subscription, for as long as someone listens', async () => {
    const { sn, device } = await connected()
    const gateway = t.app.iot.gateway
    const a: ObservedMessage[] = []
    const b: ObservedMessage[] = []
    const stopA = await gateway.watch(`velo/v1/${sn}/up/#`, (m) => a.push(m))
    const stopB = await gateway.watch(`velo/v1/${sn}/up/telemetry`, (m) => b.push(m))
    await device.reportTelemetry({ battery: 42 })
    await waitFor(() => a.some((m) => m.payload.includes('"battery":42')) && b.some((m) => m.payload.includes('"battery":42')), 'both watches')
    await device.reportStatus()
    await waitFor(() => a.some((m) => m.topic.endsWith('/status')), 'status on the wide watch')
    expect(b.every((m) => m.topic.endsWith('/telemetry'))).toBe(true)
    expect(a.filter((m) => m.payload.includes('"battery":42'))).toHaveLength(1)
    const telemetry = a.find((m) => m.payload.includes('"battery":42'))!
    expect(telemetry).toMatchObject({ topic: upTopic(sn, 'telemetry'), qos: 1, retain: false })
    await stopA()
    await stopA()
    await device.reportTelemetry({ battery: 43 })
    await waitFor(() => b.some((m) => m.payload.includes('"battery":43')), 'the remaining watch')
    expect(a.some((m) => m.payload.includes('"battery":43'))).toBe(false)
    await stopB()
  })

  it('falls back to MQTT 3.1.1 when the broker refuses MQTT 5 (aedes does)', async () => {
    const credential = DeviceAuthority.newInternalCredential()
    const broker = await startEmbeddedBroker({ port: 0, authority: new DeviceAuthority(t.app.services.db, [credential]) })
    const gateway = new MqttGateway({ url: `mqtt://127.0.0.1:${broker.port}`, credential, protocolVersion: 5, db: t.app.services.db, messageLog: { record() {} }, logger: t.app.log })
    try {
      await gateway.ready()
      expect(gateway.connected).toBe(true)
    } finally {
      await gateway.close()
      await broker.close()
    }
  })

  it("hands a device's messages on in the order they arrived, however its lookups are answered", async () => {
    // The database answers device lookups when the test says: a read thread busy with a report
    // answers a later lookup batch after an earlier one has filled the cache.
    const held: Array<() => void> = []
    const gated = <T extends object>(qb: T): T =>
      new Proxy(qb, {
        get(target, prop) {
          const v = Reflect.get(target, prop)
          if (typeof v !== 'function') return v
          if (prop === 'execute') return async (...a: unknown[]) => (await new Promise<void>((r) => held.push(r)), v.apply(target, a))
          return (...a: unknown[]) => {
            const r = v.apply(target, a)
            return r && typeof r === 'object' && 'execute' in r ? gated(r) : r
          }
        },
      })
    const credential = DeviceAuthority.newInternalCredential()
    const broker = await startEmbeddedBroker({ port: 0, authority: new DeviceAuthority(t.app.services.db, [credential]) })
    const url = `mqtt://127.0.0.1:${broker.port}`
    const gateway = new MqttGateway({ url, credential, protocolVersion: 4, db: gated(t.app.services.db), messageLog: { record() {} }, logger: t.app.log })
    const d = await insertDevice(t)
    const device = await mqtt.connectAsync(url, { clientId: d.sn, username: d.sn, password: d.secret, reconnectPeriod: 0 })
    const seen: string[] = []
    const heard = (m: UpMessage) => void seen.push(m.kind === 'presence' ? String(m.payload.state) : m.kind)
    for (const kind of ['presence', 'status', 'telemetry'] as const) gateway.on(kind, heard)
    const observed: ObservedMessage[] = []
    try {
      await gateway.ready()
      const stop = await gateway.watch(`velo/v1/${d.sn}/up/#`, (m) => observed.push(m))
      const say = async (kind: 'presence' | 'telemetry', body: object, count: number) => {
        await device.publishAsync(upTopic(d.sn, kind), JSON.stringify({ v: 1, ...body }), { qos: 1 })
        await waitFor(() => observed.length >= count, `message ${count} on the broker`)
        // The watch and the gateway are two subscriptions: give the gateway's copy time to arrive.
        await new Promise((r) => setTimeout(r, 100))
      }
      await say('telemetry', { battery: 50 }, 1)
      await waitFor(() => held.length === 1, 'the first lookup')
      // Arrives while the first lookup runs: a second batch.
      await say('presence', { state: 'online' }, 2)
      held.shift()!()
      await waitFor(() => held.length === 1, 'the second lookup')
      expect(seen).toEqual(['telemetry'])
      // The device is cached now, but its online presence still waits for the second batch.
      await say('presence', { state: 'offline' }, 3)
      held.shift()!()
      await waitFor(() => seen.length === 3, 'all three handled')
      expect(seen).toEqual(['telemetry', 'online', 'offline'])
      await stop()
    } finally {
      for (const release of held) release()
      await device.endAsync(true)
      await gateway.close()
      await broker.close()
    }
  })

  it('answers the gateway status', async () => {
    const { deviceId } = await connected()
    await waitFor(async () => (await deviceRow(t, deviceId)).state === 'online', 'online')
    const res = await t.call<IotGatewayStatus>({ url: '/api/iot/gateway', token: t.admin })
    expect(res.code).toBe(200)
    expect(res.data).toMatchObject({ protocolVersion: 1, embedded: !!t.app.broker, connected: true })
    expect(res.data.devicesOnline).toBeGreaterThanOrEqual(1)
    if (t.app.broker) expect(res.data.port).toBe(t.app.broker.port)
  })
})
