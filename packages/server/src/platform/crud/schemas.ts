import { DEFAULT_PAGE_SIZE, EMAIL_PATTERN, type FieldDef, type Label, PHONE_PATTERN, type ResolvedEntity } from '@velo/shared'
import { z } from 'zod'
import { bilingual } from '../i18n/zod-messages'

const required = (label: Label) =>
  bilingual({ en_US: `${label.en_US} is required`, zh_CN: `${label.zh_CN}不能为空` })
const invalid = (label: Label, en: string, zh: string) =>
  bilingual({ en_US: `${label.en_US} ${en}`, zh_CN: `${label.zh_CN}${zh}` })

/** The zod type of one field's value as clients send it. */
export function valueSchema(f: FieldDef): z.ZodType {
  const err = { error: (iss: { input?: unknown }) => (iss.input === undefined || iss.input === null ? required(f.label) : undefined) }
  switch (f.kind) {
    case 'text': {
      let s = z.string(err).trim()
      if (f.max) s = s.max(f.max, invalid(f.label, `must be at most ${f.max} characters`, `不能超过 ${f.max} 个字符`))
      if (f.min) s = s.min(f.min, invalid(f.label, `must be at least ${f.min} characters`, `不能少于 ${f.min} 个字符`))
      if (f.pattern) s = s.regex(f.pattern, f.patternMessage ? bilingual(f.patternMessage) : invalid(f.label, 'has a wrong format', '格式不正确'))
      return s
    }
    case 'longText':
      return z.string(err).max(f.max ?? 65535, invalid(f.label, `must be at most ${f.max ?? 65535} characters`, `不能超过 ${f.max ?? 65535} 个字符`))
    case 'number': {
      let n = z.number(err)
      if (f.int) n = n.int(invalid(f.label, 'must be a whole number', '必须是整数'))
      if (f.min !== undefined) n = n.min(f.min, invalid(f.label, `must be at least ${f.min}`, `不能小于 ${f.min}`))
      if (f.max !== undefined) n = n.max(f.max, invalid(f.label, `must be at most ${f.max}`, `不能大于 ${f.max}`))
      return n
    }
    case 'dict':
      return z.string(err).trim().max(100)
    case 'datetime':
      return z.iso.datetime({ offset: true, ...err, message: invalid(f.label, 'must be an ISO date and time', '必须是 ISO 日期时间') })
    case 'email':
      return z.string(err).trim().max(f.max ?? 128).regex(EMAIL_PATTERN, invalid(f.label, 'must be a valid email address', '格式不正确'))
    case 'phone':
      return z.string(err).trim().regex(PHONE_PATTERN, invalid(f.label, 'must be a valid phone number', '格式不正确'))
  }
}

/** Required means present and not blank; optional text may be sent empty. */
function writeSchema(f: FieldDef, forAdd: boolean): z.ZodType {
  const base = valueSchema(f)
  const isText = f.kind !== 'number' && f.kind !== 'datetime'
  if (f.required) {
    const strict = isText ? (base as z.ZodString).min(1, required(f.label)) : base
    return forAdd ? strict : strict.optional()
  }
  return isText ? z.union([z.literal(''), base]).nullish() : base.nullish()
}

export function addSchema(e: ResolvedEntity) {
  return z.object(Object.fromEntries(e.writable.map((f) => [f.name, writeSchema(f, true)])))
}

export function editSchema(e: ResolvedEntity) {
  const id = z.number().int().positive()
  return z.object({ [e.idField]: id, ...Object.fromEntries(e.writable.map((f) => [f.name, writeSchema(f, false)])) })
}

function filterSchema(f: FieldDef): z.ZodType {
  const one = f.kind === 'number' ? z.number() : z.string().max(200)
  switch (f.search) {
    case 'range':
      return z.tuple([one.nullable(), one.nullable()]).optional()
    case 'in':
      return z.array(one).max(200).optional()
    default:
      return z.union([one, z.literal('')]).nullish()
  }
}

/** List body: paging, a whitelisted sort and one optional filter per searchable field; anything else is refused. */
export function listSchema(e: ResolvedEntity) {
  return z.strictObject({
    pageNum: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(500).default(DEFAULT_PAGE_SIZE),
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
