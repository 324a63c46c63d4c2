import { type CommandOutcome, COMMANDS, type DeviceCommandOption, iotEntities, type SendCommandResult } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { type CommandService, MAX_DEVICES_PER_SEND } from '../../gateway/commands'
import { BusinessType } from '../../platform/audit/operation-log'
import { ok } from '../../platform/envelope'
import { notFound } from '../../platform/errors'
import { languageOf } from '../../platform/http'
import type { MessageKey, MessageParams } from '../../platform/i18n'
import { assertIdsInScope, callerScope } from '../../platform/rbac/entity-scope'
import { caller } from '../../platform/rbac/guard'
import { envelope } from '../../platform/responses'
import { commandOptionSchema, commandOutcomeSchema, sendCommandResultSchema } from './schemas'

const tags = ['IoT commands']
const COMMAND_NAMES = COMMANDS.map((c) => c.name) as [string, ...string[]]
/** The command test answers within the console's 120 s request timeout. */
const MAX_TEST_TIMEOUT_SECONDS = 100

const deviceIds = z.array(z.number().int().positive()).min(1).max(MAX_DEVICES_PER_SEND)
const params = z.record(z.string(), z.unknown())
const timeoutSeconds = z.number().int().min(1).max(600)
const expireMinutes = z.number().int().min(1).max(10080)

function sendMessage(result: SendCommandResult, reboot: boolean): [MessageKey, MessageParams] {
  const total = result.commands.length
  const { sent, queued } = result
  if (queued === 0) return reboot ? ['iot.reboot.sent', {}] : total === 1 ? ['iot.command.sentOne', {}] : ['iot.command.sent', { sent }]
  if (sent === 0) {
    if (total === 1) return [reboot ? 'iot.reboot.queued' : 'iot.command.queued', {}]
    return [reboot ? 'iot.reboot.queuedAll' : 'iot.command.queuedAll', { total }]
  }
  return [reboot ? 'iot.reboot.someQueued' : 'iot.command.sentSomeQueued', { total, queued }]
}

function testMessage(row: CommandOutcome, timeoutSeconds: number): [MessageKey, MessageParams] {
  switch (row.status) {
    case 'succeeded':
      return ['iot.commandTest.succeeded', { ms: row.roundTripMs ?? 0 }]
    case 'failed':
      return ['iot.commandTest.failed', {}]
    case 'timedOut':
      return ['iot.commandTest.timedOut', { seconds: timeoutSeconds }]
    case 'expired':
      return ['iot.commandTest.expired', {}]
    case 'queued':
      return ['iot.command.queued', {}]
    default:
      return ['iot.commandTest.pending', {}]
  }
}

/**
 * Commands from the console: what a device understands, one command to many devices (SPEC §8
 * "pushing … to N selected devices", "reboot command sent"), and the command test page, which
 * sends to one device and waits for its answer.
 */
export function registerCommandRoutes(app: FastifyInstance, commandService: () => CommandService) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  // Devices outside the caller's data scope answer as missing ones, before anything is sent.
  const inScope = async (req: Parameters<typeof caller>[0], ids: readonly number[]) =>
    assertIdsInScope(app.services.db, iotEntities.iotDevice, await callerScope(app.services, caller(req)), ids)
  const audit = { module: 'IoT command', businessType: BusinessType.other }

  api.get(
    '/iot/device/:id/commands',
    {
      config: { permission: 'iot:device:query' },
      schema: {
        tags,
        summary: "The commands a device supports: base commands and those its model's enabled functions open",
        params: z.object({ id: z.coerce.number().int().positive() }),
        response: { 200: envelope(z.array(commandOptionSchema)) },
      },
    },
    async (req): Promise<DeviceCommandOption[]> => {
      const lang = languageOf(req)
      await inScope(req, [req.params.id])
      const list = await commandService().supportedCommands(req.params.id)
      return list.map((c) => ({ ...c, label: c.label[lang] }))
    },
  )

  api.post(
    '/iot/device/command',
    {
      config: { permission: 'iot:device:command', audit },
      schema: {
        tags,
        summary: 'Sends one command to up to 10,000 devices: online ones at once, offline ones when they come back (all or none are accepted)',
        body: z.strictObject({ deviceIds, command: z.enum(COMMAND_NAMES), params: params.optional(), timeoutSeconds: timeoutSeconds.optional(), expireMinutes: expireMinutes.optional() }),
        response: { 200: envelope(sendCommandResultSchema) },
      },
    },
    async (req) => {
      await inScope(req, req.body.deviceIds)
      const result = await commandService().send({ ...req.body, createBy: caller(req).userName, lang: languageOf(req) })
      return ok(result, ...sendMessage(result, false))
    },
  )

  api.post(
    '/iot/device/reboot',
    {
      config: { permission: 'iot:device:command', audit },
      schema: {
        tags,
        summary: 'Reboots devices (offline ones when they come back)',
        body: z.strictObject({ deviceIds }),
        response: { 200: envelope(sendCommandResultSchema) },
      },
    },
    async (req) => {
      await inScope(req, req.body.deviceIds)
      const result = await commandService().send({ deviceIds: req.body.deviceIds, command: 'reboot', params: {}, createBy: caller(req).userName, lang: languageOf(req) })
      return ok(result, ...sendMessage(result, true))
    },
  )

  api.post(
    '/iot/commandTest/send',
    {
      config: { permission: 'iot:commandTest:send', audit: { module: 'IoT command test', businessType: BusinessType.other } },
      schema: {
        tags,
        summary: "Sends a command to one device and waits for its final answer (an offline device's command comes back queued at once)",
        body: z.strictObject({ deviceId: z.number().int().positive(), command: z.enum(COMMAND_NAMES), params: params.optional(), timeoutSeconds: z.number().int().min(1).max(MAX_TEST_TIMEOUT_SECONDS).optional() }),
        response: { 200: envelope(commandOutcomeSchema) },
      },
    },
    async (req) => {
      const commands = commandService()
      const timeout = req.body.timeoutSeconds ?? Math.min((await commands.defaults()).timeoutSeconds, MAX_TEST_TIMEOUT_SECONDS)
      const { deviceId, command, params } = req.body
      await inScope(req, [deviceId])
      const result = await commands.send({ deviceIds: [deviceId], command, params, timeoutSeconds: timeout, createBy: caller(req).userName, lang: languageOf(req) })
      const sent = result.commands[0]!
      // The sweeper marks a silent device timed out up to one sweep after its deadline.
      const row = sent.status === 'queued' ? await commands.get(sent.commandId) : await commands.wait(sent.commandId, timeout * 1000 + commands.sweepIntervalMs + 1000)
      if (!row) throw notFound()
      const { commandId, requestId, command: name, status, reply, roundTripMs, sentAt, repliedAt } = row
      return ok({ commandId, requestId, deviceId: row.deviceId, command: name, status, reply, roundTripMs, sentAt, repliedAt }, ...testMessage(row, timeout))
    },
  )
}
