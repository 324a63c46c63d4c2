import { sql } from 'kysely'
import type { Db } from '../../db/database'

/** Limits of one reservation: the order's serial window and what its digits can write. */
export interface SerialWindow {
  /** The first serial the order may use (serials below it are skipped, never issued); default 1. */
  start?: number | null
  /** The last serial it may use: the order's serial end, or the largest its digits write. */
  end: number
}

/** What a reservation found when the window has too few serials left. */
export interface Exhausted {
  left: number
  last: number
}

/**
 * Takes `count` serials of a prefix at once and answers the first, or what is left when the window
 * cannot hold them. One conditional UPDATE … RETURNING on the prefix's row: PostgreSQL makes
 * concurrent ones wait for the row and re-reads it, SQLite runs one writer at a time, so two
 * generations never take the same serial. The counter only rises: a serial once taken — used,
 * voided, or skipped by a serial start — is never taken again. Run it in the transaction that
 * inserts the numbers, so a failed insert gives the serials back.
 */
export async function reserveSerials(tx: Db, prefix: string, count: number, window: SerialWindow): Promise<{ first: number } | Exhausted> {
  const floor = Math.max(0, (window.start ?? 1) - 1)
  await tx.insertInto('ordFrameSeries').values({ prefix, lastSerial: 0 }).onConflict((oc) => oc.column('prefix').doNothing()).execute()
  // The window's first serial when the series has not reached it yet, else the next one.
  const from = sql<number>`(case when ${sql.ref('last_serial')} < ${floor} then ${floor} else ${sql.ref('last_serial')} end)`
  const taken = await tx
    .updateTable('ordFrameSeries')
    .set({ lastSerial: sql`${from} + ${count}` })
    .where('prefix', '=', prefix)
    .where(sql<boolean>`${from} + ${count} <= ${window.end}`)
    .returning('lastSerial')
    .executeTakeFirst()
  if (taken) return { first: Number(taken.lastSerial) - count + 1 }
  return { left: Math.max(0, window.end - (await nextSerial(tx, prefix, window.start)) + 1), last: window.end }
}

/** The serial the next reservation of the prefix would start at (for a preview; another may take it first). */
export async function nextSerial(tx: Db, prefix: string, start?: number | null): Promise<number> {
  const row = await tx.selectFrom('ordFrameSeries').select('lastSerial').where('prefix', '=', prefix).executeTakeFirst()
  return Math.max(Number(row?.lastSerial ?? 0), Math.max(0, (start ?? 1) - 1)) + 1
}
