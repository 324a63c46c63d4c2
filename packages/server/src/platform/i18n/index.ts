import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@velo/shared'
import { catalogs, type MessageKey } from './messages'

export type { MessageKey }
export type MessageParams = Record<string, string | number>

export function pickLanguage(header: string | string[] | undefined): Language {
  const value = Array.isArray(header) ? header[0] : header
  const normalized = value?.trim().replace('-', '_')
  return (LANGUAGES as readonly string[]).includes(normalized ?? '') ? (normalized as Language) : DEFAULT_LANGUAGE
}

export function t(lang: Language, key: MessageKey, params: MessageParams = {}): string {
  return catalogs[lang][key].replace(/\{(\w+)\}/g, (whole, name: string) =>
    params[name] === undefined ? whole : String(params[name]),
  )
}

/** A bilingual label: the entity definitions and seed data carry both. */
export type Label = Record<Language, string>
