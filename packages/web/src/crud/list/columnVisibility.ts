import { useCallback, useState } from 'react'
import { sessionStore } from '../../session/sessionStore'

// Which columns a user has hidden in which list, kept in this browser per user name and entity. The
// hidden ones are stored, so a column added to a definition later shows up for everyone.

export const columnsStorageKey = (userName: string, entityKey: string) => `velo.columns.${userName}.${entityKey}`

export function readHiddenColumns(key: string): string[] {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(key) ?? '[]')
    return Array.isArray(stored) ? stored.filter((name): name is string => typeof name === 'string') : []
  } catch {
    return [] // unreadable or blocked storage: every column shows
  }
}

export function writeHiddenColumns(key: string, hidden: readonly string[]): void {
  try {
    if (hidden.length) localStorage.setItem(key, JSON.stringify(hidden))
    else localStorage.removeItem(key)
  } catch {
    // Blocked storage: the choice lasts until the page reloads.
  }
}

/** The hidden columns of one list for the signed-in user, and a setter that remembers them. */
export function useHiddenColumns(entityKey: string): [ReadonlySet<string>, (hidden: readonly string[]) => void] {
  const userName = sessionStore.use((s) => s.user?.username ?? '')
  const key = columnsStorageKey(userName, entityKey)
  const [state, setState] = useState(() => ({ key, hidden: new Set(readHiddenColumns(key)) }))
  // Another user signing in on this tab reads their own choice.
  const current = state.key === key ? state : { key, hidden: new Set(readHiddenColumns(key)) }
  if (current !== state) setState(current)
  const update = useCallback(
    (hidden: readonly string[]) => {
      writeHiddenColumns(key, hidden)
      setState({ key, hidden: new Set(hidden) })
    },
    [key],
  )
  return [current.hidden, update]
}
