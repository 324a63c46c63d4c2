import { ADMIN_ROLE, isAdminOnlyPermission } from '@velo/shared'
import type { Db } from '../../db/database'
import { forbidden } from '../errors'
import { type AuthContext, hasPermission, permissionsOf, type RoleGrant } from './auth-context'
import { DataScope, resolveRowScope } from './data-scope'

// The grant rule: nobody gives themselves or anyone else a permission or a data scope they do not
// hold; the wildcard, admin-only permissions and the admin role are given by administrators only.
//
// Rather than guessing, route by route, which field could widen whose rights (a menu's permission
// string, a menu or role switched back on, a role's menus or scope, a user's roles or department, a
// department moved under another), every write to what rights are made of measures the rights of
// the users it can touch before and after, inside its own transaction, and is rolled back when
// anyone gained what the caller may not give. A new route that writes these tables through the
// entity hooks is held to the rule without knowing about it.

/** What a user may do: permission strings and the departments whose rows they see. */
export interface Rights {
  admin: boolean
  perms: ReadonlySet<string>
  /** Data scope "all". */
  all: boolean
  deptIds: ReadonlySet<number>
}

const NO_RIGHTS: Rights = { admin: false, perms: new Set(), all: false, deptIds: new Set() }

/** The rights a set of enabled roles gives a user of a department (account status aside: that is not a grant). */
async function rightsOfRoles(db: Db, roles: RoleGrant[], deptId: number | null): Promise<Rights> {
  const admin = roles.some((r) => r.roleKey === ADMIN_ROLE)
  const permissions = await permissionsOf(db, roles, admin)
  const roleKeys = roles.map((r) => r.roleKey)
  const scope = await resolveRowScope(db, { userId: 0, userName: '', deptId, deptName: '', roles, roleKeys, permissions, isAdmin: admin })
  return { admin, perms: new Set(permissions), all: scope.all, deptIds: new Set(scope.all ? [] : scope.deptIds) }
}

const CHUNK = 500

/** The rights of these users as the transaction sees them now; users with the same roles and department are read once. */
export async function rightsOfUsers(db: Db, userIds: readonly number[]): Promise<Map<number, Rights>> {
  const ids = [...new Set(userIds)]
  const profiles = new Map<number, { deptId: number | null; roles: RoleGrant[] }>()
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK)
    const users = await db.selectFrom('sysUser').select(['userId', 'deptId']).where('userId', 'in', chunk).where('delFlag', '=', '0').execute()
    for (const u of users) profiles.set(Number(u.userId), { deptId: u.deptId === null ? null : Number(u.deptId), roles: [] })
    const links = await db
      .selectFrom('sysUserRole as ur')
      .innerJoin('sysRole as r', 'r.roleId', 'ur.roleId')
      .select(['ur.userId', 'r.roleId', 'r.roleKey', 'r.dataScope'])
      .where('ur.userId', 'in', chunk)
      .where('r.status', '=', '0')
      .where('r.delFlag', '=', '0')
      .orderBy('r.roleId')
      .execute()
    for (const l of links) profiles.get(Number(l.userId))?.roles.push({ roleId: Number(l.roleId), roleKey: l.roleKey, dataScope: l.dataScope })
  }
  const byProfile = new Map<string, Promise<Rights>>()
  const out = new Map<number, Rights>()
  for (const [userId, p] of profiles) {
    const key = `${p.deptId}|${p.roles.map((r) => r.roleId).join(',')}`
    if (!byProfile.has(key)) byProfile.set(key, rightsOfRoles(db, p.roles, p.deptId))
    out.set(userId, await byProfile.get(key)!)
  }
  return out
}

/** Whether the caller may hand this permission to anyone: one they hold, never the wildcard or an admin-only one. */
export function mayGrantPermission(auth: AuthContext, permission: string): boolean {
  return auth.isAdmin || (!isAdminOnlyPermission(permission) && hasPermission(auth, permission))
}

/** Refuses permission strings the caller may not give (a menu's permission field, before anyone holds it). */
export function assertPermissionsGrantable(auth: AuthContext, permissions: readonly string[]) {
  const refused = permissions.find((p) => !mayGrantPermission(auth, p))
  if (refused !== undefined) throw forbidden('grant.permission', { permission: refused })
}

/** The caller as a grantor: their permissions and, read once, their data scope. */
export interface Grantor {
  auth: AuthContext
  all: boolean
  deptIds: ReadonlySet<number>
}

export async function grantorOf(db: Db, auth: AuthContext): Promise<Grantor> {
  const scope = await resolveRowScope(db, auth)
  return { auth, all: scope.all, deptIds: new Set(scope.all ? [] : scope.deptIds) }
}

/** Refuses when `after` holds a right that `before` did not and the grantor may not give. */
export function assertGainGrantable(grantor: Grantor, before: Rights, after: Rights) {
  if (grantor.auth.isAdmin) return
  if (after.admin && !before.admin) throw forbidden('grant.admin')
  for (const p of after.perms) if (!before.perms.has(p) && !mayGrantPermission(grantor.auth, p)) throw forbidden('grant.permission', { permission: p })
  if (before.all || grantor.all) return
  if (after.all) throw forbidden('grant.scopeAll')
  for (const d of after.deptIds) if (!before.deptIds.has(d) && !grantor.deptIds.has(d)) throw forbidden('scope.dept', { deptId: d })
}

/** Whether `rights` are all within the grantor's own (what they may manage: a user, a role). */
export function withinGrantor(grantor: Grantor, rights: Rights): boolean {
  try {
    assertGainGrantable(grantor, NO_RIGHTS, rights)
    return true
  } catch {
    return false
  }
}

/** The rights each of these roles gives on its own, where it does not depend on the holder's department. */
export async function rightsOfRoleIds(db: Db, roleIds: readonly number[]): Promise<Map<number, Rights>> {
  const out = new Map<number, Rights>()
  if (!roleIds.length) return out
  const roles = await db.selectFrom('sysRole').select(['roleId', 'roleKey', 'dataScope', 'status']).where('roleId', 'in', [...new Set(roleIds)]).where('delFlag', '=', '0').execute()
  for (const r of roles) {
    const enabled = r.status === '0'
    out.set(Number(r.roleId), enabled ? await rightsOfRoles(db, [{ roleId: Number(r.roleId), roleKey: r.roleKey, dataScope: r.dataScope }], null) : NO_RIGHTS)
  }
  return out
}

/** Whose rights a write can change: users, and roles (a role's own rights matter before anyone holds it). */
export interface GrantSubjects {
  users?: readonly number[]
  roles?: readonly number[]
}

/** What a write brought in: a new user or role, or a new department (seen by those whose scope covers where it went). */
export interface GrantAdditions extends GrantSubjects {
  departments?: readonly number[]
}

async function readSubjects(db: Db, s: GrantSubjects) {
  return { users: await rightsOfUsers(db, s.users ?? []), roles: await rightsOfRoleIds(db, s.roles ?? []) }
}

/**
 * One write held to the grant rule: `begin` reads the rights of what the write can touch, `finish`
 * (after the write, in the same transaction) reads them again and throws if any user or role gained
 * what the caller may not give, which rolls the write back. Administrators pass without a reading.
 */
export class GrantCheck {
  private constructor(
    private readonly grantor: Grantor | null,
    private readonly subjects: GrantSubjects,
    private readonly before: Awaited<ReturnType<typeof readSubjects>> | null,
  ) {}

  static async begin(db: Db, auth: AuthContext, subjects: GrantSubjects): Promise<GrantCheck> {
    if (auth.isAdmin) return new GrantCheck(null, {}, null)
    return new GrantCheck(await grantorOf(db, auth), subjects, await readSubjects(db, subjects))
  }

  async finish(db: Db, more: GrantAdditions = {}) {
    if (!this.grantor || !this.before) return
    let grantor = this.grantor
    if (more.departments?.length) {
      // A department the caller just made inside their own scope is theirs to be seen by others too.
      const now = await grantorOf(db, grantor.auth)
      const mine = more.departments.filter((d) => now.all || now.deptIds.has(d))
      grantor = { ...grantor, deptIds: new Set([...grantor.deptIds, ...mine]) }
    }
    const after = await readSubjects(db, {
      users: [...(this.subjects.users ?? []), ...(more.users ?? [])],
      roles: [...(this.subjects.roles ?? []), ...(more.roles ?? [])],
    })
    for (const [id, rights] of after.roles) assertGainGrantable(grantor, this.before.roles.get(id) ?? NO_RIGHTS, rights)
    for (const [id, rights] of after.users) assertGainGrantable(grantor, this.before.users.get(id) ?? NO_RIGHTS, rights)
  }
}

const GRANT_CHECK = 'grantCheck'

/** Keeps the write's check in its hook context, from the before-hook to the after-hook. */
export const grantCheckIn = {
  async begin(context: Record<string, unknown>, db: Db, auth: AuthContext, subjects: GrantSubjects) {
    context[GRANT_CHECK] = await GrantCheck.begin(db, auth, subjects)
  },
  async finish(context: Record<string, unknown>, db: Db, more: GrantAdditions = {}) {
    const check = context[GRANT_CHECK]
    if (!(check instanceof GrantCheck)) throw new Error('grant check finished without a begin')
    await check.finish(db, more)
  },
}

/** Users holding any of these roles. */
export async function holdersOfRoles(db: Db, roleIds: readonly number[]): Promise<number[]> {
  if (!roleIds.length) return []
  return (await db.selectFrom('sysUserRole').select('userId').distinct().where('roleId', 'in', [...roleIds]).execute()).map((r) => Number(r.userId))
}

/** Users holding a role that grants any of these menus. */
export async function holdersOfMenus(db: Db, menuIds: readonly number[]): Promise<number[]> {
  if (!menuIds.length) return []
  const rows = await db
    .selectFrom('sysUserRole as ur')
    .innerJoin('sysRoleMenu as rm', 'rm.roleId', 'ur.roleId')
    .select('ur.userId')
    .distinct()
    .where('rm.menuId', 'in', [...menuIds])
    .execute()
  return rows.map((r) => Number(r.userId))
}

/** Users whose data scope follows the department tree ("department and below"): a move changes what they see. */
export async function holdersOfTreeScopes(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom('sysUserRole as ur')
    .innerJoin('sysRole as r', 'r.roleId', 'ur.roleId')
    .select('ur.userId')
    .distinct()
    .where('r.dataScope', '=', DataScope.deptAndBelow)
    .execute()
  return rows.map((r) => Number(r.userId))
}
