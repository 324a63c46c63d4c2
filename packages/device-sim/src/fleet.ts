import type { IClientOptions } from 'mqtt'
import { type DeviceBehaviour, SimulatedDevice } from './device'
import { type Registration, RegistrationError, registerDevice } from './register'
import type { SecretStore } from './secrets'
import type { OtaPublicKey } from '@velo/shared'

/** A device's SN: the prefix and its number, zero-padded to `width` digits (VL000001). */
export function snFor(prefix: string, n: number, width = 6): string {
  return `${prefix}${String(n).padStart(width, '0')}`
}

export interface DeviceCredentials {
  secret: string
  /** mqtt://host:port */
  url: string
  /** Registered during this run (not read from the secrets file or given). */
  fresh?: boolean
  /** The OTA manifest keys it trusts (its registration's). */
  otaKeys?: OtaPublicKey[]
}

/** Where a fleet's devices get their secret and broker address. */
export interface CredentialSource {
  /** `renew`: the broker refused the last secret, get a new one (register again). */
  get(sn: string, renew: boolean): Promise<DeviceCredentials>
  /** Can a refused secret be replaced (by registering again)? */
  readonly renewable: boolean
}

/** Secrets known beforehand (tests, the benchmark's devices written straight into its database). */
export function givenCredentials(url: string, secretOf: (sn: string) => string): CredentialSource {
  return { renewable: false, get: async (sn) => ({ secret: secretOf(sn), url }) }
}

/** Stops the whole fleet: the server cannot be reached, or the registration key is refused. */
export class FleetAbort extends Error {
  override name = 'FleetAbort'
}

/**
 * Self-registration (POST {api}/iot/register) with a secrets file: a device registered before
 * connects with its stored secret; a refused one registers again. 429 answers are waited out.
 */
export class Registrar implements CredentialSource {
  readonly renewable = true
  private readonly api: string
  /** Set while a 429 is waited out, so every worker waits instead of hammering the limit. */
  private pausedUntil = 0
  /** Where the server says devices connect now, asked once a run (GET {api}/iot/broker). */
  private current?: Promise<Registration['mqtt'] | undefined>
  onRateLimited?: (waitMs: number) => void

  constructor(
    private readonly o: {
      api: string
      productId: string
      key: string
      store: SecretStore
      /** Overrides the broker of the registration answer. */
      broker?: string
    },
  ) {
    this.api = o.api.replace(/\/$/, '')
  }

  /** mqtt://… from an answer: its URL, else its port on the API's host. */
  brokerUrl(mqtt: Registration['mqtt'] | undefined): string {
    if (this.o.broker) return this.o.broker
    if (mqtt?.url) return mqtt.url
    const host = new URL(this.api).hostname
    if (mqtt?.port) return `mqtt://${host.includes(':') ? `[${host}]` : host}:${mqtt.port}`
    throw new FleetAbort(`The server's registration answer names no broker: pass --broker mqtt://host:port`)
  }

  /**
   * The broker's address as the server gives it now: the embedded broker may listen on another port
   * than when a stored secret was registered (its port was taken at a restart). Undefined when the
   * server does not say (unreachable, or a version without GET /iot/broker): the stored one then.
   */
  brokerNow(): Promise<Registration['mqtt'] | undefined> {
    this.current ??= fetchBroker(this.api)
    return this.current
  }

  async get(sn: string, renew: boolean): Promise<DeviceCredentials> {
    const stored = this.o.store.get(sn)
    if (stored && !renew) {
      const url = this.brokerUrl(this.o.broker ? undefined : ((await this.brokerNow()) ?? stored.mqtt))
      return { secret: stored.secret, url, ...(stored.otaKeys ? { otaKeys: stored.otaKeys } : {}) }
    }
    for (;;) {
      const wait = this.pausedUntil - Date.now()
      if (wait > 0) await sleep(wait + Math.random() * 250)
      try {
        const registration = await registerDevice(this.api, this.o.productId, this.o.key, sn)
        this.o.store.set(registration)
        return { secret: registration.secret, url: this.brokerUrl(registration.mqtt), fresh: true, ...(registration.otaKeys ? { otaKeys: registration.otaKeys } : {}) }
      } catch (err) {
        if (!(err instanceof RegistrationError)) throw err
        if (err.retryAfterMs !== undefined) {
          const until = Date.now() + err.retryAfterMs
          if (until > this.pausedUntil) {
            this.pausedUntil = until
            this.onRateLimited?.(err.retryAfterMs)
          }
          continue
        }
        if (err.unreachable) throw new FleetAbort(err.message)
        if (err.status === 401 || err.status === 403) {
          throw new FleetAbort(
            `The server refused the registration key of ${this.o.productId} (${err.serverMessage ?? `HTTP ${err.status}`}): take it from IoT › IoT models, or from the server's first start`,
          )
        }
        if (err.status === 404 && !err.serverMessage) throw new FleetAbort(`${this.api}/iot/register does not exist: is --api the Velo Admin API (…/api)?`)
        throw err
      }
    }
  }
}

/** GET {api}/iot/broker: { url?, port? }, or undefined when the server does not answer it. */
async function fetchBroker(api: string): Promise<Registration['mqtt'] | undefined> {
  try {
    const res = await fetch(`${api}/iot/broker`, { signal: AbortSignal.timeout(10_000) })
    const body = (await res.json()) as { code?: number; data?: Registration['mqtt'] }
    return body.code === 200 && body.data && (body.data.url || body.data.port) ? body.data : undefined
  } catch {
    return undefined
  }
}

export type FleetEvent =
  | { type: 'registered'; sn: string }
  | { type: 'connected'; sn: string }
  | { type: 'failed'; sn: string; stage: 'register' | 'connect'; reason: string }
  | { type: 'rateLimited'; waitMs: number }

export interface FleetOptions {
  count: number
  /** SN prefix (VL) and first number (1): VL000001, VL000002, … */
  prefix?: string
  start?: number
  credentials: CredentialSource
  /** The same for every device, or per device (index from 0). */
  behaviour?: Partial<DeviceBehaviour> | ((sn: string, index: number) => Partial<DeviceBehaviour>)
  /** Devices registering or connecting at the same time (default 200). */
  concurrency?: number
  /** MQTT keepalive, seconds (default 60). */
  keepalive?: number
  /** Milliseconds one device waits for the broker's CONNACK (default 60,000: a busy broker is slow, not gone). */
  connectTimeout?: number
  /** Extra MQTT.js options for every device. */
  mqtt?: IClientOptions
  onEvent?: (event: FleetEvent) => void
}

export interface FleetStats {
  total: number
  /** Registered during this run. */
  registered: number
  /** Connected at least once. */
  started: number
  /** Connected now. */
  connected: number
  /** Devices that could not be registered or connected. */
  failed: number
  commandsReceived: number
  commandsAnswered: number
  commandsFailed: number
  /** Connections lost after the first connect. */
  drops: number
  /** Disconnected devices the broker now refuses (deleted, or their secret reset, since they connected). */
  refused: number
  /** Failure reason → devices. */
  failures: Map<string, number>
}

/**
 * Many simulated devices in one process: registers (or reuses) and connects them with bounded
 * concurrency, sums their counters, and closes them all. Built for 10,000 MQTT.js clients: each
 * device's periodic reports start at a random point of their interval (no second in which all fire),
 * reconnects are jittered (a broker restart is not answered by 10,000 simultaneous CONNECTs), and
 * nothing runs per device that the fleet does not need (telemetry 0 turns periodic telemetry off).
 */
export class Fleet {
  /** Every device that connected at least once, in SN order of connection. */
  readonly devices: SimulatedDevice[] = []
  private readonly failures = new Map<string, number>()
  private failedCount = 0
  private registered = 0
  private stopping = false
  private startPromise: Promise<FleetStats> | null = null
  private readonly pending = new Set<SimulatedDevice>()

  constructor(readonly options: FleetOptions) {}

  get sns(): string[] {
    const { count, prefix = 'VL', start = 1 } = this.options
    return Array.from({ length: count }, (_, i) => snFor(prefix, start + i))
  }

  /** Registers and connects every device; resolves when each one connected or failed. Rejects with FleetAbort. */
  start(): Promise<FleetStats> {
    this.startPromise ??= this.run()
    return this.startPromise
  }

  private async run(): Promise<FleetStats> {
    const sns = this.sns
    let abort: FleetAbort | null = null
    await mapLimit(sns, this.options.concurrency ?? 200, async (sn, index) => {
      if (this.stopping || abort) return
      try {
        await this.bring(sn, index)
      } catch (err) {
        if (err instanceof FleetAbort) abort ??= err
        else throw err
      }
    })
    if (abort) throw abort
    return this.stats()
  }

  private async bring(sn: string, index: number) {
    const emit = this.options.onEvent ?? (() => {})
    let credentials: DeviceCredentials
    try {
      credentials = await this.options.credentials.get(sn, false)
    } catch (err) {
      if (err instanceof FleetAbort) throw err
      return this.fail(sn, 'register', err)
    }
    if (credentials.fresh) {
      this.registered++
      emit({ type: 'registered', sn })
    }
    for (let attempt = 0; ; attempt++) {
      if (this.stopping) return
      const device = this.create(sn, index, credentials)
      this.pending.add(device)
      try {
        await device.connect()
        this.pending.delete(device)
        if (this.stopping) {
          await device.disconnect()
          return
        }
        this.devices.push(device)
        emit({ type: 'connected', sn })
        return
      } catch (err) {
        this.pending.delete(device)
        if (this.stopping) return
        // A stored secret the broker refuses (the device was deleted or its secret reset): register again, once.
        if (notAuthorized(err) && attempt === 0 && this.options.credentials.renewable && !credentials.fresh) {
          try {
            credentials = await this.options.credentials.get(sn, true)
          } catch (e) {
            if (e instanceof FleetAbort) throw e
            return this.fail(sn, 'register', e)
          }
          this.registered++
          emit({ type: 'registered', sn })
          continue
        }
        if (isUnreachable(err)) throw new FleetAbort(`Cannot reach the MQTT broker at ${credentials.url} (${(err as { code?: string }).code})`)
        return this.fail(sn, 'connect', err)
      }
    }
  }

  private create(sn: string, index: number, credentials: DeviceCredentials) {
    const o = this.options
    const behaviour = typeof o.behaviour === 'function' ? o.behaviour(sn, index) : o.behaviour
    return new SimulatedDevice({
      ...behaviour,
      url: credentials.url,
      sn,
      secret: credentials.secret,
      ...(credentials.otaKeys ? { otaKeys: credentials.otaKeys } : {}),
      keepalive: o.keepalive ?? 60,
      connectTimeout: o.connectTimeout ?? 60_000,
      // Jittered, so a broker restart is not answered by every device in the same instant.
      mqtt: { reconnectPeriod: 1000 + Math.floor(Math.random() * 4000), ...o.mqtt },
    })
  }

  private fail(sn: string, stage: 'register' | 'connect', err: unknown) {
    const reason = describeError(err)
    this.failedCount++
    const key = `${stage}: ${reason.replace(new RegExp(`\\b${sn}\\b`, 'g'), '{sn}')}`
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1)
    this.options.onEvent?.({ type: 'failed', sn, stage, reason })
  }

  stats(): FleetStats {
    const s: FleetStats = {
      total: this.options.count,
      registered: this.registered,
      started: this.devices.length,
      connected: 0,
      failed: this.failedCount,
      commandsReceived: 0,
      commandsAnswered: 0,
      commandsFailed: 0,
      drops: 0,
      refused: 0,
      failures: new Map(this.failures),
    }
    for (const d of this.devices) {
      if (d.connected) s.connected++
      else if (d.lastError && notAuthorized(d.lastError)) s.refused++
      s.commandsReceived += d.counters.received
      s.commandsAnswered += d.counters.answered
      s.commandsFailed += d.counters.failed
      s.drops += d.counters.drops
    }
    return s
  }

  /** Every device says goodbye (retained offline, DISCONNECT); connects still under way are stopped. */
  async closeAll(concurrency = 500): Promise<void> {
    this.stopping = true
    for (const d of this.pending) d.kill()
    this.pending.clear()
    await mapLimit([...this.devices], concurrency, (d) => d.disconnect().catch(() => {}))
    await this.startPromise?.catch(() => {})
  }

  /** Every device drops off without a goodbye (the broker publishes their last wills). */
  killAll(): void {
    this.stopping = true
    for (const d of [...this.pending, ...this.devices]) d.kill()
    this.pending.clear()
  }
}

/** Runs `fn` over the items, at most `limit` at a time. */
export async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<unknown>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      await fn(items[i]!, i)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** CONNACK 5 (MQTT 3.1.1 not authorized) or 135 (MQTT 5), or 4 (bad user name or password). */
export function notAuthorized(err: unknown): boolean {
  const code = (err as { code?: unknown }).code
  return code === 5 || code === 4 || code === 135 || code === 134
}

function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown }).code
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH'
}

export function describeError(err: unknown): string {
  if (err instanceof RegistrationError) return err.serverMessage ? `${err.serverMessage} (HTTP ${err.status})` : err.message
  const e = err as { message?: string; code?: unknown }
  if (notAuthorized(err)) return `the broker refused the secret (CONNACK ${String(e.code)})`
  return e.message ?? String(err)
}
