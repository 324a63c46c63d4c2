import { downFilter, downTopic, upTopic } from '@velo/shared'
import mqtt from 'mqtt'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { isValidTopicFilter, isValidTopicName } from '@velo/shared'
import { forDisplay, MqDebugger, SHOWN_PAYLOAD_BYTES, WATCH_RATE_PER_SECOND, type WatchedMessage } from '../src/gateway/mq-debug'
import type { ObservedMessage } from '../src/gateway/types'
import { limitedUser, type Refusal, useTestApp, waitForOperLog } from './harness'
import { brokerUrl, demoModelId, openStream as openEventStream, randomSn, simulated, waitFor } from './iot-helpers'

// The administrators' message-queue debugger over a real HTTP server (inject cannot stream) and a
// real broker (embedded, or TEST_MQTT_URL through the harness).

const t = useTestApp()
const cleanups: (() => Promise<unknown> | unknown)[] = []

const until = <T>(what: string, check: () => T | Promise<T>) => waitFor(check, what)

async function registerDevice() {
  const sn = randomSn()
  const res = await t.call<{ secret: string }>({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn, modelId: await demoModelId(t) } })
  expect(res.code, res.msg).toBe(200)
  return { sn, secret: res.data.secret }
}

/** What the debugger's stream sends (modules/iot/mq-debug.ts). */
type DebugEvent = { event: 'message'; data: WatchedMessage } | { event: 'dropped'; data: { count: number; retained: number } } | { event: 'ready'; data: { topic: string } }

/** The debugger's stream as the console reads it (fetch over real HTTP, token in the header). */
async function openStream(topic: string, token: string) {
  const stream = await openEventStream<DebugEvent>(t.app, `/api/iot/mqDebug/stream?topic=${encodeURIComponent(topic)}`, token)
  cleanups.push(stream.close)
  return stream
}

afterAll(async () => {
  for (const c of cleanups) await c()
})

describe('message-queue debugger', () => {
  it('streams what matches a filter to an admin: a device’s telemetry under velo/v1/+/up/#', async () => {
    const { sn, secret } = await registerDevice()
    const stream = await openStream('velo/v1/+/up/#', t.admin)
    expect(stream.status).toBe(200)
    expect(stream.contentType).toContain('text/event-stream')
    await until('ready', () => stream.events.find((e) => e.event === 'ready'))

    const device = simulated(t.app, { sn, secret })
    cleanups.push(() => device.disconnect())
    await device.connect()
    await device.reportTelemetry({ battery: 42 })
    const seen = await until('the telemetry', () => stream.events.find((e) => e.event === 'message' && e.data.topic === upTopic(sn, 'telemetry') && JSON.parse(e.data.payload).battery === 42)).catch((err) => {
      const counts = stream.events.reduce<Record<string, number>>((c, e) => ({ ...c, [e.event]: (c[e.event] ?? 0) + (e.event === 'dropped' ? e.data.count : 1) }), {})
      throw new Error(`${(err as Error).message}; stream so far: ${JSON.stringify(counts)}`)
    })
    expect(seen.data).toMatchObject({ qos: 1, retain: false, truncated: false, time: expect.any(String) })
    // The filter is honoured: nothing from down topics.
    expect(stream.events.filter((e) => e.event === 'message').every((e) => /^velo\/v1\/[^/]+\/up\//.test(e.data.topic))).toBe(true)
    await stream.close()
  })

  it('publishes for an admin: a subscribed client gets it, and the publish is in the operation log', async () => {
    const { sn, secret } = await registerDevice()
    // The broker lets a device subscribe to its own down topics only: the test client is that device.
    const client = await mqtt.connectAsync(brokerUrl(t.app), { clientId: sn, username: sn, password: secret, reconnectPeriod: 0 })
    cleanups.push(() => client.endAsync(true))
    const received: { topic: string; payload: string }[] = []
    client.on('message', (topic, payload) => received.push({ topic, payload: payload.toString() }))
    await client.subscribeAsync(downFilter(sn), { qos: 1 })

    const topic = downTopic(sn, 'ota')
    const res = await t.call({ method: 'POST', url: '/api/iot/mqDebug/publish', token: t.admin, body: { topic, payload: '{"hello":"device"}', qos: 1, retain: false } })
    expect(res.code, res.msg).toBe(200)
    expect(res.msg).toBe('Message published')
    expect((await t.call({ method: 'POST', url: '/api/iot/mqDebug/publish', token: t.admin, lang: 'zh_CN', body: { topic, payload: 'again' } })).msg).toBe('消息已发布')
    await until('the message at the client', () => received.find((m) => m.topic === topic && m.payload === '{"hello":"device"}'))

    const log = await waitForOperLog(t, (r) => r.operUrl === '/api/iot/mqDebug/publish' && r.operParam.includes('hello'))
    expect(log).toMatchObject({ title: 'Message-queue debugging', requestMethod: 'POST', operName: 'admin', status: '0' })
    expect(log.operParam).toContain(topic)
  })

  it('shows at most 16 kB of a payload, and says how large it was', async () => {
    const { sn } = await registerDevice()
    const stream = await openStream(`velo/v1/${sn}/down/#`, t.admin)
    await until('ready', () => stream.events.find((e) => e.event === 'ready'))
    const big = 'x'.repeat(20_000)
    expect((await t.call({ method: 'POST', url: '/api/iot/mqDebug/publish', token: t.admin, body: { topic: downTopic(sn, 'ota'), payload: big } })).code).toBe(200)
    const seen = await until('the big message', () => stream.events.find((e) => e.event === 'message'))
    expect(seen.data).toMatchObject({ size: 20_000, truncated: true })
    expect(seen.data.payload).toHaveLength(SHOWN_PAYLOAD_BYTES)
    await stream.close()
  })

  it('refuses a user who holds the permissions but is not an administrator', async () => {
    const user = await limitedUser(t, { userName: 'mqdebugger', perms: ['iot:mqDebug:list', 'iot:mqDebug:publish'], dataScope: '1' })
    const stream = await t.call({ url: `/api/iot/mqDebug/stream?topic=${encodeURIComponent('#')}`, token: user.token })
    expect(stream.status).toBe(403)
    expect(stream.msg).toBe('Only administrators can use the message-queue debugger')
    const publish = await t.call({ method: 'POST', url: '/api/iot/mqDebug/publish', token: user.token, lang: 'zh_CN', body: { topic: 'velo/v1/VL0001/down/ota', payload: 'x' } })
    expect(publish.status).toBe(403)
    expect(publish.msg).toBe('只有管理员可以使用消息队列调试')
    // Refused before validation: a bad body tells such a user nothing either.
    expect((await t.call({ method: 'POST', url: '/api/iot/mqDebug/publish', token: user.token, body: { topic: '#' } })).status).toBe(403)
    const logged = await waitForOperLog(t, (r) => r.operUrl === '/api/iot/mqDebug/publish' && r.operName === 'mqdebugger')
    expect(logged.status).toBe('1')

    const nobody = await limitedUser(t, { userName: 'mqnobody', perms: [], dataScope: '1' })
    expect((await t.call({ url: '/api/iot/mqDebug/stream?topic=a', token: nobody.token })).status).toBe(403)
  })

  it('validates filters and topics', async () => {
    for (const topic of ['velo/#/up', 'velo/v1+/x', '', 'a'.repeat(256), '$share/g/velo/#']) {
      const res = await t.call({ url: `/api/iot/mqDebug/stream?topic=${encodeURIComponent(topic)}`, token: t.admin })
      expect(res.status, topic).toBe(400)
    }
    for (const topic of ['velo/+/down/ota', 'velo/#', '$SYS/x', '']) {
      const res = await t.call({ method: 'POST', url: '/api/iot/mqDebug/publish', token: t.admin, body: { topic, payload: 'x' } })
      expect(res.status, topic).toBe(400)
    }
    const tooBig = await t.call<Refusal>({ method: 'POST', url: '/api/iot/mqDebug/publish', token: t.admin, body: { topic: 'velo/test', payload: 'é'.repeat(40_000) } })
    expect(tooBig.status).toBe(400)
    expect(tooBig.data.errors[0]!.field).toBe('payload')
    expect((await t.call({ method: 'POST', url: '/api/iot/mqDebug/publish', token: t.admin, body: { topic: 'velo/test', payload: 'x', qos: 2 } })).status).toBe(400)
  })
})

describe('topic rules', () => {
  it('follows MQTT wildcard rules', () => {
    for (const ok of ['#', '+', 'velo/v1/+/up/#', 'velo/v1/VL1/down/command', '+/+/#', '$SYS/#']) expect(isValidTopicFilter(ok), ok).toBe(true)
    for (const bad of ['velo/#/x', 'velo/a#', 'velo/a+/b', '#/a', '', '$share/g/#', '$queue/#']) expect(isValidTopicFilter(bad), bad).toBe(false)
    expect(isValidTopicName('velo/v1/VL1/down/ota')).toBe(true)
    for (const bad of ['velo/+', 'velo/#', '$SYS/broker', '', 'x'.repeat(256)]) expect(isValidTopicName(bad), bad).toBe(false)
  })

  it('cuts a payload on a character boundary', () => {
    // 'é' takes two bytes: after the leading 'a' the cut falls in the middle of one.
    const text = `a${'é'.repeat(SHOWN_PAYLOAD_BYTES)}`
    const shown = forDisplay({ topic: 'a', payload: text, qos: 0, retain: false, time: '' })
    expect(shown.truncated).toBe(true)
    expect(shown.size).toBe(1 + SHOWN_PAYLOAD_BYTES * 2)
    expect(shown.payload).toBe(`a${'é'.repeat(SHOWN_PAYLOAD_BYTES / 2 - 1)}`)
  })

  it('caps what a watcher is sent per second, with a budget of its own for the retained replay', async () => {
    vi.useFakeTimers()
    try {
      let feed: (m: ObservedMessage) => void = () => {}
      let unwatched = false
      const debuggerOnStub = new MqDebugger({
        watch: async (_filter, listener) => {
          feed = listener
          return async () => {
            unwatched = true
          }
        },
        publishRaw: async () => {},
      })
      const shown: boolean[] = []
      const drops: [number, number][] = []
      const stop = await debuggerOnStub.watch('#', { message: (m) => shown.push(m.retain), dropped: (count, retained) => drops.push([count, retained]) })
      const message = (retain: boolean): ObservedMessage => ({ topic: 'a/b', payload: 'x', qos: 0, retain, time: '' })
      for (let i = 0; i < WATCH_RATE_PER_SECOND + 50; i++) feed(message(true))
      for (let i = 0; i < WATCH_RATE_PER_SECOND + 100; i++) feed(message(false))
      expect(shown.filter((r) => r)).toHaveLength(WATCH_RATE_PER_SECOND)
      expect(shown.filter((r) => !r)).toHaveLength(WATCH_RATE_PER_SECOND)
      vi.advanceTimersByTime(1000)
      expect(drops).toEqual([[150, 50]])
      feed(message(false))
      expect(shown).toHaveLength(2 * WATCH_RATE_PER_SECOND + 1)
      await stop()
      expect(unwatched).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })
})
