import { versionParts } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import type { Insertable } from 'kysely'
import { z } from 'zod'
import type { Database } from '../../db/schema'
import { ok } from '../../platform/envelope'
import { languageOf } from '../../platform/http'
import { t, type MessageKey, type MessageParams } from '../../platform/i18n'
import { MEMBER } from '../../platform/rbac/guard'
import { envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { signedInMember } from './members'
import { APP_TAGS, MEMBER_SECURITY } from './tables'

/** Events per request: an app sends what it gathered since its last batch, in pieces of this many. */
export const TRACKING_BATCH_MAX = 100
/** A phone's clock may run a little ahead; beyond this the time is wrong, not early. */
const FUTURE_MS = 5 * 60_000
/** An app offline for a month drops what it kept rather than rewrite closed days of the dashboards. */
const MAX_AGE_DAYS = 30
/** Batches per member and minute: an app flushes every few seconds at most. */
const BATCHES_PER_MEMBER = { max: 60, timeWindow: '1 minute' } as const

const trackingEvent = z.object({
  code: z.string().trim().min(1).max(64),
  sessionId: z.string().trim().min(1).max(64),
  platform: z.enum(['ios', 'android']),
  // Checked per event below: one build with a bad version string must not lose the batch's others.
  appVersion: z.string().trim().max(32),
  value: z.number().nullable().optional(),
  time: z.iso.datetime({ offset: true }),
})

const trackingBody = z.strictObject({ events: z.array(trackingEvent).min(1).max(TRACKING_BATCH_MAX) })

const trackingAnswer = z.object({
  accepted: z.number(),
  refused: z.array(z.object({ index: z.number(), code: z.string(), reason: z.string() })),
})

/**
 * POST /tracking/events: the signed-in member's app reports what happened (a launch with its cold
 * start time, a crash of an earlier session, screens and features) against the codes of the
 * tracking configuration (Dashboards › Tracking configuration); the dashboards count them. Events
 * whose code is not an enabled node, whose time is implausible or whose app version is malformed
 * are refused one by one, with their index and why; the others are written in one insert, as the
 * caller's (a member id in the body is not read).
 */
export function registerTracking(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db

  api.post(
    '/tracking/events',
    {
      config: {
        permission: MEMBER,
        audit: false,
        rateLimit: { ...BATCHES_PER_MEMBER, keyGenerator: (req) => `app-tracking:${req.member?.memberId ?? req.ip}` },
      },
      schema: {
        tags: APP_TAGS,
        summary: `Record app events (1–${TRACKING_BATCH_MAX}: code, sessionId, platform, appVersion, value, time) against enabled tracking codes; answers how many were accepted and why each other one was refused`,
        security: MEMBER_SECURITY,
        body: trackingBody,
        response: { 200: envelope(trackingAnswer) },
      },
    },
    async (req) => {
      const { memberId } = signedInMember(req)
      const lang = languageOf(req)
      const { events } = req.body
      const now = Date.now()
      const codes = [...new Set(events.map((e) => e.code))]
      // The unique index on code; a disabled node ('1') records nothing.
      const enabled = new Set(
        (await db.selectFrom('dashTrackingNode').select('code').where('code', 'in', codes).where('status', '=', '0').execute()).map((r) => r.code),
      )
      const refused: { index: number; code: string; reason: string }[] = []
      const refuse = (index: number, code: string, key: MessageKey, params: MessageParams) => refused.push({ index, code, reason: t(lang, key, params) })
      const receiveTime = new Date(now).toISOString()
      const rows: Insertable<Database['dashTrackingEvent']>[] = []
      for (const [index, e] of events.entries()) {
        const at = Date.parse(e.time)
        if (!enabled.has(e.code)) refuse(index, e.code, 'app.tracking.unknownCode', { code: e.code })
        else if (at > now + FUTURE_MS) refuse(index, e.code, 'app.tracking.future', { minutes: FUTURE_MS / 60_000 })
        else if (at < now - MAX_AGE_DAYS * 86_400_000) refuse(index, e.code, 'app.tracking.tooOld', { days: MAX_AGE_DAYS })
        else if (!versionParts(e.appVersion)) refuse(index, e.code, 'app.tracking.badVersion', { version: e.appVersion })
        else {
          rows.push({
            memberId,
            code: e.code,
            sessionId: e.sessionId,
            platform: e.platform,
            appVersion: e.appVersion,
            value: e.value ?? null,
            eventTime: new Date(at).toISOString(),
            receiveTime,
          })
        }
      }
      if (rows.length) await db.insertInto('dashTrackingEvent').values(rows).execute()
      return ok({ accepted: rows.length, refused }, 'app.tracking.accepted', { count: rows.length })
    },
  )
}
