import type { ResolvedEntity } from './define'
import type { ColumnDef, EntityDef, FieldDef, FieldKind } from './types'

// A table's shape from its definition, once for the type checker (RowOf, ColumnsOf: the server's
// Kysely `Database` is built from them) and once at run time (storedColumns: the migration
// generator and the schema agreement test). The two follow the same rules; change them together.
//
// Every field but `referenceMany` is a column, plus the audit columns of an audited table and the
// definition's `storage.columns`. A column is NOT NULL when a value is always stored:
// - the id (generated);
// - text-like kinds (text, long and rich text, email, phone, dict, enum, version, letter code, time
//   zone, password): the engine stores '' for a blank one, so an optional one defaults to '';
//   `nullable: true` keeps null instead;
// - a tree parent (default 0);
// - any other kind when it is `required` or has a `default`.
// Values as both databases answer them: numbers and ids as numbers, money as a number (SQLite) or
// a decimal string (PostgreSQL), booleans as true/false (PostgreSQL) or 1/0 (SQLite), dates and
// times as ISO strings.

/** Kinds the engine stores as text and never leaves null (a blank one is ''). */
export const TEXT_LIKE_KINDS = ['text', 'longText', 'richText', 'email', 'phone', 'dict', 'enum', 'version', 'letterCode', 'timeZone', 'password', 'geometry'] as const
type TextLikeKind = (typeof TEXT_LIKE_KINDS)[number]

/** What any field or stored column has that the shape depends on. */
interface ColumnSource {
  readonly name: string
  readonly kind: string
  readonly required?: boolean
  readonly nullable?: boolean
  readonly default?: unknown
}

type ValueOfKind<K> = K extends 'number' | 'reference' | 'treeParent'
  ? number
  : K extends 'money'
    ? number | string
    : K extends 'boolean'
      ? boolean | number
      : string

type HasDefaultValue<F> = F extends { default: string | number | boolean } ? true : false

type IsNullable<F extends ColumnSource> = F extends { nullable: true }
  ? true
  : F['kind'] extends TextLikeKind | 'treeParent'
    ? false
    : F extends { required: true }
      ? false
      : HasDefaultValue<F> extends true
        ? false
        : true

type HasDefault<F extends ColumnSource> =
  HasDefaultValue<F> extends true
    ? true
    : F extends { nullable: true }
      ? false
      : F['kind'] extends 'treeParent'
        ? true
        : F['kind'] extends TextLikeKind
          ? F extends { required: true }
            ? false
            : true
          : false

/** One column as the type checker sees it: its value, whether it may be null, whether the database fills it when an insert leaves it out. */
export interface ColumnInfo<V = unknown, N extends boolean = boolean, G extends boolean = boolean> {
  value: V
  nullable: N
  generated: G
}

type ColumnOf<F extends ColumnSource> = ColumnInfo<ValueOfKind<F['kind']>, IsNullable<F>, HasDefault<F>>

type Flatten<T> = { [K in keyof T]: T[K] }
type NoColumns = Record<never, never>

/** The definition a resolved entity was made from (or the definition itself). */
export type DefinitionOf<E> = E extends ResolvedEntity<infer D> ? D : E extends EntityDef ? E : never

type FieldColumns<D extends EntityDef> = {
  [F in Exclude<D['fields'][number], { kind: 'referenceMany' }> as F['name']]: F['name'] extends D['idField'] ? ColumnInfo<number, false, true> : ColumnOf<F>
}

type StorageColumns<D extends EntityDef> = D extends { storage: { columns: readonly (infer C extends ColumnDef)[] } } ? { [X in C as X['name']]: ColumnOf<X> } : NoColumns

/** The columns every audited table has (the foundation migration's `audited()`). */
interface AuditColumns {
  createBy: ColumnInfo<string, false, true>
  createTime: ColumnInfo<string, false, false>
  updateBy: ColumnInfo<string, false, true>
  updateTime: ColumnInfo<string, true, false>
  remark: ColumnInfo<string, false, true>
}

type AuditOf<D extends EntityDef> = D extends { storage: { audited: false } } ? NoColumns : AuditColumns

/** Every column of an entity's table (camelCase) with its value type, nullability and default. */
export type ColumnsOf<E> = DefinitionOf<E> extends infer D extends EntityDef
  ? Flatten<Omit<AuditOf<D>, keyof FieldColumns<D> | keyof StorageColumns<D>> & Omit<StorageColumns<D>, keyof FieldColumns<D>> & FieldColumns<D>>
  : never

/** A row of an entity's table as a `select *` answers it (camelCase): `RowOf<typeof faq>`. */
export type RowOf<E> = {
  [K in keyof ColumnsOf<E>]: ColumnsOf<E>[K] extends ColumnInfo<infer V, infer N> ? (N extends true ? V | null : V) : never
}

// ---- The same rules at run time.

/** One column of an entity's table: where it comes from, and what a migration needs to create it. */
export interface StoredColumn {
  /** camelCase (the database's name is its snake_case). */
  name: string
  from: 'id' | 'field' | 'storage' | 'audit'
  /** The field or stored column it keeps; its kind, length and options decide the SQL type. */
  source: FieldDef | ColumnDef
  nullable: boolean
  /** The database's default when an insert leaves the column out; undefined: none. */
  default: string | number | boolean | undefined
  unique: boolean
}

/** The audit columns, as stored columns (the foundation migration's `audited()`). */
export const AUDIT_COLUMNS: readonly ColumnDef[] = [
  { name: 'createBy', kind: 'text', max: 64 },
  { name: 'createTime', kind: 'datetime', required: true },
  { name: 'updateBy', kind: 'text', max: 64 },
  { name: 'updateTime', kind: 'datetime' },
  { name: 'remark', kind: 'text', max: 500 },
]

const isTextLike = (kind: string) => (TEXT_LIKE_KINDS as readonly string[]).includes(kind)

function columnOf(source: FieldDef | ColumnDef, from: StoredColumn['from']): StoredColumn {
  const given = 'default' in source ? (source.default as string | number | boolean | undefined) : undefined
  const kind = source.kind as FieldKind
  let nullable: boolean
  let fallback: string | number | undefined
  if (source.nullable) nullable = true
  else if (isTextLike(kind)) {
    nullable = false
    fallback = source.required ? undefined : ''
  } else if (kind === 'treeParent') {
    nullable = false
    fallback = 0
  } else nullable = !source.required && given === undefined
  return { name: source.name, from, source, nullable, default: given ?? fallback, unique: !!source.unique }
}

/**
 * A column that holds a secret: a `password` field's hash or a storage column marked `secret` (a
 * device's key). SQL execution never reads one, and no copy of a table's rows (a rider's data
 * package) carries one.
 */
export const isSecretColumn = (c: StoredColumn): boolean => (c.source as FieldDef).kind === 'password' || (c.from === 'storage' && !!(c.source as ColumnDef).secret)

/** Every column of an entity's table, in the order a new table creates them: fields, then stored columns, then the audit columns no field gives. */
export function storedColumns(e: EntityDef): StoredColumn[] {
  const out: StoredColumn[] = []
  for (const f of e.fields) {
    if (f.kind === 'referenceMany') continue
    if (f.name === e.idField) out.push({ name: f.name, from: 'id', source: f, nullable: false, default: undefined, unique: false })
    else out.push(columnOf(f, 'field'))
  }
  const taken = new Set(out.map((c) => c.name))
  for (const c of e.storage?.columns ?? []) {
    if (taken.has(c.name)) throw new Error(`${e.key}: stored column ${c.name} is also a field`)
    out.push(columnOf(c, 'storage'))
    taken.add(c.name)
  }
  if (e.storage?.audited !== false) for (const c of AUDIT_COLUMNS) if (!taken.has(c.name)) out.push(columnOf(c, 'audit'))
  return out
}
