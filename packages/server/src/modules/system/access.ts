import { ADMIN_ROLE } from '@velo/shared'
import { z } from 'zod'
import type { Db } from '../../db/database'
import { forbidden, notFound } from '../../platform/errors'
import type { AuthContext } from '../../platform/rbac/auth-context'
import { type RowScope, resolveRowScope, scopeCondition } from '../../platform/rbac/data-scope'

// What the system modules share: who may touch which rows, and tree options for pickers.
// Every helper takes the executor to read through: inside an entity hook that must be the hook's
// transaction (SQLite has one connection, so a query on the database would wait for the hook forever).

/** The caller's row scope, read through the given executor. */
export function scopeOf(db: Db, auth: AuthContext): Promise<RowScope> {
  return resolveRowScope(db, auth)
}

export function deptInScope(scope: RowScope, deptId: number | null | undefined): boolean {
  return scope.all || (deptId !== null && deptId !== undefined && scope.deptIds.includes(deptId))
}

/** Refuses to place a row in a department outside the caller's data scope (undefined: not being set). */
export async function assertDeptInScope(db: Db, auth: AuthContext, deptId: unknown) {
  if (deptId === undefined) return
  const id = deptId === null ? null : Number(deptId)
  if (!deptInScope(await scopeOf(db, auth), id)) throw forbidden('scope.dept', { deptId: id ?? '-' })
}

/** A user the caller may see (their data scope), or 404 as for any row out of scope. */
export async function userInScope(db: Db, auth: AuthContext, userId: number) {
  const scope = await scopeOf(db, auth)
  const user = await db
    .selectFrom('sysUser')
    .select(['userId', 'userName', 'deptId', 'status'])
    .where('userId', '=', userId)
    .where((eb) => scopeCondition(eb, scope, 'deptId', 'userId'))
    .executeTakeFirst()
  if (!user) throw notFound()
  return user
}

/** The ids of the roles with key 'admin' (one, unless someone renamed keys around). */
export async function adminRoleIds(db: Db): Promise<number[]> {
  return (await db.selectFrom('sysRole').select('roleId').where('roleKey', '=', ADMIN_ROLE).execute()).map((r) => Number(r.roleId))
}

/** Whether the user holds the admin role: only admins may change such an account. */
export async function holdsAdminRole(db: Db, userId: number): Promise<boolean> {
  const admins = await adminRoleIds(db)
  if (admins.length === 0) return false
  const link = await db.selectFrom('sysUserRole').select('roleId').where('userId', '=', userId).where('roleId', 'in', admins).executeTakeFirst()
  return !!link
}

/** The built-in administrator: user 1, named admin. It is never deleted, disabled or stripped of its role. */
export const isBuiltInAdmin = (row: { userId?: unknown; userName?: unknown }) => Number(row.userId) === 1 || row.userName === 'admin'

/** One option of a tree picker (departments, menus). */
export interface TreeOption {
  id: number
  label: string
  /** A disabled department: shown, not chosen. */
  disabled?: boolean
  children?: TreeOption[]
}

/** A tree picker's options as the treeselect routes answer them. */
export const treeOptionSchema: z.ZodType<TreeOption> = z.object({
  id: z.number(),
  label: z.string(),
  disabled: z.boolean().optional(),
  get children() {
    return z.array(treeOptionSchema).optional()
  },
}).meta({ id: 'TreeOption' })

/** Nests rows by parent; a row whose parent is not among them (out of scope, or 0) is a root. */
export function toTree<T>(rows: readonly T[], idOf: (r: T) => number, parentOf: (r: T) => number, option: (r: T) => Omit<TreeOption, 'id' | 'children'>): TreeOption[] {
  const nodes = new Map<number, TreeOption>()
  for (const r of rows) nodes.set(idOf(r), { id: idOf(r), ...option(r) })
  const roots: TreeOption[] = []
  for (const r of rows) {
    const node = nodes.get(idOf(r))!
    const parent = nodes.get(parentOf(r))
    if (parent) (parent.children ??= []).push(node)
    else roots.push(node)
  }
  return roots
}

/** The departments in the caller's data scope, as a tree (what user filters and role scopes pick from). */
export async function deptTree(db: Db, auth: AuthContext): Promise<TreeOption[]> {
  const scope = await scopeOf(db, auth)
  const rows = await db
    .selectFrom('sysDept')
    .select(['deptId', 'parentId', 'deptName', 'status'])
    .where('delFlag', '=', '0')
    .where((eb) => scopeCondition(eb, scope, 'deptId'))
    .orderBy('parentId')
    .orderBy('orderNum')
    .orderBy('deptId')
    .execute()
  return toTree(
    rows,
    (r) => Number(r.deptId),
    (r) => Number(r.parentId),
    (r) => ({ label: r.deptName, disabled: r.status !== '0' }),
  )
}

/** Body of the changeStatus calls: the row's id under its own name, and '0' (normal) or '1' (disabled). */
export const statusChange = <K extends string>(idField: K) =>
  z.object({ status: z.enum(['0', '1']) }).extend({ [idField]: z.number().int().positive() } as { [P in K]: z.ZodNumber })
