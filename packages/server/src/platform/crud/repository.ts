import type { FieldDef, Language, ResolvedEntity } from '@velo/shared'
import { type ExpressionBuilder, type Kysely, sql, type SqlBool, type Expression, type Transaction } from 'kysely'
import type { Db } from '../../db/database'
import { badRequest, conflict, notFound } from '../errors'
import type { AuthContext } from '../rbac/auth-context'
import { type RowScope, scopeCondition } from '../rbac/data-scope'
import type { ListBody } from './schemas'

// The engine works on any table its definition names; column names only ever come from definitions.
type AnyDb = Kysely<any>
type Row = Record<string, unknown>
type AnyEb = ExpressionBuilder<any, any>

export interface HookArgs {
  tx: Transaction<any>
  auth: AuthContext
}
export interface EntityHooks {
  beforeCreate?: (args: HookArgs & { values: Row }) => Promise<void>
  beforeUpdate?: (args: HookArgs & { before: Row; values: Row }) => Promise<void>
  afterUpdate?: (args: HookArgs & { before: Row; after: Row }) => Promise<void>
  /** Throw an AppError to refuse (e.g. "in use"); runs in the delete's transaction. */
  beforeDelete?: (args: HookArgs & { rows: Row[] }) => Promise<void>
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

export function sortColumn(e: ResolvedEntity, column: string | undefined): string {
  if (!column) return e.defaultSort.field
  if (!e.sortable.has(column)) throw badRequest('error.badSort', { column: column.slice(0, 64) })
  return column
}

function filterConditions(e: ResolvedEntity, body: Record<string, unknown>, eb: AnyEb): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = []
  for (const f of e.searchable) {
    const value = body[f.name]
    if (value === undefined || value === null || value === '') continue
    const col = sql.ref(f.name)
    switch (f.search) {
      case 'like':
        out.push(sql<boolean>`lower(${col}) like ${`%${escapeLike(String(value).toLowerCase())}%`} escape '\\'`)
        break
      case 'range': {
        const [from, to] = value as [unknown, unknown]
        // A bare date on a datetime field means the whole day, in UTC like every stored time.
        const day = (v: unknown, time: string) => (f.kind === 'datetime' && /^\d{4}-\d{2}-\d{2}$/.test(String(v)) ? `${v}T${time}Z` : v)
        if (from !== null && from !== '') out.push(eb(col, '>=', day(from, '00:00:00.000')))
        if (to !== null && to !== '') out.push(eb(col, '<=', day(to, '23:59:59.999')))
        break
      }
      case 'in':
        if ((value as unknown[]).length) out.push(eb(col, 'in', value as unknown[]))
        break
      default:
        out.push(eb(col, '=', value))
    }
  }
  return out
}

export class EntityRepository {
  private readonly db: AnyDb
  constructor(
    db: Db,
    readonly entity: ResolvedEntity,
    private readonly hooks: EntityHooks = {},
  ) {
    this.db = db as unknown as AnyDb
  }

  private scoped(eb: AnyEb, scope: RowScope): Expression<SqlBool> {
    const ds = this.entity.dataScope
    return ds ? scopeCondition(eb, scope, ds.deptField, ds.userField) : sql<boolean>`1 = 1`
  }

  private columns() {
    return this.entity.fields.map((f) => f.name)
  }

  where(body: Record<string, unknown>, scope: RowScope) {
    return (eb: AnyEb) => eb.and([...filterConditions(this.entity, body, eb), this.scoped(eb, scope)])
  }

  async list(body: ListBody, scope: RowScope): Promise<{ rows: Row[]; total: number }> {
    const e = this.entity
    const where = this.where(body, scope)
    const sort = sortColumn(e, body.orderByColumn)
    const desc = body.isAsc ? body.isAsc.startsWith('desc') : sort === e.defaultSort.field && e.defaultSort.order === 'desc'
    const [count, rows] = await Promise.all([
      this.db.selectFrom(e.table).select((eb) => eb.fn.countAll<number>().as('total')).where(where).executeTakeFirstOrThrow(),
      this.db
        .selectFrom(e.table)
        .select(this.columns())
        .where(where)
        .orderBy(sort, desc ? 'desc' : 'asc')
        .orderBy(e.idField, 'asc')
        .limit(body.pageSize)
        .offset((body.pageNum - 1) * body.pageSize)
        .execute(),
    ])
    return { rows, total: Number(count.total) }
  }

  /** Rows for export, in pages so memory stays flat however many rows match. */
  async *stream(body: Record<string, unknown>, scope: RowScope, batch = 2000): AsyncGenerator<Row[]> {
    const e = this.entity
    const where = this.where(body, scope)
    let after: unknown
    for (;;) {
      let q = this.db.selectFrom(e.table).select(this.columns()).where(where).orderBy(e.idField, 'asc').limit(batch)
      if (after !== undefined) q = q.where(e.idField, '>', after)
      const rows = await q.execute()
      if (rows.length === 0) return
      yield rows
      if (rows.length < batch) return
      after = rows.at(-1)![e.idField]
    }
  }

  async get(id: number, scope: RowScope): Promise<Row> {
    return this.fetchOne(this.db, id, scope)
  }

  /** One row in scope, read through the given executor (the database or an open transaction). */
  private async fetchOne(db: AnyDb, id: number, scope: RowScope): Promise<Row> {
    const row = await db
      .selectFrom(this.entity.table)
      .select(this.columns())
      .where(this.entity.idField, '=', id)
      .where((eb) => this.scoped(eb, scope))
      .executeTakeFirst()
    if (!row) throw notFound()
    return row
  }

  private async checkValues(tx: AnyDb, values: Row, exceptId?: number) {
    for (const f of this.entity.writable) {
      const v = values[f.name]
      // '' is no dictionary value: one left blank without a default is refused, not stored.
      if (v === undefined || v === null || (v === '' && f.kind !== 'dict')) continue
      if (f.unique) {
        let q = tx.selectFrom(this.entity.table).select(this.entity.idField).where(f.name, '=', v)
        if (exceptId !== undefined) q = q.where(this.entity.idField, '<>', exceptId)
        if (await q.executeTakeFirst()) throw conflict('error.unique', { fieldEn: f.label.en_US, fieldZh: f.label.zh_CN, value: String(v) })
      }
      if (f.kind === 'dict') await assertDictValue(tx, f, String(v))
    }
  }

  /**
   * Blank values as forms send them. On add a missing value takes the field's default; on add and edit
   * alike null takes the default ('' for text, as the columns are NOT NULL), and so does '' for a
   * dictionary field, which means "not chosen".
   */
  private withDefaults(values: Row, forAdd: boolean): Row {
    const out: Row = { ...values }
    for (const f of this.entity.writable) {
      const v = out[f.name]
      if (!(v === null || (v === undefined && forAdd) || (v === '' && f.kind === 'dict'))) continue
      if ('default' in f && f.default !== undefined) out[f.name] = f.default
      else if (f.kind === 'text' || f.kind === 'longText' || f.kind === 'email' || f.kind === 'phone') out[f.name] = ''
    }
    return out
  }

  async create(values: Row, auth: AuthContext): Promise<Row> {
    return this.db.transaction().execute(async (tx) => {
      const row = this.withDefaults(values, true)
      await this.checkValues(tx, row)
      await this.hooks.beforeCreate?.({ tx, auth, values: row })
      const audited = this.entity.fieldMap.has('createTime')
      const inserted = await tx
        .insertInto(this.entity.table)
        .values({ ...row, ...(audited ? { createBy: auth.userName, createTime: new Date().toISOString() } : {}) })
        .returning(this.columns())
        .executeTakeFirstOrThrow()
      return inserted as Row
    })
  }

  async update(id: number, values: Row, auth: AuthContext, scope: RowScope): Promise<Row> {
    return this.db.transaction().execute(async (tx) => {
      const before = await this.fetchOne(tx, id, scope)
      const changes = this.withDefaults(Object.fromEntries(Object.entries(values).filter(([k, v]) => v !== undefined && k !== this.entity.idField)), false)
      await this.checkValues(tx, changes, id)
      await this.hooks.beforeUpdate?.({ tx, auth, before, values: changes })
      const audited = this.entity.fieldMap.has('createTime')
      const after = (await tx
        .updateTable(this.entity.table)
        .set({ ...changes, ...(audited ? { updateBy: auth.userName, updateTime: new Date().toISOString() } : {}) })
        .where(this.entity.idField, '=', id)
        .returning(this.columns())
        .executeTakeFirstOrThrow()) as Row
      await this.hooks.afterUpdate?.({ tx, auth, before, after })
      return after
    })
  }

  async remove(ids: number[], auth: AuthContext, scope: RowScope): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      const rows = (await tx
        .selectFrom(this.entity.table)
        .select(this.columns())
        .where(this.entity.idField, 'in', ids)
        .where((eb) => this.scoped(eb, scope))
        .execute()) as Row[]
      // Deleting ids that are missing or out of scope is refused whole, not half done.
      if (rows.length !== ids.length) throw notFound()
      await this.hooks.beforeDelete?.({ tx, auth, rows })
      await tx.deleteFrom(this.entity.table).where(this.entity.idField, 'in', ids).execute()
      return rows.length
    })
  }
}

async function assertDictValue(db: AnyDb, f: FieldDef & { kind: 'dict' }, value: string) {
  const found = await db
    .selectFrom('sysDictData')
    .select('dictCode')
    .where('dictType', '=', f.dict)
    .where('dictValue', '=', value)
    .executeTakeFirst()
  if (!found) throw badRequest('error.dictValue', { fieldEn: f.label.en_US, fieldZh: f.label.zh_CN, value }, { errors: [{ field: f.name }] })
}

/** Labels of dictionary values in a language, for Excel and other readable outputs. */
export async function dictLabels(db: Db, types: string[], lang: Language): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>()
  if (!types.length) return out
  const rows = await db.selectFrom('sysDictData').select(['dictType', 'dictValue', 'dictLabel', 'dictLabelZh']).where('dictType', 'in', types).execute()
  for (const r of rows) {
    if (!out.has(r.dictType)) out.set(r.dictType, new Map())
    out.get(r.dictType)!.set(r.dictValue, lang === 'zh_CN' && r.dictLabelZh ? r.dictLabelZh : r.dictLabel)
  }
  return out
}
