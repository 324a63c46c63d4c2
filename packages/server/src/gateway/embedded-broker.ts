import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { dirname } from 'node:path'
import { Aedes, type AedesOptions, type Client } from 'aedes'
import { writeToStream } from 'mqtt-packet'
import type { BrokerIdentity, DeviceAuthority } from './device-auth'
import { GuardedSocket, type PacketLimits } from './packet-guard'
import { indexedMemoryPersistence } from './retained-index'
import { TOPIC_ROOT } from '@velo/shared'

// mqtt-packet (aedes' and the MQTT client's writer) writes 16-bit numbers (message ids, lengths)
// from a cache of all 65,536 of them as Buffers, made when the first packet is written: 7 MB of an
// idle server's heap, held for its life, to save a 2-byte allocation per number written. Off.
writeToStream.cacheNumbers = false

const UP_LEVEL = /^[^/]+\/up\/[^/]+$/
const isUpTopic = (topic: string) => topic.startsWith(`${TOPIC_ROOT}/`) && UP_LEVEL.test(topic.slice(TOPIC_ROOT.length + 1))

/**
 * What a client may send (docs/iot-protocol.md, Limits). A CONNECT carries an SN, a secret and a
 * presence will: a few hundred bytes. After it, the largest message is an administrator's test
 * publish from the message-queue debugger (64 kB, MAX_PUBLISH_BYTES, on a topic of up to 255
 * characters); a device's own messages are under 1 kB.
 */
export const PACKET_LIMITS: PacketLimits = { connectBytes: 4 * 1024, packetBytes: 128 * 1024 }

/** A connection without its CONNECT by then is closed (aedes waits 30 s by default). */
export const CONNECT_TIMEOUT_MS = 10_000

export interface EmbeddedBrokerOptions {
  port: number
  authority: DeviceAuthority
  connectTimeoutMs?: number
  /**
   * Where the port taken instead of a busy requested one is remembered (DATA_DIR/mqtt-port), so the
   * next start takes the same one if it is free: devices that stored the address still find the broker.
   */
  portFile?: string
}

/** The port remembered in `file`, or undefined. */
function rememberedPort(file: string | undefined): number | undefined {
  if (!file) return undefined
  try {
    const port = Number(readFileSync(file, 'utf8').trim())
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined
  } catch {
    return undefined
  }
}

function rememberPort(file: string | undefined, port: number) {
  if (!file) return
  try {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, `${port}\n`)
  } catch {
    // Not remembered: the next start takes any free port, and the simulator asks the server (GET /iot/broker).
  }
}

export interface EmbeddedBroker {
  aedes: Aedes
  /** The port asked for (MQTT_PORT). */
  requestedPort: number
  /** The port it listens on: the requested one, or a free one when that was taken. */
  port: number
  /** Closes a client's live connection (a deleted device, a reset secret); false if it was not connected. */
  disconnect(clientId: string): boolean
  /** Whether a client id holds a live connection. */
  isConnected(clientId: string): boolean
  /**
   * Hands device messages (up topics) to the gateway in process instead of through a subscription:
   * `ack` is called once the message is settled, and only then does the device get its PUBACK (an
   * error closes its connection unacknowledged, and the device sends it again).
   */
  onUp(take: UpTaker): void
  close(): Promise<void>
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening)
      reject(err)
    }
    const onListening = () => {
      server.off('error', onError)
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : port)
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen(port)
  })
}

/** listen(), or undefined when the port is taken. */
async function listenIfFree(server: Server, port: number): Promise<number | undefined> {
  try {
    return await listen(server, port)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') return undefined
    throw err
  }
}

export type UpTaker = (topic: string, payload: Buffer, ack: (err?: Error) => void, dup: boolean) => void

const notAuthorized = () => Object.assign(new Error('Not authorized'), { returnCode: 5 as const })

/** aedes's handlers, asking the device authority. */
function brokerHandlers(authority: DeviceAuthority, up: { take?: UpTaker }): Pick<AedesOptions, 'preConnect' | 'authenticate' | 'authorizePublish' | 'authorizeSubscribe'> {
  const identities = new WeakMap<Client, BrokerIdentity>()
  // aedes hands authenticate() no CONNECT packet: the will is taken from it here and checked there.
  const wills = new WeakMap<Client, { topic: string; bytes: number }>()
  return {
    preConnect(client, packet, done) {
      if (packet.will) wills.set(client, { topic: packet.will.topic, bytes: packet.will.payload?.length ?? 0 })
      done(null, true)
    },
    authenticate(client, username, password, done) {
      authority.authenticate(client.id, username, password).then(
        (identity) => {
          if (!identity || !authority.willAllowed(identity, wills.get(client))) return done(notAuthorized(), false)
          identities.set(client, identity)
          done(null, true)
        },
        // A database hiccup refuses the connection (the device retries) rather than letting it in.
        () => done(Object.assign(new Error('Server unavailable'), { returnCode: 3 as const }), false),
      )
    },
    authorizePublish(client, packet, done) {
      // client is null for a will aedes publishes after a restart: it was checked when the device connected.
      if (!client) return done(null)
      const identity = identities.get(client)
      if (!identity || !authority.authorize(identity, 'publish', packet.topic)) return done(new Error(`${client.id} may not publish to ${packet.topic}`))
      // Refused like a forbidden topic (aedes closes the connection): a retained message would stay in memory for good.
      if (packet.retain && !authority.retainAllowed(identity, packet.topic, packet.payload.length)) return done(new Error(`${client.id} may not retain ${packet.payload.length} bytes on ${packet.topic}`))
      // aedes writes the PUBACK when this calls back: a device message is acknowledged once it is written.
      if (up.take && isUpTopic(packet.topic)) return up.take(packet.topic, packet.payload as Buffer, (err) => done(err ?? null), Boolean(packet.dup))
      done(null)
    },
    authorizeSubscribe(client, subscription, done) {
      const identity = identities.get(client)
      // A null subscription answers this filter with a failure code in SUBACK; the connection stays.
      done(null, identity && authority.authorize(identity, 'subscribe', subscription.topic) ? subscription : null)
    },
  }
}

/**
 * The in-process MQTT broker of the embedded defaults (no MQTT_URL). A machine that already runs a
 * broker on the port keeps it: ours then takes a free port and says which.
 */
export async function startEmbeddedBroker(options: EmbeddedBrokerOptions): Promise<EmbeddedBroker> {
  const up: { take?: UpTaker } = {}
  const aedes = await Aedes.createBroker({
    ...brokerHandlers(options.authority, up),
    persistence: indexedMemoryPersistence(),
    connectTimeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
  })
  const clients = new Map<string, Client>()
  aedes.on('client', (client) => clients.set(client.id, client))
  aedes.on('clientDisconnect', (client) => {
    // A takeover by the same client id registers the new connection before the old one is gone.
    if (clients.get(client.id) === client) clients.delete(client.id)
  })
  const server = createServer((socket) => aedes.handle(new GuardedSocket(socket, PACKET_LIMITS)))
  let port: number
  try {
    port = await listen(server, options.port)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err
    // The port of the last start when the requested one was taken too, else any free one (remembered).
    const last = options.port === 0 ? undefined : rememberedPort(options.portFile)
    const again = last === undefined ? undefined : await listenIfFree(server, last)
    port = again ?? (await listen(server, 0))
    if (options.port !== 0 && port !== last) rememberPort(options.portFile, port)
  }
  return {
    aedes,
    requestedPort: options.port,
    port,
    disconnect(clientId) {
      const client = clients.get(clientId)
      if (!client) return false
      clients.delete(clientId)
      client.close()
      return true
    },
    isConnected: (clientId) => clients.has(clientId),
    onUp(take) {
      up.take = take
    },
    close: () =>
      new Promise<void>((resolve) => {
        aedes.close(() => server.close(() => resolve()))
      }),
  }
}
