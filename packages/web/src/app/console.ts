// The entry of the console, loaded by main.tsx (or preloaded by the sign-in page) with import().
import '../i18n'

export { App } from './App'

/** The shell is a chunk of its own that App loads lazily; after sign-in it is the next thing needed. */
export const preloadShell = (): Promise<unknown> => import('../layout/Shell')
