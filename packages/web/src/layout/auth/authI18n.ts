import { authEnUS, authZhCN, type AuthMessageKey } from '../../i18n/auth'
import { currentLanguage } from '../../i18n/language'

/**
 * The public pages' translation: only their own texts (i18n/auth.ts), `{{name}}` placeholders, no
 * i18next. The language is the stored one; switching it reloads the page, as in the console.
 */
export function t(key: AuthMessageKey, values?: Record<string, string | number>): string {
  const text = (currentLanguage() === 'zh_CN' ? authZhCN : authEnUS)[key]
  return values ? text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole)) : text
}

export type { AuthMessageKey }
