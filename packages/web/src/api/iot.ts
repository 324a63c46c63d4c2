import type { CommandOutcome, DeviceCommandOption, IotGatewayStatus, Label, SendCommandResult } from '@velo/shared'
import { localized } from '../i18n'
import { http, requestWithMessage } from './http'

// The IoT area's calls beside the entity routes: the gateway, device commands, secrets and
// registration keys, the command test and the message-queue debugger.

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

/** A command's label in the page's language: the server's (already translated) or the catalogue's. */
export const labelText = (label: string | Label): string => (typeof label === 'string' ? label : localized(label))

export const iotApi = {
  gateway: () => http.get<IotGatewayStatus>('/iot/gateway', undefined, { silent: true }),
  deviceCommands: (deviceId: number) => http.get<DeviceCommandOption[]>(`/iot/device/${deviceId}/commands`),
  sendCommand: (body: { deviceIds: number[]; command: string; params: Record<string, unknown>; timeoutSeconds?: number; expireMinutes?: number }): Promise<WithMessage<SendCommandResult>> =>
    requestWithMessage<SendCommandResult>({ method: 'POST', url: '/iot/device/command', data: body }),
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
