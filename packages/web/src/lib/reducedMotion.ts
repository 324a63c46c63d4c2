import { useSyncExternalStore } from 'react'

// Whether the person asked their system for less motion (WCAG 2.3.3). The console then drops its
// own animations: dialogs, drawers and menus appear at once instead of zooming and sliding in.

const QUERY = '(prefers-reduced-motion: reduce)'

const mediaQuery = (): MediaQueryList | null => (typeof window !== 'undefined' && window.matchMedia ? window.matchMedia(QUERY) : null)

function subscribe(onChange: () => void): () => void {
  const list = mediaQuery()
  list?.addEventListener?.('change', onChange)
  return () => list?.removeEventListener?.('change', onChange)
}

const prefersReducedMotion = (): boolean => mediaQuery()?.matches ?? false

/** The preference now, and again whenever the person changes it. */
export function usePrefersReducedMotion(): boolean {
  return useSyncExternalStore(subscribe, prefersReducedMotion, () => false)
}
