import { sql, type RawBuilder } from 'kysely'
import type { Dialect } from '../../db/database'
import { addDays, startOf } from './query'

// Small pieces the live (un-rolled-up) dashboards share: the range as stored times, ISO weeks and
// months written alike on both databases, and how shares and measures are rounded for the page.

/** The query's days as a half-open interval of stored times: [from 00:00, the day after `to` 00:00). */
export function timeRange(from: string, to: string): { start: string; end: string } {
  return { start: startOf(from).toISOString(), end: startOf(addDays(to, 1)).toISOString() }
}

/** The Monday (YYYY-MM-DD) of the ISO week of a stored time (a trusted column reference). */
export function weekOf(dialect: Dialect, column: string): RawBuilder<string> {
  const ref = sql.ref(column)
  // SQLite: forward to Sunday (a Sunday stays), then back six days; PostgreSQL's week starts on Monday.
  return dialect === 'postgres' ? sql<string>`to_char(date_trunc('week', ${ref} at time zone 'UTC'), 'YYYY-MM-DD')` : sql<string>`date(${ref}, 'weekday 0', '-6 days')`
}

/** YYYY-MM of a stored time, in UTC. */
export function monthOf(dialect: Dialect, column: string): RawBuilder<string> {
  const ref = sql.ref(column)
  return dialect === 'postgres' ? sql<string>`to_char(${ref} at time zone 'UTC', 'YYYY-MM')` : sql<string>`substr(${ref}, 1, 7)`
}

/** Hours from one stored time to a later one. */
export function hoursBetween(dialect: Dialect, from: string, to: string): RawBuilder<number> {
  const [a, b] = [sql.ref(from), sql.ref(to)]
  return dialect === 'postgres' ? sql<number>`extract(epoch from (${b} - ${a})) / 3600.0` : sql<number>`(julianday(${b}) - julianday(${a})) * 24.0`
}

/** The Monday of a day's ISO week. */
export function mondayOf(day: string): string {
  return addDays(day, -((startOf(day).getUTCDay() + 6) % 7))
}

/** Every week (its Monday) that has a day in the range, oldest first: a trend shows empty weeks too. */
export function weeksOf(from: string, to: string): string[] {
  const out: string[] = []
  for (let w = mondayOf(from); w <= to; w = addDays(w, 7)) out.push(w)
  return out
}

/** Every month (YYYY-MM) that has a day in the range, oldest first. */
export function monthsOf(from: string, to: string): string[] {
  const out: string[] = []
  let [y, m] = from.slice(0, 7).split('-').map(Number) as [number, number]
  for (;;) {
    const month = `${y}-${String(m).padStart(2, '0')}`
    if (month > to.slice(0, 7)) return out
    out.push(month)
    if (++m > 12) [y, m] = [y + 1, 1]
  }
}

export const round = (x: number, places: number): number => {
  const f = 10 ** places
  return Math.round(x * f) / f
}

/** A share as a 0–100 percent with one decimal; null when there is nothing to share (no data). */
export const percent = (part: number, whole: number): number | null => (whole > 0 ? round((100 * part) / whole, 1) : null)

/** A number from the database (PostgreSQL answers numeric and bigint sums as strings); null stays null. */
export const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

/**
 * Percentiles of `h` per group `g` of a ranked set (columns g, h, rn = row_number() over the group by
 * h, n = the group's count), by linear interpolation between the two nearest ranks as PostgreSQL's
 * percentile_cont does: rank 1 + p·(n − 1). Written with window functions and sums so SQLite, which
 * has no percentile aggregate, computes the same: only the (at most two) rows less than one rank
 * from that position weigh in, each by its closeness.
 */
export function percentileSql(p: number): RawBuilder<number> {
  const pos = sql`(1 + ${sql.lit(p)} * (n - 1))`
  return sql<number>`sum(case when abs(rn - ${pos}) < 1 then h * (1 - abs(rn - ${pos})) else 0 end)`
}
