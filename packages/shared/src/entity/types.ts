import type { Language } from '../api'

/** A text in every language of the product. */
export type Label = Record<Language, string>

/** How a searchable field filters: exact, contains (case-insensitive), between two values, one of many. */
export type SearchMode = 'eq' | 'like' | 'range' | 'in'

interface FieldBase {
  /** camelCase name: the API property, the Kysely column (snake_case in the database). */
  name: string
  label: Label
  required?: boolean
  /** Refused on add/modify when another row has the same value. */
  unique?: boolean
  search?: SearchMode
  /** Shown in the list; default true. */
  list?: boolean
  sort?: boolean
  /** In Excel export; default true. */
  export?: boolean
  /** Set by the server, never by a client (ids, times, counters). */
  readOnly?: boolean
  /** Sent by the API but hidden from lists and Excel (e.g. bodies of long texts). */
  hidden?: boolean
}

export type FieldDef = FieldBase &
  (
    | { kind: 'text'; min?: number; max?: number; pattern?: RegExp; patternMessage?: Label; default?: string }
    | { kind: 'longText'; max?: number; default?: string }
    | { kind: 'number'; min?: number; max?: number; int?: boolean; default?: number }
    /** Values from a dictionary type (sys_dict_data), shown by their labels. */
    | { kind: 'dict'; dict: string; default?: string }
    | { kind: 'datetime' }
    | { kind: 'email'; max?: number; default?: string }
    | { kind: 'phone'; default?: string }
  )

export type FieldKind = FieldDef['kind']
export type Operation = 'list' | 'get' | 'add' | 'edit' | 'remove' | 'export'

export interface EntityDef {
  key: string
  /** Kysely table name (camelCase of the SQL table). */
  table: string
  /** API path below the prefix, e.g. '/system/dict'. */
  path: string
  /** Permission prefix 'area:entity'; actions are appended (list, query, add, edit, remove, export). */
  permission: string
  label: Label
  idField: string
  fields: readonly FieldDef[]
  defaultSort: { field: string; order: 'asc' | 'desc' }
  /** Default: all. */
  operations?: readonly Operation[]
  /** Rows are owned by a department (and optionally a user): the role's data scope filters them. */
  dataScope?: { deptField: string; userField?: string }
}
