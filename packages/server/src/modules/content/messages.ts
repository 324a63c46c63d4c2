import { contentEntities } from '@velo/shared'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { SelectQueryBuilder } from 'kysely'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { AppError, badRequest, conflict, notFound } from '../../platform/errors'
import { formatCount, t } from '../../platform/i18n'
import type { Services } from '../../platform/services'
import { blank, merged, on, timeOf } from './fields'
import type { Db } from '../../db/database'
import type { Database } from '../../db/schema'

const { message, messageRecipient } = contentEntities

type Row = Record<string, unknown>


/** A member's status that receives messages (the enable/disable dictionary's "Normal"). */
const ENABLED = '0'
/**
 * Member ids per INSERT … SELECT: large enough that 100,000 members are ten statements, small
 * enough that one holds SQLite's writer only briefly and a cancel is heard between them.
 */
export const DELIVERY_BATCH = 10_000
/**
 * A message left 'sending' this long without a batch written was being delivered by a server that
 * died (or was stopped): the delivery sweep delivers the rest. A live delivery writes a batch in seconds.
 */
const STALE_SENDING_MS = 10 * 60_000
/** Messages a tick claims at most, so one tick never runs for long behind a backlog. */
const DUE_PER_TICK = 50

/** States a message may still be changed, deleted or delivered from. */
const UNSENT = ['draft', 'scheduled'] as const

/** Whether the message waits for its send time (a scheduled one whose time is still ahead). */
const waitsForSendTime = (msg: Row, now = Date.now()) => msg.sendMode === 'scheduled' && (timeOf(msg.sendTime) ?? 0) > now

/**
 * The rules between a message's fields, on the row as it will be (`selected`: how many members it
 * names): each audience needs what chooses it, and a scheduled one its time.
 */
function checkAudience(msg: Row, selected: number) {
  if (msg.audience === 'country' && blank(msg.countryId)) throw badRequest('content.message.countryRequired', {}, on('countryId'))
  if (msg.audience === 'members' && selected === 0) throw badRequest('content.message.membersRequired', {}, on('memberIds'))
  if (msg.sendMode === 'scheduled' && blank(msg.sendTime)) throw badRequest('content.message.sendTimeRequired', {}, on('sendTime'))
}

async function selectedCount(db: Db, messageId: unknown): Promise<number> {
  const row = await db
    .selectFrom('cntMessageMember')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('messageId', '=', messageId as number)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** A query over `mem_member as m`, maybe beside other tables. */
type MemberQuery = SelectQueryBuilder<Database & { m: Database['memMember'] }, 'm', object>

/** Narrows a query over `mem_member as m` to the enabled members of the message's audience. */
function inAudience<Q extends MemberQuery>(q: Q, msg: Row): Q {
  let out = q.where('m.status', '=', ENABLED) as Q
  if (msg.audience === 'country') out = out.where('m.countryId', '=', (msg.countryId as number | null) ?? null) as Q
  else if (msg.audience === 'members') {
    // The members message.memberIds selected (its join table).
    out = out.where('m.memberId', 'in', (eb) => eb.selectFrom('cntMessageMember').select('memberId').where('messageId', '=', msg.messageId as number)) as Q
  }
  return out
}

/** How many members the message would reach now. */
export async function recipientCount(db: Db, msg: Row): Promise<number> {
  const row = await inAudience(db.selectFrom('memMember as m'), msg)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The lowest id of an audience member from `from` on, or null when none is left. */
async function nextMemberId(db: Db, msg: Row, from: number): Promise<number | null> {
  const row = await inAudience(db.selectFrom('memMember as m'), msg)
    .where('m.memberId', '>=', from)
    .select((eb) => eb.fn.min<number>('m.memberId').as('first'))
    .executeTakeFirst()
  return row?.first === null || row?.first === undefined ? null : Number(row.first)
}

const readMessage = (db: Db, messageId: number) =>
  db.selectFrom(message.table).selectAll().where('messageId', '=', messageId).executeTakeFirst() as Promise<Row | undefined>

export interface DeliveryOptions {
  /** Checked between batches: a cancel stops the delivery there (rows written stay, without doubles if it is run again). */
  signal?: AbortSignal
  progress?: (done: number, total: number) => void
}

/**
 * Delivers a draft or scheduled message now: one inbox row (cnt_message_recipient) per enabled
 * member of its audience. It is claimed first, draft or scheduled → 'sending' only from the state
 * read, so of two pushes (or a push and the delivery sweep) one delivers and the other is refused (409).
 * Rows are written by INSERT … SELECT, DELIVERY_BATCH member ids a statement, skipping members who
 * have the message already (the unique (message, member)), so a delivery run again after it was
 * stopped does not double. Ends 'sent' with sentCount and sentTime; answers how many it reached.
 * A cancel puts the message back where it was claimed from and rethrows.
 */
export async function deliverMessage(db: Db, messageId: number, options: DeliveryOptions = {}): Promise<number> {
  const msg = await readMessage(db, messageId)
  if (!msg) throw notFound()
  const from = String(msg.status)
  if (!(UNSENT as readonly string[]).includes(from)) throw conflict('content.message.alreadyPushed', { title: String(msg.title) })
  const claimed = await db
    .updateTable(message.table)
    .set({ status: 'sending', sentTime: new Date().toISOString() })
    .where('messageId', '=', messageId)
    .where('status', '=', from)
    .executeTakeFirst()
  if (Number(claimed.numUpdatedRows) !== 1) throw conflict('content.message.alreadyPushed', { title: String(msg.title) })
  return deliverClaimed(db, msg, from, options)
}

/**
 * The delivery of a message this caller holds in 'sending' (see deliverMessage); `from` is where a
 * cancel puts it back ('sending': left as it is, for a delivery taken over from a stopped server).
 */
async function deliverClaimed(db: Db, msg: Row, from: string, { signal, progress }: DeliveryOptions): Promise<number> {
  const messageId = Number(msg.messageId)
  try {
    const total = await recipientCount(db, msg)
    let done = 0
    progress?.(0, total)
    let next = await nextMemberId(db, msg, 0)
    while (next !== null) {
      signal?.throwIfAborted()
      const upTo = next + DELIVERY_BATCH
      // The delivery time and the message id come from the message's own row: a bound value in a
      // SELECT list has no column type, which PostgreSQL would not insert into a timestamptz.
      const batch = inAudience(db.selectFrom(['memMember as m', `${message.table} as msg`]), msg)
        .where('msg.messageId', '=', messageId)
        .where('m.memberId', '>=', next)
        .where('m.memberId', '<', upTo)
        .select(['msg.messageId', 'm.memberId', 'msg.sentTime'])
      const inserted = await db
        .insertInto(messageRecipient.table)
        .columns(['messageId', 'memberId', 'createTime'])
        .expression(batch)
        .onConflict((oc) => oc.columns(['messageId', 'memberId']).doNothing())
        .executeTakeFirst()
      done += Number(inserted.numInsertedOrUpdatedRows ?? 0)
      progress?.(Math.min(done, total), total)
      // Moving sentTime on says the delivery is alive (a stale one is taken over) and dates the next batch.
      await db.updateTable(message.table).set({ sentTime: new Date().toISOString() }).where('messageId', '=', messageId).where('status', '=', 'sending').execute()
      next = await nextMemberId(db, msg, upTo)
    }
    const delivered = await db
      .selectFrom(messageRecipient.table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('messageId', '=', messageId)
      .executeTakeFirstOrThrow()
    const sentCount = Number(delivered.n)
    await db
      .updateTable(message.table)
      .set({ status: 'sent', sentCount, sentTime: new Date().toISOString() })
      .where('messageId', '=', messageId)
      .where('status', '=', 'sending')
      .execute()
    progress?.(total, total)
    return sentCount
  } catch (err) {
    // Stopped before the end: it may be pushed again (or the delivery sweep takes a scheduled one up again),
    // and the members it reached are skipped then.
    if (signal?.aborted && from !== 'sending') await db.updateTable(message.table).set({ status: from }).where('messageId', '=', messageId).where('status', '=', 'sending').execute()
    throw err
  }
}

export interface TickOptions {
  /** The time send times are due by (tests move it on); default the clock. */
  now?: Date
  signal?: AbortSignal
  logger?: FastifyBaseLogger
}

/**
 * One tick of the scheduled delivery: delivers the scheduled messages whose send time has come,
 * and takes over deliveries left 'sending' by a server that stopped. Every claim is a conditional
 * update, so ticks of several instances at once deliver each message once. Answers how many
 * messages this tick delivered.
 */
export async function deliverDueMessages(db: Db, o: TickOptions = {}): Promise<number> {
  const now = o.now ?? new Date()
  let delivered = 0
  const due = await db
    .selectFrom(message.table)
    .select('messageId')
    .where('status', '=', 'scheduled')
    .where('sendTime', '<=', now.toISOString())
    .orderBy('sendTime')
    .limit(DUE_PER_TICK)
    .execute()
  for (const { messageId } of due) {
    if (o.signal?.aborted) return delivered
    const msg = await readMessage(db, Number(messageId))
    if (!msg) continue
    // Still due as read now (not changed to a later time meanwhile), and claimed only from that.
    const claimed = await db
      .updateTable(message.table)
      .set({ status: 'sending', sentTime: new Date().toISOString() })
      .where('messageId', '=', messageId)
      .where('status', '=', 'scheduled')
      .where('sendTime', '<=', now.toISOString())
      .executeTakeFirst()
    if (Number(claimed.numUpdatedRows) !== 1) continue
    await deliverLogged(db, msg, 'scheduled', o)
    delivered++
  }
  // Against the clock, not `now`: a live delivery's sentTime is written with the clock.
  const staleBefore = () => new Date(Date.now() - STALE_SENDING_MS).toISOString()
  const stale = await db
    .selectFrom(message.table)
    .select('messageId')
    .where('status', '=', 'sending')
    .where('sentTime', '<', staleBefore())
    .limit(DUE_PER_TICK)
    .execute()
  for (const { messageId } of stale) {
    if (o.signal?.aborted) return delivered
    const msg = await readMessage(db, Number(messageId))
    if (!msg) continue
    const taken = await db
      .updateTable(message.table)
      .set({ sentTime: new Date().toISOString() })
      .where('messageId', '=', messageId)
      .where('status', '=', 'sending')
      .where('sentTime', '<', staleBefore())
      .executeTakeFirst()
    if (Number(taken.numUpdatedRows) !== 1) continue
    // Stopped again, it stays 'sending' and is taken over once more when it is stale again.
    await deliverLogged(db, msg, 'sending', o)
    delivered++
  }
  return delivered
}

async function deliverLogged(db: Db, msg: Row, from: string, o: TickOptions) {
  try {
    const n = await deliverClaimed(db, msg, from, { signal: o.signal })
    o.logger?.info({ messageId: msg.messageId, recipients: n }, 'delivered a scheduled message')
  } catch (err) {
    if (!o.signal?.aborted) o.logger?.error({ err, messageId: msg.messageId }, 'could not deliver a scheduled message')
    if (!(err instanceof AppError) && !o.signal?.aborted) throw err
  }
}

/** "12,345" as the caller reads numbers. */

/** A stored time as the preview says it: UTC, to the minute (the server knows no reader's zone). */
const utcMinute = (iso: unknown) => new Date(String(iso)).toISOString().slice(0, 16).replace('T', ' ')

/**
 * Content › System messages: the audience's rules on add and modify, the Push action (a job: its
 * preview counts the recipients), the scheduled delivery (its message.delivery sweep), and the sent message kept as
 * history (neither deleted nor changed).
 */
export function registerMessages(app: FastifyInstance, services: Services) {
  const db = services.db

  registerEntityRoutes(app, services, message, {
    beforeCreate: async ({ values }) => checkAudience(values, Array.isArray(values.memberIds) ? values.memberIds.length : 0),
    // Being sent or sent, it is neither changed nor deleted: the definition's state rules.
    beforeUpdate: async ({ tx, before, values }) => {
      const after = merged(before, values)
      checkAudience(after, Array.isArray(values.memberIds) ? values.memberIds.length : await selectedCount(tx, before.messageId))
      // Scheduled without a time to wait for any more: a draft again, pushed by hand.
      if (before.status === 'scheduled' && after.sendMode !== 'scheduled') values.status = 'draft'
    },
    beforeDelete: async ({ tx, rows }) => {
      const ids = rows.map((r) => r.messageId)
      // A push stopped part way left inbox rows of a message that is a draft again: they go with it.
      await tx.deleteFrom(messageRecipient.table).where('messageId', 'in', ids as number[]).execute()
    },
    // The messages whose send time came, and deliveries a stopped server left part way: every 30 s.
    every: { delivery: { every: '30s', run: (signal) => deliverDueMessages(db, { signal, logger: app.log }) } },
    previews: {
      push: async ({ tx, rows, lang }) => {
        const msg = rows[0]!
        checkAudience(msg, msg.audience === 'members' ? await selectedCount(tx, msg.messageId) : 0)
        const recipients = await recipientCount(tx, msg)
        if (recipients === 0) throw badRequest('content.message.noRecipients', { title: String(msg.title) })
        return {
          facts: [
            { label: t(lang, 'content.message.preview.recipients'), value: formatCount(lang, recipients) },
            {
              label: t(lang, 'content.message.preview.delivery'),
              value: waitsForSendTime(msg) ? t(lang, 'content.message.preview.at', { time: utcMinute(msg.sendTime) }) : t(lang, 'content.message.preview.now'),
            },
          ],
        }
      },
    },
    actions: {
      push: async ({ tx, rows, progress, signal }) => {
        const msg = rows[0]!
        const messageId = Number(msg.messageId)
        if (waitsForSendTime(msg)) {
          const scheduled = await tx.updateTable(message.table).set({ status: 'scheduled' }).where('messageId', '=', messageId).where('status', '=', 'draft').executeTakeFirst()
          if (Number(scheduled.numUpdatedRows) !== 1) throw conflict('content.message.alreadyPushed', { title: String(msg.title) })
          return { status: 'scheduled', sendTime: msg.sendTime }
        }
        const delivered = await deliverMessage(tx, messageId, { signal, progress })
        return { status: 'sent', delivered }
      },
    },
  })

}
