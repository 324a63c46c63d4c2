import type { Expression, ExpressionBuilder, SqlBool } from 'kysely'
import { sql } from 'kysely'
import type { Db } from '../../db/database'
import type { AuthContext } from './auth-context'

/** Role data scopes, stored as RuoYi codes. */
export const DataScope = {
  all: '1',
  custom: '2',
  ownDept: '3',
  deptAndBelow: '4',
  selfOnly: '5',
} as const

/**
 * What rows a caller may see: everything, or rows of these departments, of these departments'
 * countries (their regions), or owned by this user ("personal only"; `userName` for rows that name
 * their creator). docs/entity-engine.md › Data scope.
 */
export type RowScope = { all: true } | { all: false; deptIds: number[]; countryIds: number[]; userId: number | null; userName: string | null }

/**
 * The union of the scopes of all the caller's roles (a grant from any role is enough), as RuoYi does.
 * Department subtrees are resolved through the ancestors path.
 */
export async function resolveRowScope(db: Db, ctx: AuthContext): Promise<RowScope> {
  if (ctx.isAdmin || ctx.roles.some((r) => r.dataScope === DataScope.all)) return { all: true }
  const deptIds = new Set<number>()
  let userId: number | null = null
  for (const role of ctx.roles) {
    switch (role.dataScope) {
      case DataScope.custom: {
        const rows = await db.selectFrom('sysRoleDept').select('deptId').where('roleId', '=', role.roleId).execute()
        rows.forEach((r) => deptIds.add(r.deptId))
        break
      }
      case DataScope.ownDept:
        if (ctx.deptId !== null) deptIds.add(ctx.deptId)
        break
      case DataScope.deptAndBelow:
        if (ctx.deptId !== null) {
          deptIds.add(ctx.deptId)
          const below = await db
            .selectFrom('sysDept')
            .select('deptId')
            .where(sql<string>`',' || ancestors || ','`, 'like', `%,${ctx.deptId},%`)
            .execute()
          below.forEach((r) => deptIds.add(r.deptId))
        }
        break
      default:
        // selfOnly, and any unknown code: the narrowest scope.
        userId = ctx.userId
    }
  }
  // A user with no role at all sees only their own rows.
  if (ctx.roles.length === 0) userId = ctx.userId
  const depts = [...deptIds]
  // A department's region is its countries; one without countries adds none.
  const countries = depts.length ? await db.selectFrom('sysDeptCountry').select('countryId').distinct().where('deptId', 'in', depts).execute() : []
  return {
    all: false,
    deptIds: depts,
    countryIds: countries.map((c) => Number(c.countryId)).sort((a, b) => a - b),
    userId,
    userName: userId === null ? null : ctx.userName,
  }
}

/** The scope as a WHERE condition on an entity's owner columns (names come from definitions, never requests). */
export function scopeCondition<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  scope: RowScope,
  deptColumn: string,
  userColumn?: string,
): Expression<SqlBool> {
  if (scope.all) return sql<boolean>`1 = 1`
  const parts: Expression<SqlBool>[] = []
  if (scope.deptIds.length > 0) parts.push(sql<boolean>`${sql.ref(deptColumn)} in (${sql.join(scope.deptIds)})`)
  // "Self only" on an entity without an owner user column grants nothing, as in RuoYi.
  if (scope.userId !== null && userColumn) parts.push(sql<boolean>`${sql.ref(userColumn)} = ${scope.userId}`)
  return parts.length === 0 ? sql<boolean>`1 = 0` : eb.or(parts)
}
