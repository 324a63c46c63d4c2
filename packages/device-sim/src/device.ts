import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt'
import {
  type CommandPayload,
  commandPayload,
  downFilter,
  PROTOCOL_VERSION,
  type ReplyPayload,
  type StatusPayload,
  type TelemetryPayload,
  upTopic,
} from '@velo/shared'

/** How a simulated module behaves; every field has a sensible default. */
export interface DeviceBehaviour {
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
}

export interface DeviceOptions extends Partial<DeviceBehaviour> {
  /** mqtt://host:port of the broker. */
  url: string
  sn: string
  secret: string
  /** MQTT keepalive in seconds: how soon the broker notices a dead module and sends its last will. */
  keepalive?: number
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
  iccid: '8931000000000000000',
  simUsedMb: 120,
  simLimitMb: 1024,
  replyLatencyMs: 0,
  failureRate: 0,
  acknowledge: true,
  silentCommands: [],
  heartbeatSeconds: 60,
  telemetrySeconds: 0,
}

export interface ReceivedCommand {
  command: CommandPayload
  receivedAt: number
}

/**
 * One bike's IoT module speaking protocol v1 (docs/iot-protocol.md): connects as its SN with its
 * secret, leaves a retained "offline" as its last will, says it is online, reports status and
 * telemetry, beats its heart, and answers commands.
 */
export class SimulatedDevice {
  readonly sn: string
  readonly behaviour: DeviceBehaviour
  /** Every command received, newest last. */
  readonly received: ReceivedCommand[] = []
  private client: MqttClient | null = null
  private timers: NodeJS.Timeout[] = []
  private commandListeners = new Set<(c: CommandPayload) => void>()

  constructor(private readonly options: DeviceOptions) {
    this.sn = options.sn
    this.behaviour = { ...DEFAULTS, ...options }
  }

  get connected(): boolean {
    return this.client?.connected ?? false
  }

  /** Connects; rejects with the broker's refusal (MQTT.js error with `code`, 5 = not authorized). */
  async connect(): Promise<void> {
    const presence = upTopic(this.sn, 'presence')
    const client = await connectAsync(this.options.url, {
      clientId: this.sn,
      username: this.sn,
      password: this.options.secret,
      keepalive: this.options.keepalive ?? 30,
      clean: true,
      protocolVersion: 4,
      reconnectPeriod: 2000,
      connectTimeout: 10_000,
      will: { topic: presence, payload: Buffer.from(JSON.stringify({ v: PROTOCOL_VERSION, state: 'offline', reason: 'lost' })), qos: 1, retain: true },
      ...this.options.mqtt,
    })
    this.client = client
    client.on('message', (topic, payload) => this.onMessage(topic, payload))
    // After a reconnect (same clean session) the subscription and presence are renewed.
    client.on('connect', () => void this.announce())
    await this.announce()
    const b = this.behaviour
    if (b.heartbeatSeconds > 0) this.every(b.heartbeatSeconds, () => this.heartbeat())
    if (b.telemetrySeconds > 0) this.every(b.telemetrySeconds, () => this.reportTelemetry())
  }

  private async announce() {
    const client = this.client!
    await client.subscribeAsync(downFilter(this.sn), { qos: 1 })
    await this.publish('presence', { state: 'online' }, { retain: true })
    await this.reportStatus()
    await this.reportTelemetry()
  }

  private every(seconds: number, fn: () => Promise<unknown>) {
    // Spread the fleet's reports over the interval instead of all at once.
    const start = setTimeout(() => {
      void fn().catch(() => {})
      this.timers.push(setInterval(() => void fn().catch(() => {}), seconds * 1000))
    }, Math.random() * seconds * 1000)
    this.timers.push(start)
  }

  async publish(kind: Parameters<typeof upTopic>[1], body: Record<string, unknown>, opts: { retain?: boolean; qos?: 0 | 1 } = {}) {
    if (!this.client) throw new Error(`${this.sn} is not connected`)
    const payload = JSON.stringify({ v: PROTOCOL_VERSION, ts: Date.now(), ...body })
    await this.client.publishAsync(upTopic(this.sn, kind), payload, { qos: opts.qos ?? 1, retain: opts.retain ?? false })
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
      ...extra,
    }
    return this.publish('telemetry', telemetry, { qos: 0 })
  }

  /** Called for every command received (after it is recorded, before it is answered). */
  onCommand(listener: (c: CommandPayload) => void): () => void {
    this.commandListeners.add(listener)
    return () => this.commandListeners.delete(listener)
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
    if (!topic.endsWith('/down/command')) return
    const parsed = commandPayload.safeParse(JSON.parse(raw.toString()))
    if (!parsed.success) return
    const command = parsed.data
    this.received.push({ command, receivedAt: Date.now() })
    for (const l of this.commandListeners) l(command)
    void this.answer(command).catch(() => {})
  }

  private async reply(body: Omit<ReplyPayload, 'v' | 'ts'>) {
    await this.publish('reply', body)
  }

  private async answer(c: CommandPayload) {
    const b = this.behaviour
    if (c.expiresAt && c.expiresAt < Date.now()) return this.reply({ id: c.id, status: 'expired' })
    if (b.silentCommands.includes(c.name)) return
    if (b.acknowledge) await this.reply({ id: c.id, status: 'accepted' })
    if (b.replyLatencyMs > 0) await new Promise((r) => setTimeout(r, b.replyLatencyMs))
    if (Math.random() < b.failureRate) return this.reply({ id: c.id, status: 'failed', code: 500, message: 'Simulated failure' })
    const result = await this.apply(c)
    await this.reply({ id: c.id, status: 'succeeded', code: 0, ...(result ? { result } : {}) })
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
      case 'setConfig':
        b.configVersion = String(p.version)
        await this.reportStatus()
        return { configVersion: b.configVersion }
      case 'transportMode':
        b.transportMode = Boolean(p.enabled)
        await this.reportStatus()
        return { transportMode: b.transportMode }
      case 'lock':
      case 'unlock':
        await this.reportTelemetry({ locked: c.name === 'lock' })
        return { locked: c.name === 'lock' }
      case 'reboot':
        // Answer first, then drop off and come back as a rebooted module does.
        setTimeout(() => void this.reboot(), Number(p.delaySeconds ?? 0) * 1000 + 50)
        return undefined
      default:
        return undefined
    }
  }

  private async reboot() {
    if (!this.client) return
    await this.publish('presence', { state: 'offline', reason: 'reboot' }, { retain: true })
    this.client.reconnect()
  }

  /** A clean goodbye: retained offline, then DISCONNECT (the broker then drops the will). */
  async disconnect(): Promise<void> {
    this.stopTimers()
    const client = this.client
    if (!client) return
    if (client.connected) await this.publish('presence', { state: 'offline', reason: 'shutdown' }, { retain: true }).catch(() => {})
    await client.endAsync()
    this.client = null
  }

  /** Dies without a word (power cut, tunnel): the socket just closes, so the broker publishes the will. */
  kill(): void {
    this.stopTimers()
    const client = this.client
    if (!client) return
    client.options.reconnectPeriod = 0
    client.stream.destroy()
    client.end(true)
    this.client = null
  }

  private stopTimers() {
    for (const t of this.timers) clearTimeout(t)
    this.timers = []
  }
}
