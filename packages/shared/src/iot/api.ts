import type { CommandStatus } from './protocol'

// The IoT calls beside the entity routes, as the server answers them and the console reads them.

/** GET /iot/gateway */
export interface IotGatewayStatus {
  protocolVersion: number
  /** The broker runs inside the server (else MQTT_URL names an external one). */
  embedded: boolean
  /** The embedded broker's port (devices connect there); none with an external broker. */
  port?: number
  /** This instance's gateway client is connected to the broker. */
  connected: boolean
  devicesOnline: number
  /**
   * This instance's telemetry ingest: device messages taken in and not yet written, at most `cap`
   * (INGEST_MAX_PENDING). Saturated, new ones wait unacknowledged with their devices or the broker.
   */
  ingest: { pending: number; cap: number; saturated: boolean; saturatedSeconds: number }
}

/** GET /iot/device/:id/commands: a command the device understands, labelled in the caller's language. */
export interface DeviceCommandOption {
  name: string
  label: string
  /** Every device understands it; the others come with an IoT function of the device's model. */
  base: boolean
  /** Asks for a confirmation before it is sent. */
  confirm: boolean
  example: Record<string, unknown>
}

/** One device's command as POST /iot/device/command (and /reboot) stored it. */
export interface SentCommand {
  commandId: number
  deviceId: number
  sn: string
  requestId: string
  status: Extract<CommandStatus, 'queued' | 'sent'>
}

export interface SendCommandResult {
  commands: SentCommand[]
  /** Published now (the device is online). */
  sent: number
  /** Kept until the device comes online. */
  queued: number
}

/** POST /iot/commandTest/send: the command once the device answered or the wait ended. */
export interface CommandOutcome {
  commandId: number
  requestId: string
  deviceId: number
  command: string
  status: CommandStatus
  /** The device's final reply, as JSON text. */
  reply: string | null
  roundTripMs: number | null
  sentAt: string | null
  repliedAt: string | null
}

/** GET /iot/map/devices (and the map stream's 'positions'): devices as columns, the i-th entry of each array one device. */
export interface MapDevices {
  ids: number[]
  sns: string[]
  lat: number[]
  lng: number[]
  /** 0 offline, 1 online, 2 an active warning (whatever the connection), 3 reported stolen (whatever else). */
  status: number[]
  /** Devices of the filters that have reported no position yet (not on the map). */
  unlocated: number
}
