import { downTopic, upTopic } from '@velo/shared'
import mqtt from 'mqtt'
import { afterAll, describe, expect, it } from 'vitest'
import type { ObservedMessage } from '../src/gateway/types'
import { createTestApp, useTestApp } from './harness'
import { brokerUrl, demoModelId, deviceRow, insertDevice, randomSn, simulated, waitFor } from './iot-helpers'

// The embedded broker, whatever TEST_MQTT_URL says: these are our broker's own checks.
const HOOK_TOKEN = 'hook-token-0123456789abcdef'
const t = useTestApp({ MQTT_PORT: '0', MQTT_HOOK_TOKEN: HOOK_TOKEN }, { iot: { presence: { flushMs: 10 }, messageLog: { flushMs: 10 } } })

const clients: mqtt.MqttClient[] = []
afterAll(async () => {
  for (const c of clients) await c.endAsync(true).catch(() => {})
})

/** Connects with raw MQTT.js; resolves with the client or the CONNACK refusal code. */
function connect(options: mqtt.IClientOptions): Promise<{ client?: mqtt.MqttClient; code?: number }> {
  return new Promise((resolve) => {
    const client = mqtt.connect(brokerUrl(t.app), { reconnectPeriod: 0, connectTimeout: 5000, protocolVersion: 4, ...options })
    client.once('connect', () => {
      clients.push(client)
      resolve({ client })
    })
    client.once('error', (err: Error & { code?: number }) => {
      client.end(true)
      resolve({ code: err.code })
    })
  })
}

const asDevice = (d: { sn: string; secret: string }, extra: mqtt.IClientOptions = {}) => connect({ clientId: d.sn, username: d.sn, password: d.secret, ...extra })
const closed = (client: mqtt.MqttClient) => (client.connected ? new Promise<void>((resolve) => client.once('close', () => resolve())) : Promise.resolve())

describe('device authentication on the embedded broker', () => {
  it('lets a device in with its SN and secret, and nobody else', async () => {
    const d = await insertDevice(t)
    expect((await asDevice(d)).client).toBeDefined()
    expect((await asDevice({ ...d, secret: `${d.secret}x` })).code).toBe(5)
    expect((await asDevice({ sn: randomSn(), secret: d.secret })).code).toBe(5)
    expect((await connect({ clientId: `${d.sn}X`, username: d.sn, password: d.secret })).code).toBe(5)
    expect((await connect({ clientId: d.sn })).code).toBe(5)
  })

  it('refuses a last will that is not its own presence', async () => {
    const d = await insertDevice(t)
    const will = (topic: string) => ({ will: { topic, payload: Buffer.from('{"v":1,"state":"offline"}'), qos: 1 as const, retain: true } })
    expect((await asDevice(d, will(upTopic(randomSn(), 'presence')))).code).toBe(5)
    expect((await asDevice(d, will(upTopic(d.sn, 'telemetry')))).code).toBe(5)
    expect((await asDevice(d, will(upTopic(d.sn, 'presence')))).client).toBeDefined()
  })

  it("refuses devices of a disabled model, and lets the connected ones go when it is disabled", async () => {
    const d = await insertDevice(t)
    const device = simulated(t.app, d)
    await device.connect()
    const modelId = await demoModelId(t)
    const res = await t.call({ method: 'PUT', url: '/api/iot/model', token: t.admin, body: { modelId, status: '1' } })
    try {
      expect(res.code).toBe(200)
      await waitFor(() => !device.connected, 'disconnected')
      expect((await asDevice(d)).code).toBe(5)
    } finally {
      await t.call({ method: 'PUT', url: '/api/iot/model', token: t.admin, body: { modelId, status: '0' } })
      device.kill()
    }
    expect((await asDevice(d)).client).toBeDefined()
  })

  it("drops a device that publishes to another device's topics, and refuses it another device's down topics", async () => {
    const a = await insertDevice(t)
    const b = await insertDevice(t)
    const seen: ObservedMessage[] = []
    const stop = await t.app.iot.gateway.watch(`velo/v1/${b.sn}/#`, (m) => seen.push(m))
    try {
      const { client } = await asDevice(a)
      // MQTT.js rejects a SUBACK with any refusal in it; the codes are in the packet.
      const suback = await client!.subscribeAsync([downTopic(b.sn, 'command'), `velo/v1/${a.sn}/down/#`, `velo/v1/${a.sn}/up/#`, '#'], { qos: 1 }).catch((err: { packet?: { granted: number[] } }) => err.packet)
      expect(suback && 'granted' in suback ? suback.granted : suback).toEqual([128, 1, 128, 128])

      const gone = closed(client!)
      client!.publish(upTopic(b.sn, 'telemetry'), JSON.stringify({ v: 1, battery: 1 }), { qos: 1 })
      await gone
      // Its own down topics are the server's to publish to.
      const { client: again } = await asDevice(a)
      const goneAgain = closed(again!)
      again!.publish(downTopic(a.sn, 'command'), JSON.stringify({ v: 1, id: 'x', name: 'reboot', params: {} }), { qos: 1 })
      await goneAgain

      // What b itself says arrives; what a forged for it never did.
      const device = simulated(t.app, b)
      await device.connect()
      await device.reportTelemetry({ battery: 77 })
      await waitFor(() => seen.some((m) => m.payload.includes('"battery":77')), "b's own telemetry")
      expect(seen.some((m) => m.payload.includes('"battery":1,') || m.payload.includes('"battery":1}'))).toBe(false)
      await device.disconnect()
      await t.app.iot.messageLog.flush()
      const logged = await t.app.services.db.selectFrom('iotMessage').select('payload').where('deviceId', '=', b.deviceId).execute()
      expect(logged.some((m) => /"battery":1[,}]/.test(m.payload))).toBe(false)
    } finally {
      await stop()
    }
  })
})

describe('ending a device connection', () => {
  it('a secret reset disconnects the device; the old secret is refused, the new one works', async () => {
    const d = await insertDevice(t)
    const device = simulated(t.app, d)
    await device.connect()
    const res = await t.call<{ secret: string }>({ method: 'PUT', url: `/api/iot/device/${d.deviceId}/secret`, token: t.admin })
    expect(res.code).toBe(200)
    expect(res.data.secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(res.msg).toContain('disconnected')
    await waitFor(() => !device.connected, 'disconnected')
    // Kicked out: the broker published its last will.
    await waitFor(async () => (await deviceRow(t, d.deviceId)).state === 'offline', 'offline')
    expect((await asDevice(d)).code).toBe(5)
    expect((await asDevice({ sn: d.sn, secret: res.data.secret })).client).toBeDefined()
    device.kill()
  })

  it('deleting a device disconnects it and it cannot come back', async () => {
    const d = await insertDevice(t)
    const device = simulated(t.app, d)
    await device.connect()
    expect(await t.app.iot.gateway.findDevice(d.sn)).not.toBeNull()
    const res = await t.call({ method: 'DELETE', url: `/api/iot/device/${d.deviceId}`, token: t.admin })
    expect(res.code).toBe(200)
    await waitFor(() => !device.connected, 'disconnected')
    expect((await asDevice(d)).code).toBe(5)
    expect(await t.app.iot.gateway.findDevice(d.sn)).toBeNull()
    device.kill()
  })
})

describe('EMQX HTTP auth and ACL hooks', () => {
  const hook = (url: string, body: unknown, token: string | null = HOOK_TOKEN) =>
    t.app.inject({ method: 'POST', url, payload: body as object, headers: token ? { 'x-velo-hook-token': token } : {} })

  it('answer authentication in EMQX JSON (not the envelope) with the embedded broker’s rules', async () => {
    const d = await insertDevice(t)
    const allow = await hook('/api/iot/broker/auth', { clientid: d.sn, username: d.sn, password: d.secret })
    expect(allow.statusCode).toBe(200)
    expect(allow.headers['content-type']).toContain('application/json')
    expect(allow.json()).toEqual({ result: 'allow', is_superuser: false })
    expect((await hook('/api/iot/broker/auth', { clientid: d.sn, username: d.sn, password: 'wrong' })).json()).toEqual({ result: 'deny', is_superuser: false })
    expect((await hook('/api/iot/broker/auth', { clientid: 'other', username: d.sn, password: d.secret })).json()).toEqual({ result: 'deny', is_superuser: false })
    expect((await hook('/api/iot/broker/auth', { nothing: true })).json()).toEqual({ result: 'deny', is_superuser: false })
  })

  it('answer authorization: own up topics to publish, own down topics to subscribe', async () => {
    const sn = randomSn()
    const acl = async (topic: string, action: string, username = sn) => (await hook('/api/iot/broker/acl', { clientid: username, username, topic, action })).json()
    expect(await acl(upTopic(sn, 'telemetry'), 'publish')).toEqual({ result: 'allow' })
    expect(await acl(upTopic(randomSn(), 'telemetry'), 'publish')).toEqual({ result: 'deny' })
    expect(await acl(downTopic(sn, 'command'), 'publish')).toEqual({ result: 'deny' })
    expect(await acl(`velo/v1/${sn}/down/#`, 'subscribe')).toEqual({ result: 'allow' })
    expect(await acl(`velo/v1/${sn}/down/+`, 'subscribe')).toEqual({ result: 'allow' })
    expect(await acl(`velo/v1/+/down/#`, 'subscribe')).toEqual({ result: 'deny' })
    expect(await acl(`velo/v1/${sn}/#`, 'subscribe')).toEqual({ result: 'deny' })
    expect(await acl(`$share/g/velo/v1/${sn}/down/#`, 'subscribe')).toEqual({ result: 'deny' })
    expect(await acl(upTopic(sn, 'telemetry'), 'delete')).toEqual({ result: 'deny' })
  })

  it('answer a retained publish (EMQX’s ${retain}): only on the device’s own presence', async () => {
    const sn = randomSn()
    const acl = async (topic: string, retain: unknown) => (await hook('/api/iot/broker/acl', { clientid: sn, username: sn, topic, action: 'publish', retain })).json()
    expect(await acl(upTopic(sn, 'presence'), 'true')).toEqual({ result: 'allow' })
    expect(await acl(upTopic(sn, 'presence'), true)).toEqual({ result: 'allow' })
    expect(await acl(upTopic(sn, 'telemetry'), 'true')).toEqual({ result: 'deny' })
    expect(await acl(`velo/v1/${sn}/up/anything`, true)).toEqual({ result: 'deny' })
    expect(await acl(upTopic(sn, 'telemetry'), 'false')).toEqual({ result: 'allow' })
    expect(await acl(upTopic(sn, 'telemetry'), 'maybe')).toEqual({ result: 'deny' })
  })

  it('refuse callers without the token', async () => {
    const res = await hook('/api/iot/broker/acl', { clientid: 'X', username: 'X', topic: 't', action: 'publish' }, null)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ result: 'deny' })
    expect((await hook('/api/iot/broker/auth', {}, 'not-the-token-at-all-sorry')).statusCode).toBe(403)
  })

  it('do not exist without MQTT_HOOK_TOKEN', async () => {
    const other = await createTestApp({ MQTT_PORT: '0' })
    try {
      const res = await other.app.inject({ method: 'POST', url: '/api/iot/broker/auth', payload: {}, headers: { 'x-velo-hook-token': HOOK_TOKEN } })
      expect(res.statusCode).toBe(404)
    } finally {
      await other.close()
    }
  })

  it('are not written to the operation log', async () => {
    await hook('/api/iot/broker/auth', { clientid: 'LOGCHECK1', username: 'LOGCHECK1', password: 'p' })
    const rows = await t.app.services.db.selectFrom('sysOperLog').select('operUrl').where('operUrl', 'like', '%/iot/broker/%').execute()
    expect(rows).toEqual([])
  })
})
