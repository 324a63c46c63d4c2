import type { Language } from '@velo/shared'
import { z } from 'zod'
import type { Label } from '@velo/shared'
import { t } from './index'

// Validation runs before the request's language is known, so a schema carries both texts in its
// message and the error handler picks one.
const MARK = '\u0001i18n:'

export function bilingual(label: Label): string {
  return MARK + JSON.stringify(label)
}

export interface RawIssue {
  code: string
  path: string
  message: string
  params: Record<string, unknown>
}

const zhLocale = z.locales.zhCN()

export function localizeIssue(issue: RawIssue, lang: Language): string {
  if (issue.message.startsWith(MARK)) {
    const label = JSON.parse(issue.message.slice(MARK.length)) as Label
    return label[lang]
  }
  const field = issue.path || 'body'
  if (/received undefined$/.test(issue.message)) return t(lang, 'error.field.required', { field })
  if (lang === 'en_US') return `${field}: ${issue.message}`
  const zh = zhLocale.localeError({ ...issue.params, code: issue.code, path: [], input: undefined } as never)
  const text = typeof zh === 'string' ? zh : zh?.message
  return `${field}：${text ?? issue.message}`
}
