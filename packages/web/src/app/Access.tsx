import type { ReactNode } from 'react'
import { sessionStore } from './session/sessionStore'
import { isAllowed, type AccessRule } from './access'

/** Whether the signed-in user passes the rule; re-renders when roles or permissions change. */
export function useAccess(rule: AccessRule): boolean {
  const roles = sessionStore.use((s) => s.roles)
  const permissions = sessionStore.use((s) => s.permissions)
  return isAllowed(rule, { roles, permissions })
}

/** Renders children only for users the rule allows, e.g. <Access permissions={['system:dict:add']}>. */
export function Access({ children, fallback = null, ...rule }: AccessRule & { children: ReactNode; fallback?: ReactNode }) {
  return useAccess(rule) ? children : fallback
}
