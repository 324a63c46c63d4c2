import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/database'
import type { AuthContext } from '../../platform/rbac/auth-context'
import { resolveRowScope } from '../../platform/rbac/data-scope'

/**
 * Whose data a caller's dashboards count. Members, rides, bikes, feedback and service orders belong
 * to a country (the member's, the bike owner's, the order's); a department holds a region (its
 * countries, SPEC §3 Department). A role with the "all" scope sees everything; a role scoped to
 * departments sees the countries of those departments (the union over the caller's roles); "self
 * only" sees no one's (staff own no members). Rows with no country are counted only under "all".
 */
export type CountryScope = { all: true } | { all: false; countryIds: number[] }

export async function countryScopeOf(db: Db, auth: AuthContext): Promise<CountryScope> {
  const rows = await resolveRowScope(db, auth)
  if (rows.all) return { all: true }
  if (rows.deptIds.length === 0) return { all: false, countryIds: [] }
  const countries = await db.selectFrom('sysDeptCountry').select('countryId').distinct().where('deptId', 'in', rows.deptIds).execute()
  return { all: false, countryIds: countries.map((c) => Number(c.countryId)).sort((a, b) => a - b) }
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
