import type { EnumOption, Label } from './entity/types'

/** The languages of the riders' app (SPEC §3 App protocol): content is written once per language. */
export const APP_LANGUAGES = ['en_US', 'de_DE', 'nl_NL', 'fr_FR'] as const
export type AppLanguage = (typeof APP_LANGUAGES)[number]

const LANGUAGE_NAMES: Record<AppLanguage, [Label, string]> = {
  en_US: [{ en_US: 'English', zh_CN: '英语' }, 'blue'],
  de_DE: [{ en_US: 'German', zh_CN: '德语' }, 'gold'],
  nl_NL: [{ en_US: 'Dutch', zh_CN: '荷兰语' }, 'orange'],
  fr_FR: [{ en_US: 'French', zh_CN: '法语' }, 'purple'],
}

/**
 * The app languages as an enum field's options, named in the reader's language: content written in
 * a language and feedback written in one show the same names.
 */
export const APP_LANGUAGE_OPTIONS: readonly EnumOption[] = APP_LANGUAGES.map((value) => ({ value, label: LANGUAGE_NAMES[value][0], color: LANGUAGE_NAMES[value][1] }))
