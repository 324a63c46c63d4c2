import { once } from 'node:events'
import { connect as tcpConnect, type Socket } from 'node:net'
import { MAX_TOPIC_LENGTH, RETAINED_PRESENCE_MAX_BYTES, upTopic } from '@velo/shared'
import mqtt from 'mqtt'
import { afterAll, describe, expect, it } from 'vitest'
import { CONNECT_TIMEOUT_MS, PACKET_LIMITS, startEmbeddedBroker } from '../src/gateway/embedded-broker'
import { MAX_PUBLISH_BYTES } from '../src/gateway/mq-debug'
import { PacketScanner } from '../src/gateway/packet-guard'
import { useTestApp } from './harness'
import { insertDevice } from './iot-helpers'

// The embedded broker's own protections, whatever TEST_MQTT_URL says.
const t = useTestApp({ MQTT_PORT: '0' })

const clients: mqtt.MqttClient[] = []
afterAll(async () => {
  for (const c of clients) await c.endAsync(true).catch(() => {})
})

/** MQTT's remaining-length varint. */
function varint(n: number): number[] {
  const out: number[] = []
  do {
    const digit = n % 128
    n = Math.floor(n / 128)
    out.push(n > 0 ? digit | 0x80 : digit)
  } while (n > 0)
  return out
}

/** A raw TCP connection and a promise of its closing (the broker's refusals end in a reset: ignored). */
async function rawSocket(port: number): Promise<{ socket: Socket; closed: Promise<number> }> {
  const socket = tcpConnect(port, '127.0.0.1')
  socket.on('error', () => {})
  await once(socket, 'connect')
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())))
  return { socket, closed }
}

async function asDevice(port: number) {
  const d = await insertDevice(t)
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { clientId: d.sn, username: d.sn, password: d.secret, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000 })
  clients.push(client)
  return { ...d, client }
}

describe('embedded broker: packet size limits', () => {
  it('closes a connection whose CONNECT announces 250 MB at its header, without taking in the body', async () => {
    const { socket, closed } = await rawSocket(t.app.broker!.port)
    let isClosed = false
    void closed.then(() => (isClosed = true))
    const rssBefore = process.memoryUsage().rss
    const started = Date.now()
    socket.write(Buffer.from([0x10, ...varint(250 * 1024 * 1024)]))
    // Send the announced body as fast as the connection takes it, until the broker hangs up.
    const chunk = Buffer.alloc(1024 * 1024, 0x61)
    let sent = 0
    while (!isClosed && sent < 250 * 1024 * 1024) {
      sent += chunk.length
      if (!socket.write(chunk)) await Promise.race([new Promise((r) => socket.once('drain', r)), closed])
    }
    const at = await closed
    // Long before the connect timeout, and after what socket buffers hold, not the 250 MB.
    expect(at - started).toBeLessThan(CONNECT_TIMEOUT_MS / 2)
    expect(sent).toBeLessThan(32 * 1024 * 1024)
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024)
  })

  it('closes a connection whose CONNECT is over the limit, or whose first packet is not a CONNECT', async () => {
    for (const header of [[0x10, ...varint(PACKET_LIMITS.connectBytes)], [0x30, 0x05]]) {
      const { socket, closed } = await rawSocket(t.app.broker!.port)
      const started = Date.now()
      socket.write(Buffer.from(header))
      expect((await closed) - started).toBeLessThan(CONNECT_TIMEOUT_MS / 2)
    }
  })

  it('lets a device publish a packet of the largest size, and disconnects it for a byte more', async () => {
    const { sn, client } = await asDevice(t.app.broker!.port)
    const topic = upTopic(sn, 'status')
    // QoS 1 PUBLISH: type byte, a 3-byte remaining length, topic length and topic, packet id, payload.
    const largest = PACKET_LIMITS.packetBytes - 1 - 3 - 2 - topic.length - 2
    const prefix = '{"v":1,"hardwareVersion":"HW-A1","padding":"'
    const payload = `${prefix}${'x'.repeat(largest - prefix.length - 2)}"}`
    expect(Buffer.byteLength(payload)).toBe(largest)
    const received = new Promise<number>((resolve) =>
      t.app.broker!.aedes.on('publish', (packet, from) => {
        if (from?.id === sn && packet.topic === topic) resolve(packet.payload.length)
      }),
    )
    await client.publishAsync(topic, payload, { qos: 1 })
    expect(await received).toBe(largest)
    expect(client.connected).toBe(true)

    // The broker hangs up on unread bytes: a reset, which the client reports as an error.
    client.on('error', () => {})
    const gone = new Promise((resolve) => client.once('close', () => resolve(undefined)))
    client.publish(topic, `${payload}x`, { qos: 1 })
    await gone
    expect(t.app.broker!.isConnected(sn)).toBe(false)
  })

  it("carries the message-queue debugger's largest publish on the longest topic", async () => {
    const { sn, client } = await asDevice(t.app.broker!.port)
    const base = `velo/v1/${sn}/down/`
    const topic = base + 'é'.repeat(MAX_TOPIC_LENGTH - base.length)
    await client.subscribeAsync(`velo/v1/${sn}/down/#`, { qos: 1 })
    const received = new Promise<Buffer>((resolve) => client.on('message', (_topic, message) => resolve(message)))
    const res = await t.call({ method: 'POST', url: '/api/iot/mqDebug/publish', token: t.admin, body: { topic, payload: 'x'.repeat(MAX_PUBLISH_BYTES), qos: 1 } })
    expect(res.code).toBe(200)
    expect((await received).length).toBe(MAX_PUBLISH_BYTES)
  })

  it('follows the framing across chunks, whatever the chunk boundaries', () => {
    const connect = [0x10, 0x03, 1, 2, 3]
    const publish = [0x30, ...varint(200), ...new Array(200).fill(7)]
    const ping = [0xc0, 0x00]
    const stream = Buffer.from([...connect, ...ping, ...publish, ...ping])
    for (const size of [1, 2, 3, 7, stream.length]) {
      const scanner = new PacketScanner({ connectBytes: 5, packetBytes: 203 })
      for (let i = 0; i < stream.length; i += size) expect(scanner.scan(stream.subarray(i, i + size))).toBeNull()
      expect(scanner.scan(Buffer.from([0x30, ...varint(201)]))).toMatch(/packet of 204 bytes/)
    }
    expect(new PacketScanner({ connectBytes: 4, packetBytes: 100 }).scan(Buffer.from(connect))).toMatch(/CONNECT of 5 bytes/)
    expect(new PacketScanner({ connectBytes: 5, packetBytes: 100 }).scan(Buffer.from([...connect, 0x30, 0xff, 0xff, 0xff, 0xff]))).toMatch(/malformed/)
  })
})

/** The topics the embedded broker keeps a retained message for, below a device's own. */
async function retainedTopics(sn: string): Promise<string[]> {
  // aedes' typings leave its persistence out: this is the part of it read here.
  const { persistence } = t.app.broker!.aedes as unknown as { persistence: { createRetainedStream: (pattern: string) => AsyncIterable<{ topic: string }> } }
  const topics: string[] = []
  for await (const packet of persistence.createRetainedStream(`velo/v1/${sn}/#`)) topics.push(packet.topic)
  return topics.sort()
}

/** Resolves when the broker has closed the client's connection. */
const closedBy = (client: mqtt.MqttClient) => {
  client.on('error', () => {})
  return new Promise((resolve) => client.once('close', () => resolve(undefined)))
}

describe('embedded broker: retained messages', () => {
  it('keeps a device’s retained presence, and closes the connection of one that retains anything else', async () => {
    const { sn, client } = await asDevice(t.app.broker!.port)
    await client.publishAsync(upTopic(sn, 'presence'), JSON.stringify({ v: 1, state: 'online' }), { qos: 1, retain: true })
    expect(await retainedTopics(sn)).toEqual([upTopic(sn, 'presence')])
    // Not retained, a topic of its own is only a message: it stays connected.
    await client.publishAsync(`velo/v1/${sn}/up/notes`, 'x', { qos: 1 })
    expect(client.connected).toBe(true)

    const gone = closedBy(client)
    client.publish(`velo/v1/${sn}/up/notes`, 'x'.repeat(4096), { qos: 1, retain: true })
    await gone
    expect(t.app.broker!.isConnected(sn)).toBe(false)
    expect(await retainedTopics(sn)).toEqual([upTopic(sn, 'presence')])
  })

  it('refuses a retained telemetry, an oversized presence and an oversized last will', async () => {
    const telemetry = await asDevice(t.app.broker!.port)
    let gone = closedBy(telemetry.client)
    telemetry.client.publish(upTopic(telemetry.sn, 'telemetry'), JSON.stringify({ v: 1, speed: 12 }), { qos: 1, retain: true })
    await gone
    expect(await retainedTopics(telemetry.sn)).toEqual([])

    const big = await asDevice(t.app.broker!.port)
    const payload = JSON.stringify({ v: 1, state: 'online', pad: 'x'.repeat(RETAINED_PRESENCE_MAX_BYTES) })
    gone = closedBy(big.client)
    big.client.publish(upTopic(big.sn, 'presence'), payload, { qos: 1, retain: true })
    await gone
    expect(await retainedTopics(big.sn)).toEqual([])

    const d = await insertDevice(t)
    const will = { topic: upTopic(d.sn, 'presence'), payload: Buffer.from(payload), qos: 1 as const, retain: true }
    await expect(mqtt.connectAsync(`mqtt://127.0.0.1:${t.app.broker!.port}`, { clientId: d.sn, username: d.sn, password: d.secret, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000, will })).rejects.toThrow(/Not authorized/)
    const small = { ...will, payload: Buffer.from(JSON.stringify({ v: 1, state: 'offline', reason: 'lost' })) }
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.app.broker!.port}`, { clientId: d.sn, username: d.sn, password: d.secret, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000, will: small })
    clients.push(client)
    expect(client.connected).toBe(true)
  })
})

describe('embedded broker: connect timeout', () => {
  it('closes a connection that sends no CONNECT, or only part of one, when the timeout passes', async () => {
    const broker = await startEmbeddedBroker({ port: 0, authority: t.app.iot.authority, connectTimeoutMs: 300 })
    try {
      const silent = await rawSocket(broker.port)
      const partial = await rawSocket(broker.port)
      const started = Date.now()
      partial.socket.write(Buffer.from([0x10, 0x20, 0x00, 0x04]))
      for (const closedAt of await Promise.all([silent.closed, partial.closed])) {
        expect(closedAt - started).toBeGreaterThanOrEqual(250)
        expect(closedAt - started).toBeLessThan(3000)
      }
      // A device that does send its CONNECT in time is not affected.
      const d = await insertDevice(t)
      const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${broker.port}`, { clientId: d.sn, username: d.sn, password: d.secret, protocolVersion: 4, reconnectPeriod: 0 })
      await new Promise((r) => setTimeout(r, 500))
      expect(client.connected).toBe(true)
      await client.endAsync()
    } finally {
      await broker.close()
    }
  })
})
