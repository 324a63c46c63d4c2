import type { CommandStatus, Label } from '@velo/shared'
import { localized } from '../i18n'
import { http, requestWithMessage } from './http'

// The IoT area's calls beside the entity routes: the gateway, device commands, secrets and
// registration keys, the command test and the message-queue debugger.

export interface GatewayStatus {
  protocolVersion: number
  /** The broker runs inside the server (else MQTT_URL names an external one). */
  embedded: boolean
  /** The embedded broker's port (none with an external broker). */
  port?: number | null
  /** The gateway's own client is connected to the broker. */
  connected: boolean
  devicesOnline: number
}

/** A command a device understands (GET /iot/device/:id/commands). */
export interface DeviceCommand {
  name: string
  /** In the language of the request (or both languages). */
  label: string | Label
  /** Every device understands it; the others come with an IoT function of the device's model. */
  base: boolean
  /** Asks for a confirmation before it is sent. */
  confirm?: boolean
  example: Record<string, unknown>
}

export interface SentCommand {
  commandId: number
  deviceId: number
  sn: string
  requestId: string
  status: CommandStatus
}

export interface SendResult {
  commands: SentCommand[]
  /** Published now (the device is online). */
  sent: number
  /** Kept until the device comes online. */
  queued: number
}

/** A command test's outcome: the command row once the device answered or the wait ended. */
export interface CommandOutcome {
  commandId: number
  deviceId?: number
  requestId: string
  command: string
  status: CommandStatus
  /** The device's reply, as JSON text. */
  reply: string | null
  roundTripMs: number | null
  sentAt: string | null
  repliedAt: string | null
}

export interface PublishRequest {
  topic: string
  payload: string
  qos: 0 | 1
  retain: boolean
}

/** What the server said (its localized msg) and the answer. */
export interface WithMessage<T> {
  data: T
  msg: string
}

/** Extra seconds the browser waits beyond the device's timeout before it gives up on the call. */
const WAIT_MARGIN_S = 15

/** A command's name in the page's language, whichever form the server sent it in. */
export const labelText = (label: string | Label): string => (typeof label === 'string' ? label : localized(label))

export const iotApi = {
  gateway: () => http.get<GatewayStatus>('/iot/gateway', undefined, { silent: true }),
  deviceCommands: (deviceId: number) => http.get<DeviceCommand[]>(`/iot/device/${deviceId}/commands`),
  sendCommand: (body: { deviceIds: number[]; command: string; params: Record<string, unknown>; timeoutSeconds?: number; expireMinutes?: number }): Promise<WithMessage<SendResult>> =>
    requestWithMessage<SendResult>({ method: 'POST', url: '/iot/device/command', data: body }),
  reboot: (deviceIds: number[]): Promise<WithMessage<unknown>> => requestWithMessage({ method: 'POST', url: '/iot/device/reboot', data: { deviceIds } }),
  resetSecret: (deviceId: number): Promise<WithMessage<{ secret: string }>> => requestWithMessage({ method: 'PUT', url: `/iot/device/${deviceId}/secret` }),
  registrationKey: (modelId: number) => http.get<{ registrationKey: string }>(`/iot/model/${modelId}/registrationKey`),
  resetRegistrationKey: (modelId: number): Promise<WithMessage<{ registrationKey: string }>> =>
    requestWithMessage({ method: 'PUT', url: `/iot/model/${modelId}/registrationKey` }),
  /** Waits for the device's final answer (or the timeout); the msg says how it went. */
  testCommand: (body: { deviceId: number; command: string; params: Record<string, unknown>; timeoutSeconds?: number }): Promise<WithMessage<CommandOutcome>> =>
    requestWithMessage({ method: 'POST', url: '/iot/commandTest/send', data: body, timeout: ((body.timeoutSeconds ?? 30) + WAIT_MARGIN_S) * 1000 }),
  publish: (body: PublishRequest): Promise<WithMessage<unknown>> => requestWithMessage({ method: 'POST', url: '/iot/mqDebug/publish', data: body }),
}
