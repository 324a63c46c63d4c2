import { allEntities, type GenDbTable } from '@velo/shared'
import { sql } from 'kysely'
import type { Db, Dialect } from '../../../db/database'
import { SERVICE_TABLES } from '../../../db/tables'
import { joinTablesOf, snakeCase } from '../../../db/schema-gen/shape'

// What the database itself says about its tables (SQLite's sqlite_schema and pragmas, PostgreSQL's
// catalogue): names and comments are read as data and never put into a statement's text.

/** One column as the database declares it. */
export interface DbColumnInfo {
  column: string
  /** As declared, lower-case ('varchar(64)', 'integer', 'numeric(12,2)', 'timestamp with time zone'). */
  dbType: string
  nullable: boolean
  primaryKey: boolean
  comment: string
  /** A character column's declared length. */
  max: number | null
}

interface RawTable {
  name: string
  comment: string
  columns: number
}

async function sqliteTables(db: Db): Promise<RawTable[]> {
  const rows = await sql<{ name: string; columns: number }>`
    select s.name as name, (select count(*) from pragma_table_info(s.name)) as columns
    from sqlite_schema s where s.type = 'table' order by s.name`.execute(db)
  return rows.rows.map((r) => ({ name: r.name, comment: '', columns: Number(r.columns) }))
}

async function postgresTables(db: Db): Promise<RawTable[]> {
  const rows = await sql<{ name: string; comment: string | null; columns: number }>`
    select c.relname as name, obj_description(c.oid, 'pg_class') as comment,
      (select count(*)::int from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
    order by c.relname`.execute(db)
  return rows.rows.map((r) => ({ name: r.name, comment: r.comment ?? '', columns: Number(r.columns) }))
}

/** Every table the product itself keeps: its definitions' tables and join tables, and the service tables. */
export function productTables(): Set<string> {
  const out = new Set<string>(SERVICE_TABLES)
  for (const e of allEntities()) {
    out.add(snakeCase(e.table))
    for (const name of Object.keys(joinTablesOf(e))) out.add(name)
  }
  return out
}

const isMachinery = (name: string) => /^kysely_migration/i.test(name) || /^sqlite_/i.test(name)

/** The tables of the database that the product does not keep and no import holds yet. */
export async function foreignTables(db: Db, dialect: Dialect, imported: ReadonlySet<string>): Promise<GenDbTable[]> {
  const bare = db.withoutPlugins()
  const raw = dialect === 'postgres' ? await postgresTables(bare) : await sqliteTables(bare)
  const product = productTables()
  return raw
    .filter((t) => !isMachinery(t.name) && !product.has(t.name) && !imported.has(t.name))
    .map((t) => ({ tableName: t.name, comment: t.comment, columns: t.columns }))
}

const lengthOf = (type: string) => {
  const m = /^(?:varchar|character varying|nvarchar|char|character|nchar)\s*\((\d+)\)/.exec(type)
  return m ? Number(m[1]) : null
}

async function sqliteColumns(db: Db, table: string): Promise<DbColumnInfo[]> {
  const info = await sql<{ name: string; type: string; notnull: number; pk: number }>`select * from pragma_table_info(${table})`.execute(db)
  return info.rows.map((r) => {
    const dbType = r.type.toLowerCase().trim()
    // An INTEGER PRIMARY KEY is the rowid: never null, whatever the flag says.
    return { column: r.name, dbType, nullable: !r.notnull && !r.pk, primaryKey: r.pk > 0, comment: '', max: lengthOf(dbType) }
  })
}

async function postgresColumns(db: Db, table: string): Promise<DbColumnInfo[]> {
  const info = await sql<{ name: string; type: string; notnull: boolean; pk: boolean; comment: string | null }>`
    select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as notnull,
      exists(select 1 from pg_index x where x.indrelid = c.oid and x.indisprimary and a.attnum = any(x.indkey)) as pk,
      col_description(c.oid, a.attnum) as comment
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relname = ${table} and a.attnum > 0 and not a.attisdropped
    order by a.attnum`.execute(db)
  return info.rows.map((r) => {
    const dbType = r.type.toLowerCase()
    return { column: r.name, dbType, nullable: !r.notnull, primaryKey: r.pk, comment: r.comment ?? '', max: lengthOf(dbType) }
  })
}

/** The table's columns in their order, or an empty list when there is no such table. */
export function readColumns(db: Db, dialect: Dialect, table: string): Promise<DbColumnInfo[]> {
  const bare = db.withoutPlugins()
  return dialect === 'postgres' ? postgresColumns(bare, table) : sqliteColumns(bare, table)
}
