import { CompiledQuery } from 'kysely'
import type { Db, Dialect } from '../db/database'
import { runsOften } from '../db/pg-named'

/** Rows per INSERT: 500 rows of the widest table (26 columns) stay far under both dialects' bind limits. */
export const ROWS_PER_STATEMENT = 500

/**
 * Writes one table in multi-row INSERTs of ROWS_PER_STATEMENT rows, with explicit ids: the SQL of a
 * full statement is built once (and kept prepared by the SQLite driver, named on PostgreSQL), and
 * each row only adds its values to the next statement's parameters.
 */
export class TableWriter {
  private values: unknown[] = []
  private rows = 0
  /** Rows written so far. */
  written = 0
  private readonly statements = new Map<number, string>()

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    readonly table: string,
    private readonly columns: readonly string[],
  ) {}

  /** One row, its values in the order of the columns. */
  async add(...row: unknown[]): Promise<void> {
    if (row.length !== this.columns.length) throw new Error(`${this.table}: ${row.length} values for ${this.columns.length} columns`)
    for (const v of row) this.values.push(typeof v === 'boolean' && this.dialect === 'sqlite' ? (v ? 1 : 0) : v)
    if (++this.rows === ROWS_PER_STATEMENT) await this.flush()
  }

  async flush(): Promise<void> {
    if (!this.rows) return
    await this.db.executeQuery(CompiledQuery.raw(this.sql(this.rows), this.values))
    this.written += this.rows
    this.values = []
    this.rows = 0
  }

  private sql(rows: number): string {
    let text = this.statements.get(rows)
    if (text) return text
    const n = this.columns.length
    const tuples: string[] = []
    for (let i = 0; i < rows; i++) {
      const marks = this.dialect === 'postgres' ? Array.from({ length: n }, (_, c) => `$${i * n + c + 1}`) : Array<string>(n).fill('?')
      tuples.push(`(${marks.join(', ')})`)
    }
    text = `insert into "${this.table}" (${this.columns.map((c) => `"${c}"`).join(', ')}) values ${tuples.join(', ')}`
    if (this.dialect === 'postgres' && rows === ROWS_PER_STATEMENT) runsOften(text)
    this.statements.set(rows, text)
    return text
  }
}

/** Runs raw SQL (tables and columns named in snake case, as the migrations wrote them). */
export async function query<R = Record<string, unknown>>(db: Db, text: string, parameters: unknown[] = []): Promise<R[]> {
  const result = await db.executeQuery<R>(CompiledQuery.raw(text, parameters))
  return result.rows
}
