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
  return formatMessage(lang, catalogs[lang][key], params)
}

const numberFormats = new Map<Language, Intl.NumberFormat>()
/**
 * A count as the language writes it (3,357 in English; 3,357 in Chinese too): the one number format
 * of the server's texts, used by a plural's `#` and by values a module shows beside them (a preview's facts).
 */
export function formatCount(lang: Language, n: number): string {
  let format = numberFormats.get(lang)
  if (!format) numberFormats.set(lang, (format = new Intl.NumberFormat(lang.replace('_', '-'))))
  return format.format(n)
}

const pluralRules = new Map<Language, Intl.PluralRules>()
const pluralOf = (lang: Language, n: number) => {
  let rules = pluralRules.get(lang)
  if (!rules) pluralRules.set(lang, (rules = new Intl.PluralRules(lang.replace('_', '-'))))
  return rules.select(n)
}

/** The text between the brace at `open` and its matching close, and the index after that close. */
function braced(text: string, open: number): { inner: string; end: number } | null {
  let depth = 0
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++
    else if (text[i] === '}' && --depth === 0) return { inner: text.slice(open + 1, i), end: i + 1 }
  }
  return null
}

/**
 * Fills a message: `{name}` takes the parameter; `{name, plural, one {# minute} other {# minutes}}`
 * picks the branch for the number by the language's plural rules (`=0 {…}` matches exactly), with
 * `#` standing for the number in the language's format (`formatCount`, as ICU does). A placeholder
 * without its parameter is left as it is; a plain `{name}` is put as given (ids, versions, years).
 */
export function formatMessage(lang: Language, template: string, params: MessageParams): string {
  let out = ''
  let i = 0
  while (i < template.length) {
    const open = template.indexOf('{', i)
    if (open < 0) break
    out += template.slice(i, open)
    const block = braced(template, open)
    if (!block) return out + template.slice(open)
    i = block.end
    const plural = /^\s*(\w+)\s*,\s*plural\s*,([\s\S]*)$/.exec(block.inner)
    const name = plural ? plural[1]! : block.inner.trim()
    const value = params[name]
    if (!plural) {
      out += /^\w+$/.test(name) && value !== undefined ? String(value) : `{${block.inner}}`
      continue
    }
    const n = Number(value)
    const branches = new Map<string, string>()
    const body = plural[2]!
    for (let k = 0; k < body.length; ) {
      const selector = /^\s*(=?\w+)\s*/.exec(body.slice(k))
      if (!selector || body[k + selector[0].length] !== '{') break
      const branch = braced(body, k + selector[0].length)
      if (!branch) break
      branches.set(selector[1]!, branch.inner)
      k = branch.end
    }
    const chosen = value === undefined || Number.isNaN(n) ? undefined : (branches.get(`=${n}`) ?? branches.get(pluralOf(lang, n)) ?? branches.get('other'))
    out += chosen === undefined ? `{${block.inner}}` : formatMessage(lang, chosen.replace(/#/g, formatCount(lang, n)), params)
  }
  return out + template.slice(i)
}

/** A bilingual label: the entity definitions and seed data carry both. */
export type Label = Record<Language, string>
