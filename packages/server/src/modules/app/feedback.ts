import { APP_LANGUAGES, type AppLanguage, memberEntities, writeSchema } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ok } from '../../platform/envelope'
import { badRequest } from '../../platform/errors'
import { MEMBER } from '../../platform/rbac/guard'
import { envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { signedInMember } from './members'
import { APP_TAGS, MEMBER_SECURITY } from './tables'

const { feedback } = memberEntities
const field = (name: string) => feedback.fieldMap.get(name)!

/** Feedback per member and hour: enough for anyone with something to say, not for a script. */
const FEEDBACK_PER_MEMBER = { max: 10, timeWindow: '1 hour' } as const
/** Tags a member may pick for one feedback (the app offers a handful). */
const MAX_TAGS = 10

const feedbackBody = z.strictObject({
  // Stars and text by the definition's own rules (1–5, required; at most 2000 characters).
  stars: writeSchema(field('stars'), 'add'),
  content: writeSchema(field('content'), 'add'),
  tagIds: z.array(z.number().int().positive()).max(MAX_TAGS).optional(),
  // The app's language as the member uses it; anything but the app's languages is refused.
  language: z.enum(APP_LANGUAGES).optional(),
})

const feedbackAnswer = z.object({ feedbackId: z.number(), language: z.string() })

const langTag = (l: string) => l.toLowerCase().replace('_', '-')

/**
 * The app language an Accept-Language header asks for first: an exact match (de-DE), else the
 * first of the same language (de-AT reads German, en-GB English); `*` and languages the app does not
 * have match nothing. Undefined when none does.
 */
export function appLanguageOf(header: string | undefined): AppLanguage | undefined {
  if (!header) return undefined
  const ranges = header
    .split(',')
    .map((part, order) => {
      const [tag = '', ...params] = part.split(';').map((p) => p.trim())
      const q = params.find((p) => p.startsWith('q='))
      return { tag: langTag(tag), q: q ? Number(q.slice(2)) : 1, order }
    })
    .filter((r) => r.tag && r.tag !== '*' && Number.isFinite(r.q) && r.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order)
  for (const r of ranges) {
    const found = APP_LANGUAGES.find((l) => langTag(l) === r.tag) ?? APP_LANGUAGES.find((l) => langTag(l).split('-')[0] === r.tag.split('-')[0])
    if (found) return found
  }
  return undefined
}

/**
 * POST /feedback: the signed-in member tells us something (Members › Feedback), with stars, tags
 * and the language they wrote in, so staff see it and reply in it. The language is the body's (the
 * app's language), else the first app language of the Accept-Language header, else not known ('':
 * members have no language of their own on record). Tags must be offered (status Normal).
 */
export function registerAppFeedback(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db

  api.post(
    '/feedback',
    {
      config: {
        permission: MEMBER,
        audit: false,
        rateLimit: { ...FEEDBACK_PER_MEMBER, keyGenerator: (req) => `app-feedback:${req.member?.memberId ?? req.ip}` },
      },
      schema: {
        tags: APP_TAGS,
        summary: `Send feedback (stars 1–5, content, tagIds of offered tags, language ${APP_LANGUAGES.join('|')}; without one, the Accept-Language header's); ${FEEDBACK_PER_MEMBER.max} per member and hour`,
        security: MEMBER_SECURITY,
        body: feedbackBody,
        response: { 200: envelope(feedbackAnswer) },
      },
    },
    async (req) => {
      const { memberId } = signedInMember(req)
      const body = req.body as { stars: number; content: string; tagIds?: number[]; language?: AppLanguage }
      const language = body.language ?? appLanguageOf(req.headers['accept-language']) ?? ''
      const tagIds = [...new Set(body.tagIds ?? [])]
      if (tagIds.length) {
        const offered = new Set(
          (await db.selectFrom('memFeedbackTag').select('tagId').where('tagId', 'in', tagIds).where('status', '=', '0').execute()).map((t) => Number(t.tagId)),
        )
        const unknown = tagIds.find((id) => !offered.has(id))
        if (unknown !== undefined) throw badRequest('app.feedbackTagUnknown', { id: unknown })
      }
      const now = new Date().toISOString()
      const feedbackId = await db.transaction().execute(async (tx) => {
        const row = await tx
          .insertInto('memFeedback')
          .values({
            memberId,
            stars: body.stars,
            language,
            content: body.content,
            readState: 'unread',
            createBy: `member:${memberId}`,
            createTime: now,
          })
          .returning('feedbackId')
          .executeTakeFirstOrThrow()
        const id = Number(row.feedbackId)
        if (tagIds.length) {
          await tx
            .insertInto('memFeedbackTagLink')
            .values(tagIds.map((tagId) => ({ feedbackId: id, tagId })))
            .execute()
        }
        return id
      })
      return ok({ feedbackId, language }, 'app.feedbackReceived')
    },
  )
}
