import { connect as mqttConnect, type IClientOptions, type MqttClient } from 'mqtt'
import {
  type CommandPayload,
  commandPayload,
  type DeviceEventPayload,
  commandSpec,
  CONFIG_VALUES,
  downFilter,
  PROTOCOL_VERSION,
  type ReplyPayload,
  type StatusPayload,
  type TelemetryPayload,
  upTopic,
  withLuhnDigit,
} from '@velo/shared'
import { OTA_DEFAULTS, type OtaBehaviour, OtaClient, type OtaHost } from './ota'
import { hashUnit } from './profile'

/** How a simulated module behaves; every field has a sensible default. */
export interface DeviceBehaviour extends OtaBehaviour {
  firmwareVersion: string
  hardwareVersion: string
  configVersion: string
  /** Activated by its owner (SPEC §4 activated / activated offline). */
  activated: boolean
  transportMode: boolean
  battery: number
  /** Where the bike stands (it wanders a little with each telemetry report). */
  lat: number
  lng: number
  iccid: string
  simUsedMb: number
  simLimitMb: number
  /** Milliseconds between receiving a command and its final reply. */
  replyLatencyMs: number
  /** Share of commands (0–1) that fail. */
  failureRate: number
  /** Send `accepted` on receipt before the final reply. */
  acknowledge: boolean
  /** Commands the module does not answer at all (to see timeouts). */
  silentCommands: string[]
  heartbeatSeconds: number
  /** 0 = no periodic telemetry (it is still sent on connect). */
  telemetrySeconds: number
  /** 0 = status only on connect and when something changes; else also this often, with the SIM data used meanwhile. */
  statusSeconds: number
  /**
   * A reason to refuse every setConfig with (failed, code 409, this message): a module whose
   * firmware does not take a value, or that is riding. Empty: configurations are applied.
   */
  refuseConfig: string
  /** Configuration values the module refuses (failed, code 422, naming them) while applying the rest is not allowed. */
  refuseConfigKeys: string[]
  /**
   * Fault: applies configuration values outside their range (CONFIG_VALUES) instead of refusing the
   * setConfig with 422 as a conforming module does.
   */
  acceptOutOfRangeConfig: boolean
  /** Fault: answers a command it does not know `succeeded` instead of `failed` 404 (docs/iot-protocol.md › Unknown commands). */
  unknownCommandsSucceed: boolean
  /** Fault: reboots without saying presence offline (reason reboot) first. */
  rebootSilently: boolean
  /** Lean from upright, degrees, sent with each telemetry report (fall rule). */
  tilt: number
  /** Vibration level 0–5 sent with each telemetry report (theft rule while locked). */
  vibration: number
  locked: boolean
}

export interface DeviceOptions extends Partial<DeviceBehaviour> {
  /** mqtt://host:port of the broker. */
  url: string
  sn: string
  secret: string
  /** MQTT keepalive in seconds: how soon the broker notices a dead module and sends its last will. */
  keepalive?: number
  /** Milliseconds connect() waits for the broker's answer before it gives up (default 30,000). */
  connectTimeout?: number
  /** Extra MQTT.js options (tests pass reconnectPeriod: 0). */
  mqtt?: IClientOptions
}

const DEFAULTS: DeviceBehaviour = {
  firmwareVersion: '1.0.0',
  hardwareVersion: 'HW-A1',
  configVersion: '1.0.0',
  activated: false,
  transportMode: false,
  battery: 87,
  lat: 52.3702,
  lng: 4.8952,
  // Replaced by one of the SN's own (defaultIccid): a card two devices report is held for staff.
  iccid: '8931000000000000008',
  simUsedMb: 120,
  simLimitMb: 1024,
  replyLatencyMs: 0,
  failureRate: 0,
  acknowledge: true,
  silentCommands: [],
  heartbeatSeconds: 60,
  telemetrySeconds: 0,
  statusSeconds: 0,
  refuseConfig: '',
  refuseConfigKeys: [],
  acceptOutOfRangeConfig: false,
  unknownCommandsSucceed: false,
  rebootSilently: false,
  tilt: 0,
  vibration: 0,
  locked: false,
  ...OTA_DEFAULTS,
}

/** How many received commands a device keeps in `received` (a long simulation must not grow without end). */
export const RECEIVED_KEPT = 500
/** Command ids remembered, with their final answers, so that one arriving again is not acted on twice. */
const HANDLED_KEPT = 256

export interface ReceivedCommand {
  command: CommandPayload
  receivedAt: number
}

/** What one device has done since it was created. */
export interface DeviceCounters {
  /** Commands received (including ones it does not answer). */
  received: number
  /** Commands given a final reply (succeeded, failed or expired). */
  answered: number
  failed: number
  /** Connections lost after the first connect (socket closed, keepalive, refused reconnects). */
  drops: number
}

type Timer = ReturnType<typeof setTimeout>
type Periodic = 'heartbeat' | 'telemetry' | 'status'

/**
 * One bike's IoT module speaking protocol v1 (docs/iot-protocol.md): connects as its SN with its
 * secret, leaves a retained "offline" as its last will, says it is online, reports status and
 * telemetry, beats its heart, answers commands and performs upgrades (./ota.ts).
 */
export class SimulatedDevice implements OtaHost {
  readonly sn: string
  readonly behaviour: DeviceBehaviour
  /** The last RECEIVED_KEPT commands received, newest last. */
  readonly received: ReceivedCommand[] = []
  /** Command ids taken, with their final answer once given (null until then). */
  private readonly handled = new Map<string, Omit<ReplyPayload, 'v' | 'ts'> | null>()
  readonly counters: DeviceCounters = { received: 0, answered: 0, failed: 0, drops: 0 }
  /** Configuration values applied by setConfig commands (heartbeatSeconds and telemetrySeconds also take effect). */
  readonly config: Record<string, string | number | boolean> = {}
  /** The broker's last complaint (a refused reconnect, a socket error), for status lines. */
  lastError: Error | null = null
  private client: MqttClient | null = null
  private timers = new Map<Periodic, Timer>()
  private commandListeners = new Set<(c: CommandPayload) => void>()
  private replyListeners = new Set<(r: Omit<ReplyPayload, 'v' | 'ts'>) => void>()
  private stopping = false
  /** The announcement of the latest connect (a reboot waits for it: it carries the new version). */
  private announced: Promise<void> = Promise.resolve()
  private otaClient: OtaClient | null = null
  /** Called on every connect (the upgrade waits for one to ask for blocks again). */
  private readonly connectWaiters = new Set<() => void>()

  constructor(private readonly options: DeviceOptions) {
    this.sn = options.sn
    // Copied: these are changed per device (tests, upgrades), so no two devices share them.
    this.behaviour = { ...DEFAULTS, iccid: defaultIccid(options.sn), ...pickBehaviour(options) }
    this.behaviour.silentCommands = [...this.behaviour.silentCommands]
    this.behaviour.refuseConfigKeys = [...this.behaviour.refuseConfigKeys]
    this.behaviour.parts = Object.fromEntries(Object.entries(this.behaviour.parts).map(([part, v]) => [part, { ...v }]))
    this.behaviour.audio = { ...this.behaviour.audio }
  }

  /** Shutting down (disconnect or kill under way or done). */
  get closing(): boolean {
    return this.stopping
  }

  /** Its upgrades: the current one's state, and a promise for the next outcome (ota.finished()). */
  get ota(): OtaClient {
    this.otaClient ??= new OtaClient(this)
    return this.otaClient
  }

  /** Publishes not yet acknowledged. */
  private readonly inFlight = new Set<Promise<unknown>>()

  get connected(): boolean {
    return this.client?.connected ?? false
  }

  /**
   * Connects, subscribes to its down topics and announces itself (presence online, status,
   * telemetry). Rejects with the broker's refusal (MQTT.js error with `code`: 5 = not authorized,
   * 'ECONNREFUSED' = nothing listens) or when the broker does not answer within `connectTimeout`.
   */
  async connect(): Promise<void> {
    if (this.client) throw new Error(`${this.sn} is already connected`)
    this.stopping = false
    const timeout = this.options.connectTimeout ?? 30_000
    const client = mqttConnect(this.options.url, {
      clientId: this.sn,
      username: this.sn,
      password: this.options.secret,
      keepalive: this.options.keepalive ?? 30,
      clean: true,
      protocolVersion: 4,
      reconnectPeriod: 2000,
      connectTimeout: timeout,
      will: { topic: upTopic(this.sn, 'presence'), payload: Buffer.from(JSON.stringify({ v: PROTOCOL_VERSION, state: 'offline', reason: 'lost' })), qos: 1, retain: true },
      ...this.options.mqtt,
    })
    // Kept at once, so kill() and disconnect() also stop a connect that is under way.
    this.client = client
    // Always listened to: an 'error' nobody listens to would end the whole process.
    client.on('error', (err) => {
      this.lastError = err
    })
    // Listened to before it announces itself: the server may answer "online" at once (an OTA offer
    // to a device it was waiting for), before the announcement's acknowledgements are back.
    client.on('message', (topic, payload) => {
      if (this.client === client) this.onMessage(topic, payload)
    })
    try {
      await new Promise<void>((resolve, reject) => {
        const done = (err?: Error) => {
          clearTimeout(timer)
          if (err?.message === 'connack timeout') err = noAnswer()
          client.off('connect', onConnect)
          client.off('error', done)
          client.off('end', onEnd)
          if (err) reject(err)
          else resolve()
        }
        const onConnect = () => done()
        const onEnd = () => done(new Error(`${this.sn}: closed while connecting`))
        const noAnswer = () => new Error(`${this.sn}: no answer from the broker at ${this.options.url} within ${timeout} ms`)
        const timer = setTimeout(() => done(noAnswer()), timeout)
        client.on('connect', onConnect)
        client.on('error', done)
        client.on('end', onEnd)
      })
      await this.announce(client)
    } catch (err) {
      if (this.client === client) this.client = null
      client.end(true)
      throw err
    }
    if (this.client !== client) return // killed or disconnected while announcing
    this.lastError = null
    // A drop is a connection lost after it was up (not each refused or failed reconnect attempt).
    let up = true
    client.on('close', () => {
      if (up && !this.closing) this.counters.drops++
      up = false
      this.otaClient?.onDisconnect()
    })
    this.wakeConnectWaiters()
    // After a reconnect (same clean session) the subscription and presence are renewed.
    client.on('connect', () => {
      up = true
      this.lastError = null
      this.announced = this.announce(client).catch((err: unknown) => {
        this.lastError = asError(err)
      })
      this.wakeConnectWaiters()
    })
    this.schedule('heartbeat', this.behaviour.heartbeatSeconds, true)
    this.schedule('telemetry', this.behaviour.telemetrySeconds, true)
    this.schedule('status', this.behaviour.statusSeconds, true)
  }

  private async announce(client: MqttClient) {
    await client.subscribeAsync(downFilter(this.sn), { qos: 1 })
    // One connection keeps the order, so these need not wait for each other's acknowledgement. The
    // first telemetry is not waited for: the server acknowledges it once its batch is written, and a
    // module back from a reboot is ready before that (a new offer must not find it busy).
    const said = Promise.all([this.publish('presence', { state: 'online' }, { retain: true }), this.reportStatus()])
    void this.reportTelemetry().catch(() => {})
    await said
  }

  /**
   * (Re)starts one periodic report. The first one comes at a random point of the interval, so a
   * fleet started together spreads its reports instead of sending them all in the same second.
   */
  private schedule(kind: Periodic, seconds: number, spread: boolean) {
    const old = this.timers.get(kind)
    if (old) clearTimeout(old)
    this.timers.delete(kind)
    if (!(seconds > 0) || this.closing) return
    const run = () => {
      if (this.connected) void this.periodic(kind).catch(() => {})
      this.timers.set(kind, setTimeout(run, seconds * 1000))
    }
    const first = spread ? Math.random() * seconds * 1000 : seconds * 1000
    this.timers.set(kind, setTimeout(run, first))
  }

  private periodic(kind: Periodic) {
    if (kind === 'heartbeat') return this.heartbeat()
    if (kind === 'telemetry') return this.reportTelemetry()
    // Some data used since the last report (telemetry, the odd map tile).
    this.behaviour.simUsedMb = Math.round((this.behaviour.simUsedMb + Math.random() * 0.5) * 10) / 10
    return this.reportStatus()
  }

  async publish(kind: Parameters<typeof upTopic>[1], body: Record<string, unknown>, opts: { retain?: boolean; qos?: 0 | 1 } = {}): Promise<void> {
    if (!this.client) throw new Error(`${this.sn} is not connected`)
    const payload = JSON.stringify({ v: PROTOCOL_VERSION, ts: Date.now(), ...body })
    const sent = this.client.publishAsync(upTopic(this.sn, kind), payload, { qos: opts.qos ?? 1, retain: opts.retain ?? false })
    this.inFlight.add(sent)
    try {
      await sent
    } finally {
      this.inFlight.delete(sent)
    }
  }

  heartbeat() {
    return this.publish('heartbeat', {}, { qos: 0 })
  }

  reportStatus(extra: Partial<StatusPayload> = {}) {
    const b = this.behaviour
    const status: Omit<StatusPayload, 'v'> = {
      firmwareVersion: b.firmwareVersion,
      hardwareVersion: b.hardwareVersion,
      configVersion: b.configVersion,
      activated: b.activated,
      transportMode: b.transportMode,
      sim: { iccid: b.iccid, usedMb: b.simUsedMb, limitMb: b.simLimitMb },
      // What it runs, so the server sees a configuration changed on the bike (drift).
      config: { version: b.configVersion, values: { ...this.config } },
      parts: b.parts,
      ...(Object.keys(b.audio).length ? { audio: b.audio } : {}),
      ...extra,
    }
    return this.publish('status', status)
  }

  reportTelemetry(extra: Partial<TelemetryPayload> = {}) {
    const b = this.behaviour
    b.lat += (Math.random() - 0.5) * 0.0005
    b.lng += (Math.random() - 0.5) * 0.0005
    b.battery = Math.max(0, Math.round((b.battery - Math.random() * 0.2) * 10) / 10)
    const telemetry: Omit<TelemetryPayload, 'v'> = {
      battery: b.battery,
      signal: -60 - Math.round(Math.random() * 40),
      gps: { lat: b.lat, lng: b.lng, speed: 0, satellites: 9 },
      locked: b.locked,
      tilt: b.tilt,
      vibration: b.vibration,
      // Its own clock: the server writes a report sent again (QoS 1 after a lost acknowledgement) once.
      ts: Date.now(),
      ...extra,
    }
    // QoS 1, as the protocol asks: acknowledged once the server has written it, else sent again.
    return this.publish('telemetry', telemetry, { qos: 1 })
  }

  /** The bike falls over (tilt in degrees) and says so in a telemetry report at once. */
  fall(tilt = 90) {
    this.behaviour.tilt = tilt
    return this.reportTelemetry()
  }

  /** Back on its wheels. */
  standUp() {
    this.behaviour.tilt = 0
    return this.reportTelemetry()
  }

  /** Someone shakes the bike (level 0–5), reported at once; locked or not is the bike's state. */
  shake(level = 4) {
    this.behaviour.vibration = level
    return this.reportTelemetry()
  }

  /** A fault the module detected itself (up/event), or its end with `cleared`. */
  fault(code: string, message?: string, cleared = false) {
    const event: Omit<DeviceEventPayload, 'v'> = { type: 'fault', code, ...(message ? { message } : {}), ...(cleared ? { cleared } : {}) }
    return this.publish('event', event)
  }

  /** Data used in the cycle (MB): the next status report says it; `report` sends it now. */
  async useData(usedMb: number, report = true) {
    this.behaviour.simUsedMb = usedMb
    if (report && this.connected) await this.reportStatus()
  }

  /**
   * A configuration changed on the bike itself (a service tool, a factory reset): the module runs
   * these values from now on and reports them, without any command from the server.
   */
  async changeConfigLocally(values: Record<string, string | number | boolean>, version?: string) {
    Object.assign(this.config, values)
    if (version) this.behaviour.configVersion = version
    if (this.connected) await this.reportStatus()
  }

  /** Called for every command received (after it is recorded, before it is answered). */
  onCommand(listener: (c: CommandPayload) => void): () => void {
    this.commandListeners.add(listener)
    return () => this.commandListeners.delete(listener)
  }

  /** Called for every reply once the broker has acknowledged it (benchmarks time the fleet's side with it). */
  onReply(listener: (r: Omit<ReplyPayload, 'v' | 'ts'>) => void): () => void {
    this.replyListeners.add(listener)
    return () => this.replyListeners.delete(listener)
  }

  /** Resolves with the next command received (optionally of one name). */
  nextCommand(name?: string, timeoutMs = 10_000): Promise<CommandPayload> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off()
        reject(new Error(`${this.sn}: no ${name ?? ''} command within ${timeoutMs} ms`))
      }, timeoutMs)
      const off = this.onCommand((c) => {
        if (name && c.name !== name) return
        clearTimeout(timer)
        off()
        resolve(c)
      })
    })
  }

  private onMessage(topic: string, raw: Buffer) {
    if (topic.endsWith('/down/otaBlock')) return this.ota.onBlock(raw)
    if (topic.endsWith('/down/ota')) return this.ota.onControl(raw)
    if (!topic.endsWith('/down/command')) return
    let json: unknown
    try {
      json = JSON.parse(raw.toString())
    } catch {
      return
    }
    const parsed = commandPayload.safeParse(json)
    if (!parsed.success) return
    const command = parsed.data
    // The same id again (a QoS 1 duplicate, or sent again when the device asked): not acted on twice;
    // its final answer, if given, goes again, since the server may not have it.
    if (this.handled.has(command.id)) {
      const final = this.handled.get(command.id)
      if (final) void this.publish('reply', final).catch((err: unknown) => (this.lastError = asError(err)))
      return
    }
    this.handled.set(command.id, null)
    if (this.handled.size > HANDLED_KEPT) this.handled.delete(this.handled.keys().next().value!)
    this.counters.received++
    this.received.push({ command, receivedAt: Date.now() })
    if (this.received.length > RECEIVED_KEPT) this.received.splice(0, this.received.length - RECEIVED_KEPT)
    for (const l of this.commandListeners) l(command)
    void this.answer(command).catch((err: unknown) => (this.lastError = asError(err)))
  }

  private async reply(body: Omit<ReplyPayload, 'v' | 'ts'>) {
    if (body.status !== 'accepted' && this.handled.has(body.id)) this.handled.set(body.id, body)
    await this.publish('reply', body)
    if (body.status !== 'accepted') {
      this.counters.answered++
      if (body.status === 'failed') this.counters.failed++
    }
    for (const l of this.replyListeners) l(body)
  }

  private async answer(c: CommandPayload) {
    const b = this.behaviour
    if (c.expiresAt && c.expiresAt < Date.now()) return this.reply({ id: c.id, status: 'expired' })
    if (b.silentCommands.includes(c.name)) return
    // The protocol: a command the device does not know is answered failed, 404.
    if (!commandSpec(c.name)) return this.reply(b.unknownCommandsSucceed ? { id: c.id, status: 'succeeded', code: 0 } : { id: c.id, status: 'failed', code: 404, message: `Unknown command ${c.name}` })
    // One connection keeps the order: the final reply need not wait for the broker to acknowledge `accepted`.
    const accepted = b.acknowledge ? this.reply({ id: c.id, status: 'accepted' }) : undefined
    accepted?.catch(() => {})
    if (b.replyLatencyMs > 0) await new Promise((r) => setTimeout(r, b.replyLatencyMs))
    const refusal = c.name === 'setConfig' ? this.configRefusal(c) : null
    if (refusal) await this.reply({ id: c.id, status: 'failed', ...refusal })
    else if (b.failureRate > 0 && Math.random() < b.failureRate) await this.reply({ id: c.id, status: 'failed', code: 500, message: 'Simulated failure' })
    else {
      const result = await this.apply(c)
      await this.reply({ id: c.id, status: 'succeeded', code: 0, ...(result ? { result } : {}) })
    }
    await accepted
  }

  /** Why this module will not apply a configuration (its behaviour's refusals), or null. */
  private configRefusal(c: CommandPayload): { code: number; message: string } | null {
    const b = this.behaviour
    if (b.refuseConfig) return { code: 409, message: b.refuseConfig }
    const values = ((c.params as Record<string, unknown>).values ?? {}) as Record<string, unknown>
    const refused = b.refuseConfigKeys.filter((k) => k in values)
    if (refused.length) return { code: 422, message: `Unsupported setting: ${refused.join(', ')}` }
    // A value it cannot run is a setting it does not support: nothing of the configuration is applied.
    const outOfRange = b.acceptOutOfRangeConfig ? [] : CONFIG_VALUES.filter((spec) => spec.key in values && !inRange(values[spec.key], spec.min, spec.max))
    return outOfRange.length ? { code: 422, message: `Out of range: ${outOfRange.map((spec) => `${spec.key} (${spec.min}–${spec.max})`).join(', ')}` } : null
  }

  /** What each command does to the simulated bike. */
  private async apply(c: CommandPayload): Promise<Record<string, unknown> | undefined> {
    const b = this.behaviour
    const p = c.params as Record<string, unknown>
    switch (c.name) {
      case 'ping':
        return { pong: Date.now() }
      case 'report':
        await this.reportStatus()
        await this.reportTelemetry()
        return undefined
      case 'locate':
        await this.reportTelemetry()
        return { lat: b.lat, lng: b.lng }
      case 'setConfig': {
        const values = (p.values ?? {}) as Record<string, string | number | boolean>
        Object.assign(this.config, values)
        b.configVersion = String(p.version)
        // The two intervals the module itself runs take effect at once.
        const seconds = (v: unknown) => (typeof v === 'number' && v >= 0 ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null)
        const heartbeat = seconds(values.heartbeatSeconds)
        if (heartbeat !== null) this.schedule('heartbeat', (b.heartbeatSeconds = heartbeat), false)
        const telemetry = seconds(values.telemetrySeconds)
        if (telemetry !== null) this.schedule('telemetry', (b.telemetrySeconds = telemetry), false)
        await this.reportStatus()
        // The values it now runs, so the push records what the device applied, not what was sent.
        return { configVersion: b.configVersion, values: { ...this.config } }
      }
      case 'transportMode':
        b.transportMode = Boolean(p.enabled)
        await this.reportStatus()
        return { transportMode: b.transportMode }
      case 'lock':
      case 'unlock':
        b.locked = c.name === 'lock'
        await this.reportTelemetry()
        return { locked: b.locked }
      case 'reboot':
        // Answer first, then drop off and come back as a rebooted module does.
        setTimeout(() => void this.reboot().catch((err: unknown) => (this.lastError = asError(err))), Number(p.delaySeconds ?? 0) * 1000 + 50)
        return undefined
      default:
        return undefined
    }
  }

  /** Until what is in flight (and `also`) is acknowledged or failed: 5 s at most, for a broker that stopped answering. */
  private untilAcknowledged(also: Promise<unknown>[] = []): Promise<unknown> {
    return Promise.race([Promise.allSettled([...also, ...this.inFlight]), new Promise((r) => setTimeout(r, 5000).unref())])
  }

  /** Offline (reason reboot), then back as a rebooted module: resolves once it has announced itself again. */
  async reboot(): Promise<void> {
    const client = this.client
    if (!client || this.closing) return
    if (!this.behaviour.rebootSilently) await this.publish('presence', { state: 'offline', reason: 'reboot' }, { retain: true })
    // What is still unacknowledged (telemetry is QoS 1) is waited for, bounded: MQTT.js's reconnect()
    // starts a new outgoing store at once, so an acknowledgement arriving afterwards is one it no
    // longer knows ("missing packet").
    await this.untilAcknowledged()
    if (this.client !== client || this.closing) return
    const back = new Promise<void>((resolve) => client.once('connect', () => resolve()))
    client.reconnect()
    await back
    await this.announced
  }

  private wakeConnectWaiters() {
    for (const waiter of [...this.connectWaiters]) waiter()
  }

  async whenConnected(timeoutMs: number): Promise<boolean> {
    if (this.connected) return true
    if (this.closing) return false
    return new Promise<boolean>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.connectWaiters.delete(done)
        resolve(this.connected)
      }
      const timer = setTimeout(done, timeoutMs)
      this.connectWaiters.add(done)
    })
  }

  /**
   * The connection breaks without a goodbye (a tunnel: the broker publishes the will), and the module
   * comes back a moment later on a new connection, as its modem would.
   */
  dropConnection(): void {
    const client = this.client
    if (!client || this.closing) return
    this.client = null
    client.options.reconnectPeriod = 0
    client.stream?.destroy()
    client.end(true)
    setTimeout(() => {
      if (!this.client && !this.closing) this.connect().catch((err: unknown) => (this.lastError = asError(err)))
    }, 100)
  }

  /** A clean goodbye: retained offline, then DISCONNECT (the broker then drops the will). */
  async disconnect(): Promise<void> {
    this.stopTimers()
    // Before the check: a module between a dropped connection and its reconnect has no client, and must not come back.
    this.stopping = true
    const client = this.client
    if (!client) return
    if (client.connected) {
      // Bounded: a broker that stopped answering must not hold the goodbye forever. What is still
      // unacknowledged (a server acknowledges a report once it is written) is waited for too: an
      // acknowledgement arriving after the end is one MQTT.js no longer knows.
      const offline = this.publish('presence', { state: 'offline', reason: 'shutdown' }, { retain: true }).catch(() => {})
      await this.untilAcknowledged([offline])
    }
    this.client = null
    await client.endAsync(!client.connected)
  }

  /** Dies without a word (power cut, tunnel): the socket just closes, so the broker publishes the will. */
  kill(): void {
    this.stopTimers()
    this.stopping = true
    const client = this.client
    if (!client) return
    client.options.reconnectPeriod = 0
    client.stream?.destroy()
    client.end(true)
    this.client = null
  }

  private stopTimers() {
    for (const t of this.timers.values()) clearTimeout(t)
    this.timers.clear()
  }
}

const BEHAVIOUR_KEYS = Object.keys(DEFAULTS) as (keyof DeviceBehaviour)[]

/** Only the behaviour fields of the options (not the URL, secret or MQTT.js options), without undefined ones. */
function pickBehaviour(options: DeviceOptions): Partial<DeviceBehaviour> {
  const out: Partial<Record<keyof DeviceBehaviour, unknown>> = {}
  for (const key of BEHAVIOUR_KEYS) if (options[key] !== undefined) out[key] = options[key]
  return out as Partial<DeviceBehaviour>
}

/** 19 digits of the SN's own: 89 (telecom) 31 (country) 00 (issuer), 12 from the SN's hash, the Luhn check digit. */
export function defaultIccid(sn: string): string {
  const six = (salt: number) => String(Math.floor(hashUnit(sn, salt) * 1e6)).padStart(6, '0')
  return withLuhnDigit(`893100${six(20)}${six(21)}`)
}

/** A number (or a numeric string, as devices may send) within min..max. */
function inRange(value: unknown, min: number, max: number): boolean {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN
  return Number.isFinite(n) && n >= min && n <= max
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err))
}
