import { sql } from 'kysely'
import type { Db, Dialect } from '../database'
import type { ColumnShape, IndexShape, TableShape } from './shape'

// Does a table in the database have the shape its definition gives it? Read from the database's own
// catalogue (PRAGMA on SQLite, information_schema and pg_index on PostgreSQL), never from our files.

export interface DbColumn {
  name: string
  /** As declared (SQLite) or as the column types of shape.ts (PostgreSQL). */
  type: string
  nullable: boolean
  /** The default as a value; a string for an expression we do not read (nextval(…)). */
  default: string | number | boolean | undefined
  primaryKey: boolean
}

export interface DbIndex {
  name: string
  columns: string[]
  unique: boolean
  primaryKey: boolean
}

export interface DbTable {
  columns: DbColumn[]
  indexes: DbIndex[]
}

export type ProblemKind =
  | 'missingTable'
  | 'missingColumn'
  | 'extraColumn'
  | 'type'
  | 'length'
  | 'nullable'
  | 'default'
  | 'unique'
  | 'missingIndex'
  | 'extraIndex'

export interface Disagreement {
  table: string
  column?: string
  kind: ProblemKind
  message: string
}

/** A default as the catalogue writes it ("'0'::character varying", "'abc'", "0", "false") as a value. */
export function parseDefault(raw: string | null | undefined): DbColumn['default'] {
  if (raw === null || raw === undefined) return undefined
  let text = raw.trim()
  // PostgreSQL: a cast after a literal, possibly in parentheses.
  for (;;) {
    const cast = /^(.*)::[a-z_ ]+(\(\d+(,\s*\d+)?\))?$/is.exec(text)
    if (!cast) break
    text = cast[1]!.trim()
  }
  while (/^\(.*\)$/s.test(text)) text = text.slice(1, -1).trim()
  const quoted = /^'(.*)'$/s.exec(text)
  if (quoted) return quoted[1]!.replace(/''/g, "'")
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text)
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true'
  return text
}

async function introspectSqlite(db: Db, table: string): Promise<DbTable | undefined> {
  const info = await sql<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>`select * from pragma_table_info(${table})`.execute(db)
  if (!info.rows.length) return undefined
  const columns = info.rows.map((r) => ({
    name: r.name,
    type: r.type.toLowerCase().replace(/\s+/g, ''),
    // An INTEGER PRIMARY KEY is the rowid: never null, whatever the flag says.
    nullable: !r.notnull && !r.pk,
    default: parseDefault(r.dflt_value),
    primaryKey: r.pk > 0,
  }))
  const list = await sql<{ name: string; unique: number; origin: string }>`select * from pragma_index_list(${table})`.execute(db)
  const indexes: DbIndex[] = []
  for (const ix of list.rows) {
    const cols = await sql<{ seqno: number; name: string }>`select * from pragma_index_info(${ix.name})`.execute(db)
    indexes.push({ name: ix.name, columns: cols.rows.sort((a, b) => a.seqno - b.seqno).map((c) => c.name), unique: !!ix.unique, primaryKey: ix.origin === 'pk' })
  }
  return { columns, indexes }
}

const PG_TYPES: Record<string, string> = {
  'double precision': 'real',
  real: 'real',
  'timestamp with time zone': 'datetime',
  'character varying': 'varchar',
}

async function introspectPostgres(db: Db, table: string): Promise<DbTable | undefined> {
  const info = await sql<{
    column_name: string
    data_type: string
    character_maximum_length: number | null
    numeric_precision: number | null
    numeric_scale: number | null
    is_nullable: string
    column_default: string | null
  }>`select column_name, data_type, character_maximum_length, numeric_precision, numeric_scale, is_nullable, column_default
     from information_schema.columns where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(db)
  if (!info.rows.length) return undefined
  const ix = await sql<{ name: string; is_unique: boolean; is_primary: boolean; columns: string }>`
    select i.relname as name, x.indisunique as is_unique, x.indisprimary as is_primary,
      array_to_string(array(select a.attname from unnest(x.indkey) with ordinality as k(attnum, ord)
        join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum order by k.ord), ',') as columns
    from pg_index x
    join pg_class i on i.oid = x.indexrelid
    join pg_class t on t.oid = x.indrelid
    join pg_namespace n on n.oid = t.relnamespace
    where t.relname = ${table} and n.nspname = current_schema()`.execute(db)
  const indexes = ix.rows.map((r) => ({ name: r.name, columns: r.columns.split(','), unique: r.is_unique, primaryKey: r.is_primary }))
  const primary = new Set(indexes.filter((i) => i.primaryKey).flatMap((i) => i.columns))
  const columns = info.rows.map((r): DbColumn => {
    const base = PG_TYPES[r.data_type] ?? r.data_type
    const serial = r.data_type === 'bigint' && /^nextval\(/.test(r.column_default ?? '')
    const type = serial
      ? 'id'
      : base === 'varchar'
        ? `varchar(${r.character_maximum_length})`
        : base === 'numeric'
          ? `decimal(${r.numeric_precision}, ${r.numeric_scale})`
          : base
    return { name: r.column_name, type, nullable: r.is_nullable === 'YES', default: serial ? undefined : parseDefault(r.column_default), primaryKey: primary.has(r.column_name) }
  })
  return { columns, indexes }
}

/** The table as the database has it, or undefined when there is none. */
export function introspectTable(db: Db, dialect: Dialect, table: string): Promise<DbTable | undefined> {
  const bare = db.withoutPlugins()
  return dialect === 'postgres' ? introspectPostgres(bare, table) : introspectSqlite(bare, table)
}

/** What a column type is called in the database: exact on PostgreSQL; on SQLite, its kind of value (it keeps no lengths). */
function familyOnSqlite(declared: string): string {
  if (/^(varchar|character|char|nvarchar|text|clob|date|datetime|timestamp)/.test(declared)) return 'text'
  if (/int/.test(declared)) return 'integer'
  if (/^(real|double|float)/.test(declared)) return 'real'
  if (/^(decimal|numeric)/.test(declared)) return 'decimal'
  return declared
}
const expectedOnSqlite = (type: string) => (type === 'id' ? 'integer' : familyOnSqlite(type === 'bigint' ? 'integer' : type))

const varcharLength = (type: string) => /^varchar\((\d+)\)$/.exec(type)?.[1]
const sameDefault = (a: ColumnShape['default'], b: DbColumn['default']) => (a === undefined ? b === undefined : b !== undefined && String(a) === String(b))
const sameColumns = (a: readonly string[], b: readonly string[]) => a.join() === b.join()

/** Where the table and its definition's shape disagree; empty when they agree. */
export function compareTable(table: string, expected: TableShape, actual: DbTable | undefined, dialect: Dialect): Disagreement[] {
  const out: Disagreement[] = []
  const say = (kind: ProblemKind, message: string, column?: string) => out.push({ table, column, kind, message: `${table}${column ? `.${column}` : ''}: ${message}` })
  if (!actual) {
    say('missingTable', `no such table (definition ${expected.entity}): generate its migration with npm run migration:new`)
    return out
  }
  const byName = new Map(actual.columns.map((c) => [c.name, c]))
  const expectedNames = new Set(expected.columns.map((c) => c.name))
  for (const want of expected.columns) {
    const got = byName.get(want.name)
    if (!got) {
      say('missingColumn', `the definition has it (${want.type}), the table does not`, want.name)
      continue
    }
    if (want.type === 'id') {
      if (!got.primaryKey || (dialect === 'postgres' ? got.type !== 'id' : expectedOnSqlite('id') !== familyOnSqlite(got.type))) say('type', `the id must be the auto-increment primary key (found ${got.type})`, want.name)
      continue
    }
    if (dialect === 'postgres') {
      if (got.type !== want.type) {
        const length = varcharLength(want.type) && varcharLength(got.type)
        say(length ? 'length' : 'type', `the definition says ${want.type}, the table has ${got.type}`, want.name)
      }
    } else if (expectedOnSqlite(want.type) !== familyOnSqlite(got.type)) {
      say('type', `the definition says ${want.type} (${expectedOnSqlite(want.type)} on SQLite), the table has ${got.type}`, want.name)
    }
    if (got.nullable !== want.nullable) say('nullable', `the definition says ${want.nullable ? 'nullable' : 'NOT NULL'}, the table has ${got.nullable ? 'nullable' : 'NOT NULL'}`, want.name)
    if (!sameDefault(want.default, got.default)) {
      say('default', `the definition's default is ${want.default === undefined ? 'none' : JSON.stringify(want.default)}, the table's ${got.default === undefined ? 'none' : JSON.stringify(got.default)}`, want.name)
    }
  }
  for (const got of actual.columns) {
    if (expectedNames.has(got.name)) continue
    const blocking = !got.nullable && got.default === undefined && !got.primaryKey
    say(
      'extraColumn',
      `the table has it (${got.type}${got.nullable ? '' : ' NOT NULL'}), the definition does not${blocking ? ': without a default, every insert the definition describes fails' : ''}; add it to the fields or storage.columns`,
      got.name,
    )
  }
  if (expected.primaryKey) {
    const pk = actual.indexes.find((i) => i.primaryKey)
    if (!pk || !sameColumns(pk.columns, expected.primaryKey)) say('missingIndex', `the key must be (${expected.primaryKey.join(', ')}), the table's is (${pk?.columns.join(', ') ?? 'none'})`)
  }
  // Indexes: the unique columns, then the declared ones; any other is unknown to the definition.
  const matched = new Set<DbIndex>()
  const secondary = actual.indexes.filter((i) => !i.primaryKey)
  for (const want of expected.columns.filter((c) => c.unique)) {
    const ix = secondary.find((i) => i.unique && sameColumns(i.columns, [want.name]) && !matched.has(i))
    if (ix) matched.add(ix)
    else say('unique', 'the definition says unique, the table has no unique constraint or index on it', want.name)
  }
  const declared = (want: IndexShape) =>
    secondary.find((i) => !matched.has(i) && i.name === want.name) ?? secondary.find((i) => !matched.has(i) && i.unique === want.unique && sameColumns(i.columns, want.columns))
  for (const want of expected.indexes) {
    const ix = declared(want)
    if (!ix) {
      say('missingIndex', `the definition has index ${want.name} (${want.columns.join(', ')}${want.unique ? ', unique' : ''}), the table does not`)
      continue
    }
    matched.add(ix)
    if (ix.unique !== want.unique || !sameColumns(ix.columns, want.columns)) {
      say('missingIndex', `index ${want.name} is (${ix.columns.join(', ')}${ix.unique ? ', unique' : ''}) in the table, (${want.columns.join(', ')}${want.unique ? ', unique' : ''}) in the definition`)
    }
  }
  for (const ix of secondary) {
    if (matched.has(ix)) continue
    say('extraIndex', `the table has ${ix.unique ? 'unique ' : ''}index ${ix.name} (${ix.columns.join(', ')}), the definition does not (storage.indexes, or unique on the field)`)
  }
  return out
}

/** Compares each table of a snapshot (or of the definitions) with the database. */
export async function checkAgreement(db: Db, dialect: Dialect, tables: Record<string, TableShape>): Promise<Disagreement[]> {
  const out: Disagreement[] = []
  for (const [name, shape] of Object.entries(tables)) out.push(...compareTable(name, shape, await introspectTable(db, dialect, name), dialect))
  return out
}
