import { COMMAND_STATUSES, type CommandOutcome, type DeviceCommandOption, type IotGatewayStatus, otaPublicKeySchema, type SendCommandResult, type SentCommand } from '@velo/shared'
import { z } from 'zod'

// What the IoT routes beside the entity routes answer (shared/iot/api.ts), checked against the
// shared interfaces so that the console's types and the server's answers cannot drift apart.

/** GET /iot/gateway */
export const gatewayStatusSchema = z.object({
  protocolVersion: z.number(),
  embedded: z.boolean(),
  port: z.number().optional(),
  connected: z.boolean(),
  devicesOnline: z.number(),
  ingest: z.object({ pending: z.number(), cap: z.number(), saturated: z.boolean(), saturatedSeconds: z.number() }),
}) satisfies z.ZodType<IotGatewayStatus>

/** GET /iot/device/:id/commands: one command a device understands. */
export const commandOptionSchema = z.object({
  name: z.string(),
  label: z.string(),
  base: z.boolean(),
  confirm: z.boolean(),
  example: z.record(z.string(), z.unknown()),
}) satisfies z.ZodType<DeviceCommandOption>

const sentCommandSchema = z.object({
  commandId: z.number(),
  deviceId: z.number(),
  sn: z.string(),
  requestId: z.string(),
  status: z.enum(['queued', 'sent']),
}) satisfies z.ZodType<SentCommand>

/** POST /iot/device/command and /iot/device/reboot. */
export const sendCommandResultSchema = z.object({
  commands: z.array(sentCommandSchema),
  sent: z.number(),
  queued: z.number(),
}) satisfies z.ZodType<SendCommandResult>

/** POST /iot/commandTest/send. */
export const commandOutcomeSchema = z.object({
  commandId: z.number(),
  requestId: z.string(),
  deviceId: z.number(),
  command: z.string(),
  status: z.enum(COMMAND_STATUSES),
  reply: z.string().nullable(),
  roundTripMs: z.number().nullable(),
  sentAt: z.string().nullable(),
  repliedAt: z.string().nullable(),
}) satisfies z.ZodType<CommandOutcome>

/** A device secret, answered once when it is issued (PUT /iot/device/:id/secret, POST /iot/register). */
export const deviceSecretSchema = z.object({ secret: z.string() })

/** Where devices connect: the broker's public URL when the server knows it, else just the embedded broker's port. */
export const brokerAddressSchema = z.object({ url: z.string().optional(), port: z.number().optional() })
/** GET /iot/broker: where devices connect now, and how often they send a heartbeat (seconds). */
export const brokerAnswerSchema = brokerAddressSchema.extend({ heartbeatSeconds: z.number().int() })

/** POST /iot/register: the device's secret, where it connects, and the keys OTA manifests are signed with (device-sim's Registration). */
export const registrationSchema = deviceSecretSchema.extend({
  sn: z.string(),
  mqtt: brokerAddressSchema,
  otaKeys: z.array(otaPublicKeySchema),
  /** How often the device sends a heartbeat: the server counts it offline after three silent intervals. */
  heartbeatSeconds: z.number().int(),
})

/** GET and PUT /iot/model/:id/registrationKey. */
export const registrationKeySchema = z.object({ registrationKey: z.string() })
