import { memberEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { conflict } from '../../platform/errors'
import type { Services } from '../../platform/services'
import type { Db } from '../../db/database'

const { feedback, feedbackTag } = memberEntities

type Row = Record<string, unknown>
const READ_COLUMNS = ['readState', 'readBy', 'readTime'] as const

/**
 * Marks the feedback read by this user now, unless someone read it before: of two staff opening it
 * at once, the first to write is its reader. Answers the read columns as they are now.
 */
async function markRead(db: Db, id: unknown, userName: string, at = new Date().toISOString()): Promise<Row> {
  await db
    .updateTable(feedback.table)
    .set({ readState: 'read', readBy: userName, readTime: at })
    .where(feedback.idField, '=', id as number)
    .where('readState', '=', 'unread')
    .execute()
  return (await db.selectFrom(feedback.table).select(READ_COLUMNS).where(feedback.idField, '=', id as number).executeTakeFirstOrThrow()) as Row
}

/**
 * Members › Feedback and its tags. The engine serves lists, filters (stars, tag, read state, date),
 * export and delete from the definitions; here are the feedback's own rules: opening an unread one
 * marks it read (the list does not), a reply is kept with who wrote it and when, and a tag that
 * feedback carries is not deleted.
 */
export function registerFeedback(app: FastifyInstance, services: Services) {
  registerEntityRoutes(app, services, feedback, {
    // Only GET {path}/{id}: the list and the export show rows without marking them (the reply marks its own).
    afterGet: async ({ db, auth, row }) => {
      if (row.readState !== 'unread') return
      Object.assign(row, await markRead(db, row[feedback.idField], auth.userName))
    },
    actions: {
      reply: async ({ tx, auth, rows, input }) => {
        const row = rows[0]!
        const id = row[feedback.idField]
        const now = new Date().toISOString()
        // The input is checked as an add's values are: required, so never blank, and trimmed.
        const set = { reply: String(input.reply), replyBy: auth.userName, replyTime: now, replied: true }
        await tx
          .updateTable(feedback.table)
          // A boolean as both databases take it (SQLite binds no booleans).
          .set({ ...set, replied: 1, updateBy: auth.userName, updateTime: now })
          .where(feedback.idField, '=', id as number)
          .execute()
        // Replying is reading it: an unread one is marked read by the one who replied.
        return { ...row, ...set, ...(await markRead(tx, id, auth.userName, now)) }
      },
    },
  })

  // Like RuoYi's "assigned, cannot delete": a tag that feedback carries is refused, so no feedback
  // loses a tag its member chose; a tag no longer offered is disabled instead.
  registerEntityRoutes(app, services, feedbackTag, {
    beforeDelete: async ({ tx, rows }) => {
      for (const tag of rows) {
        const used = await tx
          // The join table of feedback.tagIds (its index on the tag serves the count).
          .selectFrom('memFeedbackTagLink')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('tagId', '=', tag[feedbackTag.idField] as number)
          .executeTakeFirstOrThrow()
        if (Number(used.count) > 0) throw conflict('member.feedbackTag.inUse', { name: String(tag.name), count: Number(used.count) })
      }
    },
  })
}
