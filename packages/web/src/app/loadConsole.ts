// The console (antd, the router, the shell and the pages) is loaded apart from the public pages:
// the sign-in page paints from the entry chunk alone and starts loading the console when the user
// begins to type, so it is there by the time they press Sign in (see main.tsx).

import antdStyleSheet from 'virtual:velo-antd-styles'
import type { SignedInSession } from '../session/sessionStore'

type ConsoleModule = typeof import('./console')

let loading: Promise<ConsoleModule> | null = null

let styled: Promise<void> | null = null

/**
 * antd's styles for the first screens, made at build time (build/antdStaticStyles.ts), in the page
 * before the console's first render: antd reads once, at its first style, which ones the file holds,
 * and makes only the others. First in <head>, where antd puts the styles it makes, so the app's own
 * CSS overrides them as it does those. A file that fails to load costs nothing but that time back.
 */
function loadAntdStyles(): Promise<void> {
  if (!antdStyleSheet) return Promise.resolve()
  return (styled ??= new Promise<void>((resolve) => {
    const link = document.createElement('link')
    link.rel = 'stylesheet'
    link.href = antdStyleSheet!
    link.onload = link.onerror = () => resolve()
    document.head.prepend(link)
  }))
}

/** The console's module, loaded once (a failed load may be tried again). */
export function loadConsole(): Promise<ConsoleModule> {
  loading ??= Promise.all([import('./console'), loadAntdStyles()]).then(async ([m]) => (await m.languageReady, m)).catch((error: unknown) => {
    loading = null
    throw error
  })
  return loading
}

let preloading = false
let preloadedPage: string | undefined

/**
 * Starts loading the console and its shell without waiting for them (once), and the code of the page
 * at `opens`, the sign-in's destination (once per address); failures wait for the real load.
 */
export function preloadConsole(opens?: string): void {
  if (!preloading) {
    preloading = true
    loadConsole()
      .then((m) => m.preloadShell())
      .catch(() => {
        preloading = false
      })
  }
  if (opens === undefined || opens === preloadedPage) return
  preloadedPage = opens
  loadConsole()
    .then((m) => m.preloadPageAt(opens))
    .catch(() => {
      preloadedPage = undefined
    })
}

/**
 * Signed in: the session (user info and routes, given by the sign-in's answer or loaded now) is taken
 * beside the console's first render, not once the route guard has rendered and asked for it, and the
 * page it opens starts. The guard then finds the session on its way.
 */
export function startSession(session?: SignedInSession): void {
  loadConsole()
    .then((m) => m.startSession(session))
    .catch(() => undefined)
}
