import type { FastifyBaseLogger } from 'fastify'
import type { MqttGateway } from './gateway'
import type { KnownDevice } from './types'

/**
 * A device asking for what the server still has for it: `up/sync`, or, on the embedded broker, its
 * subscription to its own down topics (gateway/index.ts). What the server published while the device
 * was not subscribed (it announced itself first, or its connection was breaking) is gone with the
 * clean session; the parts that keep something for a device (unanswered commands, the offer under
 * way) send it again, with the same ids, which a device already treats as duplicates.
 */
export class DeviceSync {
  private readonly listeners = new Set<(device: KnownDevice) => Promise<unknown>>()
  /** When each device was last answered: at most one answer per interval, so a device cannot make the server replay its queue in a loop. */
  private readonly lastAnswered = new Map<number, number>()
  /** An ask inside the interval is answered once at its end, not dropped: what was handed over meanwhile goes too. */
  private readonly deferred = new Map<number, NodeJS.Timeout>()
  private closed = false
  private sweepAbove = SWEEP_ABOVE

  constructor(
    gateway: MqttGateway,
    private readonly logger: FastifyBaseLogger,
    private readonly minIntervalMs = SYNC_MIN_INTERVAL_MS,
  ) {
    gateway.on('sync', (m) => this.ask(m.device))
  }

  /** Adds what a part sends again when a device asks; returns its removal. */
  onAsk(listener: (device: KnownDevice) => Promise<unknown>): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  /** Answers a device's ask now, or at the end of the interval since its last answer. */
  ask(device: KnownDevice): void {
    if (this.closed || this.deferred.has(device.deviceId)) return
    const wait = (this.lastAnswered.get(device.deviceId) ?? -Infinity) + this.minIntervalMs - Date.now()
    if (wait <= 0) return this.answer(device)
    this.deferred.set(
      device.deviceId,
      setTimeout(() => {
        this.deferred.delete(device.deviceId)
        this.answer(device)
      }, wait),
    )
  }

  close() {
    this.closed = true
    for (const timer of this.deferred.values()) clearTimeout(timer)
    this.deferred.clear()
  }

  private answer(device: KnownDevice) {
    if (this.closed) return
    const now = Date.now()
    this.lastAnswered.set(device.deviceId, now)
    // Swept when it has doubled since the last sweep, not at every answer past a size: with a fleet of
    // 20,000 reconnecting, each answer went through every entry, all of them still in their interval.
    if (this.lastAnswered.size > this.sweepAbove) {
      for (const [deviceId, at] of this.lastAnswered) if (at < now - this.minIntervalMs) this.lastAnswered.delete(deviceId)
      this.sweepAbove = Math.max(SWEEP_ABOVE, 2 * this.lastAnswered.size)
    }
    for (const listener of this.listeners) listener(device).catch((err: unknown) => this.logger.error({ err, sn: device.sn }, 'could not answer a device sync'))
  }
}

/** Entries of lastAnswered kept before the first sweep of those past their interval. */
const SWEEP_ABOVE = 10_000

/** A device's asks are answered at most once per this interval (docs/iot-protocol.md › sync). */
export const SYNC_MIN_INTERVAL_MS = 2000
