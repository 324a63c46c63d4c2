import { type FrameTemplate, framePrefix, frameNumberOf, maxSerial, orderEntities, overrunLimit } from '@velo/shared'
import { sql } from 'kysely'
import { conflict } from '../../platform/errors'
import { reserveSerials } from './series'
import type { Db } from '../../db/database'

const { deviceOrder, frameNumber } = orderEntities

type Row = Record<string, unknown>

/** The template fields of an order row. */
export function templateOf(order: Row): FrameTemplate {
  return {
    brandCode: String(order.brandCode),
    manufacturerCode: String(order.manufacturerCode),
    modelYear: Number(order.modelYear),
    specCode: String(order.specCode),
    repairCode: order.orderType === 'repair' ? String(order.repairCode ?? '') : '',
    serialDigits: Number(order.serialDigits),
    checkCharacter: order.checkCharacter === true || order.checkCharacter === 1 || order.checkCharacter === '1',
  }
}

/** The serials an order may draw: from its serial start to its serial end, within what its digits write. */
export function windowOf(order: Row) {
  const digitsMax = maxSerial(templateOf(order))
  const end = order.serialEnd === null || order.serialEnd === undefined ? digitsMax : Math.min(Number(order.serialEnd), digitsMax)
  return { start: order.serialStart === null || order.serialStart === undefined ? null : Number(order.serialStart), end }
}

/** Numbers one transaction inserts: small enough that SQLite's one writer is held briefly, large enough to be fast. */
export const GENERATION_BATCH = 1000
/** Rows of one multi-row INSERT (SQLite binds at most 32,766 parameters; a number has 9 columns). */
const INSERT_ROWS = 500

export interface Generated {
  first: string
  last: string
  count: number
}

/**
 * Generates `count` regular numbers for an order, batch by batch: each batch reserves its serials
 * and inserts its numbers in one transaction, so a cancel or a crash between batches leaves no serial
 * taken without its number (no gap but voided ones), and generations of other orders interleave.
 * Answers the first and last number made. Throws 409 when the order's window runs out.
 */
export async function generateNumbers(
  db: Db,
  order: Row,
  count: number,
  by: string,
  report: { progress: (done: number, total: number) => void; signal: AbortSignal },
): Promise<Generated> {
  const template = templateOf(order)
  const prefix = framePrefix(template)
  const window = windowOf(order)
  const orderId = Number(order.orderId)
  let first = ''
  let last = ''
  report.progress(0, count)
  for (let done = 0; done < count; ) {
    report.signal.throwIfAborted()
    const size = Math.min(GENERATION_BATCH, count - done)
    const made = await db.transaction().execute(async (tx) => {
      const taken = await reserveSerials(tx, prefix, size, window)
      if (!('first' in taken)) throw conflict('order.serialsExhausted', { left: taken.left, last: taken.last, count: count - done })
      const now = new Date().toISOString()
      const rows = Array.from({ length: size }, (_, i) => ({
        orderId,
        frameNumber: frameNumberOf(template, taken.first + i, prefix),
        serial: taken.first + i,
        numberType: 'regular',
        status: 'generated',
        reason: '',
        createBy: by,
        createTime: now,
        remark: '',
      }))
      for (let i = 0; i < rows.length; i += INSERT_ROWS) await tx.insertInto(frameNumber.table).values(rows.slice(i, i + INSERT_ROWS)).execute()
      await tx
        .updateTable(deviceOrder.table)
        .set({
          numbersGenerated: sql`numbers_generated + ${size}`,
          countGenerated: sql`count_generated + ${size}`,
          overrun: sql`case when numbers_generated + ${size} > ${overrunLimit(Number(order.quantity))} then ${sql.lit(true)} else overrun end`,
        })
        .where('orderId', '=', orderId)
        .execute()
      return rows
    })
    if (!first) first = made[0]!.frameNumber
    last = made[made.length - 1]!.frameNumber
    done += size
    report.progress(done, count)
  }
  return { first, last, count }
}

/**
 * Counts an order's numbers per status again and stores them with the overrun flag: after a change
 * of status outside the generation (printed, bound, released, voided, replaced), so the counts
 * can never drift from the numbers. One grouped read on the (order, status) index.
 */
export async function recountOrder(tx: Db, orderId: number): Promise<void> {
  const rows = await tx
    .selectFrom(frameNumber.table)
    .select(['status', 'numberType', sql<number>`count(*)`.as('n')])
    .where('orderId', '=', orderId)
    .groupBy(['status', 'numberType'])
    .execute()
  const by = (status: string) => rows.filter((r) => r.status === status).reduce((n, r) => n + Number(r.n), 0)
  const regular = rows.filter((r) => r.numberType === 'regular').reduce((n, r) => n + Number(r.n), 0)
  const order = await tx.selectFrom(deviceOrder.table).select('quantity').where('orderId', '=', orderId).executeTakeFirst()
  if (!order) return
  await tx
    .updateTable(deviceOrder.table)
    .set({
      numbersGenerated: regular,
      overrun: regular > overrunLimit(Number(order.quantity)) ? sql.lit(true) : sql.lit(false),
      countGenerated: by('generated'),
      countPrinted: by('printed'),
      countBound: by('bound'),
      countVoided: by('voided'),
    })
    .where('orderId', '=', orderId)
    .execute()
}

/** A generated number a bike is registered with: the row to bind and the order the bike joins. */
export interface NumberForBike {
  numberId: number
  orderId: number
}

/**
 * The number a bike is registered (or renumbered) with, when an order generated it; null for a
 * number of no order (bikes numbered before orders were kept here). A voided number is refused.
 */
export async function numberForBike(tx: Db, number: string): Promise<NumberForBike | null> {
  const row = await tx.selectFrom(frameNumber.table).select(['numberId', 'orderId', 'status']).where('frameNumber', '=', number).executeTakeFirst()
  if (!row) return null
  if (row.status === 'voided') throw conflict('order.numberVoided', { number }, 'frameNumber')
  return { numberId: Number(row.numberId), orderId: Number(row.orderId) }
}

/** The number becomes the bike's: bound, and its order's counts follow. */
export async function bindNumber(tx: Db, number: NumberForBike, bikeId: number): Promise<void> {
  await tx.updateTable(frameNumber.table).set({ status: 'bound', bikeId }).where('numberId', '=', number.numberId).execute()
  await recountOrder(tx, number.orderId)
}

/** A bike deleted or renumbered lets its number go: back to printed if its label was printed, else generated. */
export async function releaseFrameNumber(tx: Db, number: string, bikeId: number): Promise<void> {
  const row = await tx
    .selectFrom(frameNumber.table)
    .select(['numberId', 'orderId', 'printedTime'])
    .where('frameNumber', '=', number)
    .where('bikeId', '=', bikeId)
    .where('status', '=', 'bound')
    .executeTakeFirst()
  if (!row) return
  await tx
    .updateTable(frameNumber.table)
    .set({ status: row.printedTime ? 'printed' : 'generated', bikeId: null })
    .where('numberId', '=', row.numberId)
    .execute()
  await recountOrder(tx, Number(row.orderId))
}
