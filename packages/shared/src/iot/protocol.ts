import type { Label } from '../entity/types'

/**
 * The device protocol (docs/iot-protocol.md), version 1: topic names and the command catalogue
 * (the payloads' schemas: ./protocol-payloads.ts), shared by the server's gateway, the device simulator and the console.
 *
 * Every topic is velo/v1/{sn}/up/{kind} (device → server) or velo/v1/{sn}/down/{kind}
 * (server → device), so one ACL rule per direction keeps a device inside its own topics.
 */
export const PROTOCOL_VERSION = 1
export const TOPIC_ROOT = `velo/v${PROTOCOL_VERSION}`

/** A device serial number: upper-case letters and digits, 4 to 32 (it is also the MQTT client id and user name). */
export const SN_PATTERN = /^[A-Z0-9]{4,32}$/

/** `sync`: the device asks for what the server still has for it (unanswered commands, the offer under way). */
export const UP_KINDS = ['presence', 'heartbeat', 'telemetry', 'status', 'reply', 'ota', 'otaReq', 'event', 'sync'] as const
/** otaBlock is binary (ota.ts › encodeOtaBlock); every other payload is JSON. */
export const DOWN_KINDS = ['command', 'ota', 'otaBlock'] as const
export type UpKind = (typeof UP_KINDS)[number]
export type DownKind = (typeof DOWN_KINDS)[number]

export const upTopic = (sn: string, kind: UpKind) => `${TOPIC_ROOT}/${sn}/up/${kind}`
export const downTopic = (sn: string, kind: DownKind) => `${TOPIC_ROOT}/${sn}/down/${kind}`
/**
 * A device may retain only its presence, and only this many bytes of it (the longest presence the
 * protocol defines is under 100): retained messages live in the broker's memory for good, so one
 * device retaining on topics of its own could fill it.
 */
export const RETAINED_PRESENCE_MAX_BYTES = 512
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

/**
 * The serials a model lets register themselves with its key, as the factory announces them: ranges
 * `VL000100-VL000199`, single SNs, or a prefix `VL*` (every SN starting with it), comma-separated;
 * empty, none. A range's two ends have one length, and an SN is in it when it has that length too
 * and sorts between them (upper-case letters and digits sort as they read).
 */
export const SERIAL_RANGES_PATTERN = /^(?:(?:[A-Z0-9]{1,32}\*|[A-Z0-9]{4,32}(?:\s*-\s*[A-Z0-9]{4,32})?)(?:\s*,\s*(?:[A-Z0-9]{1,32}\*|[A-Z0-9]{4,32}(?:\s*-\s*[A-Z0-9]{4,32})?))*)?$/

export type SerialRange = { prefix: string } | { from: string; to: string }

/** The ranges of a text SERIAL_RANGES_PATTERN accepts. */
export function serialRanges(text: string): SerialRange[] {
  return text
    .split(',')
    .map((part) => part.replace(/\s+/g, ''))
    .filter(Boolean)
    .map((part): SerialRange => {
      if (part.endsWith('*')) return { prefix: part.slice(0, -1) }
      const [from, to = from] = part.split('-') as [string, string?]
      return { from, to }
    })
}

/** The first range whose ends differ in length or run backwards (it could hold no SN as written); null if none. */
export function badSerialRange(text: string): string | null {
  const bad = serialRanges(text).find((r) => 'from' in r && (r.from.length !== r.to.length || r.from > r.to))
  return bad && 'from' in bad ? `${bad.from}-${bad.to}` : null
}

/** Whether an SN is among the serials the text announces. */
export function serialAnnounced(text: string, sn: string): boolean {
  return serialRanges(text).some((r) => ('prefix' in r ? sn.startsWith(r.prefix) : sn.length === r.from.length && sn >= r.from && sn <= r.to))
}

/**
 * Why a registration is refused (`data.reason` of its answer). A device may retry E_STALE once its
 * clock is right and E_REPLAYED with a new nonce; the others need staff (a key, a model, its serials).
 */
export const REGISTRATION_REFUSALS = ['E_STALE', 'E_BAD_SN', 'E_SN_PREFIX', 'E_REFUSED', 'E_NOT_ANNOUNCED', 'E_REPLAYED', 'E_TAKEN'] as const
export type RegistrationRefusal = (typeof REGISTRATION_REFUSALS)[number]

/** Kinds of device-reported events (up/event): a fault the device detected itself. */
export const DEVICE_EVENT_TYPES = ['fault'] as const

// ---- Commands -------------------------------------------------------------------------------

export interface CommandSpec {
  name: string
  label: Label
  /** Every device understands it; the others need an IoT function of the device's model. */
  base: boolean
  /** Shown in the command test page as a starting point. */
  example: Record<string, unknown>
  /** Asks for a confirmation in the console (SPEC §8: reboot, pushes to N devices). */
  confirm?: boolean
}

export const COMMANDS: readonly CommandSpec[] = [
  { name: 'reboot', label: { en_US: 'Reboot', zh_CN: '重启' }, base: true, example: { delaySeconds: 0 }, confirm: true },
  { name: 'ping', label: { en_US: 'Ping', zh_CN: 'Ping' }, base: true, example: {} },
  { name: 'report', label: { en_US: 'Report status now', zh_CN: '立即上报状态' }, base: true, example: {} },
  {
    name: 'setConfig',
    label: { en_US: 'Push configuration', zh_CN: '下发配置' },
    base: true,
    example: { version: '1.0.1', values: { heartbeatSeconds: 60, vibrationSensitivity: 3 } },
    confirm: true,
  },
  { name: 'lock', label: { en_US: 'Lock', zh_CN: '锁车' }, base: false, example: {} },
  { name: 'unlock', label: { en_US: 'Unlock', zh_CN: '解锁' }, base: false, example: {} },
  { name: 'findBike', label: { en_US: 'Find my bike (beep and flash)', zh_CN: '寻车（鸣笛闪灯）' }, base: false, example: { seconds: 5 } },
  { name: 'locate', label: { en_US: 'Locate now', zh_CN: '立即定位' }, base: false, example: {} },
  { name: 'setAlarm', label: { en_US: 'Anti-theft alarm on/off', zh_CN: '防盗报警开关' }, base: false, example: { enabled: true } },
  { name: 'transportMode', label: { en_US: 'Transport mode on/off', zh_CN: '运输模式开关' }, base: false, example: { enabled: false } },
  { name: 'playAudio', label: { en_US: 'Play audio', zh_CN: '播放音频' }, base: false, example: { audio: 'welcome' } },
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
