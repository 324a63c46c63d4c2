import { createHash } from 'node:crypto'
import { canonicalValues, type CommandEvent, FINAL_COMMAND_STATUSES, type CommandStatus, type ConfigValues, type Language, templateValues } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import type { Db } from '../../../db/database'
import { MAX_DEVICES_PER_SEND } from '../../../gateway/commands'
import { badRequest, type FieldIssue } from '../../../platform/errors'
import { t } from '../../../platform/i18n'

type Row = Record<string, unknown>

/** Devices per setConfig send: one command insert and one publish round per chunk, and a progress step. */
const PUSH_CHUNK = 5_000
/** Ids per IN (…) list: well under SQLite's and PostgreSQL's bound-parameter limits. */
const IN_CHUNK = 1_000

export type PushStatus = 'queued' | 'sent' | 'acknowledged' | 'refused' | 'timedOut' | 'expired'
const OPEN_PUSH: readonly PushStatus[] = ['queued', 'sent']

/** A push row's status for its command's; a command moves only forward, and so does the row. */
const PUSH_STATUS: Record<CommandStatus, PushStatus> = {
  queued: 'queued',
  sent: 'sent',
  delivered: 'sent',
  succeeded: 'acknowledged',
  failed: 'refused',
  timedOut: 'timedOut',
  expired: 'expired',
}
/** The statuses a row may leave for each status. */
const EARLIER: Record<PushStatus, readonly PushStatus[]> = {
  queued: [],
  sent: ['queued'],
  acknowledged: OPEN_PUSH,
  refused: OPEN_PUSH,
  timedOut: OPEN_PUSH,
  expired: OPEN_PUSH,
}

export function chunked<T>(items: readonly T[], size = IN_CHUNK): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** The version a device reports for a template's values: changes exactly when they (or the protocol version) do. */
export function configVersionOf(template: Row): string {
  const digest = createHash('sha256').update(`${String(template.protocolVersion ?? '')}|${canonicalValues(templateValues(template))}`).digest('hex')
  return `${digest.slice(0, 12)}`
}

/** The setConfig params of a template as it is now. */
export function setConfigParams(template: Row): { version: string; values: ConfigValues } {
  return { version: configVersionOf(template), values: templateValues(template) }
}

export interface PushTargets {
  deviceIds?: number[]
  modelId?: number
  state?: string
  firmwareVersion?: string
}

function fieldError(field: string, message: string) {
  return { errors: [{ field, message }] satisfies FieldIssue[] }
}

/**
 * The devices a push goes to: the ticked ones (each must exist), or every device the filter
 * matches. None is a 400: a push to nobody is a mistake in the filter.
 */
export async function resolveTargets(db: Db, input: Row, lang: Language): Promise<number[]> {
  const ids = Array.isArray(input.deviceIds) ? [...new Set((input.deviceIds as unknown[]).map(Number))] : []
  if (ids.length) {
    const found = new Set<number>()
    for (const part of chunked(ids)) {
      const rows = await db.selectFrom('iotDevice').select('deviceId').where('deviceId', 'in', part).execute()
      for (const r of rows) found.add(Number(r.deviceId))
    }
    const missing = ids.filter((id) => !found.has(id))
    if (missing.length) {
      const p = { count: missing.length, ids: missing.slice(0, 10).join(', ') }
      throw badRequest('iot.config.devicesMissing', p, fieldError('deviceIds', t(lang, 'iot.config.devicesMissing', p)))
    }
    return ids
  }
  let q = db.selectFrom('iotDevice').select('deviceId').orderBy('deviceId')
  if (input.modelId !== undefined) q = q.where('modelId', '=', Number(input.modelId))
  if (input.state !== undefined) q = q.where('state', '=', String(input.state))
  if (input.firmwareVersion !== undefined) q = q.where('firmwareVersion', '=', String(input.firmwareVersion))
  const all = (await q.execute()).map((r) => Number(r.deviceId))
  if (!all.length) throw badRequest('iot.config.noDevices', {}, fieldError('deviceIds', t(lang, 'iot.config.noDevices')))
  return all
}

async function countOnline(db: Db, deviceIds: number[]): Promise<number> {
  let online = 0
  for (const part of chunked(deviceIds)) {
    const r = await db
      .selectFrom('iotDevice')
      .select(sql<number>`count(*)`.as('n'))
      .where('deviceId', 'in', part)
      .where('online', '=', 1 as never)
      .executeTakeFirstOrThrow()
    online += Number(r.n)
  }
  return online
}

/** What the dialog shows before the push is confirmed: how many devices, how many get it now and how many when they connect. */
export async function pushPreview(db: Db, template: Row, input: Row, lang: Language) {
  const deviceIds = await resolveTargets(db, input, lang)
  const online = await countOnline(db, deviceIds)
  const count = deviceIds.length
  return {
    facts: [
      { label: t(lang, 'iot.config.preview.devices'), value: String(count) },
      { label: t(lang, 'iot.config.preview.online'), value: String(online) },
      { label: t(lang, 'iot.config.preview.queued'), value: String(count - online) },
      { label: t(lang, 'iot.config.preview.version'), value: configVersionOf(template) },
    ],
    // Said aloud only when some devices will wait: the push then ends in stages.
    ...(count > online ? { warning: t(lang, 'iot.config.preview.summary', { count, online, queued: count - online }) } : {}),
  }
}

export interface PushProgress {
  progress: (done: number, total: number) => void
  signal: AbortSignal
}

/**
 * Sends a template to devices through the command layer (queued for offline ones) and writes one
 * push row per device. The command's events move the rows on (trackPushes); a command that ended
 * before its row was written is caught up here at once.
 */
export async function pushTemplate(app: FastifyInstance, db: Db, template: Row, deviceIds: number[], by: string, lang: Language, run: PushProgress) {
  return pushConfiguration(app, db, { configId: Number(template.configId), params: setConfigParams(template) }, deviceIds, by, lang, run)
}

/** A configuration to push: a template's values, or values of no template (a stolen device's tracking configuration: configId null). */
export interface PushedConfiguration {
  configId: number | null
  params: { version: string; values: ConfigValues }
}

/** The same push for any values: the command path, push rows and their outcomes are the template's. */
export async function pushConfiguration(app: FastifyInstance, db: Db, configuration: PushedConfiguration, deviceIds: number[], by: string, lang: Language, run: PushProgress) {
  const { configId, params } = configuration
  let done = 0
  let sent = 0
  let queued = 0
  run.progress(0, deviceIds.length)
  for (const part of chunked(deviceIds, Math.min(PUSH_CHUNK, MAX_DEVICES_PER_SEND))) {
    if (run.signal.aborted) break
    // The rows are written as soon as the commands are stored, before they go out: replies from the
    // first second on move them (trackPushes), so the counts are live while the rest are still sent.
    const writeRows = async (commands: { commandId: number; deviceId: number }[]) => {
      const createTime = new Date().toISOString()
      await db
        .transaction()
        .execute(async (tx) => {
          for (const rows of chunked(commands, 500)) {
            await tx
              .insertInto('iotConfigPush')
              .values(
                rows.map((c) => ({
                  configId,
                  deviceId: c.deviceId,
                  version: params.version,
                  status: 'queued',
                  commandId: c.commandId,
                  applied: null,
                  code: null,
                  message: null,
                  createBy: by,
                  createTime,
                  updateTime: null,
                })),
              )
              .execute()
          }
        })
    }
    const result = await app.iot.commands.send({ deviceIds: part, command: 'setConfig', params, createBy: by, lang, onStored: writeRows })
    // Sent ones move to sent, and any reply heard before its row was read is caught up.
    await reconcilePushes(db, { commandIds: result.commands.map((c) => c.commandId) })
    sent += result.sent
    queued += result.queued
    done += part.length
    run.progress(done, deviceIds.length)
  }
  return { devices: done, sent, queued, version: params.version }
}

interface Outcome {
  status: PushStatus
  applied: string | null
  code: number | null
  message: string | null
}

/** What a command's status and its device's reply (the reply payload as JSON) say of the push. */
export function outcomeOf(status: CommandStatus, reply: string | null, sentValues?: () => ConfigValues): Outcome {
  const push = PUSH_STATUS[status]
  let parsed: { code?: number; message?: string; result?: { values?: unknown } } = {}
  try {
    if (reply) parsed = JSON.parse(reply) as typeof parsed
  } catch {
    // A reply that is no JSON says nothing more than its status.
  }
  const values = parsed.result?.values
  const applied = push === 'acknowledged' ? JSON.stringify(values && typeof values === 'object' ? values : (sentValues?.() ?? {})) : null
  const final = push !== 'queued' && push !== 'sent'
  return {
    status: push,
    applied,
    code: final && typeof parsed.code === 'number' ? parsed.code : null,
    message: final && typeof parsed.message === 'string' ? parsed.message.slice(0, 500) : null,
  }
}

/**
 * Moves the push rows of these commands to what their commands say, only forward (idempotent: every
 * instance may run it). Rows with the same outcome (10,000 devices acknowledging the same values)
 * move in one UPDATE per thousand.
 */
async function applyOutcomes(db: Db, items: { commandId: number; outcome: Outcome }[], at: string) {
  const groups = new Map<string, { outcome: Outcome; ids: number[] }>()
  for (const { commandId, outcome } of items) {
    if (!EARLIER[outcome.status].length) continue
    const key = JSON.stringify(outcome)
    const group = groups.get(key) ?? { outcome, ids: [] }
    group.ids.push(commandId)
    groups.set(key, group)
  }
  let moved = 0
  for (const { outcome, ids } of groups.values()) {
    for (const part of chunked(ids)) {
      const r = await db
        .updateTable('iotConfigPush')
        .set({ status: outcome.status, applied: outcome.applied, code: outcome.code, message: outcome.message, updateTime: at })
        .where('commandId', 'in', part)
        .where('status', 'in', EARLIER[outcome.status])
        .executeTakeFirst()
      moved += Number(r.numUpdatedRows)
    }
  }
  return moved
}

/** The values a push row sent, for a device that acknowledged without naming what it applied. */
function sentValuesOf(params: string | null | undefined): () => ConfigValues {
  return () => {
    try {
      return ((JSON.parse(String(params)) as { values?: ConfigValues }).values ?? {}) as ConfigValues
    } catch {
      return {}
    }
  }
}

/**
 * Catches push rows up with their commands (a missed event, a restart, a row written after its
 * command ended): the given commands, or every open row whose command has moved on.
 */
export async function reconcilePushes(db: Db, which: { commandIds?: number[]; limit?: number } = {}) {
  const at = new Date().toISOString()
  let moved = 0
  const readBatch = async (ids?: number[]) => {
    let q = db
      .selectFrom('iotConfigPush as p')
      .innerJoin('iotCommand as c', 'c.commandId', 'p.commandId')
      .select(['p.commandId', 'p.status as pushStatus', 'c.status', 'c.reply', 'c.params'])
      .where('p.status', 'in', OPEN_PUSH)
    // The sweep reads only rows behind their command, so a page of rows already in step never hides the others.
    const behind = q.where((eb) =>
      eb.or([
        eb.and([eb('p.status', '=', 'queued'), eb('c.status', '!=', 'queued')]),
        eb.and([eb('p.status', '=', 'sent'), eb('c.status', 'in', FINAL_COMMAND_STATUSES)]),
      ]),
    )
    q = ids ? q.where('p.commandId', 'in', ids) : behind.limit(which.limit ?? 5_000)
    return q.execute()
  }
  const batches = which.commandIds ? chunked(which.commandIds).map((ids) => () => readBatch(ids)) : [() => readBatch()]
  for (const read of batches) {
    const rows = (await read()).filter((r) => PUSH_STATUS[r.status as CommandStatus] !== r.pushStatus)
    if (!rows.length) continue
    moved += await db
      .transaction()
      .execute((tx) => applyOutcomes(tx, rows.map((r) => ({ commandId: Number(r.commandId), outcome: outcomeOf(r.status as CommandStatus, r.reply, sentValuesOf(r.params)) })), at))
  }
  return moved
}

/**
 * Follows setConfig commands as every instance hears of them: events are gathered for a moment and
 * written in one transaction (10,000 acknowledgements are 10,000 updates, not 10,000 commits).
 */
export function trackPushes(app: FastifyInstance, db: Db, options: { flushMs?: number; sweepMs?: number } = {}) {
  let pending = new Map<number, CommandEvent>()
  let flushing: Promise<void> | null = null
  let timer: NodeJS.Timeout | null = null
  let closed = false

  const flush = async () => {
    timer = null
    if (!pending.size) return
    const events = [...pending.values()]
    pending = new Map()
    const at = new Date().toISOString()
    const finals = events.filter((e) => PUSH_STATUS[e.status] !== 'queued' && PUSH_STATUS[e.status] !== 'sent')
    // An acknowledgement without the applied values in its reply falls back to what was sent: read once per flush.
    const params = new Map<number, string>()
    for (const ids of chunked(finals.filter((e) => e.status === 'succeeded').map((e) => e.commandId))) {
      const rows = await db.selectFrom('iotCommand').select(['commandId', 'params']).where('commandId', 'in', ids).execute()
      for (const r of rows) params.set(Number(r.commandId), r.params)
    }
    await db
      .transaction()
      .execute((tx) => applyOutcomes(tx, events.map((e) => ({ commandId: e.commandId, outcome: outcomeOf(e.status, e.reply, sentValuesOf(params.get(e.commandId))) })), at))
  }
  const schedule = () => {
    if (timer || closed) return
    timer = setTimeout(() => {
      flushing = (flushing ?? Promise.resolve())
        .then(flush)
        .catch((err) => app.log.error({ err }, 'could not record configuration push outcomes'))
    }, options.flushMs ?? 100)
  }
  const off = app.iot.events.subscribe((event) => {
    if (event.type !== 'command' || event.data.command !== 'setConfig') return
    const seen = pending.get(event.data.commandId)
    // The furthest status wins: a late 'sent' never overwrites a reply heard in the same moment.
    if (!seen || rank(event.data.status) >= rank(seen.status)) pending.set(event.data.commandId, event.data)
    schedule()
  })
  // Pushes whose command ended where no event reached (an instance that stopped): every 30 s.
  app.services.jobs.every({ key: 'iotConfig.pushes', every: options.sweepMs ?? '30s', run: () => reconcilePushes(db) })
  app.addHook('preClose', async () => {
    closed = true
    off()
    if (timer) clearTimeout(timer)
    await flushing?.catch(() => {})
    await flush().catch(() => {})
  })
}

const rank = (s: CommandStatus) => {
  const p = PUSH_STATUS[s]
  return p === 'queued' ? 0 : p === 'sent' ? 1 : 2
}
