import { ADMIN_ROLE } from '@velo/shared'
import type { Services } from '../../services'
import { ConfigKey } from '../../config-keys'
import { permissionsOf, type RoleGrant } from '../../rbac/auth-context'

/** Whether a user must hold a second factor, and from when (null: not required, or no date yet). */
export interface SecondFactorStatus {
  required: boolean
  due: string | null
}

/**
 * Whether these roles (a user's enabled ones) require a second factor: a role set to `always`, or set to `auto` (the
 * default) and holding a sensitive right (the permission of a route marked stepUp: approve or start
 * a firmware push, SQL writes, grants, backups, device keys). The administrator role holds them all.
 */
export async function requiresSecondFactor(services: Services, roles: readonly RoleGrant[]): Promise<boolean> {
  if (roles.some((r) => r.secondFactor === 'always')) return true
  const sensitive = services.identity.stepUp.sensitiveRights
  for (const role of roles.filter((r) => (r.secondFactor ?? 'auto') === 'auto')) {
    if (role.roleKey === ADMIN_ROLE) return sensitive.size > 0
    const held = await permissionsOf(services.db, [role], false)
    if (held.some((p) => sensitive.has(p))) return true
  }
  return false
}

/**
 * The user's requirement and its due date: the grace period (config key
 * sys.account.secondFactorGraceDays) counts from the first time it is asked for, and is kept.
 */
export async function secondFactorStatus(services: Services, userId: number, roles: readonly RoleGrant[], now = new Date()): Promise<SecondFactorStatus> {
  if (!(await requiresSecondFactor(services, roles))) return { required: false, due: null }
  const row = await services.db.selectFrom('sysUser').select('secondFactorDue').where('userId', '=', userId).executeTakeFirst()
  if (row?.secondFactorDue) return { required: true, due: row.secondFactorDue }
  const graceDays = await services.configValues.int(ConfigKey.secondFactorGraceDays, 7, 0)
  const due = new Date(now.getTime() + graceDays * 86_400_000).toISOString()
  await services.db.updateTable('sysUser').set({ secondFactorDue: due }).where('userId', '=', userId).where('secondFactorDue', 'is', null).execute()
  return { required: true, due }
}
