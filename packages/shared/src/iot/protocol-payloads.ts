import { z } from 'zod'
import { VERSION_PATTERN } from '../validation'
import { otaBlockRequestPayload, otaProgressPayload, partVersionsSchema } from './ota-payloads'
import { type CommandSpec, DEVICE_EVENT_TYPES, PROTOCOL_VERSION, type UpKind } from './protocol'

// The protocol's message schemas (./protocol.ts has its constants, topics and commands): apart, so
// that what only needs the constants (the entity definitions, the console's first pages) does not
// carry zod.
const envelope = { v: z.literal(PROTOCOL_VERSION), ts: z.number().int().positive().optional() }

/** Retained; the device's last will is the same topic with state offline. */
export const presencePayload = z.object({ ...envelope, state: z.enum(['online', 'offline']), reason: z.string().max(64).optional() })

export const heartbeatPayload = z.object({ ...envelope })
export const syncPayload = z.object({ ...envelope })

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

/** The card a report names: some modems append the filler F of the 20-digit field to a 19-digit ICCID. */
export const reportedIccid = (sim: { iccid: string }) => sim.iccid.replace(/F$/, '')

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
  sync: syncPayload,
} as const satisfies Record<UpKind, z.ZodType>

const none = z.object({}).strict()
const onOff = z.object({ enabled: z.boolean() }).strict()

/** Each command's parameters (protocol.ts › COMMANDS names them): the server checks a command's before sending it. */
export const COMMAND_PARAMS: Record<CommandSpec['name'], z.ZodType<Record<string, unknown>>> = {
  reboot: z.object({ delaySeconds: z.number().int().min(0).max(300).optional() }).strict(),
  ping: none,
  report: none,
  setConfig: z.object({ version: z.string().min(1).max(32), values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])) }).strict(),
  lock: none,
  unlock: none,
  findBike: z.object({ seconds: z.number().int().min(1).max(60).optional() }).strict(),
  locate: none,
  setAlarm: onOff,
  transportMode: onOff,
  playAudio: z.object({ audio: z.string().min(1).max(64) }).strict(),
}
