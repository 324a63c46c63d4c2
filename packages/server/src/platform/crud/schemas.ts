import {
  addSchema as sharedAddSchema,
  DEFAULT_PAGE_SIZE,
  editSchema as sharedEditSchema,
  type FieldDef,
  importRowSchema as sharedImportRowSchema,
  type ResolvedEntity,
  type ValueSchemaOptions,
  valueSchema as sharedValueSchema,
} from '@velo/shared'
import { z } from 'zod'
import { bilingual } from '../i18n/zod-messages'
import { sanitizeRichText } from '../rich-text'

// The value rules of every kind live in shared (entity/value-schema.ts), so the web form runs the
// same ones; the server adds what only it can do: sanitizing rich text before it is stored.

export { isStringKind } from '@velo/shared'
/** Rich text keeps formatting and links, never scripts, handlers or frames, and only the console's own images (platform/rich-text.ts). */
export { sanitizeRichText }

const SERVER: ValueSchemaOptions = { richText: sanitizeRichText }

/**
 * A schema made once per definition (or field, or field list) for the process. Schemas are immutable,
 * and making them was a fifth of building the app: once per server, but ~200 times in the test suite,
 * whose files each build their own app in a worker that keeps the definitions.
 */
export function madeOnce<K extends object, T>(make: (key: K) => T): (key: K) => T {
  const made = new WeakMap<K, T>()
  return (key) => {
    if (made.has(key)) return made.get(key)!
    const value = make(key)
    made.set(key, value)
    return value
  }
}

/**
 * A route's body schema, made at the route's first request rather than when it is registered: the
 * engine registers ~1,000 routes and a deployment answers a fraction of them, and the add, edit and
 * list bodies of its 83 definitions held 18 MB of an idle server's heap (docs/ops/capacity.md › Idle
 * memory). Made once (zod keeps what the getter answered), validated and documented as itself.
 */
export const atFirstUse = <T extends z.ZodType>(make: () => T): z.ZodLazy<T> => z.lazy(make)

/** The zod type of one field's value as clients send it, rich text sanitized. */
export const valueSchema = madeOnce((f: FieldDef) => sharedValueSchema(f, SERVER))

export const addSchema = madeOnce((e: ResolvedEntity) => sharedAddSchema(e, SERVER))

/** One import row: the template's columns, checked as on add. */
export const importRowSchema = madeOnce((columns: readonly FieldDef[]) => sharedImportRowSchema(columns, SERVER))

/** Modify: immutable fields and passwords are not part of it (and so are dropped if sent). */
// The status of an entity with transitions is let through so that changing it is refused plainly
// (repository: refuseDirectStatusChange), not dropped unseen.
export const editSchema = madeOnce((e: ResolvedEntity) => sharedEditSchema(e, SERVER).extend(e.transitions ? { [e.transitions.field]: z.unknown().optional() } : {}))

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

/** One optional filter per searchable field, as the list, its export, its counts and its summary take them. */
export const filterFields = madeOnce((e: ResolvedEntity): Record<string, z.ZodType> => ({
  ...Object.fromEntries(e.searchable.map((f) => [f.name, filterSchema(f)])),
  // Entities with due times: `overdue` true keeps the rows past their due time in a state that is not
  // final (the home page's card links to them), false the others. A URL's 'true'/'false' is taken too.
  ...(e.transitions?.deadline ? { overdue: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).optional() } : {}),
}))

/** List body: paging, a whitelisted sort and one optional filter per searchable field; anything else is refused. */
export const listSchema = madeOnce((e: ResolvedEntity) =>
  z.strictObject({
    ...pagingFields,
    orderByColumn: z.string().max(64).optional(),
    isAsc: z.enum(['asc', 'desc', 'ascending', 'descending']).optional(),
    ...filterFields(e),
  }),
)

export type ListBody = z.infer<ReturnType<typeof listSchema>>

export const idsParam = z.object({
  ids: z
    .string()
    .regex(/^\d+(,\d+)*$/, bilingual({ en_US: 'ids must be numbers separated by commas', zh_CN: 'ids 必须是以逗号分隔的数字' }))
    .transform((s) => [...new Set(s.split(',').map(Number))]),
})
export const idParam = z.object({ id: z.coerce.number().int().positive() })

/** `?confirmed=true`: the add or modify is sent again after the user said yes to what a hook asked (confirmRequired). */
export const confirmedQuery = z.object({ confirmed: z.enum(['true', 'false']).optional() }).strict()
