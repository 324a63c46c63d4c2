import i18n from 'i18next'
import { initReactI18next } from 'react-i18next'
import { DEFAULT_LANGUAGE, LANGUAGES, type Label, type Language } from '@velo/shared'
import { authEnUS, authZhCN } from './auth'
import { currentLanguage } from './language'
import { enUS } from './en_US'
import { menuEnUS, menuZhCN } from './menus'

export { currentLanguage, switchLanguage } from './language'

// Keys are flat ('menu.system' and 'menu.system.dict' both exist), so '.' is not a separator.
void i18n.use(initReactI18next).init({
  lng: currentLanguage(),
  fallbackLng: DEFAULT_LANGUAGE,
  supportedLngs: [...LANGUAGES],
  load: 'currentOnly',
  keySeparator: false,
  nsSeparator: false,
  initAsync: false,
  interpolation: { escapeValue: false },
  // i18next prints an advertisement to the console at every init (in every test file, and in staff's browsers).
  showSupportNotice: false,
  resources: {
    // The public pages' texts live apart so the sign-in page loads only them (see ./auth.ts).
    // English is the default and every key's fallback, so it comes with the console; the Chinese
    // catalogue is a chunk of its own that only a Chinese page loads (loadLanguage, before it renders).
    // Both hold the shell's and the list kit's texts and those of pages with few words: an area with
    // many brings its own with its pages (routes/pageTexts.ts, addTexts).
    en_US: { translation: { ...authEnUS, ...enUS, ...menuEnUS } },
    zh_CN: { translation: { ...authZhCN, ...menuZhCN } },
  },
})

/** The console's texts in `language`, added to i18next once; the page changes language only by reloading. */
export async function loadLanguage(language: Language = currentLanguage()): Promise<void> {
  if (language !== 'zh_CN' || chineseLoaded) return
  const { zhCN } = await import('./zh_CN')
  i18n.addResourceBundle('zh_CN', 'translation', zhCN, true, true)
  chineseLoaded = true
}
let chineseLoaded = false

/** Texts that come with a page (routes/pageTexts.ts), in the one language the page loaded them in. */
export function addTexts(language: Language, texts: Readonly<Record<string, string>>): void {
  i18n.addResourceBundle(language, 'translation', texts, true, true)
}

const KEY_LIKE = /^[a-z][\w-]*(\.[\w-]+)+$/

/** 'menu.system.iotConfig' → 'Iot Config': the fallback when a menu key has no translation yet. */
export function prettifyKey(key: string): string {
  const last = key.slice(key.lastIndexOf('.') + 1)
  const words = last
    .replace(/[-_]+/g, ' ')
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/**
 * Route and menu titles from the server are i18n keys ('menu.system.dict') or plain text:
 * translate a known key, prettify an unknown key, show plain text as is.
 */
export function translateTitle(title: string | null | undefined): string {
  if (!title) return ''
  if (i18n.exists(title)) return i18n.t(title)
  return KEY_LIKE.test(title) ? prettifyKey(title) : title
}

/** A definition's text (field and entity labels) in the language of the page. */
export function localized(label: Label): string {
  return label[i18n.language as Language] ?? label[DEFAULT_LANGUAGE]
}

export default i18n
