import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { luhnValid, presencePayload, replyPayload, statusPayload, telemetryPayload, upTopic } from '@velo/shared'
import { type DeviceOptions, SimulatedDevice } from '../src'
import { secretOf, startBroker, type TestBroker, waitFor } from './helpers'

let broker: TestBroker
const devices: SimulatedDevice[] = []
let n = 0

beforeAll(async () => {
  broker = await startBroker()
})
afterEach(async () => {
  await Promise.all(devices.splice(0).map((d) => d.disconnect()))
})
afterAll(async () => {
  await broker.close()
})

/** A connected device with its own SN (tests share one broker). */
async function device(o: Partial<DeviceOptions> = {}) {
  const sn = `TS${String(++n).padStart(4, '0')}`
  const d = new SimulatedDevice({ url: broker.url, sn, secret: secretOf(sn), mqtt: { reconnectPeriod: 0 }, ...o })
  devices.push(d)
  await d.connect()
  return d
}

const replies = (sn: string, id: string) =>
  broker
    .on(upTopic(sn, 'reply'))
    .filter((m) => m.payload.id === id)
    .map((m) => m.payload)

describe('SimulatedDevice', () => {
  it('reports a SIM card of its own unless told one: the server holds a card two devices report', () => {
    const of = (sn: string) => new SimulatedDevice({ url: 'mqtt://127.0.0.1:1', sn, secret: secretOf(sn) }).behaviour.iccid
    const cards = ['TS9001', 'TS9002', 'VL0000000001'].map(of)
    expect(new Set(cards).size).toBe(3)
    for (const iccid of cards) expect(luhnValid(iccid) && /^\d{19}$/.test(iccid)).toBe(true)
    expect(of('TS9001')).toBe(cards[0])
  })

  it('connects with its last will and announces itself: retained presence online, status with SIM usage, telemetry', async () => {
    const wills = new Map<string, unknown>()
    const onClient = (c: { id: string; will?: unknown }) => wills.set(c.id, c.will)
    broker.aedes.on('client', onClient as never)
    const d = await device({ iccid: '8931070000000000042', simUsedMb: 300, simLimitMb: 2048, activated: true })
    broker.aedes.off('client', onClient as never)
    expect(d.connected).toBe(true)

    const will = wills.get(d.sn) as { topic: string; payload: Buffer; qos: number; retain: boolean }
    expect(will).toMatchObject({ topic: upTopic(d.sn, 'presence'), qos: 1, retain: true })
    expect(JSON.parse(will.payload.toString())).toEqual({ v: 1, state: 'offline', reason: 'lost' })

    const presence = await waitFor(() => broker.on(upTopic(d.sn, 'presence'))[0], 'presence')
    expect(presence.retain).toBe(true)
    expect(presencePayload.parse(presence.payload).state).toBe('online')

    const status = await waitFor(() => broker.on(upTopic(d.sn, 'status'))[0], 'status')
    expect(status.qos).toBe(1)
    expect(statusPayload.parse(status.payload)).toMatchObject({ activated: true, sim: { iccid: '8931070000000000042', usedMb: 300, limitMb: 2048 } })

    const telemetry = await waitFor(() => broker.on(upTopic(d.sn, 'telemetry'))[0], 'telemetry')
    expect(telemetry.qos).toBe(1)
    expect(telemetryPayload.parse(telemetry.payload).battery).toBeGreaterThan(0)
    // Nothing outside its own up topics.
    expect(broker.seen.filter((m) => m.clientId === d.sn && !m.topic.startsWith(`velo/v1/${d.sn}/up/`))).toEqual([])
  })

  it('answers a command with accepted, then succeeded', async () => {
    const d = await device()
    await broker.command(d.sn, { id: 'c1', name: 'ping' })
    const got = await waitFor(() => (replies(d.sn, 'c1').length === 2 ? replies(d.sn, 'c1') : null), 'two replies')
    expect(got.map((r) => replyPayload.parse(r).status)).toEqual(['accepted', 'succeeded'])
    expect(got[1]).toMatchObject({ code: 0, result: { pong: expect.any(Number) } })
    expect(d.received.map((r) => r.command.name)).toEqual(['ping'])
    // The device counts a reply once its publish completes, which may be after the broker saw it.
    await waitFor(() => d.counters.answered === 1 || null, 'answer counted')
    expect(d.counters).toMatchObject({ received: 1, answered: 1, failed: 0 })
  })

  it('acts on a command id once: the same id again gets its final answer again, nothing more', async () => {
    const d = await device()
    await broker.command(d.sn, { id: 'dup1', name: 'ping' })
    await waitFor(() => (replies(d.sn, 'dup1').length === 2 ? true : null), 'two replies')
    await broker.command(d.sn, { id: 'dup1', name: 'ping' })
    const got = await waitFor(() => (replies(d.sn, 'dup1').length === 3 ? replies(d.sn, 'dup1') : null), 'the final answer again')
    expect(got.map((r) => r.status)).toEqual(['accepted', 'succeeded', 'succeeded'])
    expect({ ...got[2], ts: 0 }).toEqual({ ...got[1], ts: 0 })
    expect(d.received.map((r) => r.command.id)).toEqual(['dup1'])
  })

  it('waits its latency before the final reply', async () => {
    const d = await device({ replyLatencyMs: 300 })
    await broker.command(d.sn, { id: 'slow', name: 'ping' })
    await waitFor(() => replies(d.sn, 'slow').length === 2, 'final reply')
    const [accepted, final] = broker.on(upTopic(d.sn, 'reply')).filter((m) => m.payload.id === 'slow')
    expect(final!.at - accepted!.at).toBeGreaterThanOrEqual(280)
  })

  it('fails every command with failureRate 1', async () => {
    const d = await device({ failureRate: 1 })
    await broker.command(d.sn, { id: 'f1', name: 'lock' })
    const got = await waitFor(() => (replies(d.sn, 'f1').length === 2 ? replies(d.sn, 'f1') : null), 'two replies')
    expect(got.map((r) => r.status)).toEqual(['accepted', 'failed'])
    expect(got[1]).toMatchObject({ code: 500, message: 'Simulated failure' })
    // The device counts a reply once its publish completes, which may be after the broker saw it.
    await waitFor(() => d.counters.failed === 1 || null, 'failure counted')
  })

  it('says nothing to a silent command, answers unknown ones failed 404 and late ones expired', async () => {
    const d = await device({ silentCommands: ['ping'] })
    await broker.command(d.sn, { id: 's1', name: 'ping' })
    await broker.command(d.sn, { id: 'u1', name: 'selfDestruct' })
    await broker.command(d.sn, { id: 'e1', name: 'report', expiresAt: Date.now() - 1000 })
    // Commands are handled in order: once the last is answered, the silent one had its chance.
    await waitFor(() => replies(d.sn, 'e1').length === 1, 'expired reply')
    await waitFor(() => replies(d.sn, 'u1').length === 1, 'unknown-command reply')
    expect(replies(d.sn, 's1')).toEqual([])
    expect(replies(d.sn, 'u1')[0]).toMatchObject({ status: 'failed', code: 404 })
    expect(replies(d.sn, 'e1')[0]).toMatchObject({ status: 'expired' })
    expect(d.counters.received).toBe(3)
  })

  it('applies setConfig: status reports the new configVersion, and the heartbeat interval changes', async () => {
    const d = await device({ heartbeatSeconds: 60 })
    await broker.command(d.sn, { id: 'cfg', name: 'setConfig', params: { version: '2.0.1', values: { heartbeatSeconds: 1, vibrationSensitivity: 3 } } })
    const final = await waitFor(() => replies(d.sn, 'cfg').find((r) => r.status === 'succeeded'), 'succeeded')
    expect(final.result).toEqual({ configVersion: '2.0.1', values: { heartbeatSeconds: 1, vibrationSensitivity: 3 } })
    const statuses = broker.on(upTopic(d.sn, 'status'))
    expect(statuses.at(-1)!.payload.configVersion).toBe('2.0.1')
    // The status with the new version comes before the final reply.
    expect(statuses.at(-1)!.at).toBeLessThanOrEqual(broker.on(upTopic(d.sn, 'reply')).find((m) => m.payload.status === 'succeeded')!.at)
    expect(d.config).toEqual({ heartbeatSeconds: 1, vibrationSensitivity: 3 })
    expect(d.behaviour.heartbeatSeconds).toBe(1)
    await waitFor(() => broker.on(upTopic(d.sn, 'heartbeat')).length > 0, 'a heartbeat within 1 s', 3000)
  })

  it('kill(): the broker publishes its last will (retained offline, lost)', async () => {
    const d = await device()
    d.kill()
    expect(d.connected).toBe(false)
    const will = await waitFor(() => broker.on(upTopic(d.sn, 'presence')).find((m) => m.payload.reason === 'lost'), 'the will')
    expect(will).toMatchObject({ retain: true, qos: 1, payload: { v: 1, state: 'offline', reason: 'lost' } })
  })

  it('disconnect(): a retained offline (shutdown) and no will', async () => {
    const d = await device()
    devices.pop()
    await d.disconnect()
    const offline = await waitFor(() => broker.on(upTopic(d.sn, 'presence')).find((m) => m.payload.state === 'offline'), 'offline')
    expect(offline).toMatchObject({ retain: true, clientId: d.sn, payload: { reason: 'shutdown' } })
    await new Promise((r) => setTimeout(r, 100))
    expect(broker.on(upTopic(d.sn, 'presence')).filter((m) => m.payload.reason === 'lost')).toEqual([])
  })

  it('is refused with CONNACK 5 for a wrong secret', async () => {
    const d = new SimulatedDevice({ url: broker.url, sn: 'TSWRONG1', secret: 'nope', mqtt: { reconnectPeriod: 0 } })
    await expect(d.connect()).rejects.toMatchObject({ code: 5 })
    expect(d.connected).toBe(false)
  })

  it('gives up when nothing answers in time, and kill() stops a connect under way', async () => {
    // A TCP server that accepts and never says a word.
    const { createServer } = await import('node:net')
    const sockets: import('node:net').Socket[] = []
    const mute = createServer((s) => sockets.push(s))
    await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r))
    const url = `mqtt://127.0.0.1:${(mute.address() as { port: number }).port}`
    try {
      const slow = new SimulatedDevice({ url, sn: 'TSMUTE01', secret: 'x', connectTimeout: 200 })
      await expect(slow.connect()).rejects.toThrow(/no answer from the broker/)
      const killed = new SimulatedDevice({ url, sn: 'TSMUTE02', secret: 'x' })
      const pending = killed.connect()
      killed.kill()
      await expect(pending).rejects.toThrow(/closed while connecting/)
    } finally {
      for (const s of sockets) s.destroy()
      await new Promise((r) => mute.close(r))
    }
  })
})
