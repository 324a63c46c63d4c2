import { SN_PATTERN, toolOperatorName } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { issueSecret } from '../../gateway/device-auth'
import { BusinessType } from '../../platform/audit/operation-log'
import { dummyPasswordHash, verifyPassword } from '../../platform/auth/passwords'
import { ok } from '../../platform/envelope'
import { badRequest, conflict, forbidden, notFound } from '../../platform/errors'
import { languageOf } from '../../platform/http'
import { t } from '../../platform/i18n'
import { bilingual } from '../../platform/i18n/zod-messages'
import { PUBLIC, TOOL } from '../../platform/rbac/guard'
import { done, envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { newDeviceRow } from '../iot/devices'
import { MIN_SATELLITES, type recordLineFixes } from './line'
import { endToolSession, openToolSession, toolOperator } from './sessions'
import { TOOL_AUDIT_MODULE, TOOL_SECURITY, TOOL_TAGS } from './tables'
import { loginAttemptsPerEmail } from '../../platform/auth/login-limits'
import type { Db } from '../../db/database'

/** Sign-in attempts per address (the whole line may sit behind one) and per account, as the staff sign-in limits them. */
const LOGIN_PER_ADDRESS = { max: 10, timeWindow: '1 minute' } as const

/** How long the ping of the test waits for the device (it stands on the line, next to the tool). */
const PING_TIMEOUT_SECONDS = 10
/** A fix older than this was not seen on the line now: the device is asked to report again. */
const FIX_FRESH_MS = 10 * 60_000
/** How long the test waits for a report it asked for to be written, by whichever instance received it. */
const REPORT_SETTLE_MS = 3000
/** One test of a device at a time, across instances; a test that died frees the device after this. */
const TEST_LOCK_SECONDS = 60

const audit = (businessType: (typeof BusinessType)[keyof typeof BusinessType]) => ({ module: TOOL_AUDIT_MODULE, businessType })

const snRule = z.string().trim().regex(SN_PATTERN, { message: bilingual({ en_US: 'SN: 4 to 32 upper-case letters or digits', zh_CN: 'SN：4 到 32 位大写字母或数字' }) })

const loginBody = z.strictObject({ email: z.string().trim().min(1).max(128), password: z.string().min(1).max(128) })
const loginAnswer = z.object({ token: z.string(), expiresAt: z.string(), email: z.string(), companyName: z.string(), userType: z.enum(['production', 'test']) })

const registerBody = z.strictObject({ sn: snRule, productId: z.string().trim().min(1).max(64) })
const registerAnswer = z.object({ deviceId: z.number(), sn: z.string(), secret: z.string(), mqtt: z.object({ url: z.string().optional(), port: z.number().optional() }) })

const testResult = z.enum(['pending', 'passed', 'failed'])
const toolDeviceAnswer = z.object({
  deviceId: z.number(),
  sn: z.string(),
  productId: z.string(),
  userType: z.enum(['production', 'test']),
  registeredAt: z.string(),
  testResult,
  pingMs: z.number().nullable(),
  gnssSatellites: z.number().nullable(),
  gnssLatitude: z.number().nullable(),
  gnssLongitude: z.number().nullable(),
  simIccid: z.string(),
  testedAt: z.string().nullable(),
  failureReason: z.string(),
})
const listQuery = z.strictObject({
  pageNum: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
  testResult: testResult.optional(),
})

const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(String(v)).toISOString())
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))

function deviceQuery(db: Db) {
  return db
    .selectFrom('toolDevice as d')
    .innerJoin('iotModel as m', 'm.modelId', 'd.modelId')
    .select([
      'd.deviceId',
      'd.sn',
      'm.productId',
      'd.userType',
      'd.registeredAt',
      'd.testResult',
      'd.pingMs',
      'd.gnssSatellites',
      'd.gnssLatitude',
      'd.gnssLongitude',
      'd.gnssAt',
      'd.simIccid',
      'd.testedAt',
      'd.failureReason',
    ])
}

type DeviceRow = Awaited<ReturnType<ReturnType<typeof deviceQuery>['executeTakeFirstOrThrow']>>

const answerOf = (r: DeviceRow): z.infer<typeof toolDeviceAnswer> => ({
  deviceId: Number(r.deviceId),
  sn: r.sn,
  productId: r.productId,
  userType: r.userType === 'test' ? 'test' : 'production',
  registeredAt: iso(r.registeredAt)!,
  testResult: testResult.parse(r.testResult),
  pingMs: num(r.pingMs),
  gnssSatellites: num(r.gnssSatellites),
  gnssLatitude: num(r.gnssLatitude),
  gnssLongitude: num(r.gnssLongitude),
  simIccid: r.simIccid ?? '',
  testedAt: iso(r.testedAt),
  failureReason: r.failureReason ?? '',
})

/**
 * The production-line tool's API (docs/tool-api.md): sign-in, registering a device on the line and
 * its end-of-line test, and the operator's devices. An operator reaches only devices registered
 * through the tool by accounts of their own type: test accounts' devices are kept apart from production.
 */
export function registerToolApiRoutes(app: FastifyInstance, services: Services, line: ReturnType<typeof recordLineFixes>) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db
  const limitPerEmail = loginAttemptsPerEmail(app, 'tool')

  api.post(
    '/auth/login',
    {
      config: { permission: PUBLIC, audit: audit(BusinessType.other), rateLimit: LOGIN_PER_ADDRESS },
      schema: {
        tags: TOOL_TAGS,
        summary: 'An operator signs in with e-mail and password; answers a tool token valid 12 hours after its last use (limited per address and per e-mail)',
        security: [],
        body: loginBody,
        response: { 200: envelope(loginAnswer) },
      },
    },
    async (req, reply) => {
      await limitPerEmail(req, reply)
      const user = await db
        .selectFrom('toolUser')
        .select(['toolUserId', 'email', 'password', 'companyName', 'userType', 'status', 'sessionGeneration'])
        .where('email', '=', req.body.email.toLowerCase())
        .executeTakeFirst()
      // An unknown e-mail and a wrong password read alike and take as long.
      const passwordOk = await verifyPassword(user?.password || (await dummyPasswordHash()), req.body.password)
      if (!user || !passwordOk) throw badRequest('tool.badCredentials')
      // Said only to whoever knows the password.
      if (user.status !== '0') throw forbidden('tool.userDisabled')
      const userType = user.userType === 'test' ? 'test' : 'production'
      req.toolOperator = { toolUserId: Number(user.toolUserId), email: user.email, companyName: user.companyName, userType, tokenHash: '' }
      const session = await openToolSession(services, Number(user.toolUserId), Number(user.sessionGeneration))
      await db.updateTable('toolUser').set({ loginTime: new Date().toISOString(), loginIp: req.ip.slice(0, 128) }).where('toolUserId', '=', user.toolUserId).execute()
      return ok({ ...session, email: user.email, companyName: user.companyName, userType }, 'tool.loginSuccess')
    },
  )

  api.post(
    '/auth/logout',
    {
      config: { permission: TOOL, audit: audit(BusinessType.other) },
      schema: { tags: TOOL_TAGS, summary: 'End this tool session: its token is refused from now on', security: TOOL_SECURITY, response: { 200: done } },
    },
    async (req) => {
      await endToolSession(services, toolOperator(req).tokenHash)
      return ok(null, 'tool.logoutSuccess')
    },
  )

  api.post(
    '/devices',
    {
      config: { permission: TOOL, audit: audit(BusinessType.insert) },
      schema: {
        tags: TOOL_TAGS,
        summary: "Register a device on the line: SN and its model's product ID; answers the device secret (once) and where it connects",
        security: TOOL_SECURITY,
        body: registerBody,
        response: { 200: envelope(registerAnswer) },
      },
    },
    async (req) => {
      const operator = toolOperator(req)
      const { sn, productId } = req.body
      const model = await db.selectFrom('iotModel').select(['modelId', 'snPrefix']).where('productId', '=', productId).where('status', '=', '0').executeTakeFirst()
      if (!model) throw badRequest('tool.device.modelUnknown', { productId }, { errors: [{ field: 'productId' }] })
      if (!sn.startsWith(model.snPrefix)) throw badRequest('iot.device.snPrefix', { prefix: model.snPrefix }, { errors: [{ field: 'sn' }] })
      const { secret, secretHash } = issueSecret()
      const createBy = toolOperatorName(operator.email)
      const deviceId = await db.transaction().execute(async (tx) => {
        const inserted = await tx
          .insertInto('iotDevice')
          .values(newDeviceRow({ sn, modelId: Number(model.modelId), secretHash, createBy }))
          .onConflict((oc) => oc.column('sn').doNothing())
          .returning('deviceId')
          .executeTakeFirst()
        if (!inserted) throw conflict('tool.device.snTaken', { sn }, 'sn')
        await tx
          .insertInto('toolDevice')
          .values({
            deviceId: inserted.deviceId,
            sn,
            modelId: model.modelId,
            operatorId: operator.toolUserId,
            userType: operator.userType,
            registeredAt: new Date().toISOString(),
            testResult: 'pending',
            simIccid: '',
            failureReason: '',
          })
          .execute()
        return Number(inserted.deviceId)
      })
      line.registered(deviceId)
      const mqtt = { ...(services.config.mqttPublicUrl ? { url: services.config.mqttPublicUrl } : {}), ...(app.iot.broker ? { port: app.iot.broker.port } : {}) }
      return ok({ deviceId, sn, secret, mqtt }, 'tool.device.registered', { sn })
    },
  )

  /** The tool row of a device this operator may reach: registered through the tool, by an account of their type. */
  const reachable = async (sn: string, userType: string) => {
    const row = await deviceQuery(db).where('d.sn', '=', sn).where('d.userType', '=', userType).executeTakeFirst()
    if (!row) throw notFound('tool.device.notFound', { sn })
    return row
  }

  api.post(
    '/devices/:sn/test',
    {
      config: { permission: TOOL, audit: audit(BusinessType.update) },
      schema: {
        tags: TOOL_TAGS,
        summary: `End-of-line test: a ping round trip, a GNSS fix (at least ${MIN_SATELLITES} satellites) and the SIM attached (ICCID reported); records and answers the results`,
        security: TOOL_SECURITY,
        params: z.strictObject({ sn: snRule }),
        response: { 200: envelope(toolDeviceAnswer) },
      },
    },
    async (req) => {
      const operator = toolOperator(req)
      const lang = languageOf(req)
      const before = await reachable(req.params.sn, operator.userType)
      const { sn } = before
      const deviceId = Number(before.deviceId)
      if (before.testResult === 'passed') throw conflict('tool.device.passed', { sn })
      const lockKey = `tool:test:${deviceId}`
      if (!(await services.kv.setIfAbsent(lockKey, String(operator.toolUserId), TEST_LOCK_SECONDS))) throw conflict('tool.device.testing', { sn })
      try {
        const commands = app.iot.commands
        const createBy = toolOperatorName(operator.email)
        const roundTrip = async (command: 'ping' | 'report') => {
          const result = await commands.send({ deviceIds: [deviceId], command, params: {}, timeoutSeconds: PING_TIMEOUT_SECONDS, expireMinutes: 1, createBy, lang })
          const sent = result.commands[0]!
          // An offline device's command stays queued: it is not on the line now.
          if (sent.status === 'queued') return { status: 'queued', roundTripMs: null }
          const outcome = await commands.wait(sent.commandId, PING_TIMEOUT_SECONDS * 1000 + commands.sweepIntervalMs + 1000)
          return { status: outcome?.status ?? 'timedOut', roundTripMs: outcome?.status === 'succeeded' ? outcome.roundTripMs : null }
        }
        const readings = async () => {
          const row = await reachable(sn, operator.userType)
          const device = await db.selectFrom('iotDevice').select('simNumber').where('deviceId', '=', deviceId).executeTakeFirst()
          const fresh = row.gnssAt !== null && Date.now() - Date.parse(String(row.gnssAt)) < FIX_FRESH_MS
          const satellites = fresh ? num(row.gnssSatellites) : null
          return { fresh, fix: satellites !== null && satellites >= MIN_SATELLITES, satellites, iccid: device?.simNumber ?? '' }
        }

        const ping = await roundTrip('ping')
        let seen = await readings()
        // A fresh fix with too few satellites is a reading like any other; only a missing one is asked for.
        if (ping.status === 'succeeded' && (!seen.fresh || !seen.iccid)) {
          // Asked for now; its telemetry and status reach whichever instance and are written a moment later.
          const report = await roundTrip('report')
          const until = Date.now() + (report.status === 'succeeded' ? REPORT_SETTLE_MS : 0)
          while ((!seen.fresh || !seen.iccid) && Date.now() < until) {
            await new Promise((r) => setTimeout(r, 100))
            seen = await readings()
          }
        }

        const reasons = [
          ...(ping.status === 'succeeded' ? [] : [t(lang, 'tool.test.ping', { status: ping.status })]),
          ...(seen.fix ? [] : [t(lang, 'tool.test.gnss', { satellites: seen.satellites ?? 0, min: MIN_SATELLITES })]),
          ...(seen.iccid ? [] : [t(lang, 'tool.test.sim')]),
        ]
        const passed = reasons.length === 0
        await db
          .updateTable('toolDevice')
          .set({
            testResult: passed ? 'passed' : 'failed',
            pingMs: ping.roundTripMs,
            gnssSatellites: seen.satellites,
            simIccid: seen.iccid.slice(0, 22),
            testedAt: new Date().toISOString(),
            failureReason: reasons.join('; ').slice(0, 500),
          })
          .where('deviceId', '=', deviceId)
          .execute()
        if (passed) line.passed(deviceId)
        const after = answerOf(await reachable(sn, operator.userType))
        return passed ? ok(after, 'tool.test.passed', { sn }) : ok(after, 'tool.test.failed', { sn, reason: after.failureReason })
      } finally {
        await services.kv.delete(lockKey)
      }
    },
  )

  api.get(
    '/devices',
    {
      config: { permission: TOOL, audit: audit(BusinessType.other) },
      schema: {
        tags: TOOL_TAGS,
        summary: "The operator's own registered devices with their test results, newest first (paged; filter by testResult)",
        security: TOOL_SECURITY,
        querystring: listQuery,
        response: { 200: envelope(z.object({ rows: z.array(toolDeviceAnswer), total: z.number() })) },
      },
    },
    async (req) => {
      const operator = toolOperator(req)
      const { pageNum, pageSize, testResult: result } = req.query
      let mine = db.selectFrom('toolDevice as d').where('d.operatorId', '=', operator.toolUserId).where('d.userType', '=', operator.userType)
      if (result) mine = mine.where('d.testResult', '=', result)
      const { total } = await mine.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow()
      let rows = deviceQuery(db).where('d.operatorId', '=', operator.toolUserId).where('d.userType', '=', operator.userType)
      if (result) rows = rows.where('d.testResult', '=', result)
      const page = await rows.orderBy('d.toolDeviceId', 'desc').limit(pageSize).offset((pageNum - 1) * pageSize).execute()
      return { rows: page.map(answerOf), total: Number(total) }
    },
  )
}
