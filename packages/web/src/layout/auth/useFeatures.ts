import { useEffect, useState } from 'react'
import type { AccountFeatures } from '@velo/shared'
import { authApi, errorText } from './authApi'
import { toast } from './toast'

// Public account switches (register, forget password, captcha) from the server, asked once a minute
// at most, as the console's query cache did.

const STALE_MS = 60_000
let cached: { at: number; promise: Promise<AccountFeatures | null>; value?: AccountFeatures | null } | null = null

/** The switches; null when the call failed (its message is shown). */
export function loadFeatures(): Promise<AccountFeatures | null> {
  if (!cached || Date.now() - cached.at > STALE_MS) {
    const entry: NonNullable<typeof cached> = { at: Date.now(), promise: Promise.resolve(null) }
    entry.promise = authApi.features().then(
      (features) => (entry.value = features),
      (error: unknown) => {
        toast('error', errorText(error))
        if (cached === entry) cached = null
        return (entry.value = null)
      },
    )
    cached = entry
  }
  return cached.promise
}

/** Forgets the switches, so the next page asks the server again. */
export function forgetFeatures(): void {
  cached = null
}

export function useFeatures(): { data: AccountFeatures | null | undefined; isPending: boolean } {
  const [state, setState] = useState<{ data?: AccountFeatures | null }>(() =>
    cached && cached.value !== undefined && Date.now() - cached.at <= STALE_MS ? { data: cached.value } : {},
  )
  useEffect(() => {
    let live = true
    void loadFeatures().then((data) => live && setState({ data }))
    return () => {
      live = false
    }
  }, [])
  return { data: state.data, isPending: !('data' in state) }
}
