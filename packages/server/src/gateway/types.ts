import type { AlarmEventData, CommandEvent, DeviceEvent, DownKind, MessageEvent, UpKind } from '@velo/shared'

// The seams between the gateway's parts (docs/iot-protocol.md is the wire contract):
//   gateway.ts   one MQTT client (embedded broker or MQTT_URL), parses and dispatches device traffic
//   events.ts    live events to every instance's browsers (in-process, or Redis pub/sub)
//   presence.ts  device state from presence, heartbeat, status and telemetry
//   commands.ts  commands with their lifecycle, queue, timeouts and replies
//   mq-debug.ts  the admin's topic watcher and test publisher

/** A registered device as the gateway knows it (cached by SN). */
export interface KnownDevice {
  deviceId: number
  sn: string
  modelId: number
}

/** One message from a device, already validated against its kind's schema. */
export interface UpMessage<P = Record<string, unknown>> {
  device: KnownDevice
  kind: UpKind
  topic: string
  payload: P
  /** The bytes as received (kept in the message log, shown in debugging). */
  raw: string
  receivedAt: number
  /** Sent again (MQTT DUP): it may have been written already. */
  dup?: boolean
  /**
   * A handler that stores the message durably hands over the write's promise: the message is
   * acknowledged (QoS 1 PUBACK) only once every held write is committed, and not at all if one fails.
   */
  hold?: (written: Promise<void>) => void
}

export type UpHandler = (message: UpMessage) => void | Promise<void>

/** A message seen on a topic filter, for the message-queue debugger. */
export interface ObservedMessage {
  topic: string
  payload: string
  qos: 0 | 1 | 2
  retain: boolean
  time: string
}

export interface Gateway {
  /** Resolves once the client is connected and subscribed. */
  ready(): Promise<void>
  /** Handlers of one kind of device message; several may listen. Messages of unknown devices are dropped. */
  on(kind: UpKind, handler: UpHandler): void
  /** Publishes to one device's down topic (QoS 1, not retained) and logs it in the message log. */
  publishToDevice(device: KnownDevice, kind: DownKind, payload: Record<string, unknown>): Promise<void>
  /**
   * Binary to one device's down topic, not logged: OTA blocks (a 2 MB image is 512 of them per device;
   * the block server counts them instead).
   */
  publishBytes(device: KnownDevice, kind: DownKind, bytes: Uint8Array, qos: 0 | 1): Promise<void>
  /** Any topic (message-queue debugging). */
  publishRaw(topic: string, payload: string | Buffer, options: { qos: 0 | 1 | 2; retain: boolean }): Promise<void>
  /** Watches a topic filter (its own, non-shared subscription); returns the unsubscribe. */
  watch(filter: string, listener: (m: ObservedMessage) => void): Promise<() => Promise<void>>
  /** Looks a device up by SN (cached; null if unknown). */
  findDevice(sn: string): Promise<KnownDevice | null>
  /** Forgets cached devices (after a delete or SN change). */
  forget(sn: string): void
  close(): Promise<void>
}

export type IotEvent =
  | { type: 'device'; data: DeviceEvent }
  | { type: 'command'; data: CommandEvent }
  | { type: 'message'; data: MessageEvent }
  | { type: 'alarm'; data: AlarmEventData }

export interface IotEvents {
  /** Delivered to every subscriber on every instance (through Redis when REDIS_URL is set). */
  publish(event: IotEvent): Promise<void>
  subscribe(listener: (event: IotEvent) => void): () => void
  close(): Promise<void>
}
