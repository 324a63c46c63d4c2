import { z } from 'zod'
import type { Label } from '../entity/types'
import { VERSION_PATTERN } from '../validation'
import { otaBlockRequestPayload, otaProgressPayload, partVersionsSchema } from './ota'

/**
 * The device protocol (docs/iot-protocol.md), version 1: topic names, payload schemas and the
 * command catalogue, shared by the server's gateway, the device simulator and the console.
 *
 * Every topic is velo/v1/{sn}/up/{kind} (device → server) or velo/v1/{sn}/down/{kind}
 * (server → device), so one ACL rule per direction keeps a device inside its own topics.
 */
export const PROTOCOL_VERSION = 1
export const TOPIC_ROOT = `velo/v${PROTOCOL_VERSION}`

/** A device serial number: upper-case letters and digits, 4 to 32 (it is also the MQTT client id and user name). */
export const SN_PATTERN = /^[A-Z0-9]{4,32}$/

export const UP_KINDS = ['presence', 'heartbeat', 'telemetry', 'status', 'reply', 'ota', 'otaReq', 'event'] as const
/** otaBlock is binary (ota.ts › encodeOtaBlock); every other payload is JSON. */
export const DOWN_KINDS = ['command', 'ota', 'otaBlock'] as const
export type UpKind = (typeof UP_KINDS)[number]
export type DownKind = (typeof DOWN_KINDS)[number]

export const upTopic = (sn: string, kind: UpKind) => `${TOPIC_ROOT}/${sn}/up/${kind}`
export const downTopic = (sn: string, kind: DownKind) => `${TOPIC_ROOT}/${sn}/down/${kind}`
/** What the gateway subscribes to (as a shared subscription when several servers run). */
export const UP_FILTER = `${TOPIC_ROOT}/+/up/#`
/** What a device subscribes to. */
export const downFilter = (sn: string) => `${TOPIC_ROOT}/${sn}/down/#`

/** Splits a topic of the protocol; null for anything else. */
export function parseTopic(topic: string): { sn: string; direction: 'up' | 'down'; kind: string } | null {
  const parts = topic.split('/')
  if (parts.length !== 5 || `${parts[0]}/${parts[1]}` !== TOPIC_ROOT) return null
  const [, , sn, direction, kind] = parts
  if (!SN_PATTERN.test(sn!) || (direction !== 'up' && direction !== 'down')) return null
  return { sn: sn!, direction, kind: kind! }
}

// ---- Self-registration (POST {api}/iot/register) --------------------------------------------

/** A registration's nonce: 16 to 64 letters, digits, - or _ (a device sends 16 random bytes in base64url). */
export const REGISTRATION_NONCE_PATTERN = /^[A-Za-z0-9_-]{16,64}$/

/**
 * What a device signs, hex(HMAC-SHA256(registrationKey, this)). The nonce makes each request
 * single-use: the server refuses one it has seen within the timestamp window.
 */
export const registrationSigningText = (r: { productId: string; sn: string; timestamp: number; nonce: string }) =>
  `${r.productId}:${r.sn}:${r.timestamp}:${r.nonce}`

const envelope = { v: z.literal(PROTOCOL_VERSION), ts: z.number().int().positive().optional() }

/** Retained; the device's last will is the same topic with state offline. */
export const presencePayload = z.object({ ...envelope, state: z.enum(['online', 'offline']), reason: z.string().max(64).optional() })

export const heartbeatPayload = z.object({ ...envelope })

export const gpsSchema = z.object({
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
  speed: z.number().min(0).max(500).optional(),
  satellites: z.number().int().min(0).max(64).optional(),
})

/** Frequent readings (every few seconds to minutes while riding). */
export const telemetryPayload = z.object({
  ...envelope,
  /** Battery state of charge, %. */
  battery: z.number().min(0).max(100).optional(),
  /** Mobile signal, dBm (-140 to 0). */
  signal: z.number().min(-140).max(0).optional(),
  gps: gpsSchema.optional(),
  /** Odometer, km. */
  odometer: z.number().min(0).optional(),
  locked: z.boolean().optional(),
  /** Lean of the bike from upright, degrees (0 standing, 90 lying on its side): the fall rule compares it with the template's angle. */
  tilt: z.number().min(0).max(180).optional(),
  /** Vibration level the motion sensor measured since the last report, 0 (still) to 5 (strong): with locked, the theft rule. */
  vibration: z.number().min(0).max(5).optional(),
})

export const simUsageSchema = z.object({
  iccid: z.string().regex(/^[0-9]{18,22}F?$/),
  imei: z.string().regex(/^[0-9]{14,16}$/).optional(),
  /** Data used in the current cycle and the package limit, MB. */
  usedMb: z.number().min(0),
  limitMb: z.number().min(0),
})

/** Sent on connect and whenever something in it changes. */
export const statusPayload = z.object({
  ...envelope,
  firmwareVersion: z.string().regex(VERSION_PATTERN).optional(),
  hardwareVersion: z.string().max(32).optional(),
  configVersion: z.string().max(32).optional(),
  activated: z.boolean().optional(),
  transportMode: z.boolean().optional(),
  sim: simUsageSchema.optional(),
  /**
   * The configuration the device runs, as applied by its last setConfig or changed locally (a
   * service tool on the bike): sent on connect, so the server sees drift from the device's template.
   */
  config: z.object({ version: z.string().max(32), values: z.record(z.string().max(64), z.union([z.string().max(200), z.number(), z.boolean()])) }).optional(),
  /** The versions of the other parts (display, BMS, ECU) as the IoT module reads them from the bike's bus. */
  parts: partVersionsSchema.optional(),
  /** The audio files the IoT module holds, IoT name → version (an audio upgrade has succeeded once its name and version are here). */
  audio: z.record(z.string().regex(/^[a-z0-9_]{1,64}$/), z.string().regex(VERSION_PATTERN)).optional(),
})

/** Server → device. `id` is the request id the reply carries back. */
export const commandPayload = z.object({
  ...envelope,
  id: z.string().min(1).max(64),
  name: z.string().min(1).max(32),
  params: z.record(z.string(), z.unknown()).default({}),
  /** Epoch ms after which the device must not act on it (it answers `expired`). */
  expiresAt: z.number().int().positive().optional(),
})

/**
 * Device → server. `accepted` on receipt (the command is delivered), then one final
 * `succeeded` / `failed` with an optional result; a device may skip straight to the final one.
 */
export const replyPayload = z.object({
  ...envelope,
  id: z.string().min(1).max(64),
  status: z.enum(['accepted', 'succeeded', 'failed', 'expired']),
  code: z.number().int().optional(),
  message: z.string().max(500).optional(),
  result: z.record(z.string(), z.unknown()).optional(),
})

// The OTA payloads (offer, abort, block request, progress, block frames) are in ./ota.ts.

/** Kinds of device-reported events (up/event): a fault the device detected itself. */
export const DEVICE_EVENT_TYPES = ['fault'] as const

/** Device → server: something the device noticed itself (a fault code), raised as a warning. */
export const deviceEventPayload = z.object({
  ...envelope,
  type: z.enum(DEVICE_EVENT_TYPES),
  /** The device's own code, e.g. E-BMS-07. */
  code: z.string().min(1).max(32),
  message: z.string().max(500).optional(),
  /** Cleared: the condition is over (the warning clears). */
  cleared: z.boolean().optional(),
})

export type PresencePayload = z.infer<typeof presencePayload>
export type TelemetryPayload = z.infer<typeof telemetryPayload>
export type StatusPayload = z.infer<typeof statusPayload>
export type CommandPayload = z.infer<typeof commandPayload>
export type ReplyPayload = z.infer<typeof replyPayload>
export type DeviceEventPayload = z.infer<typeof deviceEventPayload>

export const UP_SCHEMAS = {
  presence: presencePayload,
  heartbeat: heartbeatPayload,
  telemetry: telemetryPayload,
  status: statusPayload,
  reply: replyPayload,
  ota: otaProgressPayload,
  otaReq: otaBlockRequestPayload,
  event: deviceEventPayload,
} as const satisfies Record<UpKind, z.ZodType>

// ---- Commands -------------------------------------------------------------------------------

export interface CommandSpec {
  name: string
  label: Label
  /** Every device understands it; the others need an IoT function of the device's model. */
  base: boolean
  params: z.ZodType<Record<string, unknown>>
  /** Shown in the command test page as a starting point. */
  example: Record<string, unknown>
  /** Asks for a confirmation in the console (SPEC §8: reboot, pushes to N devices). */
  confirm?: boolean
}

const none = z.object({}).strict()
const onOff = z.object({ enabled: z.boolean() }).strict()

export const COMMANDS: readonly CommandSpec[] = [
  { name: 'reboot', label: { en_US: 'Reboot', zh_CN: '重启' }, base: true, params: z.object({ delaySeconds: z.number().int().min(0).max(300).optional() }).strict(), example: { delaySeconds: 0 }, confirm: true },
  { name: 'ping', label: { en_US: 'Ping', zh_CN: 'Ping' }, base: true, params: none, example: {} },
  { name: 'report', label: { en_US: 'Report status now', zh_CN: '立即上报状态' }, base: true, params: none, example: {} },
  {
    name: 'setConfig',
    label: { en_US: 'Push configuration', zh_CN: '下发配置' },
    base: true,
    params: z.object({ version: z.string().min(1).max(32), values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])) }).strict(),
    example: { version: '1.0.1', values: { heartbeatSeconds: 60, vibrationSensitivity: 3 } },
    confirm: true,
  },
  { name: 'lock', label: { en_US: 'Lock', zh_CN: '锁车' }, base: false, params: none, example: {} },
  { name: 'unlock', label: { en_US: 'Unlock', zh_CN: '解锁' }, base: false, params: none, example: {} },
  { name: 'findBike', label: { en_US: 'Find my bike (beep and flash)', zh_CN: '寻车（鸣笛闪灯）' }, base: false, params: z.object({ seconds: z.number().int().min(1).max(60).optional() }).strict(), example: { seconds: 5 } },
  { name: 'locate', label: { en_US: 'Locate now', zh_CN: '立即定位' }, base: false, params: none, example: {} },
  { name: 'setAlarm', label: { en_US: 'Anti-theft alarm on/off', zh_CN: '防盗报警开关' }, base: false, params: onOff, example: { enabled: true } },
  { name: 'transportMode', label: { en_US: 'Transport mode on/off', zh_CN: '运输模式开关' }, base: false, params: onOff, example: { enabled: false } },
  { name: 'playAudio', label: { en_US: 'Play audio', zh_CN: '播放音频' }, base: false, params: z.object({ audio: z.string().min(1).max(64) }).strict(), example: { audio: 'welcome' } },
]

export const commandSpec = (name: string) => COMMANDS.find((c) => c.name === name)
export const BASE_COMMANDS = COMMANDS.filter((c) => c.base).map((c) => c.name)
export const FUNCTION_COMMANDS = COMMANDS.filter((c) => !c.base).map((c) => c.name)

// ---- Server-side states (SPEC §4) -----------------------------------------------------------

/**
 * inactive: registered, never connected. online/offline: connected or not, not yet activated by its
 * owner. activated/activatedOffline: the same once activated.
 */
export const DEVICE_STATES = ['inactive', 'online', 'offline', 'activated', 'activatedOffline'] as const
export type DeviceState = (typeof DEVICE_STATES)[number]

export function deviceState(d: { everConnected: boolean; online: boolean; activated: boolean }): DeviceState {
  if (!d.everConnected) return 'inactive'
  if (d.activated) return d.online ? 'activated' : 'activatedOffline'
  return d.online ? 'online' : 'offline'
}

export const COMMAND_STATUSES = ['queued', 'sent', 'delivered', 'succeeded', 'failed', 'timedOut', 'expired'] as const
export type CommandStatus = (typeof COMMAND_STATUSES)[number]
/** Statuses after which nothing changes. */
export const FINAL_COMMAND_STATUSES: readonly CommandStatus[] = ['succeeded', 'failed', 'timedOut', 'expired']

/** Flow state turns to warning when less than this share of the SIM package is left (config key iot.flow.warningPercent). */
export const DEFAULT_FLOW_WARNING_PERCENT = 10

/** Live events the server streams to the console (GET /iot/stream, server-sent events). */
export interface DeviceEvent {
  deviceId: number
  sn: string
  state: DeviceState
  flowState: 'normal' | 'warning'
  lastSeenAt: string | null
  battery?: number | null
  firmwareVersion?: string | null
  configVersion?: string | null
  hardwareVersion?: string | null
  transportMode?: 'on' | 'off'
  simNumber?: string | null
  remainingFlow?: number | null
}
export interface CommandEvent {
  commandId: number
  deviceId: number
  command: string
  status: CommandStatus
  reply: string | null
  roundTripMs: number | null
}
export interface MessageEvent {
  deviceId: number | null
  sn: string
  direction: 'up' | 'down'
  kind: string
  topic: string
  payload: string
  time: string
}
