import { randomBytes } from 'node:crypto'
import { type DownKind, downTopic, parseTopic, PROTOCOL_VERSION, UP_FILTER, UP_SCHEMAS, type UpKind } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt'
import type { z } from 'zod'
import type { Db } from '../db/database'
import type { Credential } from './device-auth'
import { checkedByHand } from './fast-payloads'
import { IngestGate } from './ingest'
import type { LoggedMessage } from './message-log'
import type { Gateway, KnownDevice, ObservedMessage, UpHandler, UpMessage } from './types'

export interface GatewayOptions {
  /** mqtt://host:port of the embedded broker, or MQTT_URL. */
  url: string
  /** The embedded broker's internal credential (an external broker takes them from MQTT_URL). */
  credential?: Credential
  /** Several servers on one broker: each message goes to one of the group (shared subscription). */
  shareGroup?: string
  /** 5 where the broker may speak it (it falls back to 3.1.1 if refused); aedes speaks 3.1.1 only. */
  protocolVersion: 4 | 5
  db: Db
  /** Where up and down messages are recorded. */
  messageLog: { record(message: LoggedMessage): void }
  logger: FastifyBaseLogger
  /** How long a device found by SN is trusted (another instance may delete it meanwhile). */
  cacheMs?: number
  /** How long an unknown SN stays unknown before it is looked up again. */
  unknownCacheMs?: number
  /**
   * The embedded broker hands device messages over in process (embedded-broker.ts › onUp): the
   * gateway's client then only publishes, and subscribes to no up topic.
   */
  inProcess?: boolean
  /**
   * An external broker: the gateway's client id, stable across restarts (MQTT_GATEWAY_ID), so a
   * restarted instance resumes its session and gets what it had not acknowledged (a persistent
   * session, sessionExpirySeconds long).
   */
  clientId?: string
  sessionExpirySeconds?: number
  /** Messages taken in and not yet settled, at most (INGEST_MAX_PENDING). */
  maxPending?: number
  /** Takes no message until gate.open(): the app opens it once every handler is registered. */
  startPaused?: boolean
}

/** Called once a message taken in is settled: with an error, it must not be acknowledged (the device or broker sends it again). */
export type Ack = (err?: Error) => void

/** Whether a topic matches an MQTT filter (+ one level, # the rest; wildcards never match $ topics at the start). */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/')
  const t = topic.split('/')
  const dollar = topic.startsWith('$')
  for (let i = 0; i < f.length; i++) {
    const level = f[i]!
    if (level === '#') return !(i === 0 && dollar)
    if (i >= t.length) return false
    if (level === '+') {
      if (i === 0 && dollar) return false
    } else if (level !== t[i]) return false
  }
  return f.length === t.length
}

const newClientId = (role: string) => `velo-${role}-${randomBytes(6).toString('hex')}`
/** Messages taken in and not yet written, at most: about 2 kB each while they wait. */
export const DEFAULT_MAX_PENDING = 20_000
/** How long an external broker keeps a gone instance's session (and what it had not acknowledged). */
export const DEFAULT_SESSION_EXPIRY_SECONDS = 600

interface HeldAck {
  settled: boolean
  failed: boolean
  /** Sends the PUBACK MQTT.js asked for, once the message is settled. */
  send?: () => void
}
const UNSUPPORTED_PROTOCOL = new Set([1, 132])
const LOOKUP_CHUNK = 500
const MAX_CACHED = 200_000

interface CacheEntry {
  device: KnownDevice | null
  until: number
}

/**
 * The server's side of the device protocol: one MQTT client that receives every device's up topics
 * (as one member of a shared-subscription group when servers share a broker), finds the device,
 * validates the payload against its kind's schema and hands it to the handlers of that kind.
 * Watches of the message-queue debugger get clients of their own, so an overlapping filter never
 * makes the broker deliver a device message to the gateway twice.
 */
export class MqttGateway implements Gateway {
  /** Read by the metrics (messages in and out, platform/observability). */
  readonly client: MqttClient
  private readonly handlers = new Map<UpKind, Set<UpHandler>>()
  private readonly cache = new Map<string, CacheEntry>()
  private readonly lookups = new Map<string, { promise: Promise<KnownDevice | null>; resolve: (d: KnownDevice | null) => void; reject: (err: unknown) => void }>()
  private lookupScheduled = false
  private lookupsDone: Promise<void> = Promise.resolve()
  /** SNs forgotten while a lookup ran, by when: its answer may predate the change and is not kept. */
  private readonly forgotten = new Map<string, number>()
  /**
   * Per SN, the last message still waiting for its device lookup. A device's later messages queue
   * behind it even when the device is cached by then: otherwise a status or a last will that found
   * the cache filled would reach the handlers before the presence that waited for the lookup, and
   * the device would end online after it had left.
   */
  private readonly inLine = new Map<string, Promise<void>>()
  private forgets = 0
  private readonly watches = new Map<string, { client: Promise<MqttClient>; listeners: Set<(m: ObservedMessage) => void> }>()
  private readonly readyPromise: Promise<void>
  private closed = false
  private readonly cacheMs: number
  private readonly unknownCacheMs: number
  /** Bounds what is taken in and not yet written (ingest.ts). */
  readonly gate: IngestGate
  /** PUBACKs of the current connection held until their message is settled, by message id. */
  private heldAcks = new Map<number, HeldAck>()

  constructor(private readonly options: GatewayOptions) {
    this.cacheMs = options.cacheMs ?? 30_000
    this.unknownCacheMs = options.unknownCacheMs ?? 5_000
    this.gate = new IngestGate(options.maxPending ?? DEFAULT_MAX_PENDING, (saturated, pending) => {
      if (saturated) options.logger.warn({ pending }, 'device ingest saturated: messages wait unacknowledged until earlier ones are written (INGEST_MAX_PENDING)')
      else options.logger.info('device ingest no longer saturated')
    }, options.startPaused)
    let resolveReady!: () => void
    this.readyPromise = new Promise((resolve) => (resolveReady = resolve))
    const persistent = Boolean(options.clientId)
    const client = mqtt.connect(options.url, {
      ...this.clientOptions('gw'),
      ...(options.clientId ? { clientId: options.clientId } : {}),
      protocolVersion: options.protocolVersion,
      // Behind an external broker the session outlives the connection: what the broker handed this
      // instance and it had not yet acknowledged comes again when it is back (the broker keeps it for
      // sessionExpirySeconds). What a device must get while the server is away is queued by the server.
      clean: !persistent,
      // Subscribed on every connect below, so ready() can follow the subscription.
      resubscribe: false,
      // A refusal (protocol version, a broker not yet told about our credentials) is retried like a lost connection.
      reconnectOnConnackError: true,
      // MQTT 5: let the broker have as many messages in flight to us as it likes. Mosquitto otherwise
      // keeps 20 in flight and 1,000 queued per client and drops the rest of a burst (10,000 devices
      // answering a command at once); on 3.1.1 those limits are the broker's configuration.
      properties: { receiveMaximum: 65535, ...(persistent ? { sessionExpiryInterval: options.sessionExpirySeconds ?? DEFAULT_SESSION_EXPIRY_SECONDS } : {}) },
    })
    this.client = client
    client.on('connect', (connack) => {
      // A resumed session keeps its subscription: subscribing again is harmless and covers a lost one.
      if (options.inProcess) return resolveReady()
      this.subscribeUp().then(resolveReady, (err) => options.logger.error({ err }, 'MQTT gateway could not subscribe to device topics'))
      if (connack.sessionPresent) options.logger.info('MQTT gateway resumed its session: messages it had not acknowledged come again')
    })
    // Message ids belong to a connection: a PUBACK held for the last one must not answer the next.
    client.on('close', () => {
      this.heldAcks = new Map()
    })
    this.holdAcks(client)
    client.on('error', (err: Error & { code?: number }) => {
      if (client.options.protocolVersion === 5 && UNSUPPORTED_PROTOCOL.has(Number(err.code))) {
        options.logger.info('The MQTT broker does not speak MQTT 5: the gateway uses 3.1.1')
        client.options.protocolVersion = 4
        delete client.options.properties
        return
      }
      options.logger.warn({ err: err.message }, 'MQTT gateway connection')
    })
    client.on('offline', () => options.logger.warn('MQTT gateway lost the broker; reconnecting'))
  }

  private clientOptions(role: string): IClientOptions {
    return {
      clientId: newClientId(role),
      ...(this.options.credential ? { username: this.options.credential.username, password: this.options.credential.password } : {}),
      reconnectPeriod: 1000,
      connectTimeout: 10_000,
      keepalive: 30,
    }
  }

  private async subscribeUp() {
    const filter = this.options.shareGroup ? `$share/${this.options.shareGroup}/${UP_FILTER}` : UP_FILTER
    const granted = await this.client.subscribeAsync(filter, { qos: 1 })
    if (granted.some((g) => g.qos === 128)) throw new Error(`The broker refused the subscription to ${filter}`)
  }

  get connected(): boolean {
    return this.client.connected
  }

  ready(): Promise<void> {
    return this.readyPromise
  }

  /**
   * The client acknowledges a QoS 1 message (PUBACK) only once it is settled, and takes the next one
   * as soon as it is admitted: MQTT.js sends the PUBACK when handleMessage calls back, so the PUBACK
   * is held here and sent when the message's rows are committed. MQTT.js has no API for a deferred
   * acknowledgement; _sendPacket is its one way out to the socket.
   */
  private holdAcks(client: MqttClient) {
    const internal = client as unknown as { _sendPacket: (packet: { cmd: string; messageId?: number }, cb?: () => void, ...rest: unknown[]) => void }
    const send = internal._sendPacket.bind(client)
    internal._sendPacket = (packet, cb, ...rest) => {
      const held = packet.cmd === 'puback' && packet.messageId !== undefined ? this.heldAcks.get(packet.messageId) : undefined
      if (!held) return send(packet, cb, ...rest)
      if (held.settled) {
        this.heldAcks.delete(packet.messageId!)
        if (!held.failed) return send(packet, cb, ...rest)
        return cb?.()
      }
      held.send = () => send(packet)
      cb?.()
    }
    client.handleMessage = (packet, callback) => {
      if (packet.cmd !== 'publish') return callback()
      let held: HeldAck | undefined
      if (packet.qos === 1 && packet.messageId !== undefined) {
        held = { settled: false, failed: false }
        this.heldAcks.set(packet.messageId, held)
      }
      const heldAcks = this.heldAcks
      const id = packet.messageId!
      const ack: Ack = (err) => {
        if (!held) return
        held.settled = true
        held.failed = Boolean(err)
        if (!held.send) return
        if (heldAcks.get(id) === held) heldAcks.delete(id)
        // Not acknowledged: a persistent session gets it again after a reconnect.
        if (err) return
        if (heldAcks === this.heldAcks) held.send()
      }
      const admitted = this.take(packet.topic, packet.payload as Buffer, ack, packet.dup)
      if (admitted) void admitted.then(() => callback())
      else callback()
    }
  }

  /**
   * Takes one device message in (from the MQTT client, or from the embedded broker in process) once
   * the gate admits it: undefined when at once, else a promise resolved when admitted (never, once
   * the gateway stops taking). `ack` is called when it is settled.
   */
  take(topic: string, payload: Buffer, ack: Ack, dup = false): Promise<void> | undefined {
    const admitted = this.gate.admit()
    // Once only: a handler that throws after settling must not free a second place in the gate.
    let settled = false
    const settle: Ack = (err) => {
      if (settled) return
      settled = true
      this.gate.settle()
      ack(err)
    }
    if (!admitted) {
      this.receiveSafely(topic, payload, settle, dup)
      return undefined
    }
    return admitted.then(() => this.receiveSafely(topic, payload, settle, dup))
  }

  /** A message whose handling throws is settled unacknowledged, so its device's connection never waits for it for ever. */
  private receiveSafely(topic: string, payload: Buffer, settle: Ack, dup: boolean) {
    try {
      this.receive(topic, payload, settle, dup)
    } catch (err) {
      this.options.logger.error({ err, topic }, 'device message handler failed; message not acknowledged')
      settle(err as Error)
    }
  }

  /** Takes nothing more and waits (up to graceMs) until what was taken in is written and acknowledged. */
  async stopTaking(graceMs = 10_000): Promise<boolean> {
    // Behind an external broker, the broker stops handing this instance more; what it already has is drained.
    if (!this.options.inProcess && this.client.connected) {
      const filter = this.options.shareGroup ? `$share/${this.options.shareGroup}/${UP_FILTER}` : UP_FILTER
      await Promise.race([this.client.unsubscribeAsync(filter).catch(() => undefined), new Promise((r) => setTimeout(r, 2000))])
    }
    return this.gate.stop(graceMs)
  }

  on(kind: UpKind, handler: UpHandler): void {
    const set = this.handlers.get(kind) ?? new Set()
    set.add(handler)
    this.handlers.set(kind, set)
  }

  private receive(topic: string, payload: Buffer, settle: Ack, dup: boolean) {
    const parsed = parseTopic(topic)
    // A zero-length payload clears a retained message: nothing was said.
    if (!parsed || parsed.direction !== 'up' || payload.length === 0) return settle()
    const receivedAt = Date.now()
    const { sn, kind } = parsed
    const ahead = this.inLine.get(sn)
    // Known devices are handled at once; the rest wait for one batched lookup, each device's in arrival order.
    if (!ahead) {
      const cached = this.cached(sn)
      if (cached !== undefined) return this.dispatch(cached, sn, kind, topic, payload, receivedAt, settle, dup)
    }
    const device = this.findDevice(sn)
    const handled = (ahead ?? Promise.resolve())
      .then(() => device)
      .then(
        (found) => this.dispatch(found, sn, kind, topic, payload, receivedAt, settle, dup),
        (err: unknown) => {
          // Not acknowledged: the device (or the broker) sends it again.
          this.options.logger.error({ err, topic }, 'device lookup failed; message not acknowledged')
          settle(err as Error)
        },
      )
      .catch((err: unknown) => {
        this.options.logger.error({ err, topic }, 'device message handler failed; message not acknowledged')
        settle(err as Error)
      })
      .finally(() => {
        if (this.inLine.get(sn) === handled) this.inLine.delete(sn)
      })
    this.inLine.set(sn, handled)
  }

  private dispatch(device: KnownDevice | null, sn: string, kind: string, topic: string, payload: Buffer, receivedAt: number, settle: Ack, dup: boolean) {
    const { logger, messageLog } = this.options
    if (!device) {
      logger.debug({ sn, topic }, 'message of an unknown device dropped')
      return settle()
    }
    const raw = payload.toString('utf8')
    const schema = (UP_SCHEMAS as Record<string, z.ZodType | undefined>)[kind]
    let result: ReturnType<z.ZodType['safeParse']> | null = null
    try {
      const value: unknown = JSON.parse(raw)
      // Telemetry and heartbeats the schema would take unchanged skip it (fast-payloads.ts).
      const checked = checkedByHand(kind, value)
      result = checked ? { success: true, data: checked } : schema ? schema.safeParse(value) : null
    } catch {
      // not JSON: invalid like any other
    }
    if (!result?.success) {
      logger.warn({ sn, topic, issues: result?.error?.issues.slice(0, 3) }, 'invalid device message dropped')
      messageLog.record({ deviceId: device.deviceId, sn, direction: 'up', kind: 'invalid', topic, payload: raw })
      return settle()
    }
    // Heartbeats only say "still here": the device's last-seen time keeps that.
    if (kind !== 'heartbeat') messageLog.record({ deviceId: device.deviceId, sn, direction: 'up', kind, topic, payload: raw })
    let written: Promise<void>[] | undefined
    const message: UpMessage = {
      device,
      kind: kind as UpKind,
      topic,
      payload: result.data as Record<string, unknown>,
      raw,
      receivedAt,
      dup,
      hold: (p) => (written ??= []).push(p),
    }
    for (const handler of this.handlers.get(kind as UpKind) ?? []) {
      try {
        const pending = handler(message)
        if (pending) pending.catch((err: unknown) => logger.error({ err, topic }, 'device message handler failed'))
      } catch (err) {
        logger.error({ err, topic }, 'device message handler failed')
      }
    }
    if (!written) return settle()
    // Most reports hold one write (the telemetry batch): no Promise.all and array for each of those.
    const held: Promise<unknown> = written.length === 1 ? written[0]! : Promise.all(written)
    held.then(
      () => settle(),
      (err: unknown) => settle(err as Error),
    )
  }

  async publishToDevice(device: KnownDevice, kind: DownKind, payload: Record<string, unknown>): Promise<void> {
    const topic = downTopic(device.sn, kind)
    const raw = JSON.stringify({ v: PROTOCOL_VERSION, ...payload })
    await this.client.publishAsync(topic, raw, { qos: 1, retain: false })
    this.options.messageLog.record({ deviceId: device.deviceId, sn: device.sn, direction: 'down', kind, topic, payload: raw })
  }

  async publishBytes(device: KnownDevice, kind: DownKind, bytes: Uint8Array, qos: 0 | 1): Promise<void> {
    await this.client.publishAsync(downTopic(device.sn, kind), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { qos, retain: false })
  }

  async publishRaw(topic: string, payload: string | Buffer, options: { qos: 0 | 1 | 2; retain: boolean }): Promise<void> {
    await this.client.publishAsync(topic, payload, options)
    // What the debugger tells a device is part of its history (what it says comes back up the subscription).
    const parsed = parseTopic(topic)
    if (parsed?.direction !== 'down') return
    const device = await this.findDevice(parsed.sn)
    const raw = typeof payload === 'string' ? payload : payload.toString('utf8')
    if (device) this.options.messageLog.record({ deviceId: device.deviceId, sn: device.sn, direction: 'down', kind: parsed.kind, topic, payload: raw })
  }

  async watch(filter: string, listener: (m: ObservedMessage) => void): Promise<() => Promise<void>> {
    let watch = this.watches.get(filter)
    if (!watch) {
      watch = { client: this.openWatch(filter), listeners: new Set() }
      this.watches.set(filter, watch)
    }
    watch.listeners.add(listener)
    const current = watch
    try {
      await current.client
    } catch (err) {
      current.listeners.delete(listener)
      if (this.watches.get(filter) === current) this.watches.delete(filter)
      throw err
    }
    let done = false
    return async () => {
      if (done) return
      done = true
      current.listeners.delete(listener)
      if (current.listeners.size > 0 || this.watches.get(filter) !== current) return
      this.watches.delete(filter)
      await (await current.client).endAsync().catch(() => {})
    }
  }

  private async openWatch(filter: string): Promise<MqttClient> {
    const client = await mqtt.connectAsync(this.options.url, { ...this.clientOptions('watch'), protocolVersion: this.client.options.protocolVersion ?? 4, clean: true }, false)
    // An 'error' nobody listens to would end the process; the client reconnects by itself.
    client.on('error', (err) => this.options.logger.warn({ err: err.message, filter }, 'MQTT watch connection'))
    client.on('message', (topic, payload, packet) => {
      const watch = this.watches.get(filter)
      if (!watch || !topicMatches(filter, topic)) return
      const observed: ObservedMessage = { topic, payload: payload.toString('utf8'), qos: packet.qos, retain: packet.retain, time: new Date().toISOString() }
      for (const l of watch.listeners) l(observed)
    })
    try {
      // QoS 2 so what arrives carries the QoS it was published with.
      const granted = await client.subscribeAsync(filter, { qos: 2 })
      if (granted.some((g) => g.qos === 128)) throw new Error(`The broker refused the subscription to ${filter}`)
    } catch (err) {
      await client.endAsync(true).catch(() => {})
      throw err
    }
    return client
  }

  private cached(sn: string): KnownDevice | null | undefined {
    const entry = this.cache.get(sn)
    if (!entry) return undefined
    if (entry.until > Date.now()) return entry.device
    this.cache.delete(sn)
    return undefined
  }

  findDevice(sn: string): Promise<KnownDevice | null> {
    const cached = this.cached(sn)
    if (cached !== undefined) return Promise.resolve(cached)
    const pending = this.lookups.get(sn)
    if (pending) return pending.promise
    let resolve!: (d: KnownDevice | null) => void
    let reject!: (err: unknown) => void
    const promise = new Promise<KnownDevice | null>((res, rej) => {
      resolve = res
      reject = rej
    })
    this.lookups.set(sn, { promise, resolve, reject })
    if (!this.lookupScheduled) {
      this.lookupScheduled = true
      // Every SN asked for in this tick is looked up together: 10,000 devices connecting at once cost 20 queries.
      // One batch after the other: a later batch answered first would hand a device's last will to
      // presence before the message that came ahead of it (reads may run on several threads).
      setImmediate(() => {
        this.lookupsDone = this.lookupsDone.then(() => this.lookUpPending()).catch((err: unknown) => this.options.logger.error({ err }, 'device lookup failed'))
      })
    }
    return promise
  }

  private async lookUpPending() {
    this.lookupScheduled = false
    const began = this.forgets
    const batch = [...this.lookups.entries()]
    this.lookups.clear()
    for (let i = 0; i < batch.length; i += LOOKUP_CHUNK) {
      const chunk = batch.slice(i, i + LOOKUP_CHUNK)
      try {
        const rows = await this.options.db
          .selectFrom('iotDevice')
          .select(['deviceId', 'sn', 'modelId'])
          .where(
            'sn',
            'in',
            chunk.map(([sn]) => sn),
          )
          .execute()
        const found = new Map(rows.map((r) => [r.sn, { deviceId: Number(r.deviceId), sn: r.sn, modelId: Number(r.modelId) }]))
        const now = Date.now()
        // Expired entries are only dropped when read: a flood of made-up SNs must not grow the map forever.
        if (this.cache.size > MAX_CACHED) this.cache.clear()
        for (const [sn, waiter] of chunk) {
          const device = found.get(sn) ?? null
          if ((this.forgotten.get(sn) ?? 0) <= began) this.cache.set(sn, { device, until: now + (device ? this.cacheMs : this.unknownCacheMs) })
          waiter.resolve(device)
        }
      } catch (err) {
        for (const [, waiter] of chunk) waiter.reject(err)
      }
    }
    // Lookups run one after the other (findDevice): none is under way now that could keep a stale answer.
    this.forgotten.clear()
  }

  forget(sn: string): void {
    this.cache.delete(sn)
    this.forgotten.set(sn, ++this.forgets)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    const clients = [this.client, ...(await Promise.all([...this.watches.values()].map((w) => w.client.catch(() => null))))]
    this.watches.clear()
    await Promise.all(clients.map((c) => (c ? endSoon(c) : undefined)))
  }
}

/** Ends a client, waiting briefly for messages in flight, never for a broker that is gone. */
async function endSoon(client: MqttClient) {
  let timer: NodeJS.Timeout | undefined
  const forced = new Promise<void>((resolve) => {
    timer = setTimeout(() => resolve(client.endAsync(true)), 2000)
  })
  await Promise.race([client.endAsync(), forced]).catch(() => {})
  clearTimeout(timer)
}
