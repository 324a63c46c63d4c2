import type { FigureData } from '@velo/shared'
import { sql } from 'kysely'
import type { Db } from '../../db/database'
import type { DashboardCompute, DashboardContext } from './context'
import { dayOf } from './query'
import { freshRollups } from './rollups'

// The answers of the dashboards read from the rollups (engagement, performance), kept a short while.
// Their distinct-member counts over a range (who was active, who crashed) cannot be summed from
// daily rows, so an answer costs 100–300 ms of SQL however the rollups are cut; a team opening the
// same view, or one person changing tabs, should not pay that again while nothing has changed.
//
// An answer is served again only while what it was computed from is unchanged: the rollups'
// watermarks (each refresh that adds facts moves them: the request-time refresh run before every
// answer, the 30 s background one, another instance's) and a version of the live rows the dashboard
// reads beside them (sign-ups, releases). The version is read after the request-time refresh, so an
// answer is as current as one computed afresh. What the version cannot see (a member moved to
// another country, a sign-up time edited in place) is bounded by ANSWER_TTL_MS.
//
// The key is the whole query as the caller asks it: dashboard, range and filters, data scope (a
// country-scoped user never gets the answer of another scope), language, column rights and today
// (retention counts only days already past). Per database handle, so two apps (tests, instances) keep
// their own; in memory, bounded by MAX_ENTRIES.

/** Longest an answer is served again, whatever its version says (the background refresh's period). */
export const ANSWER_TTL_MS = 30_000
const MAX_ENTRIES = 200

interface Entry {
  version: string
  at: number
  figures: FigureData[]
}

const caches = new WeakMap<object, Map<string, Entry>>()

/** The rollups' watermarks: every refresh that adds facts moves one. */
async function watermarks(db: Db): Promise<string> {
  const { rows } = await sql<{ name: string; id: number | string }>`select name, last_id as id from dash_rollup_state order by name`.execute(db)
  return rows.map((r) => `${r.name}:${Number(r.id)}`).join(',')
}

function keyOf(ctx: DashboardContext): string {
  const rights = ctx.def.figures.flatMap((f) => f.columns.flatMap((c) => (c.permission ? [ctx.may(c.permission) ? 1 : 0] : []))).join('')
  return JSON.stringify([ctx.def.key, ctx.query, ctx.rows, ctx.lang, rights, dayOf(ctx.now)])
}

/**
 * A rollup dashboard's compute with its answers kept: `figures` computes them (reading rollups the
 * request-time refresh has just brought up to date), `live` answers a version of the other rows it reads.
 */
export function cachedRollupDashboard(figures: (ctx: DashboardContext) => Promise<FigureData[]>, live: (ctx: DashboardContext) => Promise<unknown>): DashboardCompute {
  return async (ctx) => {
    const refreshedAt = await freshRollups(ctx.db, ctx.dialect)
    const [marks, other] = await Promise.all([watermarks(ctx.db), live(ctx)])
    const version = JSON.stringify([marks, other])
    let cache = caches.get(ctx.db)
    if (!cache) caches.set(ctx.db, (cache = new Map()))
    const key = keyOf(ctx)
    const now = Date.now()
    const kept = cache.get(key)
    if (kept && kept.version === version && now - kept.at < ANSWER_TTL_MS) return { figures: kept.figures, refreshedAt }
    // Stamped with the version read before computing: a refresh meanwhile makes the next request compute again.
    const computed = await figures(ctx)
    cache.delete(key)
    cache.set(key, { version, at: now, figures: computed })
    // Oldest first out (a Map keeps insertion order, and an entry is inserted again when replaced).
    if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!)
    return { figures: computed, refreshedAt }
  }
}

/** Forgets every kept answer of a database (tests; a restore). */
export function forgetAnswers(db: Db): void {
  caches.delete(db)
}
