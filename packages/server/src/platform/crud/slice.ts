import type { EntityDef } from '@velo/shared'
import { type Expression, type SqlBool, sql } from 'kysely'

/**
 * The rows an entity may see of its table: for a slice of a shared table (EntityDef.slice, the
 * firmware of one bike part among the four) those holding its value, else every row. The value is
 * the definition's own plain word (defineEntity checks it), so it is written into the statement as a
 * literal: a list's kept statement shape stays the same.
 */
export function inSlice(e: Pick<EntityDef, 'slice'>): Expression<SqlBool> {
  return e.slice ? sql<SqlBool>`${sql.ref(e.slice.column)} = ${sql.lit(e.slice.value)}` : sql<SqlBool>`1 = 1`
}

/** The slice's column and value, which a new row of a slice is written with. */
export const sliceColumns = (e: Pick<EntityDef, 'slice'>): Record<string, string> => (e.slice ? { [e.slice.column]: e.slice.value } : {})
