import { ADMIN_ROLE, ALL_PERMISSIONS } from '@velo/shared'

// SPEC §6 checks. The server enforces the same rules; these only decide what the UI shows.

export interface AccessRule {
  /** Shown with role admin or any of these roles. */
  roles?: readonly string[]
  /** Shown with '*:*:*' or any of these permissions. */
  permissions?: readonly string[]
}

export function hasRole(owned: readonly string[], wanted: readonly string[]): boolean {
  if (!wanted.length) throw new Error('Role check needs at least one role, e.g. roles={["admin", "editor"]}')
  return owned.some((role) => role === ADMIN_ROLE || wanted.includes(role))
}

export function hasPermission(owned: readonly string[], wanted: readonly string[]): boolean {
  if (!wanted.length) throw new Error('Permission check needs at least one permission, e.g. permissions={["system:user:add"]}')
  return owned.some((perm) => perm === ALL_PERMISSIONS || wanted.includes(perm))
}

/** Every check given must pass; a rule with no values is a programming error (SPEC §5). */
export function isAllowed(rule: AccessRule, owned: { roles: readonly string[]; permissions: readonly string[] }): boolean {
  if (!rule.roles && !rule.permissions) throw new Error('Access check needs roles or permissions')
  if (rule.roles && !hasRole(owned.roles, rule.roles)) return false
  if (rule.permissions && !hasPermission(owned.permissions, rule.permissions)) return false
  return true
}
