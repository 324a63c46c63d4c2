import { z } from 'zod'
import type { ResolvedEntity } from './define'
import { storedColumns, TEXT_LIKE_KINDS } from './row-types'
import type { EntityDef, FieldDef } from './types'
import type { DefinitionOf } from './row-types'

// A row as the API answers it (list, get, add, modify, steps): the definition's readable fields
// with JSON values whatever the dialect (booleans true/false, money a number), each reference with
// its target's name beside it (`deptIdLabel`), the `overdue` flag of an entity with due times, and
// on a single row the ids of its many-to-many links. Once as a type (ApiRowOf: what the web's pages
// read) and once at run time (apiRowSchema: the server's response schemas, which are also what
// leaves the server: a value not in it is not sent). Change them together.

type ApiValueOfKind<K> = K extends 'number' | 'reference' | 'treeParent' | 'money' ? number : K extends 'boolean' ? boolean : string

type TextLikeKind = (typeof TEXT_LIKE_KINDS)[number]

/** Null only where the column may be null (row-types.ts, IsNullable). */
type ApiNullable<F> = F extends { nullable: true }
  ? true
  : F extends { kind: TextLikeKind | 'treeParent' }
    ? false
    : F extends { required: true }
      ? false
      : F extends { default: string | number | boolean }
        ? false
        : true

type Flatten<T> = { [K in keyof T]: T[K] }

type ValueFields<D extends EntityDef> = {
  [F in Exclude<D['fields'][number], { kind: 'password' | 'referenceMany' }> as F['name']]: F['name'] extends D['idField']
    ? ApiValueOfKind<F['kind']>
    : // A personal value the reader may not see comes as a mask, or as null when no hint of it is kept (privacy.ts).
      F extends { personal: string }
      ? ApiValueOfKind<F['kind']> | null
      : ApiNullable<F> extends true
      ? ApiValueOfKind<F['kind']> | null
      : ApiValueOfKind<F['kind']>
}
type ReferenceLabels<D extends EntityDef> = { [F in Extract<D['fields'][number], { kind: 'reference' }> as `${F['name']}Label`]?: string | null }
type LinkIds<D extends EntityDef> = { [F in Extract<D['fields'][number], { kind: 'referenceMany' }> as F['name']]?: number[] }
type LinkLabels<D extends EntityDef> = { [F in Extract<D['fields'][number], { kind: 'referenceMany' }> as `${F['name']}Labels`]?: (string | null)[] }
type LinkTotals<D extends EntityDef> = { [F in Extract<D['fields'][number], { kind: 'referenceMany' }> as `${F['name']}Total`]?: number }
type Overdue<D extends EntityDef> = D extends { transitions: { deadline: object } } ? { overdue?: boolean } : Record<never, never>
/** The personal fields the reader sees masked (privacy.ts), on an entity that has any. */
type Masked<D extends EntityDef> = Extract<D['fields'][number], { personal: string }> extends never ? Record<never, never> : { masked?: string[] }

/** One row of an entity as the API answers it: `ApiRowOf<typeof repairOrder>`. */
export type ApiRowOf<E> = DefinitionOf<E> extends infer D extends EntityDef ? Flatten<ValueFields<D> & ReferenceLabels<D> & LinkIds<D> & LinkLabels<D> & LinkTotals<D> & Overdue<D> & Masked<D>> : never

function valueOf(f: FieldDef): z.ZodType {
  switch (f.kind) {
    case 'number':
    case 'reference':
    case 'treeParent':
    case 'money':
      return z.number()
    case 'boolean':
      return z.boolean()
    default:
      return z.string()
  }
}

const cache = new WeakMap<ResolvedEntity, z.ZodObject>()

/** Where a list row carries a field of the row a reference points at: iotDeviceId + state → iotDeviceIdState. */
export const carriedName = (reference: string, field: string) => `${reference}${field[0]!.toUpperCase()}${field.slice(1)}`

/** The zod schema of ApiRowOf, built once per entity. */
export function apiRowSchema(e: ResolvedEntity): z.ZodObject {
  const kept = cache.get(e)
  if (kept) return kept
  const nullable = new Map(storedColumns(e).map((c) => [c.name, c.nullable]))
  const shape: Record<string, z.ZodType> = {}
  for (const f of e.fields) {
    if (f.kind === 'password') continue
    if (f.kind === 'referenceMany') {
      shape[f.name] = z.array(z.number()).optional()
      // The linked rows' labels in the same order (a row read by id): the console names them without a picker's capped list.
      shape[`${f.name}Labels`] = z.array(z.string().nullable()).optional()
      // In a list (a field listed with `list: true`), the first LIST_LINKS links only, and how many there are.
      shape[`${f.name}Total`] = z.number().optional()
      continue
    }
    const value = valueOf(f)
    shape[f.name] = nullable.get(f.name) || f.personal ? value.nullable() : value
    if (f.kind === 'reference') shape[`${f.name}Label`] = z.string().nullable().optional()
    if (f.kind === 'reference') for (const c of f.carry ?? []) shape[carriedName(f.name, c)] = z.union([z.string(), z.number(), z.boolean()]).nullable().optional()
  }
  if (e.transitions?.deadline) shape.overdue = z.boolean().optional()
  if (e.fields.some((f) => f.personal)) shape.masked = z.array(z.string()).optional()
  const schema = z.object(shape).meta({ id: `${e.key[0]!.toUpperCase()}${e.key.slice(1)}Row` })
  cache.set(e, schema)
  return schema
}
