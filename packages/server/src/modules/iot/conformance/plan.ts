import { randomBytes, randomUUID } from 'node:crypto'
import { type ChecklistResult, type CommandStatus, downTopic, FINAL_COMMAND_STATUSES, type Label, type Language, PROTOCOL_VERSION } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import mqtt from 'mqtt'
import { DEFAULT_HEARTBEAT_SECONDS, HEARTBEAT_SECONDS_KEY } from '../../../gateway/presence'
import type { KnownDevice } from '../../../gateway/types'
import { t, type MessageParams } from '../../../platform/i18n'
import type { MessageKey } from '../../../platform/i18n/messages'
import { otaSignerOf } from '../../ota/signing'
import { checkShape, DeviceProbe, isPresence, type Seen } from './probe'
import { TEST_AUDIO_NAME, TestUpgrade } from './upgrade'

export const PROTOCOL_DOC = 'docs/iot-protocol.md'

export type ClauseResult = 'passed' | 'failed' | 'skipped'

/** One clause of the report, in the starter's language. */
export interface ClauseReport {
  id: string
  title: string
  /** The section of docs/iot-protocol.md the clause checks: its anchor, and its title as the page writes it. */
  section: { anchor: string; title: string; ref: string }
  result: ClauseResult
  /** Why it failed or was skipped (empty when it passed). */
  reason: string
  ms: number
}

/** A checklist result (shared › jobs.ts): Monitoring › Jobs shows it as a table. */
export interface ConformanceReport extends ChecklistResult {
  sn: string
  deviceId: number
  broker: 'embedded' | 'external'
  startedAt: string
  finishedAt: string | null
  /** Every clause passed (false while the run is under way). */
  passed: boolean
  counts: Record<ClauseResult, number>
  clauses: ClauseReport[]
}

interface Why {
  key: MessageKey
  params?: MessageParams
}

type Outcome = { result: 'passed' } | { result: 'failed' | 'skipped'; why: Why }

const passed: Outcome = { result: 'passed' }
const failed = (key: MessageKey, params?: MessageParams): Outcome => ({ result: 'failed', why: { key, params } })
const skipped = (key: MessageKey, params?: MessageParams): Outcome => ({ result: 'skipped', why: { key, params } })

/** What a clause works with. */
export interface RunContext {
  app: FastifyInstance
  device: KnownDevice
  probe: DeviceProbe
  /** How long a clause waits for each answer of the device. */
  waitMs: number
  signal: AbortSignal
  createBy: string
  /** The run's own id, for the test upgrades' ids. */
  runId: string
  /** The presence clause found the device online: clauses that need it connected run. */
  online: boolean
  /** The test upgrade under way: aborted when the run is cancelled, so the device does not wait on it. */
  upgrade: TestUpgrade | null
}

interface Clause {
  id: string
  title: Label
  section: { anchor: string; title: string }
  /** Drops the device's connection, which only the embedded broker can. */
  embeddedOnly?: boolean
  /** Needs the device connected (skipped when the presence clause found it offline). */
  connected?: boolean
  run(ctx: RunContext): Promise<Outcome>
}

const seconds = (ms: number) => Math.round(ms / 100) / 10
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })

const FINAL = new Set<string>(FINAL_COMMAND_STATUSES)

/** Sends a command through the command queue (as the console does) and waits for its end. */
async function command(ctx: RunContext, name: string, params: Record<string, unknown> = {}) {
  const timeoutSeconds = Math.max(1, Math.ceil(ctx.waitMs / 1000))
  const sent = await ctx.app.iot.commands.send({ deviceIds: [ctx.device.deviceId], command: name, params, timeoutSeconds, createBy: ctx.createBy })
  const { commandId, requestId } = sent.commands[0]!
  const deadline = Date.now() + ctx.waitMs + 2000
  const db = ctx.app.services.db
  for (;;) {
    const row = await db.selectFrom('iotCommand').select(['status', 'reply']).where('commandId', '=', commandId).executeTakeFirstOrThrow()
    if (FINAL.has(row.status) || Date.now() > deadline || ctx.signal.aborted) {
      let reply: { code?: number; message?: string } = {}
      try {
        reply = row.reply ? (JSON.parse(row.reply) as typeof reply) : {}
      } catch {
        // a reply that is no JSON says nothing more than its status
      }
      return { requestId, status: row.status as CommandStatus, final: FINAL.has(row.status), code: reply.code }
    }
    await sleep(50, ctx.signal)
  }
}

function commandOutcome(name: string, got: Awaited<ReturnType<typeof command>>, expected: { status: CommandStatus; code: number }, ctx: RunContext): Outcome | null {
  if (!got.final || got.status === 'timedOut') return failed('iot.conformance.reason.noReply', { command: name, seconds: seconds(ctx.waitMs) })
  if (got.status === expected.status && (got.code ?? 0) === expected.code) return null
  return failed('iot.conformance.reason.commandOutcome', { command: name, status: got.status, code: got.code ?? '', expected: `${expected.status} ${expected.code}` })
}

/** Waits for the device back online after `from` (its presence). */
async function backOnline(ctx: RunContext, from: number): Promise<Outcome | null> {
  const back = await ctx.probe.find(from, isPresence('online'), ctx.waitMs, ctx.signal)
  return back ? null : failed('iot.conformance.reason.notBack', { seconds: seconds(ctx.waitMs) })
}

/** The block size a request echoes (the offer's, unless the device asks for another). */
const blockBytesOf = (request: Seen) => (typeof request.json?.blockBytes === 'number' ? request.json.blockBytes : undefined)
const isUpgrade = (id: string, kind: 'ota' | 'otaReq') => (s: Seen) => s.kind === kind && s.json?.id === id
const stageOf = (s: Seen) => String(s.json?.stage ?? '')
const ENDS = new Set(['failed', 'rejected', 'aborted', 'rolledBack'])

/**
 * Drives a test upgrade's download: answers each block request for it (damaging `damage` once), until
 * `stop` says a request must not be served (answered with it) or the device reports a stage `until`
 * wants, or one that ends the upgrade (answered with that stage).
 */
async function drive(
  ctx: RunContext,
  up: TestUpgrade,
  from: number,
  o: { until: (stage: string) => boolean; stop?: (first: number, count: number) => boolean; damage?: number },
): Promise<{ request?: Seen; stage?: Seen; index: number } | null> {
  let i = from
  for (;;) {
    const next = await ctx.probe.find(i, (s) => isUpgrade(up.id, 'otaReq')(s) || isUpgrade(up.id, 'ota')(s), ctx.waitMs, ctx.signal)
    if (!next) return null
    i = next.index + 1
    if (next.kind === 'ota') {
      const stage = stageOf(next)
      if (o.until(stage) || ENDS.has(stage)) return { stage: next, index: i }
      continue
    }
    const first = Number(next.json?.first)
    const count = Math.min(32, Number(next.json?.count))
    if (!Number.isInteger(first) || !Number.isInteger(count)) continue
    if (o.stop?.(first, count)) return { request: next, index: i }
    await up.serve(first, count, o.damage, blockBytesOf(next))
  }
}

/** How a driven download that did not reach `expected` failed. */
function upgradeFailure(ctx: RunContext, got: { stage?: Seen } | null, expected: string): Outcome {
  if (!got?.stage) return failed('iot.conformance.reason.otaTimeout', { expected, seconds: seconds(ctx.waitMs) })
  return failed('iot.conformance.reason.otaStage', { stage: stageOf(got.stage), code: String(got.stage.json?.code ?? ''), expected })
}

/** The rest of a download that must end with the image checked and the audio installed. */
async function finish(ctx: RunContext, up: TestUpgrade, from: number, damage?: number): Promise<Outcome> {
  const verified = await drive(ctx, up, from, { until: (s) => s === 'verified', damage })
  if (!verified?.stage || stageOf(verified.stage) !== 'verified') return upgradeFailure(ctx, verified, 'verified')
  // An audio upgrade's success (OTA › Stages): a status listing the name at its version.
  const installed = await ctx.probe.find(
    verified.index,
    (s) => s.kind === 'status' && (s.json?.audio as Record<string, unknown> | undefined)?.[TEST_AUDIO_NAME] === up.version,
    ctx.waitMs,
    ctx.signal,
  )
  if (!installed) return failed('iot.conformance.reason.otaNotInstalled', { name: TEST_AUDIO_NAME, version: up.version, seconds: seconds(ctx.waitMs) })
  return passed
}

let upgrades = 0
const testUpgrade = (ctx: RunContext) => (ctx.upgrade = new TestUpgrade(`k${ctx.runId}x${++upgrades}`, ctx.app.iot.gateway, ctx.device, otaSignerOf(ctx.app.services)))

/** Where the kit's own MQTT connection goes: the broker devices use, without the server's credentials. */
function brokerUrl(app: FastifyInstance): string {
  if (app.iot.broker) return `mqtt://127.0.0.1:${app.iot.broker.port}`
  const url = new URL(app.services.config.mqttUrl!)
  url.username = ''
  url.password = ''
  return url.toString()
}

/** The plan, in the order it runs: each clause leaves the device connected and idle for the next. */
export const CLAUSES: readonly Clause[] = [
  {
    id: 'registration',
    title: { en_US: 'Registration and secret', zh_CN: '注册与密钥' },
    section: { anchor: 'registration', title: 'Registration; Connection (wrong secret: return code 5)' },
    async run(ctx) {
      const row = await ctx.app.services.db.selectFrom('iotDevice').select('secretHash').where('deviceId', '=', ctx.device.deviceId).executeTakeFirst()
      if (!row?.secretHash) return failed('iot.conformance.reason.noSecret')
      // As the device itself (client id and user name its SN), with a secret nobody was given.
      const client = await mqtt
        .connectAsync(brokerUrl(ctx.app), { clientId: ctx.device.sn, username: ctx.device.sn, password: randomBytes(32).toString('base64url'), protocolVersion: 4, clean: true, reconnectPeriod: 0, connectTimeout: ctx.waitMs }, false)
        .catch((err: Error & { code?: number | string }) => err)
      if (!(client instanceof Error)) {
        await client.endAsync(true).catch(() => {})
        return failed('iot.conformance.reason.wrongSecretAccepted', { sn: ctx.device.sn })
      }
      if (Number(client.code) !== 5) return failed('iot.conformance.reason.wrongSecretCode', { code: String(client.code ?? client.message) })
      return passed
    },
  },
  {
    id: 'presence',
    title: { en_US: 'Presence online, retained', zh_CN: '在线状态（保留消息）' },
    section: { anchor: 'presence', title: 'Topics › presence' },
    async run(ctx) {
      // The probe subscribed when the run began: the broker hands a new subscriber the retained presence first.
      const retained = await ctx.probe.find(0, (s) => s.kind === 'presence' && s.retain, ctx.waitMs, ctx.signal)
      if (!retained) return failed('iot.conformance.reason.noRetainedPresence', { sn: ctx.device.sn, seconds: seconds(ctx.waitMs) })
      const shape = checkShape('presence', retained.raw)
      if (!shape.ok) return failed('iot.conformance.reason.invalid', { kind: 'presence', issues: shape.issues })
      if (retained.json?.state !== 'online') return failed('iot.conformance.reason.presenceState', { state: String(retained.json?.state) })
      ctx.online = true
      return passed
    },
  },
  {
    id: 'lastWill',
    title: { en_US: 'Last will on a lost connection, then back online', zh_CN: '连接中断时的遗嘱消息及重新上线' },
    section: { anchor: 'connection', title: 'Connection (last will)' },
    embeddedOnly: true,
    connected: true,
    async run(ctx) {
      const from = ctx.probe.mark()
      if (!ctx.app.iot.kick(ctx.device.sn)) return failed('iot.conformance.reason.notConnected')
      const will = await ctx.probe.find(from, isPresence('offline', 'lost'), ctx.waitMs, ctx.signal)
      if (!will) return failed('iot.conformance.reason.noWill', { seconds: seconds(ctx.waitMs) })
      const shape = checkShape('presence', will.raw)
      if (!shape.ok) return failed('iot.conformance.reason.invalid', { kind: 'presence', issues: shape.issues })
      return (await backOnline(ctx, will.index + 1)) ?? passed
    },
  },
  {
    id: 'heartbeat',
    title: { en_US: 'Heartbeat within the interval', zh_CN: '按间隔发送心跳' },
    section: { anchor: 'heartbeat', title: 'Topics › heartbeat' },
    connected: true,
    async run(ctx) {
      // The interval the registration answer and GET /iot/broker give, with a little room for the network.
      const interval = await ctx.app.services.configValues.int(HEARTBEAT_SECONDS_KEY, DEFAULT_HEARTBEAT_SECONDS)
      const limitMs = interval * 1100 + 1000
      const beat = await ctx.probe.find(ctx.probe.mark(), (s) => s.kind === 'heartbeat', limitMs, ctx.signal)
      if (!beat) return failed('iot.conformance.reason.noHeartbeat', { seconds: seconds(limitMs), interval })
      const shape = checkShape('heartbeat', beat.raw)
      return shape.ok ? passed : failed('iot.conformance.reason.invalid', { kind: 'heartbeat', issues: shape.issues })
    },
  },
  ...(['status', 'telemetry'] as const).map(
    (kind): Clause => ({
      id: kind,
      title: kind === 'status' ? { en_US: 'Status on request, valid shape', zh_CN: '按请求上报状态，格式正确' } : { en_US: 'Telemetry on request, valid shape', zh_CN: '按请求上报遥测，格式正确' },
      section: { anchor: kind, title: `Topics › ${kind}; command (down) › report` },
      connected: true,
      async run(ctx) {
        const from = ctx.probe.mark()
        // `report`: publish status and telemetry now (every device supports it).
        const sending = command(ctx, 'report')
        const message = await ctx.probe.find(from, (s) => s.kind === kind, ctx.waitMs, ctx.signal)
        await sending
        if (!message) return failed('iot.conformance.reason.noMessage', { kind, seconds: seconds(ctx.waitMs) })
        const shape = checkShape(kind, message.raw)
        return shape.ok ? passed : failed('iot.conformance.reason.invalid', { kind, issues: shape.issues })
      },
    }),
  ),
  {
    id: 'ping',
    title: { en_US: 'Command ping succeeds', zh_CN: 'ping 指令成功' },
    section: { anchor: 'command-down', title: 'command (down); reply (up)' },
    connected: true,
    async run(ctx) {
      return commandOutcome('ping', await command(ctx, 'ping'), { status: 'succeeded', code: 0 }, ctx) ?? passed
    },
  },
  {
    id: 'unknownCommand',
    title: { en_US: 'Unknown command answered failed 404', zh_CN: '未知指令回复 failed 404' },
    section: { anchor: 'command-down', title: 'command (down) › Unknown commands' },
    connected: true,
    async run(ctx) {
      // The command layer sends no name outside the catalogue: the kit publishes it as the MQ debugger does.
      const id = randomUUID()
      const from = ctx.probe.mark()
      const now = Date.now()
      const payload = { v: PROTOCOL_VERSION, ts: now, id, name: 'conformanceProbe', params: {}, expiresAt: now + 10 * 60_000 }
      await ctx.app.iot.gateway.publishRaw(downTopic(ctx.device.sn, 'command'), JSON.stringify(payload), { qos: 1, retain: false })
      const reply = await ctx.probe.find(from, (s) => s.kind === 'reply' && s.json?.id === id && s.json?.status !== 'accepted', ctx.waitMs, ctx.signal)
      if (ctx.probe.all(from, (s) => s.kind === 'reply' && s.json?.id === id && s.json?.status === 'accepted').length) return failed('iot.conformance.reason.acceptedUnknown')
      if (!reply) return failed('iot.conformance.reason.noReply', { command: payload.name, seconds: seconds(ctx.waitMs) })
      const shape = checkShape('reply', reply.raw)
      if (!shape.ok) return failed('iot.conformance.reason.invalid', { kind: 'reply', issues: shape.issues })
      if (reply.json?.status !== 'failed' || reply.json?.code !== 404)
        return failed('iot.conformance.reason.commandOutcome', { command: payload.name, status: String(reply.json?.status), code: String(reply.json?.code ?? ''), expected: 'failed 404' })
      return passed
    },
  },
  {
    id: 'reboot',
    title: { en_US: 'Reboot: answer, offline (reboot), back online', zh_CN: '重启：先回复，再离线（reboot），再上线' },
    section: { anchor: 'command-down', title: 'command (down) › Reboot' },
    connected: true,
    async run(ctx) {
      const from = ctx.probe.mark()
      const got = await command(ctx, 'reboot', { delaySeconds: 0 })
      const wrong = commandOutcome('reboot', got, { status: 'succeeded', code: 0 }, ctx)
      if (wrong) return wrong
      const reply = ctx.probe.all(from, (s) => s.kind === 'reply' && s.json?.id === got.requestId && s.json?.status === 'succeeded')[0]
      const offline = await ctx.probe.find(from, isPresence('offline', 'reboot'), ctx.waitMs, ctx.signal)
      if (!offline) return failed('iot.conformance.reason.noRebootPresence', { seconds: seconds(ctx.waitMs) })
      if (reply && offline.index < reply.index) return failed('iot.conformance.reason.presenceBeforeReply')
      return (await backOnline(ctx, offline.index + 1)) ?? passed
    },
  },
  {
    id: 'configOutOfRange',
    title: { en_US: 'Configuration out of range refused (422)', zh_CN: '超出范围的配置被拒绝（422）' },
    section: { anchor: 'setconfig-values', title: 'command (down) › setConfig values (all or nothing)' },
    connected: true,
    async run(ctx) {
      // fallAngle runs 20–90 (CONFIG_VALUES): 999 is no value a bike can run.
      const got = await command(ctx, 'setConfig', { version: 'conformance-range', values: { fallAngle: 999 } })
      return commandOutcome('setConfig', got, { status: 'failed', code: 422 }, ctx) ?? passed
    },
  },
  {
    id: 'otaDamagedBlock',
    title: { en_US: 'OTA: a damaged block is asked for again, SHA-256 verified', zh_CN: 'OTA：损坏的块被重新请求，SHA-256 校验通过' },
    section: { anchor: 'ota-generation-2-block-transfer', title: 'OTA › Blocks over MQTT' },
    connected: true,
    async run(ctx) {
      const up = testUpgrade(ctx)
      const damage = 1
      const from = ctx.probe.mark()
      await up.offer()
      // Served until the device asks for the damaged block again (its window after it), or the upgrade ends.
      const again = await drive(ctx, up, from, {
        damage,
        until: (s) => s === 'downloaded' || s === 'verified',
        stop: (first, count) => up.damaged.has(damage) && first <= damage && damage < first + count,
      })
      if (!again?.request) {
        if (again?.stage && !ENDS.has(stageOf(again.stage))) return failed('iot.conformance.reason.otaNotReasked', { block: damage })
        if (again?.stage && stageOf(again.stage) === 'failed' && up.damaged.has(damage)) return failed('iot.conformance.reason.otaNotReasked', { block: damage })
        return upgradeFailure(ctx, again, 'verified')
      }
      const r = again.request.json!
      await up.serve(Number(r.first), Math.min(32, Number(r.count)), undefined, blockBytesOf(again.request))
      return finish(ctx, up, again.index)
    },
  },
  {
    id: 'otaResume',
    title: { en_US: 'OTA: resumes from the first missing block after a drop', zh_CN: 'OTA：断线后从第一个缺失块续传' },
    section: { anchor: 'ota-generation-2-block-transfer', title: 'OTA › Resume' },
    embeddedOnly: true,
    connected: true,
    async run(ctx) {
      const up = testUpgrade(ctx)
      const from = ctx.probe.mark()
      await up.offer()
      // The first window is served; the request for the next one is not: the connection drops instead.
      const next = await drive(ctx, up, from, { until: () => false, stop: (first) => first > 0 })
      if (!next?.request) return upgradeFailure(ctx, next, 'downloading')
      const expected = Number(next.request.json!.first)
      const dropped = ctx.probe.mark()
      ctx.app.iot.kick(ctx.device.sn)
      const back = await ctx.probe.find(dropped, isPresence('online'), ctx.waitMs, ctx.signal)
      if (!back) return failed('iot.conformance.reason.notBack', { seconds: seconds(ctx.waitMs) })
      // From the drop, not from the presence: a device may ask before its announcement is out.
      const resumed = await ctx.probe.find(dropped, isUpgrade(up.id, 'otaReq'), ctx.waitMs, ctx.signal)
      if (!resumed) {
        await up.abort()
        return failed('iot.conformance.reason.otaNoResume', { seconds: seconds(ctx.waitMs) })
      }
      const first = Number(resumed.json?.first)
      if (first !== expected) {
        await up.abort()
        return failed('iot.conformance.reason.otaResumeFrom', { first, expected })
      }
      await up.serve(first, Math.min(32, Number(resumed.json?.count)), undefined, blockBytesOf(resumed))
      return finish(ctx, up, resumed.index + 1)
    },
  },
  {
    id: 'otaBadSignature',
    title: { en_US: 'OTA: a bad signature is refused (E_SIGNATURE), nothing downloaded', zh_CN: 'OTA：签名错误被拒绝（E_SIGNATURE），不下载' },
    section: { anchor: 'signed-images', title: 'OTA › Signed images' },
    connected: true,
    async run(ctx) {
      const up = testUpgrade(ctx)
      const from = ctx.probe.mark()
      await up.offer({ badSignature: true })
      const answer = await ctx.probe.find(from, (s) => isUpgrade(up.id, 'otaReq')(s) || isUpgrade(up.id, 'ota')(s), ctx.waitMs, ctx.signal)
      if (!answer) return failed('iot.conformance.reason.otaTimeout', { expected: 'failed E_SIGNATURE', seconds: seconds(ctx.waitMs) })
      const took = answer.kind === 'otaReq' || ['accepted', 'downloading'].includes(stageOf(answer))
      if (took) {
        await up.abort()
        return failed('iot.conformance.reason.otaSignatureAccepted', { what: answer.kind === 'otaReq' ? 'otaReq' : stageOf(answer) })
      }
      if (stageOf(answer) !== 'failed' || answer.json?.code !== 'E_SIGNATURE') return upgradeFailure(ctx, { stage: answer }, 'failed E_SIGNATURE')
      return passed
    },
  },
  {
    id: 'otaAbort',
    title: { en_US: 'OTA: an abort stops the download', zh_CN: 'OTA：中止后停止下载' },
    section: { anchor: 'commit-or-roll-back', title: 'OTA › Abort' },
    connected: true,
    async run(ctx) {
      const up = testUpgrade(ctx)
      const from = ctx.probe.mark()
      await up.offer()
      const next = await drive(ctx, up, from, { until: () => false, stop: (first) => first > 0 })
      if (!next?.request) return upgradeFailure(ctx, next, 'downloading')
      await up.abort()
      const aborted = await ctx.probe.find(next.index, (s) => isUpgrade(up.id, 'ota')(s) && stageOf(s) === 'aborted', ctx.waitMs, ctx.signal)
      if (!aborted) return failed('iot.conformance.reason.otaTimeout', { expected: 'aborted', seconds: seconds(ctx.waitMs) })
      // A device that kept going would ask again within its block timeout ("a couple of seconds").
      const later = await ctx.probe.find(aborted.index, isUpgrade(up.id, 'otaReq'), Math.min(ctx.waitMs, 3000), ctx.signal)
      return later ? failed('iot.conformance.reason.otaAfterAbort') : passed
    },
  },
]

const emptyCounts = (): Record<ClauseResult, number> => ({ passed: 0, failed: 0, skipped: 0 })

export interface RunOptions {
  app: FastifyInstance
  device: KnownDevice
  waitMs: number
  signal: AbortSignal
  createBy: string
  runId: string
  lang: Language
  /** Called after each clause with the report so far (the job writes it to its result). */
  onClause?: (report: ConformanceReport, done: number, total: number) => Promise<void> | void
}

/** Runs the plan against one device, clause after clause; never throws for what the device does. */
export async function runConformance(o: RunOptions): Promise<ConformanceReport> {
  const { app, device, lang } = o
  const embedded = !!app.iot.broker
  const report: ConformanceReport = {
    sn: device.sn,
    deviceId: device.deviceId,
    broker: embedded ? 'embedded' : 'external',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    passed: false,
    counts: emptyCounts(),
    clauses: [],
  }
  const probe = await DeviceProbe.open(app.iot.gateway, device.sn)
  const ctx: RunContext = { app, device, probe, waitMs: o.waitMs, signal: o.signal, createBy: o.createBy, runId: o.runId, online: false, upgrade: null }
  try {
    for (const clause of CLAUSES) {
      o.signal.throwIfAborted()
      const started = Date.now()
      let outcome: Outcome
      if (clause.embeddedOnly && !embedded) outcome = skipped('iot.conformance.reason.needsEmbedded')
      else if (clause.connected && !ctx.online) outcome = skipped('iot.conformance.reason.deviceOffline')
      else {
        try {
          outcome = await clause.run(ctx)
        } catch (err) {
          o.signal.throwIfAborted()
          outcome = failed('iot.conformance.reason.error', { message: err instanceof Error ? err.message : String(err) })
        }
        // A clause cut short by a cancel judged nothing: it is left out of the report.
        o.signal.throwIfAborted()
      }
      // A test upgrade a failed clause left under way would make the device answer the next offer busy.
      if (ctx.upgrade && outcome.result !== 'passed') await ctx.upgrade.abort().catch(() => {})
      ctx.upgrade = null
      report.clauses.push({
        id: clause.id,
        title: clause.title[lang],
        section: { anchor: clause.section.anchor, title: clause.section.title, ref: `${PROTOCOL_DOC}#${clause.section.anchor}` },
        result: outcome.result,
        reason: outcome.result === 'passed' ? '' : t(lang, outcome.why.key, outcome.why.params),
        ms: Date.now() - started,
      })
      report.counts[outcome.result]++
      await o.onClause?.(report, report.clauses.length, CLAUSES.length)
    }
  } finally {
    if (o.signal.aborted) await ctx.upgrade?.abort().catch(() => {})
    await probe.close()
  }
  report.finishedAt = new Date().toISOString()
  report.passed = report.counts.passed === CLAUSES.length
  return report
}
