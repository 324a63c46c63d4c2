import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/database'
import type { AuthContext } from '../../platform/rbac/auth-context'
import { resolveRowScope, type RowScope } from '../../platform/rbac/data-scope'

/**
 * Whose data a caller's dashboards count. Members, rides, bikes, feedback and service orders belong
 * to a country (the member's, the bike owner's, the order's); a department holds a region (its
 * countries, SPEC §3 Department). A role with the "all" scope sees everything; a role scoped to
 * departments sees the countries of those departments (the union over the caller's roles); "self
 * only" sees no one's (staff own no members). Rows with no country are counted only under "all".
 */
export type CountryScope = { all: true } | { all: false; countryIds: number[] }

export function countryScopeOf(rows: RowScope): CountryScope {
  // The same countries the lists' data scope gives (platform/rbac/data-scope.ts): one rule.
  return rows.all ? { all: true } : { all: false, countryIds: rows.countryIds }
}

/** The caller's country scope, read from the database. */
export async function countryScopeFor(db: Db, auth: AuthContext): Promise<CountryScope> {
  return countryScopeOf(await resolveRowScope(db, auth))
}

/**
 * The condition on a country column (a trusted, qualified name written in code) for the scope and
 * the query's country filter together: a country outside the scope matches nothing.
 */
export function countryCondition(column: string, scope: CountryScope, countryId: number | undefined): RawBuilder<SqlBool> {
  const ref = sql.ref(column)
  if (countryId !== undefined) {
    if (!scope.all && !scope.countryIds.includes(countryId)) return sql<SqlBool>`1 = 0`
    return sql<SqlBool>`${ref} = ${countryId}`
  }
  if (scope.all) return sql<SqlBool>`1 = 1`
  if (scope.countryIds.length === 0) return sql<SqlBool>`1 = 0`
  return sql<SqlBool>`${ref} in (${sql.join(scope.countryIds)})`
}
