import { type ColumnDef, type EntityDef, type FieldDef, storedColumns } from '@velo/shared'
import { CamelCasePlugin } from 'kysely'

// A table's shape as the migrations make it, derived from an entity definition: the snapshot's
// entries, what the generator compares, and what the agreement test expects of the database.

/**
 * The column types of both dialects, by name: `id` (the auto-increment key), `varchar(n)`, `text`,
 * `integer`, `bigint`, `real`, `decimal(12, 2)`, `boolean`, `date`, `datetime`. sqlTypeOf() says
 * what each is on SQLite and PostgreSQL.
 */
export type ColumnType = string

export interface ColumnShape {
  /** snake_case, as in the database. */
  name: string
  type: ColumnType
  nullable: boolean
  /** The database's default; absent: none. */
  default?: string | number | boolean
  unique?: boolean
}

export interface IndexShape {
  name: string
  /** snake_case column names, in index order. */
  columns: string[]
  unique: boolean
}

export interface TableShape {
  /** The entity key it was derived from ('role'), or the entity and field of a join table ('role.menuIds'). */
  entity: string
  columns: ColumnShape[]
  indexes: IndexShape[]
  /** A join table's key (its two columns); an entity's table has its `id` column instead. */
  primaryKey?: string[]
}

/** Every defined table by its SQL name: what the snapshot file holds. */
export interface Snapshot {
  version: 1
  tables: Record<string, TableShape>
}

class SnakeCase extends CamelCasePlugin {
  convert(name: string): string {
    return this.snakeCase(name)
  }
}
const snake = new SnakeCase()
/** The database's name of a camelCase table or column, exactly as the app's CamelCasePlugin maps it. */
export const snakeCase = (name: string): string => snake.convert(name)

/** A 32-bit integer column holds these; a whole number beyond them needs a bigint. */
const INT_MAX = 2_147_483_647

/** The column type of a field or stored column (see ColumnType). */
export function columnTypeOf(source: FieldDef | ColumnDef): ColumnType {
  const max = 'max' in source ? source.max : undefined
  switch (source.kind) {
    case 'text':
    case 'longText':
    case 'richText':
      return max ? `varchar(${max})` : 'text'
    case 'email':
      return `varchar(${max ?? 128})`
    case 'phone':
      return 'varchar(32)'
    case 'dict':
      return `varchar(${max ?? 100})`
    case 'enum':
      return `varchar(${max ?? Math.max(1, ...source.options.map((o) => o.value.length))})`
    case 'version':
      return 'varchar(11)'
    case 'letterCode':
      return `varchar(${max ?? 2})`
    case 'timeZone':
      return 'varchar(64)'
    // Up to 500 vertices of GeoJSON: longer than any varchar a definition would name.
    case 'geometry':
      return 'text'
    // A hash (argon2id) or a stored file name.
    case 'password':
    case 'image':
    case 'file':
      return 'varchar(255)'
    case 'number': {
      if (!source.int) return 'real'
      const min = 'min' in source ? source.min : undefined
      return (max !== undefined && max > INT_MAX) || (min !== undefined && min < -INT_MAX - 1) ? 'bigint' : 'integer'
    }
    case 'money':
      return 'decimal(12, 2)'
    case 'boolean':
      return 'boolean'
    case 'date':
      return 'date'
    case 'datetime':
      return 'datetime'
    case 'reference':
    case 'treeParent':
      return 'bigint'
    case 'referenceMany':
      throw new Error(`${source.name}: a referenceMany field is not a column`)
  }
}

/** What a column type is on each dialect, as Kysely's addColumn takes it (the id is the foundation's id()). */
export function sqlTypeOf(type: ColumnType, dialect: 'sqlite' | 'postgres'): string {
  const pg = dialect === 'postgres'
  switch (type) {
    case 'id':
      return pg ? 'bigserial' : 'integer'
    case 'bigint':
      return pg ? 'bigint' : 'integer'
    case 'real':
      return pg ? 'double precision' : 'real'
    case 'date':
      return pg ? 'date' : 'text'
    case 'datetime':
      return pg ? 'timestamptz' : 'text'
    default:
      return type
  }
}

/** The table an entity's definition describes. */
export function tableShapeOf(e: EntityDef): TableShape {
  const table = snakeCase(e.table)
  const columns = storedColumns(e).map((c): ColumnShape => {
    if (c.from === 'id') {
      if (c.source.kind !== 'number' || !c.source.int) throw new Error(`${e.key}: the id field ${c.name} must be a whole number`)
      return { name: snakeCase(c.name), type: 'id', nullable: false }
    }
    return {
      name: snakeCase(c.name),
      type: columnTypeOf(c.source),
      nullable: c.nullable,
      ...(c.default !== undefined ? { default: c.default } : {}),
      ...(c.unique ? { unique: true } : {}),
    }
  })
  const known = new Map(storedColumns(e).map((c) => [c.name, snakeCase(c.name)]))
  const indexes = (e.storage?.indexes ?? []).map((ix): IndexShape => {
    const cols = ix.columns.map((name) => {
      const column = known.get(name)
      if (!column) throw new Error(`${e.key}: index column ${name} is not a column of ${e.table}`)
      return column
    })
    return { name: ix.name ?? `${table}_${cols.join('_')}`, columns: cols, unique: !!ix.unique }
  })
  const names = new Set<string>()
  for (const ix of indexes) {
    if (names.has(ix.name)) throw new Error(`${e.key}: index ${ix.name} is defined twice`)
    names.add(ix.name)
  }
  return { entity: e.key, columns, indexes }
}

/**
 * The join tables of an entity's `referenceMany` fields: the two ids, together the key. A searchable
 * one (the list filters by a linked id: feedback by tag) also has an index on (to, from), which finds
 * the rows linked to one id without reading the whole table.
 */
export function joinTablesOf(e: EntityDef): Record<string, TableShape> {
  const out: Record<string, TableShape> = {}
  for (const f of e.fields) {
    if (f.kind !== 'referenceMany') continue
    const [from, to] = [snakeCase(f.through.from), snakeCase(f.through.to)]
    out[snakeCase(f.through.table)] = {
      entity: `${e.key}.${f.name}`,
      columns: [
        { name: from, type: 'bigint', nullable: false },
        { name: to, type: 'bigint', nullable: false },
      ],
      indexes: f.search ? [{ name: `${snakeCase(f.through.table)}_${to}_${from}`, columns: [to, from], unique: false }] : [],
      primaryKey: [from, to],
    }
  }
  return out
}

/** The shapes of the given definitions' tables and join tables, by table name. */
export function snapshotOf(entities: readonly EntityDef[]): Snapshot {
  const tables: Record<string, TableShape> = {}
  const slicedTables = new Set<string>()
  for (const e of entities) {
    const name = snakeCase(e.table)
    const shape = tableShapeOf(e)
    const other = tables[name]
    // Slices of one table (a part's firmware among the four) must agree on its shape to the letter.
    if (other && e.slice && slicedTables.has(name)) {
      // Column order aside: the first slice's creates the table.
      const comparable = ({ entity: _, ...t }: TableShape) => ({ ...t, columns: [...t.columns].sort((a, b) => a.name.localeCompare(b.name)) })
      const [mine, theirs] = [comparable(shape), comparable(other)]
      if (JSON.stringify(mine) !== JSON.stringify(theirs)) throw new Error(`${e.key}: slice of table ${name} differs from ${other.entity}'s: ${firstDifference(mine, theirs)}`)
      continue
    }
    if (other) throw new Error(`${e.key}: table ${name} is also ${other.entity}'s`)
    if (e.slice) slicedTables.add(name)
    tables[name] = shape
  }
  for (const e of entities) {
    for (const [name, join] of Object.entries(joinTablesOf(e))) {
      const other = tables[name]
      // Two entities may name one join table from both ends (a role's menus, a menu's roles).
      if (other?.primaryKey && [...other.primaryKey].sort().join() === [...join.primaryKey!].sort().join()) continue
      if (other) throw new Error(`${join.entity}: join table ${name} is also ${other.entity}'s`)
      tables[name] = join
    }
  }
  return { version: 1, tables }
}

/** Where two shapes of one table part, for the error that says so. */
function firstDifference(a: Omit<TableShape, 'entity'>, b: Omit<TableShape, 'entity'>): string {
  const cols = (t: Omit<TableShape, 'entity'>) => new Map(t.columns.map((c) => [c.name, JSON.stringify(c)]))
  const [ca, cb] = [cols(a), cols(b)]
  for (const [name, c] of ca) if (cb.get(name) !== c) return `column ${name}: ${c} vs ${cb.get(name) ?? 'missing'}`
  for (const name of cb.keys()) if (!ca.has(name)) return `column ${name} missing`
  return 'indexes or key differ'
}
