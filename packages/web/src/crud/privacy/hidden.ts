import { useMemo } from 'react'
import { hiddenCategories, type PersonalCategory } from '@velo/shared'
import { hasPermission } from '../../session/access'
import { sessionStore } from '../../session/sessionStore'

/** The categories of personal data the signed-in user sees masked (the server's rule, from the same rights). */
export function useHiddenCategories(): ReadonlySet<PersonalCategory> {
  const permissions = sessionStore.use((s) => s.permissions)
  return useMemo(() => hiddenCategories((permission) => hasPermission(permissions, [permission])), [permissions])
}
