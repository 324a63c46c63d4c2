import {
  COMMAND_PARAMS,
  COMMANDS,
  type CommandEvent,
  type CommandOutcome,
  type CommandSpec,
  type CommandStatus,
  commandSpec,
  FINAL_COMMAND_STATUSES,
  type Language,
  PROTOCOL_VERSION,
  type ReplyPayload,
  type SendCommandResult,
  type SentCommand,
} from '@velo/shared'
import { sql } from 'kysely'
import type { Db, Dialect } from '../db/database'
import { readTogether } from '../lib/read-together'
import { badRequest, type FieldIssue, notFound } from '../platform/errors'
import { t } from '../platform/i18n'
import { localizeIssue } from '../platform/i18n/zod-messages'
import type { ConfigValues } from '../platform/config-keys'
import type { DeviceSync } from './sync'
import type { Gateway, IotEvent, IotEvents, KnownDevice, UpMessage } from './types'

interface CommandToSend {
  deviceId: number
  commandId: number
  requestId: string
  command: string
  params: string
  timeoutSeconds: number
  expiresAt: string
}

/** System configuration keys (seeded with the IoT area) that set a command's defaults. */
export const COMMAND_CONFIG = {
  timeoutSeconds: { key: 'iot.command.timeoutSeconds', fallback: 30, max: 600 },
  expireMinutes: { key: 'iot.command.expireMinutes', fallback: 1440, max: 10080 },
} as const

/** The most devices one call may address (the console's "select all" of a large fleet). */
export const MAX_DEVICES_PER_SEND = 10_000

// Rows per statement: a multi-row insert binds ~17 values a row, and SQLite refuses more than
// 32,766 bound values in one statement.
const CHUNK = 500
const MISSING_NAMED = 10
// A command event is ~150 bytes: a thousand make one Redis message of ~150 kB.
const EVENTS_PER_MESSAGE = 1000
const PUBLISH_SLICE = 500

const FINAL = new Set<string>(FINAL_COMMAND_STATUSES)
const isFinal = (status: string) => FINAL.has(status)

/** What the presence tracker offers: a hook for a device coming (back) online. */
export interface PresenceHooks {
  onOnline(listener: (device: KnownDevice) => void | Promise<void>): unknown
}

interface Logger {
  error(obj: unknown, msg?: string): void
  warn(obj: unknown, msg?: string): void
}

export interface CommandServiceOptions {
  db: Db
  dialect: Dialect
  gateway: Pick<Gateway, 'on' | 'publishToDevice'>
  /** publishBatch, when the bus has it, carries many events in one delivery (one Redis message). */
  events: Pick<IotEvents, 'publish' | 'subscribe'> & { publishBatch?(events: IotEvent[]): Promise<void> }
  presence: PresenceHooks
  /** A device asking for what is pending for it: its sent, unanswered commands go again. */
  sync?: Pick<DeviceSync, 'onAsk'>
  configValues: ConfigValues
  log?: Logger
  /** How often timeouts and expiries are looked for (1 s; tests may go shorter). */
  sweepIntervalMs?: number
  /** How long replies are gathered before they are written together. */
  replyFlushMs?: number
}

export interface SendCommandInput {
  deviceIds: number[]
  command: string
  params?: Record<string, unknown>
  timeoutSeconds?: number
  expireMinutes?: number
  createBy: string
  /** Language of the field errors in a refusal (the message itself is localized by the error handler). */
  lang?: Language
  /**
   * Called once the commands are stored, before any goes out: what follows them (a configuration
   * push's rows) exists before the first device can answer, so its counts move from the first reply.
   */
  onStored?: (commands: { commandId: number; deviceId: number }[]) => Promise<void>
}

/** A command a device can be sent, as the console lists it. */
export type SupportedCommand = Pick<CommandSpec, 'name' | 'label' | 'base' | 'example'> & { confirm: boolean }

/** Replies of one device to one request, gathered between two writes. */
interface PendingReply {
  requestId: string
  deviceId: number
  /** When `accepted` came. */
  deliveredAt: string | null
  final: { status: CommandStatus; reply: string; repliedAt: string } | null
}

interface ChangedRow {
  commandId: number
  deviceId: number
  command: string
  status: string
  reply: string | null
  roundTripMs: number | null
}

const iso = (ms: number = Date.now()) => new Date(ms).toISOString()

const REPLY_STATUS: Record<ReplyPayload['status'], CommandStatus> = {
  accepted: 'delivered',
  succeeded: 'succeeded',
  failed: 'failed',
  expired: 'expired',
}

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

function fieldErrors(field: string, message: string) {
  return { errors: [{ field, message }] satisfies FieldIssue[] }
}

function listed(values: readonly (string | number)[]) {
  const shown = values.slice(0, MISSING_NAMED).join(', ')
  return values.length > MISSING_NAMED ? `${shown}, …` : shown
}

/**
 * Commands to devices and their lifecycle (SPEC §4): queued → sent → delivered → succeeded/failed,
 * or timedOut / expired. The database is the truth shared by every instance: each transition is a
 * conditional UPDATE from the statuses it may leave, so duplicates, late replies and several
 * instances sweeping at once change a command at most once, and only the instance whose UPDATE
 * won publishes the event.
 */
export class CommandService {
  private readonly db: Db
  private readonly dialect: Dialect
  /** How often the sweep runs: a timeout is noticed at most this late. */
  readonly sweepIntervalMs: number
  private readonly replyFlushMs: number
  private sweeping: Promise<void> | null = null
  private pending = new Map<string, PendingReply>()
  private flushTimer: NodeJS.Timeout | null = null
  /** Writes of reply batches, one after another (an `accepted` batch lands before the next one). */
  private writing: Promise<void> = Promise.resolve()
  private closed = false
  /**
   * A device's queued commands (it came online) and those sent and not answered yet (it asked to
   * sync), read for every device asking in the same tick at once: a fleet reconnecting after an
   * outage (20,000 devices within a minute) asked one query each, twice over.
   */
  private readonly queuedOf: (deviceId: number) => Promise<CommandToSend[]>
  private readonly unansweredOf: (deviceId: number) => Promise<CommandToSend[]>

  constructor(private readonly o: CommandServiceOptions) {
    this.db = o.db
    this.dialect = o.dialect
    this.sweepIntervalMs = o.sweepIntervalMs ?? 1000
    this.replyFlushMs = o.replyFlushMs ?? 25
    const byDevice = (status: 'queued' | 'sent') =>
      readTogether(async (deviceIds: readonly number[]) => {
        const now = iso()
        let q = this.db
          .selectFrom('iotCommand')
          .select(['deviceId', 'commandId', 'requestId', 'command', 'params', 'timeoutSeconds', 'expiresAt'])
          .where('deviceId', 'in', [...deviceIds])
          .where('status', '=', status)
          .where('expiresAt', '>', now)
        // Sent and past its deadline: the sweep times it out rather than sending it again.
        if (status === 'sent') q = q.where('deadlineAt', '>', now)
        const of = new Map<number, CommandToSend[]>()
        for (const r of await q.orderBy('commandId').execute()) {
          const id = Number(r.deviceId)
          const list = of.get(id)
          if (list) list.push(r)
          else of.set(id, [r])
        }
        return of
      }, [] as CommandToSend[])
    this.queuedOf = byDevice('queued')
    this.unansweredOf = byDevice('sent')
  }

  /** Listens to replies and presence; the scheduler runs sweep() every sweepIntervalMs (iot/index.ts). */
  start(): this {
    this.o.gateway.on('reply', (m) => this.onReply(m as UpMessage<ReplyPayload>))
    this.o.presence.onOnline((device) => {
      this.sendQueued(device).catch((err) => this.o.log?.error({ err, sn: device.sn }, 'could not send queued commands'))
    })
    this.o.sync?.onAsk((device) => this.sendUnanswered(device))
    return this
  }

  async close(): Promise<void> {
    this.closed = true
    await this.sweeping?.catch(() => {})
    await this.flushReplies().catch((err) => this.o.log?.error({ err }, 'could not write the last replies'))
  }

  // ---- Sending ------------------------------------------------------------------------------

  /** The commands a device understands: every base command, plus those its model's enabled functions open. */
  async supportedCommands(deviceId: number): Promise<SupportedCommand[]> {
    const device = await this.db.selectFrom('iotDevice').select('modelId').where('deviceId', '=', deviceId).executeTakeFirst()
    if (!device) throw notFound()
    const opened = new Set((await this.openings({ modelId: Number(device.modelId) })).map((o) => o.command))
    return COMMANDS.filter((c) => c.base || opened.has(c.name)).map((c) => ({ name: c.name, label: c.label, base: c.base, confirm: !!c.confirm, example: c.example }))
  }

  /** Which commands enabled IoT functions open for which models: for one model, or for one command. */
  private async openings(filter: { modelId: number } | { command: string }): Promise<{ command: string; modelId: number }[]> {
    const rows = await this.db
      .selectFrom('iotFunction as f')
      .innerJoin('iotFunctionModel as fm', 'fm.functionId', 'f.functionId')
      .select(['f.command', 'fm.modelId'])
      .distinct()
      .where('f.status', '=', '0')
      .$if('modelId' in filter, (qb) => qb.where('fm.modelId', '=', (filter as { modelId: number }).modelId))
      .$if('command' in filter, (qb) => qb.where('f.command', '=', (filter as { command: string }).command))
      .execute()
    return rows.map((r) => ({ command: r.command, modelId: Number(r.modelId) }))
  }

  /** Timeout and queue lifetime when the caller names none (system configuration). */
  async defaults(): Promise<{ timeoutSeconds: number; expireMinutes: number }> {
    const { timeoutSeconds: ts, expireMinutes: em } = COMMAND_CONFIG
    const [timeoutSeconds, expireMinutes] = await Promise.all([this.o.configValues.int(ts.key, ts.fallback), this.o.configValues.int(em.key, em.fallback)])
    return { timeoutSeconds: Math.min(timeoutSeconds, ts.max), expireMinutes: Math.min(expireMinutes, em.max) }
  }

  /** Checks the command and its parameters; throws 400 with field errors under `params.<name>`. */
  validate(command: string, params: Record<string, unknown> | undefined, lang: Language = 'en_US'): { spec: CommandSpec; params: Record<string, unknown> } {
    const spec = commandSpec(command)
    if (!spec) throw badRequest('iot.command.unknown', { command }, fieldErrors('command', t(lang, 'iot.command.unknown', { command })))
    const parsed = COMMAND_PARAMS[spec.name]!.safeParse(params ?? {})
    if (parsed.success) return { spec, params: parsed.data }
    const errors: FieldIssue[] = parsed.error.issues.flatMap((issue) => {
      // A strict object names the keys it refuses in the issue, not in its path.
      const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path]
      return paths.map((p) => {
        const field = ['params', ...p.map(String)].join('.')
        return { field, message: localizeIssue({ code: issue.code, path: field, message: issue.message, params: issue as never }, lang) }
      })
    })
    throw badRequest('error.validation', { details: errors.map((e) => e.message).join('; ') }, { errors })
  }

  /**
   * Sends one command to many devices: all of them or none. Every command is stored as queued in one
   * transaction, then those whose device is online are claimed (queued → sent) and published; the
   * others wait for their device to come back.
   */
  async send(input: SendCommandInput): Promise<SendCommandResult> {
    const lang = input.lang ?? 'en_US'
    const { spec, params } = this.validate(input.command, input.params, lang)
    const deviceIds = [...new Set(input.deviceIds)]
    if (deviceIds.length === 0 || deviceIds.length > MAX_DEVICES_PER_SEND) throw badRequest('iot.command.deviceCount', { max: MAX_DEVICES_PER_SEND })

    const found = new Map<number, KnownDevice>()
    for (const ids of chunks(deviceIds)) {
      const rows = await this.db.selectFrom('iotDevice').select(['deviceId', 'sn', 'modelId']).where('deviceId', 'in', ids).execute()
      for (const r of rows) found.set(Number(r.deviceId), { deviceId: Number(r.deviceId), sn: r.sn, modelId: Number(r.modelId) })
    }
    const missing = deviceIds.filter((id) => !found.has(id))
    if (missing.length) {
      const p = { count: missing.length, ids: listed(missing) }
      throw badRequest('iot.command.deviceMissing', p, fieldErrors('deviceIds', t(lang, 'iot.command.deviceMissing', p)))
    }
    const devices = deviceIds.map((id) => found.get(id)!)
    if (!spec.base) {
      const models = new Set((await this.openings({ command: spec.name })).map((o) => o.modelId))
      const unsupported = devices.filter((d) => !models.has(d.modelId)).map((d) => d.sn)
      if (unsupported.length) {
        const p = { command: spec.name, count: unsupported.length, sns: listed(unsupported) }
        throw badRequest('iot.command.unsupported', p, fieldErrors('deviceIds', t(lang, 'iot.command.unsupported', p)))
      }
    }

    const defaults = await this.defaults()
    const timeoutSeconds = input.timeoutSeconds ?? defaults.timeoutSeconds
    const now = Date.now()
    const expiresAtMs = now + (input.expireMinutes ?? defaults.expireMinutes) * 60_000
    const expiresAt = iso(expiresAtMs)
    const createTime = iso(now)
    const paramsText = JSON.stringify(params)
    const inserted = await this.db.transaction().execute(async (tx) => {
      const out: { commandId: number; requestId: string; deviceId: number }[] = []
      for (const part of chunks(devices)) {
        const rows = await tx
          .insertInto('iotCommand')
          .values(
            part.map((d) => ({
              requestId: crypto.randomUUID(),
              deviceId: d.deviceId,
              command: spec.name,
              params: paramsText,
              status: 'queued',
              reply: null,
              timeoutSeconds,
              sentAt: null,
              deliveredAt: null,
              repliedAt: null,
              deadlineAt: null,
              expiresAt,
              roundTripMs: null,
              createBy: input.createBy,
              createTime,
              updateBy: '',
              updateTime: null,
              remark: '',
            })),
          )
          .returning(['commandId', 'requestId', 'deviceId'])
          .execute()
        for (const r of rows) out.push({ commandId: Number(r.commandId), requestId: r.requestId, deviceId: Number(r.deviceId) })
      }
      return out
    })
    await input.onStored?.(inserted)

    // Whether a device is online is read after the insert is committed: a device coming online
    // meanwhile is either seen online here, or its presence hook runs after this read and finds the
    // commands queued. The conditional claim keeps the two from both sending one.
    const online = await this.onlineAmong(deviceIds)
    const sentIds = await this.claim(
      inserted.filter((c) => online.has(c.deviceId)).map((c) => c.commandId),
      timeoutSeconds,
    )
    const commands: SentCommand[] = inserted.map((c) => ({ ...c, sn: found.get(c.deviceId)!.sn, status: sentIds.has(c.commandId) ? 'sent' : 'queued' }))
    await this.announce(commands.map((c) => ({ commandId: c.commandId, deviceId: c.deviceId, command: spec.name, status: c.status, reply: null, roundTripMs: null })))
    await this.publishAll(
      commands.filter((c) => c.status === 'sent').map((c) => ({ device: found.get(c.deviceId)!, payload: this.payload(c.requestId, spec.name, params, expiresAtMs) })),
    )
    const sent = sentIds.size
    return { commands, sent, queued: commands.length - sent }
  }

  private async onlineAmong(deviceIds: number[]): Promise<Set<number>> {
    const online = new Set<number>()
    for (const ids of chunks(deviceIds)) {
      const rows = await this.db.selectFrom('iotDevice').select('deviceId').where('deviceId', 'in', ids).where('online', '=', 1).execute()
      for (const r of rows) online.add(Number(r.deviceId))
    }
    return online
  }

  /** queued → sent, for those still queued (one transaction: SQLite syncs once, not per chunk); answers the ids it moved. */
  private async claim(commandIds: number[], timeoutSeconds: number): Promise<Set<number>> {
    const sentAt = Date.now()
    const claimed = new Set<number>()
    if (commandIds.length === 0) return claimed
    await this.db.transaction().execute(async (tx) => {
      for (const ids of chunks(commandIds)) {
        const rows = await tx
          .updateTable('iotCommand')
          .set({ status: 'sent', sentAt: iso(sentAt), deadlineAt: iso(sentAt + timeoutSeconds * 1000), updateTime: iso(sentAt) })
          .where('commandId', 'in', ids)
          .where('status', '=', 'queued')
          .returning('commandId')
          .execute()
        for (const r of rows) claimed.add(Number(r.commandId))
      }
    })
    return claimed
  }

  private payload(requestId: string, name: string, params: Record<string, unknown>, expiresAtMs: number) {
    return { v: PROTOCOL_VERSION, ts: Date.now(), id: requestId, name, params, expiresAt: expiresAtMs }
  }

  /**
   * Publishes in order without waiting for each acknowledgement in turn (10,000 devices would take
   * seconds), yielding between slices so an in-process broker delivers, and replies come back, while
   * the rest are still being handed over. A publish that fails leaves its command sent: it times out
   * like an unanswered one.
   */
  private async publishAll(messages: { device: KnownDevice; payload: Record<string, unknown> }[]) {
    const pending: Promise<void>[] = []
    for (let i = 0; i < messages.length; i += PUBLISH_SLICE) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve))
      for (const m of messages.slice(i, i + PUBLISH_SLICE)) pending.push(this.o.gateway.publishToDevice(m.device, 'command', m.payload))
    }
    const failed = (await Promise.allSettled(pending)).filter((r) => r.status === 'rejected')
    if (failed.length) this.o.log?.warn({ failed: failed.length, err: (failed[0] as PromiseRejectedResult).reason }, 'some commands could not be published')
  }

  /** A device came (back) online: its queued, unexpired commands go out, oldest first. */
  async sendQueued(device: KnownDevice): Promise<number> {
    if (this.closed) return 0
    const queued = await this.queuedOf(device.deviceId)
    const messages: { device: KnownDevice; payload: Record<string, unknown> }[] = []
    const changed: ChangedRow[] = []
    for (const c of queued) {
      const sentAt = Date.now()
      // Another instance (or a send racing this one) may have claimed it: only the winner publishes.
      const won = await this.db
        .updateTable('iotCommand')
        .set({ status: 'sent', sentAt: iso(sentAt), deadlineAt: iso(sentAt + c.timeoutSeconds * 1000), updateTime: iso(sentAt) })
        .where('commandId', '=', c.commandId)
        .where('status', '=', 'queued')
        .returning('commandId')
        .executeTakeFirst()
      if (!won) continue
      changed.push({ commandId: Number(c.commandId), deviceId: device.deviceId, command: c.command, status: 'sent', reply: null, roundTripMs: null })
      messages.push({ device, payload: this.payload(c.requestId, c.command, JSON.parse(c.params) as Record<string, unknown>, Date.parse(c.expiresAt)) })
    }
    await this.announce(changed)
    await this.publishAll(messages)
    return messages.length
  }

  /**
   * The device asked (up/sync, or subscribed): its commands sent and not answered at all, within
   * their deadline, go again as they were (same id and expiry; the deadline still counts from the
   * first send). One it did receive is a duplicate to it, which changes nothing.
   */
  async sendUnanswered(device: KnownDevice): Promise<number> {
    if (this.closed) return 0
    const sent = await this.unansweredOf(device.deviceId)
    await this.publishAll(sent.map((c) => ({ device, payload: this.payload(c.requestId, c.command, JSON.parse(c.params) as Record<string, unknown>, Date.parse(c.expiresAt)) })))
    return sent.length
  }

  // ---- Replies ------------------------------------------------------------------------------

  private onReply(m: UpMessage<ReplyPayload>) {
    // Closing: the last batch is written; a later one would find the database gone.
    if (this.closed) return
    const { id: requestId, status } = m.payload
    const deviceId = m.device.deviceId
    // Keyed by device too: a device naming another's request id must not merge with the real answer.
    const key = `${deviceId}:${requestId}`
    let entry = this.pending.get(key)
    if (!entry) {
      entry = { requestId, deviceId, deliveredAt: null, final: null }
      this.pending.set(key, entry)
    }
    const at = iso(m.receivedAt)
    if (status === 'accepted') entry.deliveredAt ??= at
    else entry.final ??= { status: REPLY_STATUS[status], reply: JSON.stringify(m.payload), repliedAt: at }
    this.flushTimer ??= setTimeout(() => void this.flushReplies().catch((err) => this.o.log?.error({ err }, 'could not write command replies')), this.replyFlushMs)
  }

  /** Writes the replies gathered so far in one statement (10,000 devices answer within a second). */
  flushReplies(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer)
    this.flushTimer = null
    const batch = [...this.pending.values()]
    this.pending = new Map()
    if (batch.length === 0) return this.writing
    this.writing = this.writing.catch(() => {}).then(() => this.applyReplies(batch))
    return this.writing
  }

  private async applyReplies(batch: PendingReply[]) {
    const rows = batch.map((r) => ({
      requestId: r.requestId,
      deviceId: r.deviceId,
      status: r.final?.status ?? 'delivered',
      deliveredAt: r.deliveredAt,
      reply: r.final?.reply ?? null,
      repliedAt: r.final?.repliedAt ?? null,
    }))
    const changed = await this.updateFromReplies(rows)
    await this.announce(changed)
    // A final answer that changed nothing came too late (or twice): keep a late one for the record.
    const matched = new Set(changed.map((c) => `${c.deviceId}:${c.requestId}`))
    const late = rows.filter((r) => r.reply !== null && !matched.has(`${r.deviceId}:${r.requestId}`))
    if (late.length) await this.keepLateReplies(late)
  }

  /**
   * One UPDATE … FROM over the whole batch, from a bound array (PostgreSQL) or one bound JSON text
   * (SQLite): an accepted moves sent → delivered, a final answer moves sent/delivered → final.
   */
  private async updateFromReplies(
    rows: { requestId: string; deviceId: number; status: string; deliveredAt: string | null; reply: string | null; repliedAt: string | null }[],
  ): Promise<(ChangedRow & { requestId: string })[]> {
    const now = iso()
    if (this.dialect === 'postgres') {
      const result = await sql<ChangedRow & { requestId: string }>`
        update iot_command as c set
          status = v.status,
          delivered_at = coalesce(c.delivered_at, v.delivered_at, v.replied_at),
          reply = coalesce(v.reply, c.reply),
          replied_at = coalesce(v.replied_at, c.replied_at),
          round_trip_ms = case when v.replied_at is null or c.sent_at is null then c.round_trip_ms
            else greatest(0, round(extract(epoch from (v.replied_at - c.sent_at)) * 1000))::integer end,
          update_time = ${now}::timestamptz
        from unnest(
          ${rows.map((r) => r.requestId)}::text[], ${rows.map((r) => r.deviceId)}::bigint[], ${rows.map((r) => r.status)}::text[],
          ${rows.map((r) => r.deliveredAt)}::timestamptz[], ${rows.map((r) => r.reply)}::text[], ${rows.map((r) => r.repliedAt)}::timestamptz[]
        ) as v(request_id, device_id, status, delivered_at, reply, replied_at)
        where c.request_id = v.request_id and c.device_id = v.device_id
          and (c.status = 'sent' or (c.status = 'delivered' and v.status <> 'delivered'))
        returning c.command_id, c.request_id, c.device_id, c.command, c.status, c.reply, c.round_trip_ms`.execute(this.db)
      return result.rows.map(normalizeChanged)
    }
    const json = JSON.stringify(rows.map((r) => ({ r: r.requestId, d: r.deviceId, s: r.status, da: r.deliveredAt, rp: r.reply, ra: r.repliedAt })))
    const result = await sql<ChangedRow & { requestId: string }>`
      update iot_command as c set
        status = v.status,
        delivered_at = coalesce(c.delivered_at, v.delivered_at, v.replied_at),
        reply = coalesce(v.reply, c.reply),
        replied_at = coalesce(v.replied_at, c.replied_at),
        round_trip_ms = case when v.replied_at is null or c.sent_at is null then c.round_trip_ms
          else max(0, cast(round((unixepoch(v.replied_at, 'subsec') - unixepoch(c.sent_at, 'subsec')) * 1000) as integer)) end,
        update_time = ${now}
      from (
        select value ->> '$.r' as request_id, value ->> '$.d' as device_id, value ->> '$.s' as status,
          value ->> '$.da' as delivered_at, value ->> '$.rp' as reply, value ->> '$.ra' as replied_at
        from json_each(${json})
      ) as v
      where c.request_id = v.request_id and c.device_id = v.device_id
        -- The unary + keeps SQLite off the status index: walking every sent command and scanning the
        -- batch for each is quadratic; the batch drives, each row found by its unique request_id.
        and (+c.status = 'sent' or (+c.status = 'delivered' and v.status <> 'delivered'))
      returning command_id, request_id, device_id, command, status, reply, round_trip_ms`.execute(this.db)
    return result.rows.map(normalizeChanged)
  }

  /** A timed-out command keeps its status; its reply, if it ever comes, is stored for whoever investigates. */
  private async keepLateReplies(rows: { requestId: string; deviceId: number; reply: string | null }[]) {
    // Rare (a device answering after its deadline), so one small statement each.
    for (const r of rows) {
      await this.db
        .updateTable('iotCommand')
        .set({ reply: r.reply })
        .where('requestId', '=', r.requestId)
        .where('deviceId', '=', r.deviceId)
        .where('status', '=', 'timedOut')
        .where('reply', 'is', null)
        .execute()
    }
  }

  // ---- Timeouts and expiry ------------------------------------------------------------------

  /** Sent commands past their deadline time out; queued ones past their expiry expire. Safe on several instances. */
  sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce().finally(() => {
      this.sweeping = null
    })
    return this.sweeping
  }

  private async sweepOnce() {
    const now = iso()
    const columns = ['commandId', 'deviceId', 'command', 'status', 'reply', 'roundTripMs'] as const
    const timedOut = await this.db
      .updateTable('iotCommand')
      .set({ status: 'timedOut', updateTime: now })
      .where('status', 'in', ['sent', 'delivered'])
      .where('deadlineAt', '<', now)
      .returning(columns)
      .execute()
    const expired = await this.db
      .updateTable('iotCommand')
      .set({ status: 'expired', updateTime: now })
      .where('status', '=', 'queued')
      .where('expiresAt', '<', now)
      .returning(columns)
      .execute()
    await this.announce([...timedOut, ...expired].map(normalizeChanged))
  }

  // ---- Reading ------------------------------------------------------------------------------

  async get(commandId: number): Promise<CommandOutcome | undefined> {
    const row = await this.db
      .selectFrom('iotCommand')
      .select(['commandId', 'requestId', 'deviceId', 'command', 'status', 'reply', 'roundTripMs', 'sentAt', 'repliedAt'])
      .where('commandId', '=', commandId)
      .executeTakeFirst()
    return row && { ...row, commandId: Number(row.commandId), deviceId: Number(row.deviceId), status: row.status as CommandStatus }
  }

  /**
   * Resolves with the command once it is final, or as it stands after timeoutMs. Listens to the live
   * events, so it also sees a reply another instance handled.
   */
  async wait(commandId: number, timeoutMs: number): Promise<CommandOutcome | undefined> {
    return new Promise((resolve, reject) => {
      let done = false
      const finish = () => {
        if (done) return
        done = true
        clearTimeout(timer)
        off()
        this.get(commandId).then(resolve, reject)
      }
      const off = this.o.events.subscribe((e) => {
        if (e.type === 'command' && e.data.commandId === commandId && isFinal(e.data.status)) finish()
      })
      const timer = setTimeout(finish, timeoutMs)
      // It may have become final before the subscription.
      this.get(commandId).then((row) => {
        if (!row || isFinal(row.status)) finish()
      }, reject)
    })
  }

  private async announce(changed: ChangedRow[]) {
    if (changed.length === 0) return
    const events: IotEvent[] = changed.map((c) => ({
      type: 'command',
      data: { commandId: c.commandId, deviceId: c.deviceId, command: c.command, status: c.status as CommandStatus, reply: c.reply, roundTripMs: c.roundTripMs } satisfies CommandEvent,
    }))
    const bus = this.o.events
    const deliveries = bus.publishBatch ? chunks(events, EVENTS_PER_MESSAGE).map((part) => bus.publishBatch!(part)) : events.map((e) => bus.publish(e))
    const failed = (await Promise.allSettled(deliveries)).find((r) => r.status === 'rejected')
    if (failed) this.o.log?.warn({ err: (failed as PromiseRejectedResult).reason }, 'could not publish command events')
  }
}

function normalizeChanged<T extends ChangedRow>(row: T): T {
  return { ...row, commandId: Number(row.commandId), deviceId: Number(row.deviceId), roundTripMs: row.roundTripMs === null ? null : Number(row.roundTripMs) }
}
