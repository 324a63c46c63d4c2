import type { Language } from '../api'
import type { ValueType } from './value-types'

/** A text in every language of the product. */
export type Label = Record<Language, string>

/**
 * How a searchable field filters: exact, contains (case-insensitive), between two values, one of
 * many, or (on a reference to a tree) the node and everything below it.
 */
export type SearchMode = 'eq' | 'like' | 'range' | 'in' | 'subtree'

interface FieldBase {
  /** camelCase name: the API property, the Kysely column (snake_case in the database). */
  name: string
  label: Label
  required?: boolean
  /** Refused on add/modify when another row has the same value; the first unique field keys import updates. */
  unique?: boolean
  search?: SearchMode
  /** Shown in the list; default true. */
  list?: boolean
  sort?: boolean
  /** In Excel export; default true (not for passwords). */
  export?: boolean
  /** A column of the import template; default: every writable field. */
  import?: boolean
  /** Set by the server, never by a client (ids, times, counters). */
  readOnly?: boolean
  /** Set on add, never changed afterwards (e.g. a user name). */
  immutable?: boolean
  /** Sent by the API but hidden from lists and Excel (e.g. bodies of long texts). */
  hidden?: boolean
  /** In the add/modify form; default: every writable field. */
  form?: boolean
  /** A hint under the form input. */
  help?: Label
  /** A named custom input the web registers (e.g. 'icon' for the menu icon picker). */
  widget?: string
  /** Shown in the form only while another field has one of these values (a menu's type decides its fields). */
  when?: { field: string; is: readonly string[] }
  /**
   * A text whose type another field's value decides (a configuration value is a boolean, a whole
   * number or a choice according to its key): `typeOf` answers that type, or nothing for free text.
   * The server checks every write against it, and the form offers the type's input (a switch, a
   * number with limits, a select). The value still travels and is stored as text ('true', '10').
   */
  typedBy?: { field: string; typeOf: (other: unknown) => ValueType | undefined }
}

/** One choice of a fixed list. */
export interface EnumOption {
  value: string
  label: Label
  /** antd tag colour in lists (success, processing, error, warning, default or a colour). */
  color?: string
}

export type FieldDef = FieldBase &
  (
    | { kind: 'text'; min?: number; max?: number; pattern?: RegExp; patternMessage?: Label; default?: string }
    | { kind: 'longText'; max?: number; default?: string }
    /** HTML from the rich text editor; sanitized on the server. */
    | { kind: 'richText'; max?: number; default?: string }
    | { kind: 'number'; min?: number; max?: number; int?: boolean; default?: number }
    /** An amount with two decimals (stored as a decimal, sent as a number). */
    | { kind: 'money'; min?: number; max?: number; default?: number }
    | { kind: 'boolean'; default?: boolean }
    /** Values from a dictionary type (sys_dict_data), shown by their labels. */
    | { kind: 'dict'; dict: string; default?: string }
    /** Values from a fixed list in the definition. */
    | { kind: 'enum'; options: readonly EnumOption[]; default?: string }
    /** A calendar date 'YYYY-MM-DD'. */
    | { kind: 'date' }
    /** An instant, ISO 8601 with offset; stored and returned in UTC. */
    | { kind: 'datetime' }
    /** A stored file name from POST /common/upload (jpg, jpeg, png), shown as a thumbnail. */
    | { kind: 'image' }
    /** A stored file name from POST /common/upload with one of these extensions. */
    | { kind: 'file'; accept: readonly string[] }
    /** A version 'major.minor.patch', each part 0–999 (SPEC §5). */
    | { kind: 'version'; default?: string }
    /** A code of 1 to `max` (default 2) letters, kept upper-case (SPEC §5). */
    | { kind: 'letterCode'; max?: 1 | 2 }
    | { kind: 'email'; max?: number; default?: string }
    | { kind: 'phone'; default?: string }
    /** Written on add only and never read back: hashed by the module's hook. */
    | { kind: 'password' }
    /** The id of a row of another entity (by key); shown by that entity's label field. */
    | { kind: 'reference'; entity: string }
    /**
     * Ids of rows of another entity linked through a join table (a user's roles, a role's menus);
     * not a column: the engine reads and replaces the links in the row's transaction.
     */
    | { kind: 'referenceMany'; entity: string; through: { table: string; from: string; to: string } }
    /** The parent id in the same entity (0 = a root): makes the entity a tree. */
    | { kind: 'treeParent' }
    /** An IANA time zone name ('Europe/Amsterdam'), checked against the runtime's list. */
    | { kind: 'timeZone'; default?: string }
  )

export type FieldKind = FieldDef['kind']
export type Operation = 'list' | 'get' | 'add' | 'edit' | 'remove' | 'export' | 'import'

export interface EntityDef {
  key: string
  /** Kysely table name (camelCase of the SQL table). */
  table: string
  /** API path below the prefix, e.g. '/system/dict'. */
  path: string
  /** Permission prefix 'area:entity'; actions are appended (list, query, add, edit, remove, export, import). */
  permission: string
  /** The name of the list, as menus and page titles show it ('System users', '用户管理'). */
  label: Label
  /**
   * One row's name as it reads inside a sentence ('user', 'IoT model'; '用户'): dialog titles say
   * "Add user" and "新增用户". Default: derived from the label (singularOf).
   */
  singular?: Label
  idField: string
  /** The field that names a row to people (references, delete confirmations); default the first text field. */
  labelField?: string
  fields: readonly FieldDef[]
  defaultSort: { field: string; order: 'asc' | 'desc' }
  /** Default: all but import. */
  operations?: readonly Operation[]
  /** Rows are owned by a department (and optionally a user): the role's data scope filters them. */
  dataScope?: { deptField: string; userField?: string }
}
