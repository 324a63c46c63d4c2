import { ADMIN_ROLE, ALL_PERMISSIONS } from '@velo/shared'
import type { Db } from '../../db/database'

export interface RoleGrant {
  roleId: number
  roleKey: string
  dataScope: string
  /** Whether its users must hold a second factor (auto, always, never): read with the signed-in context. */
  secondFactor?: string
}

/** Who is calling: loaded once per request from the session's user. */
export interface AuthContext {
  userId: number
  userName: string
  deptId: number | null
  deptName: string
  roles: RoleGrant[]
  roleKeys: string[]
  permissions: string[]
  isAdmin: boolean
  /** The token hash of the session it serves: a second proof (platform/auth/factors/step-up.ts) holds for one session. */
  session?: string
}

export async function loadAuthContext(db: Db, userId: number): Promise<AuthContext | undefined> {
  const user = await db
    .selectFrom('sysUser as u')
    .leftJoin('sysDept as d', 'd.deptId', 'u.deptId')
    .select(['u.userId', 'u.userName', 'u.deptId', 'u.status', 'd.deptName'])
    .where('u.userId', '=', userId)
    .where('u.delFlag', '=', '0')
    .executeTakeFirst()
  if (!user || user.status !== '0') return undefined
  const roles = await enabledRolesOf(db, userId)
  const roleKeys = roles.map((r) => r.roleKey)
  const isAdmin = roleKeys.includes(ADMIN_ROLE)
  const permissions = await permissionsOf(db, roles, isAdmin)
  return { userId: user.userId, userName: user.userName, deptId: user.deptId, deptName: user.deptName ?? '', roles, roleKeys, permissions, isAdmin }
}

/** The user's enabled roles, by their order. */
export function enabledRolesOf(db: Db, userId: number): Promise<RoleGrant[]> {
  return db
    .selectFrom('sysUserRole as ur')
    .innerJoin('sysRole as r', 'r.roleId', 'ur.roleId')
    .select(['r.roleId', 'r.roleKey', 'r.dataScope', 'r.secondFactor'])
    .where('ur.userId', '=', userId)
    .where('r.status', '=', '0')
    .where('r.delFlag', '=', '0')
    .orderBy('r.roleSort')
    .execute()
}

/** The permission strings enabled roles give through their enabled menus (everything for the admin role). */
export async function permissionsOf(db: Db, roles: readonly RoleGrant[], isAdmin: boolean): Promise<string[]> {
  if (isAdmin) return [ALL_PERMISSIONS]
  if (roles.length === 0) return []
  const rows = await db
    .selectFrom('sysRoleMenu as rm')
    .innerJoin('sysMenu as m', 'm.menuId', 'rm.menuId')
    .select('m.perms')
    .distinct()
    .where(
      'rm.roleId',
      'in',
      roles.map((r) => r.roleId),
    )
    .where('m.status', '=', '0')
    .where('m.perms', 'is not', null)
    .where('m.perms', '<>', '')
    .execute()
  return [...new Set(rows.flatMap((r) => splitPermissions(r.perms)))]
}

/** A menu may list several permissions separated by commas. */
export function splitPermissions(perms: string | null | undefined): string[] {
  return (perms ?? '').split(',').map((p) => p.trim()).filter(Boolean)
}

export function hasPermission(ctx: AuthContext, permission: string): boolean {
  return ctx.isAdmin || ctx.permissions.includes(ALL_PERMISSIONS) || ctx.permissions.includes(permission)
}
