/**
 * Devices that only report, for the ingest bench: one TCP connection each, speaking just the MQTT
 * 3.1.1 packets a reporting device needs (CONNECT, PUBLISH at QoS 1, the acknowledgements back).
 *
 * Why not the simulator's MQTT.js devices: at thousands of reports a second, 2,000 MQTT.js clients
 * (each with its stores, timers and parser) cost the bench process more CPU than the server spends
 * storing the reports, on the same two cores — the figure measured the load generator. Here a report
 * is one Buffer written to a socket, and the answers are counted from their fixed headers.
 */
import { connect as tcpConnect, type Socket } from 'node:net'
import { PROTOCOL_VERSION, upTopic } from '@velo/shared'

const CONNECT = 0x10
const CONNACK = 0x20
const PUBLISH_QOS1 = 0x32
const RETAIN = 0x01
const PUBACK = 0x40

/** MQTT's remaining length: 7 bits a byte, the high bit saying more follow. */
function remainingLength(n: number): Buffer {
  const bytes: number[] = []
  do {
    let b = n % 128
    n = Math.floor(n / 128)
    if (n > 0) b |= 0x80
    bytes.push(b)
  } while (n > 0)
  return Buffer.from(bytes)
}

const utf8 = (s: string) => {
  const b = Buffer.from(s, 'utf8')
  const len = Buffer.alloc(2)
  len.writeUInt16BE(b.length)
  return Buffer.concat([len, b])
}

function connectPacket(clientId: string, username: string, password: string, keepalive: number): Buffer {
  const head = Buffer.from([0, 4, 0x4d, 0x51, 0x54, 0x54, 4, 0xc2, keepalive >> 8, keepalive & 0xff])
  const body = Buffer.concat([head, utf8(clientId), utf8(username), utf8(password)])
  return Buffer.concat([Buffer.from([CONNECT]), remainingLength(body.length), body])
}

class RawDevice {
  acked = 0
  sent = 0
  private nextId = 1
  private readonly topic: Buffer
  private buffered = Buffer.alloc(0)
  private connected: ((ok: boolean) => void) | null = null

  constructor(
    readonly sn: string,
    private readonly socket: Socket,
  ) {
    this.topic = utf8(upTopic(sn, 'telemetry'))
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => this.read(chunk))
    socket.on('error', () => {})
    socket.on('close', () => this.connected?.(false))
  }

  /** Counts the packets that came back by their fixed headers (the server sends this device nothing else it needs). */
  private read(chunk: Buffer) {
    let buf = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk
    let i = 0
    for (;;) {
      if (buf.length - i < 2) break
      let len = 0
      let mult = 1
      let j = i + 1
      let complete = false
      while (j < buf.length) {
        const b = buf[j++]!
        len += (b & 0x7f) * mult
        mult *= 128
        if (!(b & 0x80)) {
          complete = true
          break
        }
      }
      if (!complete || buf.length - j < len) break
      const type = buf[i]! & 0xf0
      if (type === PUBACK) this.acked++
      else if (type === CONNACK) {
        this.connected?.(buf[j + 1] === 0)
        this.connected = null
      }
      i = j + len
    }
    buf = buf.subarray(i)
    this.buffered = buf.length ? Buffer.from(buf) : Buffer.alloc(0)
  }

  handshake(secret: string): Promise<boolean> {
    return new Promise((resolve) => {
      this.connected = resolve
      this.socket.write(connectPacket(this.sn, this.sn, secret, 0))
    })
  }

  /**
   * Presence online (retained), as a device says once connected: the server lists a device online
   * from it, not from the connection (docs/iot-protocol.md › Presence).
   */
  announce() {
    this.publish(PUBLISH_QOS1 | RETAIN, utf8(upTopic(this.sn, 'presence')), { v: PROTOCOL_VERSION, state: 'online' })
  }

  /** One telemetry report at QoS 1, with the device's own time. */
  report(body: Record<string, unknown>) {
    this.publish(PUBLISH_QOS1, this.topic, { v: PROTOCOL_VERSION, ts: Date.now(), ...body })
  }

  private publish(first: number, topic: Buffer, body: Record<string, unknown>) {
    const id = this.nextId
    this.nextId = id === 65535 ? 1 : id + 1
    const payload = Buffer.from(JSON.stringify(body), 'utf8')
    const length = topic.length + 2 + payload.length
    const header = Buffer.concat([Buffer.from([first]), remainingLength(length), topic, Buffer.from([id >> 8, id & 0xff])])
    this.socket.write(Buffer.concat([header, payload]))
    this.sent++
  }

  /** DISCONNECT, then the socket: a clean goodbye; resolves once the socket is gone (20,000 of them hold as many files). */
  close(): Promise<void> {
    if (this.socket.destroyed) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.socket.destroy(), 2000)
      this.socket.once('close', () => {
        clearTimeout(timer)
        resolve()
      })
      this.socket.end(Buffer.from([0xe0, 0]))
    })
  }
}

/** `count` devices connected `concurrency` at a time; devices that could not connect are counted, not thrown. */
export async function connectRawDevices(url: string, devices: { sn: string; secret: string }[], concurrency: number) {
  const { hostname, port } = new URL(url)
  const connected: RawDevice[] = []
  let failed = 0
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(concurrency, devices.length) }, async () => {
      while (next < devices.length) {
        const d = devices[next++]!
        const socket = tcpConnect({ host: hostname, port: Number(port || 1883) })
        const device = new RawDevice(d.sn, socket)
        const ok = await new Promise<boolean>((resolve) => {
          socket.once('connect', () => void device.handshake(d.secret).then(resolve))
          socket.once('error', () => resolve(false))
        })
        if (ok) {
          device.announce()
          connected.push(device)
        } else {
          failed++
          socket.destroy()
        }
      }
    }),
  )
  return {
    devices: connected,
    failed,
    get sent() {
      return connected.reduce((n, d) => n + d.sent, 0)
    },
    get acked() {
      return connected.reduce((n, d) => n + d.acked, 0)
    },
    close: async () => {
      await Promise.all(connected.map((d) => d.close()))
    },
  }
}
