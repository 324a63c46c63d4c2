import { DASHBOARD_DEFAULT_DAYS, DASHBOARD_MAX_DAYS, type DashboardDef, type DashboardQuery } from '@velo/shared'
import { z } from 'zod'

const DAY_MS = 86_400_000
const dayPattern = /^\d{4}-\d{2}-\d{2}$/

/** YYYY-MM-DD of a time, in UTC (the dashboards' days are UTC days). */
export const dayOf = (t: Date | number): string => new Date(t).toISOString().slice(0, 10)
/** The UTC midnight a YYYY-MM-DD day starts at. */
export const startOf = (day: string): Date => new Date(`${day}T00:00:00.000Z`)
/** The day `n` days after `day` (n may be negative). */
export const addDays = (day: string, n: number): string => dayOf(startOf(day).getTime() + n * DAY_MS)
/** Days from `a` to `b`, both included. */
export const daysBetween = (a: string, b: string): number => Math.round((startOf(b).getTime() - startOf(a).getTime()) / DAY_MS) + 1

const realDay = z
  .string()
  .regex(dayPattern)
  .refine((d) => !Number.isNaN(startOf(d).getTime()) && dayOf(startOf(d)) === d, { message: 'not a calendar day' })

/** What a dashboard's URL may carry; every filter is optional and the range defaults per dashboard. */
export const dashboardQuerySchema = z.strictObject({
  from: realDay.optional(),
  to: realDay.optional(),
  countryId: z.coerce.number().int().positive().optional(),
  modelId: z.coerce.number().int().positive().optional(),
  platform: z.enum(['ios', 'android']).optional(),
})
export type DashboardQueryInput = z.infer<typeof dashboardQuerySchema>

export class RangeError400 extends Error {
  constructor(readonly key: 'dashboard.rangeReversed' | 'dashboard.rangeTooLong') {
    super(key)
  }
}

/**
 * The query a dashboard answers: the range defaults to the last DASHBOARD_DEFAULT_DAYS up to today (the same on every dashboard); filters it
 * does not take are dropped (a bookmarked URL from another dashboard still opens).
 */
export function resolveQuery(def: DashboardDef, input: DashboardQueryInput, now: Date): DashboardQuery {
  const to = input.to ?? dayOf(now)
  const from = input.from ?? addDays(to, -(DASHBOARD_DEFAULT_DAYS - 1))
  if (from > to) throw new RangeError400('dashboard.rangeReversed')
  if (daysBetween(from, to) > DASHBOARD_MAX_DAYS) throw new RangeError400('dashboard.rangeTooLong')
  const q: DashboardQuery = { from, to }
  for (const f of def.filters) if (input[f] !== undefined) Object.assign(q, { [f]: input[f] })
  return q
}
