import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@velo/shared'
import { LANGUAGE_KEY } from '../lib/config'

// The language of the page, without i18next: the sign-in page reads it too, and it loads no i18next.

/** The stored language (SPEC §1: key user_lang, default en_US). */
export function currentLanguage(): Language {
  let stored: string | null = null
  try {
    stored = localStorage.getItem(LANGUAGE_KEY)
  } catch {
    // Storage may be blocked; fall back to the default.
  }
  return (LANGUAGES as readonly string[]).includes(stored ?? '') ? (stored as Language) : DEFAULT_LANGUAGE
}

/** Changing language reloads the page so every module, antd and dayjs pick it up together. */
export function switchLanguage(language: Language): void {
  localStorage.setItem(LANGUAGE_KEY, language)
  window.location.reload()
}
