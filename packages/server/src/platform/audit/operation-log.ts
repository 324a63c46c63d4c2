import { DEFAULT_LANGUAGE } from '@velo/shared'
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Insertable } from 'kysely'
import type { Db } from '../../db/database'
import type { OperLogTable } from '../../db/schema'
import { AppError } from '../errors'
import { languageOf } from '../http'
import { t } from '../i18n'
import { maskSecrets } from './mask'

export const BusinessType = {
  other: '0',
  insert: '1',
  update: '2',
  delete: '3',
  grant: '4',
  export: '5',
  import: '6',
  forceLogout: '7',
  clean: '9',
} as const
export type BusinessTypeCode = (typeof BusinessType)[keyof typeof BusinessType]

export interface AuditConfig {
  /** Module title in the log; defaults to the first segment of the path. */
  module?: string
  businessType?: BusinessTypeCode
  /**
   * Fields of the body that hold riders' personal data (shared/src/privacy.ts): the log keeps that
   * one was sent, never its value, so the log holds no personal data whoever may read it.
   */
  personal?: ReadonlySet<string>
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: not a mutation (queries sent as POST, sign-in which has its own log). */
    audit?: false | AuditConfig
  }
  interface FastifyRequest {
    /** The request's row in sys_oper_log, once there is one. */
    auditRowId?: number
  }
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
// A GET that changes something (RuoYi-style unlock) says so with an audit config of its own.
const audited = (req: FastifyRequest) => MUTATING.has(req.method) || !!req.routeOptions.config.audit
const logged = (req: FastifyRequest) => audited(req) && req.routeOptions.config.audit !== false && !!req.routeOptions.url
const MAX_TEXT = 2000
const SUCCESS = '0'
const FAILURE = '1'

/** Refusals of callers who are not signed in written row by row per interval; the rest are counted. */
const REFUSALS_IN_FULL = 5
const REFUSAL_INTERVAL_MS = 60_000
/** Distinct addresses and routes a summary names at most: a flood from many addresses stays one bounded row. */
const SUMMARY_KEYS = 1000
const SUMMARY_SHOWN = 20

function defaultType(method: string): BusinessTypeCode {
  if (method === 'PUT' || method === 'PATCH') return BusinessType.update
  if (method === 'DELETE') return BusinessType.delete
  return BusinessType.insert
}

function truncate(text: string) {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text
}

function paramsOf(req: FastifyRequest): string {
  const parts: Record<string, unknown> = {}
  if (req.params && Object.keys(req.params).length) parts.params = req.params
  if (req.query && Object.keys(req.query).length) parts.query = req.query
  if (req.body !== undefined && !req.isMultipart()) parts.body = req.body
  if (req.isMultipart()) parts.body = '(file upload)'
  return truncate(JSON.stringify(maskSecrets(parts, (req.routeOptions.config.audit || undefined)?.personal)))
}

/** What the request is: everything in its row but the outcome. */
function requestRow(req: FastifyRequest, apiPrefix: string) {
  const audit = req.routeOptions.config.audit || undefined
  const path = req.routeOptions.url!.slice(apiPrefix.length)
  return {
    title: (audit?.module ?? path.split('/')[1] ?? '').slice(0, 64),
    businessType: audit?.businessType ?? defaultType(req.method),
    method: `${req.method} ${req.routeOptions.url}`.slice(0, 255),
    requestMethod: req.method,
    operName: req.auth?.userName ?? '',
    deptName: req.auth?.deptName ?? '',
    operUrl: req.url.split('?')[0]!.slice(0, 500),
    operIp: req.ip,
    operParam: paramsOf(req),
    requestId: String(req.id),
  }
}

/** Names of an answer's data that identify rows: dictId, memberId, deviceIds, id. */
const ID_KEY = /^(ids?|[a-z][A-Za-z0-9]*Ids?)$/
/** Names of an answer's data that count rows: total, deleted, inserted, updated, rowsAffected, rowCount. */
const COUNT_KEY = /^(total|count|inserted|updated|deleted|removed|added|accepted|refused|skipped|[a-z][A-Za-z0-9]*(Count|Affected))$/
const MAX_IDS = 100

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v)

/**
 * What the log keeps of an answer's data: the ids and counts it names (top-level integers only) and
 * the length of each list, never a value of a row. An edit's answer is the member it changed, an SQL
 * statement's the rows it read: an operation-log reader sees which rows were touched and how many,
 * not the e-mails, phones and birthdays in them.
 */
function dataSummary(data: unknown): unknown {
  if (Array.isArray(data)) return { count: data.length }
  if (data === null || typeof data !== 'object') return isCount(data) ? data : undefined
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (ID_KEY.test(key) && isCount(value)) kept[key] = value
    else if (ID_KEY.test(key) && Array.isArray(value) && value.every(isCount)) kept[key] = value.slice(0, MAX_IDS)
    else if (COUNT_KEY.test(key) && isCount(value)) kept[key] = value
    else if (Array.isArray(value)) kept[key] = value.length
  }
  return Object.keys(kept).length ? kept : undefined
}

/**
 * The outcome the log keeps in its result column (jsonResult), as JSON: the HTTP status (none for a
 * job), the envelope's code and message, and the summary of its data (dataSummary). Never the answer's
 * rows: a list, an export or an SQL statement's result is only its outcome and size.
 */
export function outcomeSummary(status: number | undefined, body?: { code?: number; msg?: string; data?: unknown }): string {
  const data = body ? dataSummary(body.data) : undefined
  return truncate(
    JSON.stringify({
      ...(status === undefined ? {} : { status }),
      ...(body?.code === undefined ? {} : { code: body.code }),
      ...(typeof body?.msg === 'string' ? { msg: body.msg } : {}),
      ...(data === undefined ? {} : { data }),
    }),
  )
}

/** How it ended, read from the envelope it was answered with. */
function outcomeRow(reply: FastifyReply, payload: unknown) {
  let status = reply.statusCode >= 400 ? FAILURE : SUCCESS
  let errorMsg = ''
  let body: { code?: number; msg?: string; data?: unknown } | undefined
  try {
    const parsed: unknown = typeof payload === 'string' ? JSON.parse(payload) : undefined
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as typeof body
  } catch {
    // Not an envelope (a file, a page): its status is its outcome.
  }
  if (body?.code !== undefined && body.code !== 200) {
    status = FAILURE
    errorMsg = typeof body.msg === 'string' ? body.msg : ''
  }
  return { status, errorMsg: truncate(errorMsg), jsonResult: outcomeSummary(reply.statusCode, body), costTime: Math.round(reply.elapsedTime) }
}

interface RefusalSummary {
  from: number
  to: number
  total: number
  unauthorized: number
  limited: number
  addresses: Map<string, number>
  routes: Map<string, number>
  lastUrl: string
  lastRequestId: string
}

/** The `n` biggest counts of a map, as an object for the row's parameters. */
function top(counts: Map<string, number>, n: number): Record<string, number> {
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).slice(0, n))
}

function bump(counts: Map<string, number>, key: string) {
  const n = counts.get(key)
  if (n !== undefined) counts.set(key, n + 1)
  else if (counts.size < SUMMARY_KEYS) counts.set(key, 1)
}

/**
 * Callers who are not signed in (answered 401, or 429 once their address is over its limit) are
 * anyone on the network, at any rate: a few such refusals per interval keep a row each, so a probe or
 * an expired session is there in full, and the rest become one summary row per interval with how
 * many there were, from which addresses and against which routes. An operator learns as much from
 * that as from 18,000 rows, and the log (and the database under it) cannot be flooded.
 */
class RefusalTally {
  private windowStart = 0
  private inFull = 0
  private pending: RefusalSummary | null = null
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** true: this refusal gets a row of its own; false: it is counted into the next summary. */
  admit(req: FastifyRequest, status: number): boolean {
    const now = Date.now()
    if (now - this.windowStart >= REFUSAL_INTERVAL_MS) {
      this.windowStart = now
      this.inFull = 0
    }
    if (this.inFull < REFUSALS_IN_FULL) {
      this.inFull++
      return true
    }
    const s = (this.pending ??= { from: now, to: now, total: 0, unauthorized: 0, limited: 0, addresses: new Map(), routes: new Map(), lastUrl: '', lastRequestId: '' })
    s.to = now
    s.total++
    if (status === 429) s.limited++
    else s.unauthorized++
    bump(s.addresses, req.ip)
    bump(s.routes, `${req.method} ${req.routeOptions.url}`)
    s.lastUrl = req.url.split('?')[0]!.slice(0, 500)
    s.lastRequestId = String(req.id)
    this.timer ??= setTimeout(() => void this.flush(), REFUSAL_INTERVAL_MS).unref()
    return false
  }

  /** Writes the summary of what was counted, if anything was (on the timer, and when the app closes). */
  async flush() {
    clearTimeout(this.timer)
    this.timer = undefined
    const s = this.pending
    this.pending = null
    if (!s) return
    const [ip, ipCount] = [...s.addresses].sort((a, b) => b[1] - a[1])[0] ?? ['', 0]
    const [route] = [...s.routes].sort((a, b) => b[1] - a[1])[0] ?? ['']
    const from = new Date(s.from).toISOString()
    const to = new Date(s.to).toISOString()
    const row: Insertable<OperLogTable> = {
      title: 'Refused before sign-in',
      businessType: BusinessType.other,
      method: route.slice(0, 255),
      requestMethod: route.split(' ')[0]!.slice(0, 10),
      operName: '',
      deptName: '',
      operUrl: s.lastUrl,
      operIp: ip,
      operParam: truncate(
        JSON.stringify({
          refused: s.total,
          answered: { 401: s.unauthorized, 429: s.limited },
          from,
          to,
          addresses: top(s.addresses, SUMMARY_SHOWN),
          routes: top(s.routes, SUMMARY_SHOWN),
        }),
      ),
      jsonResult: '',
      status: FAILURE,
      errorMsg: t(DEFAULT_LANGUAGE, 'audit.refusalSummary', { count: s.total, unauthorized: s.unauthorized, limited: s.limited, from, to, ip, ipCount }),
      operTime: to,
      costTime: 0,
      requestId: s.lastRequestId,
    }
    try {
      await this.db.insertInto('sysOperLog').values(row).execute()
    } catch (err) {
      this.log.error({ err, summary: row }, 'could not write the summary of refused requests to the operation log')
    }
  }
}

/**
 * Every mutating API request, good or bad, lands in sys_oper_log. One the handler will run is written
 * before it runs, and is refused when it cannot be (nothing has changed yet); the answer completes the
 * row before it is sent, so a client holding an answer always finds it logged. A request refused
 * before its handler (no session, no permission, bad input) is written once, with its answer.
 */
export function installOperationLog(api: FastifyInstance, db: Db, apiPrefix: string) {
  const refusals = new RefusalTally(db, api.log)
  api.addHook('onClose', () => refusals.flush())

  const open = async (req: FastifyRequest) => {
    if (!logged(req) || req.auditRowId !== undefined) return
    try {
      const { operId } = await db
        .insertInto('sysOperLog')
        .values({
          ...requestRow(req, apiPrefix),
          status: FAILURE,
          errorMsg: t(languageOf(req), 'audit.unfinished'),
          jsonResult: '',
          operTime: new Date().toISOString(),
          costTime: 0,
        })
        .returning('operId')
        .executeTakeFirstOrThrow()
      req.auditRowId = operId
    } catch (err) {
      req.log.error({ err }, 'could not write the operation log: the request is refused')
      throw new AppError(500, 'error.auditUnavailable', { requestId: String(req.id) })
    }
  }
  // Last of each route's preHandlers (after its rate limit): a request refused on the way in never
  // costs the extra write, and nothing runs between the row and the handler.
  api.addHook('onRoute', (route) => {
    const own = Array.isArray(route.preHandler) ? route.preHandler : route.preHandler ? [route.preHandler] : []
    if (!own.includes(open)) route.preHandler = [...own, open]
  })

  api.addHook('onSend', async (req, reply, payload) => {
    if (!logged(req)) return payload
    try {
      const outcome = outcomeRow(reply, payload)
      if (req.auditRowId !== undefined) {
        const { numUpdatedRows } = await db.updateTable('sysOperLog').set(outcome).where('operId', '=', req.auditRowId).executeTakeFirst()
        // Only a clean-up of the log itself removes the row it was written in; its outcome still goes in.
        if (numUpdatedRows > 0n) return payload
      } else if (!req.auth && (reply.statusCode === 401 || reply.statusCode === 429) && !refusals.admit(req, reply.statusCode)) {
        return payload
      }
      const { operId } = await db
        .insertInto('sysOperLog')
        .values({ ...requestRow(req, apiPrefix), ...outcome, operTime: new Date().toISOString() })
        .returning('operId')
        .executeTakeFirstOrThrow()
      req.auditRowId = operId
    } catch (err) {
      req.log.error({ err }, 'could not write the operation log')
    }
    return payload
  })
}
