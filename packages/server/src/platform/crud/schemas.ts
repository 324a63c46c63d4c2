import {
  DEFAULT_PAGE_SIZE,
  EMAIL_PATTERN,
  type FieldDef,
  IMAGE_EXTENSIONS,
  isTimeZone,
  type Label,
  letterCodePattern,
  PASSWORD_PATTERN,
  PHONE_PATTERN,
  type ResolvedEntity,
  VERSION_PATTERN,
} from '@velo/shared'
import sanitizeHtml from 'sanitize-html'
import { z } from 'zod'
import { bilingual } from '../i18n/zod-messages'

const required = (label: Label) =>
  bilingual({ en_US: `${label.en_US} is required`, zh_CN: `${label.zh_CN}不能为空` })
const invalid = (label: Label, en: string, zh: string) =>
  bilingual({ en_US: `${label.en_US} ${en}`, zh_CN: `${label.zh_CN}${zh}` })

const STORED_FILE = /^[A-Za-z0-9][A-Za-z0-9/_.-]*$/

/** True for kinds sent as strings, where an optional field may come back blank (''). */
export const isStringKind = (f: FieldDef) =>
  !['number', 'money', 'boolean', 'datetime', 'date', 'reference', 'referenceMany', 'treeParent'].includes(f.kind)

const extensionOf = (name: string) => name.slice(name.lastIndexOf('.') + 1).toLowerCase()

/** The zod type of one field's value as clients send it. */
export function valueSchema(f: FieldDef): z.ZodType {
  const err = { error: (iss: { input?: unknown }) => (iss.input === undefined || iss.input === null ? required(f.label) : undefined) }
  const orElse = (message: string) => ({ error: (iss: { input?: unknown }) => (iss.input === undefined || iss.input === null ? required(f.label) : message) })
  const maxChars = (s: z.ZodString, max: number) => s.max(max, invalid(f.label, `must be at most ${max} characters`, `不能超过 ${max} 个字符`))
  const storedFile = (extensions: readonly string[]) =>
    z
      .string(err)
      .trim()
      .max(255)
      .regex(STORED_FILE, invalid(f.label, 'is not a stored file name', '不是有效的文件名'))
      .refine((v) => !v.includes('..') && extensions.includes(extensionOf(v)), invalid(f.label, `must be a ${extensions.join(', ')} file`, `必须是 ${extensions.join('、')} 文件`))
  switch (f.kind) {
    case 'text': {
      let s = z.string(err).trim()
      if (f.max) s = maxChars(s, f.max)
      if (f.min) s = s.min(f.min, invalid(f.label, `must be at least ${f.min} characters`, `不能少于 ${f.min} 个字符`))
      if (f.pattern) s = s.regex(f.pattern, f.patternMessage ? bilingual(f.patternMessage) : invalid(f.label, 'has a wrong format', '格式不正确'))
      return s
    }
    case 'longText':
      return maxChars(z.string(err), f.max ?? 65535)
    case 'richText':
      return maxChars(z.string(err), f.max ?? 1_000_000).transform(sanitizeRichText)
    case 'number': {
      let n = z.number(err)
      if (f.int) n = n.int(invalid(f.label, 'must be a whole number', '必须是整数'))
      if (f.min !== undefined) n = n.min(f.min, invalid(f.label, `must be at least ${f.min}`, `不能小于 ${f.min}`))
      if (f.max !== undefined) n = n.max(f.max, invalid(f.label, `must be at most ${f.max}`, `不能大于 ${f.max}`))
      return n
    }
    case 'money': {
      const min = f.min ?? 0
      const max = f.max ?? 9_999_999_999.99
      return z
        .number(err)
        .min(min, invalid(f.label, `must be at least ${min}`, `不能小于 ${min}`))
        .max(max, invalid(f.label, `must be at most ${max}`, `不能大于 ${max}`))
        .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, invalid(f.label, 'has more than two decimals', '最多两位小数'))
        .transform((v) => Math.round(v * 100) / 100)
    }
    case 'boolean':
      return z.boolean(err)
    case 'dict':
      return z.string(err).trim().max(100)
    case 'enum': {
      const values = f.options.map((o) => o.value)
      return z.string(err).refine((v) => values.includes(v), invalid(f.label, `must be one of ${values.join(', ')}`, `必须是 ${values.join('、')} 之一`))
    }
    case 'date':
      return z.iso.date(orElse(invalid(f.label, 'must be a date YYYY-MM-DD', '必须是日期 YYYY-MM-DD')))
    case 'datetime':
      return z.iso
        .datetime({ offset: true, ...orElse(invalid(f.label, 'must be an ISO date and time', '必须是 ISO 日期时间')) })
        .transform((v) => new Date(v).toISOString())
    case 'image':
      return storedFile(IMAGE_EXTENSIONS)
    case 'file':
      return storedFile(f.accept)
    case 'version':
      return z.string(err).trim().regex(VERSION_PATTERN, invalid(f.label, 'must be a version 0.0.0 to 999.999.999', '必须是 0.0.0 到 999.999.999 的版本号'))
    case 'letterCode': {
      const max = f.max ?? 2
      return z
        .string(err)
        .trim()
        .regex(letterCodePattern(max), invalid(f.label, `must be 1 to ${max} letters`, `必须是 1 到 ${max} 个字母`))
        .transform((v) => v.toUpperCase())
    }
    case 'email':
      return z.string(err).trim().max(f.max ?? 128).regex(EMAIL_PATTERN, invalid(f.label, 'must be a valid email address', '格式不正确'))
    case 'phone':
      return z.string(err).trim().regex(PHONE_PATTERN, invalid(f.label, 'must be a valid phone number', '格式不正确'))
    case 'password':
      return z.string(err).regex(PASSWORD_PATTERN, invalid(f.label, 'must be 6 to 20 letters, digits and special characters', '必须是 6 到 20 位字母、数字和特殊字符'))
    case 'reference':
      return z.number(err).int().positive(invalid(f.label, 'must be chosen', '必须选择'))
    case 'referenceMany':
      return z.array(z.number().int().positive(), err).max(10_000)
    case 'treeParent':
      return z.number(err).int().min(0)
    case 'timeZone':
      return z.string(err).trim().refine(isTimeZone, invalid(f.label, 'must be an IANA time zone such as Europe/Amsterdam', '必须是 IANA 时区，如 Asia/Shanghai'))
  }
}

/** Rich text keeps formatting and links, never scripts, handlers or frames. */
export function sanitizeRichText(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'span', 'u', 's'],
    allowedAttributes: { a: ['href', 'target', 'rel'], img: ['src', 'alt', 'width', 'height'], '*': ['style'] },
    allowedStyles: { '*': { color: [/^#[0-9a-f]{3,6}$/i, /^rgb\(/], 'text-align': [/^(left|right|center|justify)$/] } },
    allowedSchemes: ['http', 'https', 'mailto'],
  })
}

/** Required means present and not blank; optional text may be sent empty. */
function writeSchema(f: FieldDef, forAdd: boolean): z.ZodType {
  const base = valueSchema(f)
  const isText = isStringKind(f)
  if (f.required) {
    // Blank is "missing", whatever the field's format rules would say about it.
    const blank = { error: () => required(f.label) }
    const strict = isText ? z.string(blank).trim().min(1, required(f.label)).pipe(base as z.ZodType<unknown, string>) : base
    // A required field with a default may be left out: the default fills it.
    const hasDefault = 'default' in f && f.default !== undefined
    if (hasDefault) return strict.nullish()
    return forAdd ? strict : strict.optional()
  }
  return isText ? z.union([z.literal(''), base]).nullish() : base.nullish()
}

export function addSchema(e: ResolvedEntity) {
  return z.object(Object.fromEntries(e.writable.map((f) => [f.name, writeSchema(f, true)])))
}

/** One import row: the template's columns, checked as on add. */
export function importRowSchema(columns: readonly FieldDef[]) {
  return z.object(Object.fromEntries(columns.map((f) => [f.name, writeSchema(f, true)])))
}

/** Modify: immutable fields and passwords are not part of it (and so are dropped if sent). */
export function editSchema(e: ResolvedEntity) {
  const id = z.number().int().positive()
  const editable = e.writable.filter((f) => !f.immutable && f.kind !== 'password')
  return z.object({ [e.idField]: id, ...Object.fromEntries(editable.map((f) => [f.name, writeSchema(f, false)])) })
}

function filterSchema(f: FieldDef): z.ZodType {
  const numeric = ['number', 'money', 'reference', 'treeParent', 'referenceMany'].includes(f.kind)
  const one = f.kind === 'boolean' ? z.boolean() : numeric ? z.coerce.number() : z.string().max(200)
  switch (f.search) {
    case 'range':
      return z.tuple([one.nullable(), one.nullable()]).optional()
    case 'in':
      return z.array(one).max(200).optional()
    default:
      return z.union([one, z.literal('')]).nullish()
  }
}

/** The paging of every list body (SPEC §9: 20 by default). */
export const pagingFields = {
  pageNum: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(500).default(DEFAULT_PAGE_SIZE),
}

/** List body: paging, a whitelisted sort and one optional filter per searchable field; anything else is refused. */
export function listSchema(e: ResolvedEntity) {
  return z.strictObject({
    ...pagingFields,
    orderByColumn: z.string().max(64).optional(),
    isAsc: z.enum(['asc', 'desc', 'ascending', 'descending']).optional(),
    ...Object.fromEntries(e.searchable.map((f) => [f.name, filterSchema(f)])),
  })
}

export type ListBody = z.infer<ReturnType<typeof listSchema>>

export const idsParam = z.object({
  ids: z
    .string()
    .regex(/^\d+(,\d+)*$/, bilingual({ en_US: 'ids must be numbers separated by commas', zh_CN: 'ids 必须是以逗号分隔的数字' }))
    .transform((s) => [...new Set(s.split(',').map(Number))]),
})
export const idParam = z.object({ id: z.coerce.number().int().positive() })
