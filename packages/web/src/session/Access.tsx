import type { ReactNode } from 'react'
import { sessionStore } from './sessionStore'
import { isAllowed, type AccessRule } from './access'

/**
 * The check of any rule against the signed-in user, for rules only known at run time (one per step
 * of an entity's definition); re-renders when roles or permissions change.
 */
export function useAccessCheck(): (rule: AccessRule) => boolean {
  const roles = sessionStore.use((s) => s.roles)
  const permissions = sessionStore.use((s) => s.permissions)
  return (rule) => isAllowed(rule, { roles, permissions })
}

/** Whether the signed-in user passes the rule; re-renders when roles or permissions change. */
export function useAccess(rule: AccessRule): boolean {
  return useAccessCheck()(rule)
}

/** Renders children only for users the rule allows, e.g. <Access permissions={['system:dict:add']}>. */
export function Access({ children, fallback = null, ...rule }: AccessRule & { children: ReactNode; fallback?: ReactNode }) {
  return useAccess(rule) ? children : fallback
}
