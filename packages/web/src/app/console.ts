// The entry of the console, loaded by main.tsx (or preloaded by the sign-in page) with import().
import { loadLanguage } from '../i18n'

export { App } from './App'
export { loadSessionOnce } from '../layout/sessionFlow'

/** The shell is a chunk of its own that App loads lazily; after sign-in it is the next thing needed. */
export const preloadShell = (): Promise<unknown> => import('../layout/Shell')

/** The page's language catalogue (a chunk of its own for Chinese): loadConsole waits for it before the console renders. */
export const languageReady: Promise<void> = loadLanguage()
