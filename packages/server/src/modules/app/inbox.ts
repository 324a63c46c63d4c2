import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { pagingFields } from '../../platform/crud/schemas'
import { notFound } from '../../platform/errors'
import { MEMBER } from '../../platform/rbac/guard'
import { envelope } from '../../platform/responses'
import { sanitizeRichTextForRead } from '../../platform/rich-text'
import type { Services } from '../../platform/services'
import { signedInMember } from './members'
import { APP_TAGS, MEMBER_SECURITY } from './tables'

const inboxMessage = z.object({
  messageId: z.number(),
  title: z.string(),
  content: z.string(),
  deliveredAt: z.string(),
  readTime: z.string().nullable(),
})

const inboxAnswer = z.object({ rows: z.array(inboxMessage), total: z.number(), unread: z.number() })

/** The signed-in member's system messages (SPEC §3, §5): their inbox, and marking one read. */
export function registerInbox(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db

  api.get(
    '/inbox',
    {
      config: { permission: MEMBER },
      schema: {
        tags: APP_TAGS,
        summary: 'The messages pushed to the signed-in member, newest first (paged), with how many are unread',
        security: MEMBER_SECURITY,
        querystring: z.strictObject(pagingFields),
        response: { 200: envelope(inboxAnswer) },
      },
    },
    async (req) => {
      const { memberId } = signedInMember(req)
      const { pageNum, pageSize } = req.query
      // (member_id, create_time) serves the page, its order and both counts.
      const rows = await db
        .selectFrom('cntMessageRecipient as r')
        .innerJoin('cntMessage as m', 'm.messageId', 'r.messageId')
        .select(['r.messageId', 'm.title', 'm.content', 'r.createTime as deliveredAt', 'r.readTime'])
        .where('r.memberId', '=', memberId)
        .orderBy('r.createTime', 'desc')
        .orderBy('r.recipientId', 'desc')
        .limit(pageSize)
        .offset((pageNum - 1) * pageSize)
        .execute()
      const counts = await db
        .selectFrom('cntMessageRecipient')
        .select((eb) => [eb.fn.countAll<number>().as('total'), eb.fn.count<number>('recipientId').filterWhere('readTime', 'is', null).as('unread')])
        .where('memberId', '=', memberId)
        .executeTakeFirstOrThrow()
      return {
        // Rich text as the app API sends it everywhere: sanitized by today's rules (platform/rich-text.ts).
        rows: rows.map((r) => ({ messageId: Number(r.messageId), title: r.title, content: sanitizeRichTextForRead(r.content), deliveredAt: r.deliveredAt, readTime: r.readTime ?? null })),
        total: Number(counts.total),
        unread: Number(counts.unread),
      }
    },
  )

  api.post(
    '/inbox/:messageId/read',
    {
      config: { permission: MEMBER, audit: false },
      schema: {
        tags: APP_TAGS,
        summary: 'Mark a message of the inbox read: the first time counts it read on the message, later times change nothing',
        security: MEMBER_SECURITY,
        params: z.object({ messageId: z.coerce.number().int().positive() }),
        response: { 200: envelope(z.object({ messageId: z.number(), readTime: z.string() })) },
      },
    },
    async (req) => {
      const { memberId } = signedInMember(req)
      const { messageId } = req.params
      const at = new Date().toISOString()
      return db.transaction().execute(async (tx) => {
        // Only from unread: of two devices marking it at once, one changes it and counts it.
        const marked = await tx
          .updateTable('cntMessageRecipient')
          .set({ readTime: at })
          .where('messageId', '=', messageId)
          .where('memberId', '=', memberId)
          .where('readTime', 'is', null)
          .executeTakeFirst()
        if (Number(marked.numUpdatedRows) > 0) {
          await tx
            .updateTable('cntMessage')
            .set((eb) => ({ readCount: eb('readCount', '+', 1) }))
            .where('messageId', '=', messageId)
            .execute()
          return { messageId, readTime: at }
        }
        const mine = await tx.selectFrom('cntMessageRecipient').select('readTime').where('messageId', '=', messageId).where('memberId', '=', memberId).executeTakeFirst()
        // Another member's message is as absent as one that does not exist.
        if (!mine?.readTime) throw notFound('app.messageNotFound')
        return { messageId, readTime: mine.readTime }
      })
    },
  )
}
