import { carriedName, checkTypedValue, entityByKey, type FieldDef, finalStates, labelFieldIn, type Language, ownerOf, type ResolvedEntity, storedColumns, VALUE_TYPE_TABLES, withinOf } from '@velo/shared'
import { CamelCasePlugin, type CompiledQuery, createQueryId, sql, type SqlBool, type Expression, type Transaction } from 'kysely'
import { type Db, type DynamicDb, type DynamicEb, dynamicDb, readRowArrays } from '../../db/database'
import type { Database } from '../../db/schema'
import { runsOften } from '../../db/pg-named'
import { readCursorArrays } from './export-cursor'
import { badRequest, conflict, forbidden, notFound } from '../errors'
import type { AuthContext } from '../rbac/auth-context'
import type { RowScope } from '../rbac/data-scope'
import { entityScope, isScoped, scopeStatementPart } from '../rbac/entity-scope'
import { inSlice, sliceColumns } from './slice'
import { assertStoredFile } from '../files/check'
import { isStringKind, type ListBody } from './schemas'
import { inTreeOrder } from './tree-order'
import { initialState, markOverdue, refuseDirectStatusChange } from './workflow'
import { allowedChanges, lockedByState, refuseForbiddenDelete, sameStateCondition } from './states'

// The engine works on any table its definition names; column names only ever come from definitions.
type Row = Record<string, unknown>
type AnyEb = DynamicEb

export interface HookArgs {
  tx: Transaction<Database>
  auth: AuthContext
  /** One per write, shared by its before- and after-hooks: what a before-hook measured reaches the after-hook. */
  context: Record<string, unknown>
  /**
   * The caller said yes to the question a hook asked by throwing `confirmRequired` (an agreement
   * version that exists: overwrite it?): the add or modify was sent again with `?confirmed=true`.
   */
  confirmed: boolean
}
/** A hook: one object in, so what a before-hook leaves in `context` reaches the after-hooks of the same write. */
type Hook<A> = (args: A) => Promise<void>
export type CommittedChange = { op: 'create'; row: Row } | { op: 'update'; before: Row; after: Row } | { op: 'remove'; rows: Row[] }

/** A list of hooks run in order (Payload's hooks arrays), so a module and the platform can both hook one write; one alone needs no brackets. */
type Hooks<A> = Hook<A> | readonly Hook<A>[]

export interface EntityHooks {
  /** `columns`: stored columns the definition does not expose (keys, secret hashes) for the hook to set. */
  beforeCreate?: Hooks<HookArgs & { values: Row; columns: Row }>
  afterCreate?: Hooks<HookArgs & { row: Row; values: Row }>
  beforeUpdate?: Hooks<HookArgs & { before: Row; values: Row }>
  afterUpdate?: Hooks<HookArgs & { before: Row; after: Row }>
  /** Throw an AppError to refuse (e.g. "in use"); runs in the delete's transaction. */
  beforeDelete?: Hooks<HookArgs & { rows: Row[] }>
  /**
   * After the change is committed: for effects outside the database transaction (ending sessions,
   * notifying devices). On SQLite the store may share the connection the transaction held. `context`
   * is the one the write's before- and after-hooks shared (empty for an import's rows).
   */
  afterCommit?: Hooks<{ auth: AuthContext; context: Record<string, unknown> } & CommittedChange>
  /**
   * After GET {path}/{id} read a row for someone with the right to it (never for the list, an export,
   * an action or a step): to record that it was opened (feedback marked read) and answer the row as
   * it is now (change `row` in place). `db` is the database, not a transaction: a read writes nothing
   * but what the hook writes, so the hook makes its write safe to run twice at once itself.
   */
  afterGet?: Hooks<{ db: Db; auth: AuthContext; row: Row }>
}

const hasHooks = (hooks: Hooks<never> | undefined) => typeof hooks === 'function' || !!hooks?.length

async function runHooks<A>(hooks: Hooks<A> | undefined, args: A) {
  for (const hook of typeof hooks === 'function' ? [hooks] : (hooks ?? [])) await hook(args)
}

/**
 * What a batch (an import) has already looked up: dictionary values found valid, and for each unique
 * field the stored values with their row ids, so rows are checked without a query each.
 */
export interface CheckMemo {
  dictValues: Set<string>
  taken: Map<string, Map<unknown, number>>
}

/**
 * Rows a multi-row INSERT (addMany) writes at most: enough that a statement's round trip is small
 * beside its rows, few enough that one statement holds SQLite's single writer only milliseconds.
 */
export const ADD_MANY_ROWS = 500
/** Bind parameters of one statement at most: SQLite's limit (32,766; PostgreSQL's is 65,535). */
const MAX_BIND_PARAMETERS = 32_766
/** The columns an INSERT of the row writes, as Kysely lists them (undefined values are left out). */
const shapeOf = (row: Row) =>
  Object.keys(row)
    .filter((k) => row[k] !== undefined)
    .join()

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/** The LIKE pattern of containsText: the text anywhere, in any case, with % and _ taken literally. */
const containsPattern = (text: string) => `%${escapeLike(text.toLowerCase())}%`

/** The column holds the text, in any case, with % and _ taken literally. */
export function containsText(column: string, text: string) {
  return likePattern(column, containsPattern(text))
}

const likePattern = (column: string, pattern: string) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`

/** A tree entity answers its whole (filtered) tree at once; this caps a runaway one. */
const TREE_LIMIT = 20_000
/** Rows of an export's page: a few MB of values, a few milliseconds of a reader's time. */
const EXPORT_PAGE = 2000
/** Labels an export keeps per reference field (a few MB), before it starts again. */
const EXPORT_LABELS_KEPT = 50_000
/** A list row's links shown per listed referenceMany field; the row says how many there are in all. */
const LIST_LINKS = 20

export function sortColumn(e: ResolvedEntity, column: string | undefined): string {
  if (!column) return e.defaultSort.field
  if (!e.sortable.has(column)) throw badRequest('error.badSort', { column: column.slice(0, 64) })
  return e.fieldMap.get(column)?.sortBy ?? column
}

/** The ids of a tree node and everything below it, as a subquery (names from definitions only). */
function subtreeIds(tree: ResolvedEntity, rootId: unknown) {
  const id = sql.ref(tree.idField)
  const parent = sql.ref(tree.treeParent!)
  // The seed row comes from the table too, so both terms have the column's type (PostgreSQL insists).
  return sql`(with recursive subtree(node) as (select r.${id} from ${sql.table(tree.table)} r where r.${id} = ${Number(rootId)} union all select t.${id} from ${sql.table(tree.table)} t join subtree on t.${parent} = subtree.node) select node from subtree)`
}

/**
 * One filter of a list request: the shape of its SQL (which field, which test, how many values), the
 * values it binds, in order, and the condition itself. Requests of one shape share one statement.
 */
interface Filter {
  shape: string
  values: unknown[]
  condition: (eb: AnyEb) => Expression<SqlBool>
}

/** No field searched by its whole value only. */
const NO_EXACT: ReadonlySet<string> = new Set()

/**
 * The filters of a list request. `exact` names text fields searched by their whole value (in any
 * case) instead of a part: personal data the caller sees masked (platform/privacy), which a search
 * for a part would reveal one letter at a time.
 */
function filtersOf(e: ResolvedEntity, body: Record<string, unknown>, exact: ReadonlySet<string> = NO_EXACT): Filter[] {
  const out: Filter[] = []
  for (const f of e.searchable) {
    const value = body[f.name]
    if (value === undefined || value === null || value === '') continue
    // Each condition makes its SQL only when called: a request whose shape is kept never compiles it.
    const col = () => sql.ref(f.name)
    switch (f.search) {
      case 'like': {
        if (exact.has(f.name)) {
          const whole = escapeLike(String(value).toLowerCase())
          out.push({ shape: `${f.name} is`, values: [whole], condition: () => likePattern(f.name, whole) })
          break
        }
        const pattern = containsPattern(String(value))
        out.push({ shape: `${f.name} like`, values: [pattern], condition: () => likePattern(f.name, pattern) })
        break
      }
      case 'range': {
        const [from, to] = value as [unknown, unknown]
        // A bare date on a datetime field means the whole day, in UTC like every stored time.
        const day = (v: unknown, time: string) => (f.kind === 'datetime' && /^\d{4}-\d{2}-\d{2}$/.test(String(v)) ? `${v}T${time}Z` : v)
        if (from !== null && from !== '') {
          const v = day(from, '00:00:00.000')
          out.push({ shape: `${f.name} >=`, values: [v], condition: (eb) => eb(col(), '>=', v) })
        }
        if (to !== null && to !== '') {
          const v = day(to, '23:59:59.999')
          out.push({ shape: `${f.name} <=`, values: [v], condition: (eb) => eb(col(), '<=', v) })
        }
        break
      }
      case 'in': {
        const values = value as unknown[]
        if (values.length) out.push({ shape: `${f.name} in ${values.length}`, values, condition: (eb) => eb(col(), 'in', values) })
        break
      }
      case 'subtree': {
        const tree = f.kind === 'reference' ? entityByKey(f.entity) : e
        const root = Number(value)
        out.push({ shape: `${f.name} subtree`, values: [root], condition: () => sql<boolean>`${col()} in ${subtreeIds(tree, root)}` })
        break
      }
      default: {
        if (f.kind === 'referenceMany') {
          // Rows linked to this one (feedback with a tag): their ids from the join table, which has an
          // index on (to, from) for a searchable link field (schema-gen joinTablesOf).
          const v = Number(value)
          const { table, from, to } = f.through
          const linked = () => sql<boolean>`${sql.ref(e.idField)} in (select ${sql.ref(from)} from ${sql.table(table)} where ${sql.ref(to)} = ${v})`
          out.push({ shape: `${f.name} linked`, values: [v], condition: linked })
          break
        }
        const v = f.kind === 'boolean' ? (value ? 1 : 0) : value
        out.push({ shape: `${f.name} =`, values: [v], condition: (eb) => eb(col(), '=', v) })
      }
    }
  }
  const overdue = overdueFilter(e, body.overdue)
  if (overdue) out.push(overdue)
  return out
}

/**
 * `overdue` of an entity with due times, as markOverdue (workflow.ts) marks rows: true keeps the rows
 * past their due time in a state that is not final, false every other row (no due time included).
 */
function overdueFilter(e: ResolvedEntity, value: unknown): Filter | null {
  const deadline = e.transitions?.deadline
  if (!deadline || typeof value !== 'boolean') return null
  const due = sql.ref(deadline.field)
  const state = sql.ref(e.transitions!.field)
  const final = finalStates(e)
  const now = new Date().toISOString()
  // An entity whose every state moves on has no final state: `not in ()` is no SQL, so no list.
  const notFinal = (eb: AnyEb) => (final.length ? eb(state, 'not in', final) : sql<boolean>`1 = 1`)
  const isFinal = (eb: AnyEb) => (final.length ? eb(state, 'in', final) : sql<boolean>`1 = 0`)
  return value
    ? { shape: `overdue ${final.length}`, values: [now, ...final], condition: (eb) => eb.and([eb(due, '<', now), notFinal(eb)]) }
    : { shape: `not overdue ${final.length}`, values: [now, ...final], condition: (eb) => eb.or([eb(due, 'is', null), eb(due, '>=', now), isFinal(eb)]) }
}

function filterConditions(e: ResolvedEntity, body: Record<string, unknown>, eb: AnyEb, exact: ReadonlySet<string>): Expression<SqlBool>[] {
  return filtersOf(e, body, exact).map((f) => f.condition(eb))
}

/**
 * A list page's rows bring the count of every matching row in this column (a subquery the database
 * runs once per statement), dropped before they are answered: one round trip instead of two, which
 * on PostgreSQL is the larger part of the server's own work for a list.
 */
const TOTAL = '$total'

/**
 * The column names of the database's CamelCasePlugin (db/database.ts), each worked out once: the
 * plugin converts every key of every row again, which for a page of rows cost more than the rest of
 * turning them into the answer.
 */
class ResultNames extends CamelCasePlugin {
  private readonly names = new Map<string, string>()

  /** A result column's name as the plugin answers it (snake_case to camelCase). */
  name(column: string): string {
    let name = this.names.get(column)
    if (name === undefined) {
      name = this.camelCase(column)
      // Names come from definitions and the engine's aliases, so few; the bound is only a guard.
      if (this.names.size < 10_000) this.names.set(column, name)
    }
    return name
  }

  /** The column a name is selected as (camelCase to snake_case). */
  column(name: string): string {
    return this.snakeCase(name)
  }

  /** A whole row as the plugin maps it, nested objects included. */
  row(row: Row): Row {
    return this.mapRow(row)
  }
}
const resultNames = new ResultNames()
const TOTAL_COLUMN = resultNames.column(TOTAL)

/**
 * A row of a list page's statement as Kysely would have answered it, without the count. A value that
 * is an object (a JSON column on PostgreSQL) has its keys renamed too, so such a row is the plugin's.
 */
function listRow(read: Row): Row {
  const row: Row = {}
  for (const column in read) {
    if (column === TOTAL_COLUMN) continue
    const value = read[column]
    if (typeof value === 'object' && value !== null) {
      const mapped = resultNames.row(read)
      delete mapped[TOTAL]
      return mapped
    }
    row[resultNames.name(column)] = value
  }
  return row
}

/** Shapes kept per entity: filters × sort × scope stay few, but `in` lists and department scopes vary in length. */
const KEEP_LIST_SHAPES = 200

/** Whether Kysely bound exactly these values, in this order: only then may the statement take another request's. */
const bindsExactly = (compiled: CompiledQuery, values: readonly unknown[]) =>
  compiled.parameters.length === values.length && compiled.parameters.every((p, i) => Object.is(p, values[i]))

/** Values as the database takes them: booleans as 1/0 (SQLite binds no booleans; PostgreSQL reads '1'/'0'). */
function toColumns(e: ResolvedEntity, values: Row): Row {
  const out: Row = {}
  for (const [k, v] of Object.entries(values)) {
    const f = e.fieldMap.get(k)
    if (!f || f.kind === 'referenceMany') continue
    out[k] = f.kind === 'boolean' && v !== null && v !== undefined ? (v ? 1 : 0) : v
  }
  return out
}

/**
 * An export's labels by id (null: none). Ids that are small whole numbers, as nearly all are, are
 * kept in an array: a Map's lookup was most of what naming a million rows' references cost.
 */
class LabelsById {
  private readonly small: unknown[] = []
  private readonly other = new Map<unknown, unknown>()
  size = 0

  get(id: unknown): unknown {
    return typeof id === 'number' && id >= 0 && id < LABELS_BY_INDEX && Number.isInteger(id) ? this.small[id] : this.other.get(id)
  }

  has(id: unknown): boolean {
    return this.get(id) !== undefined
  }

  set(id: unknown, label: unknown) {
    if (!this.has(id)) this.size++
    // undefined is "not read yet": a label the database has none for is null.
    const value = label === undefined ? null : label
    if (typeof id === 'number' && id >= 0 && id < LABELS_BY_INDEX && Number.isInteger(id)) this.small[id] = value
    else this.other.set(id, value)
  }

  clear() {
    this.small.length = 0
    this.other.clear()
    this.size = 0
  }
}
/** Ids below this are kept by index (an array of at most this many slots, filled only as far as the largest id read). */
const LABELS_BY_INDEX = 1 << 22

export class EntityRepository {
  /** As the engine reads it: the entity's table is named by its definition (DynamicDb). */
  private readonly db: DynamicDb
  private readonly links: readonly (FieldDef & { kind: 'referenceMany' })[]
  private readonly listedLinks: readonly (FieldDef & { kind: 'referenceMany' })[]
  private readonly references: readonly (FieldDef & { kind: 'reference' })[]
  /** Compiled list statements by shape (null: a shape that must be compiled each time). */
  private readonly listShapes = new Map<string, CompiledQuery | null>()
  /** The same database without Kysely's result plugin, for the list's statement (listRow names its rows). */
  private readonly unmapped: DynamicDb
  constructor(
    private readonly typedDb: Db,
    readonly entity: ResolvedEntity,
    private readonly hooks: EntityHooks = {},
  ) {
    this.db = dynamicDb(typedDb)
    this.unmapped = this.db.withoutPlugins()
    this.links = entity.fields.filter((f): f is FieldDef & { kind: 'referenceMany' } => f.kind === 'referenceMany')
    this.listedLinks = this.links.filter((f) => entity.listed.includes(f))
    this.references = entity.fields.filter((f): f is FieldDef & { kind: 'reference' } => f.kind === 'reference')
    for (const f of this.references) {
      const target = entityByKey(f.entity)
      const wrong = (f.carry ?? []).find((c) => !target.fieldMap.has(c) || target.fieldMap.get(c)!.kind === 'password' || target.fieldMap.get(c)!.kind === 'referenceMany')
      if (wrong) throw new Error(`${entity.key}.${f.name} carries ${wrong}, which is no column of ${target.key} it may show`)
    }
  }

  /** The rows of the caller's data scope (the definition's `scope`) and of the entity's slice. */
  private scoped(eb: AnyEb, scope: RowScope): Expression<SqlBool> {
    if (this.entity.slice) return eb.and([entityScope(this.entity, scope), inSlice(this.entity)])
    return entityScope(this.entity, scope)
  }

  /**
   * A tree that owns itself (a department is its own department): a new node is not in a scope
   * resolved before it existed, so its parent must be (a department is added below one in scope).
   */
  private get scopedByParent(): boolean {
    return !!this.entity.treeParent && ownerOf(this.entity)?.dept === this.entity.idField
  }

  /**
   * Refuses a row written outside the caller's scope (an add, a modify or an imported row that moves
   * it to another country, a bike given to another country's member): asked inside the write's
   * transaction after the write, so the refusal rolls it back and nothing is kept.
   */
  async assertInScope(db: Db, ids: readonly unknown[], scope: RowScope | undefined) {
    if (!scope || scope.all || !isScoped(this.entity) || ids.length === 0) return
    const e = this.entity
    const tx = dynamicDb(db)
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500)
      const found = await tx.selectFrom(e.table).select((eb) => eb.fn.countAll<number>().as('n')).where(e.idField, 'in', chunk).where((eb) => this.scoped(eb, scope)).executeTakeFirstOrThrow()
      if (Number(found.n) !== chunk.length) throw forbidden('scope.rowOutside', { entityEn: e.singular.en_US, entityZh: e.singular.zh_CN })
    }
  }

  /** The list's filters within the scope; `exact`: fields searched by their whole value only (filtersOf). */
  where(body: Record<string, unknown>, scope: RowScope, exact: ReadonlySet<string> = NO_EXACT) {
    return (eb: AnyEb) => eb.and([...filterConditions(this.entity, body, eb, exact), this.scoped(eb, scope)])
  }

  /**
   * Rows as clients read them: booleans and decimals as JSON values whatever the dialect, and each
   * reference with its target's label (in the reader's language, `lang`) and carried fields (one
   * query per reference field, not per row).
   */
  async present(rows: Row[], executor: Db = this.typedDb, labelled = false, lang: Language = 'en_US'): Promise<Row[]> {
    // The repository's own view when it is its own database (a list): widening makes a new Kysely each time.
    const db = executor === this.typedDb ? this.db : dynamicDb(executor)
    for (const f of this.entity.fields) {
      if (f.kind === 'boolean' || f.kind === 'money') for (const r of rows) r[f.name] = jsonValue(f, r[f.name])
    }
    for (const f of this.references) {
      const carry = f.carry ?? []
      // The list's statement brought the labels already (labelsOf): only carried fields are left.
      if (labelled && !carry.length) continue
      const target = entityByKey(f.entity)
      const label = labelFieldIn(target, lang)
      const ids = [...new Set(rows.map((r) => r[f.name]).filter((v) => v !== null && v !== undefined))]
      const found = new Map<unknown, Row>()
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = await db
          .selectFrom(target.table)
          .select([target.idField, label, ...carry])
          .where(target.idField, 'in', ids.slice(i, i + 500))
          .execute()
        for (const t of chunk) found.set(t[target.idField], t)
      }
      for (const r of rows) {
        const t = found.get(r[f.name])
        if (!labelled) r[`${f.name}Label`] = t?.[label] ?? null
        for (const c of carry) r[carriedName(f.name, c)] = jsonValue(target.fieldMap.get(c)!, t?.[c] ?? null)
      }
    }
    markOverdue(this.entity, rows)
    return rows
  }

  async list(body: ListBody, scope: RowScope, lang: Language = 'en_US', exact: ReadonlySet<string> = NO_EXACT): Promise<{ rows: Row[]; total: number }> {
    const e = this.entity
    const filters = filtersOf(e, body, exact)
    const where = (eb: AnyEb) => eb.and([...filters.map((f) => f.condition(eb)), this.scoped(eb, scope)])
    const sort = sortColumn(e, body.orderByColumn)
    const desc = body.isAsc ? body.isAsc.startsWith('desc') : sort === e.defaultSort.field && e.defaultSort.order === 'desc'
    const page = () =>
      this.db
        .selectFrom(e.table)
        .select(e.columns)
        .where(where)
        .orderBy(sort, desc ? 'desc' : 'asc')
        .orderBy(e.idField, 'asc')
    if (e.treeParent) {
      const rows = await page().limit(TREE_LIMIT).execute()
      return { rows: await this.present(rows, this.typedDb, false, lang), total: rows.length }
    }
    const limit = body.pageSize
    const offset = (body.pageNum - 1) * body.pageSize
    // The labels' columns follow the language: part of the statement's shape.
    const statement = this.listStatement(filters, scope, `${sort} ${desc ? 'desc' : 'asc'} | ${lang}`, [limit, offset], () =>
      page()
        .select((eb) => this.labelsOf(eb, lang))
        .select((eb) => eb.selectFrom(e.table).select(eb.fn.countAll<number>().as('total')).where(where).as(TOTAL))
        .limit(limit)
        .offset(offset)
        .compile(),
    )
    // Run past Kysely's result plugin: the rows are named here, the count left out as they are.
    const { rows: read } = await this.unmapped.executeQuery<Row>(statement)
    const rows = read.map(listRow)
    let total: number
    if (read.length) {
      total = Number(read[0]![TOTAL_COLUMN])
    } else {
      // A page past the last has no row to bring the count: asked apart (none at all when it is the first).
      const count = offset === 0 ? undefined : await this.db.selectFrom(e.table).select((eb) => eb.fn.countAll<number>().as('total')).where(where).executeTakeFirstOrThrow()
      total = Number(count?.total ?? 0)
    }
    const presented = await this.present(rows, this.typedDb, true, lang)
    // Links a definition lists (`list: true` on a referenceMany field: what a geofence applies to).
    if (this.listedLinks.length) await this.withLinks(presented, this.listedLinks, lang, LIST_LINKS)
    return { rows: presented, total }
  }

  /**
   * Each reference's label as a column of the page's own statement (`<name>Label`): a lookup by
   * primary key per row shown, where asking apart would cost a statement (and, with SQLite reader
   * threads, a round trip) per reference field and request.
   */
  private labelsOf(eb: AnyEb, lang: Language) {
    const e = this.entity
    return this.references.map((f, i) => {
      const target = entityByKey(f.entity)
      const ref = `ref${i}`
      return eb
        .selectFrom(`${target.table} as ${ref}`)
        .select(`${ref}.${labelFieldIn(target, lang)}`)
        .whereRef(`${ref}.${target.idField}`, '=', `${e.table}.${f.name}`)
        .as(`${f.name}Label`)
    })
  }

  /**
   * The statement of a list request's shape (filters, scope, order): compiled by Kysely the first time
   * the shape comes, then kept, so later requests only bind their values (building and compiling a
   * query costs more than running it on an index). A shape whose compiled values do not come out
   * exactly as filtersOf and scopeShape list them (the count's, the page's, then limit and offset) is
   * compiled afresh every time instead.
   */
  private listStatement(filters: readonly Filter[], scope: RowScope, order: string, paging: [limit: number, offset: number], compile: () => CompiledQuery): CompiledQuery {
    const scoped = scopeStatementPart(this.entity, scope, (b) => b.compile(this.db))
    const key = `${filters.map((f) => f.shape).join(', ')} | ${scoped.shape} | ${order}`
    const values = [...filters.flatMap((f) => f.values), ...scoped.values]
    const shapes = this.listShapes
    const parameters = [...values, ...values, ...paging]
    const kept = shapes.get(key)
    if (kept) return { ...kept, parameters, queryId: createQueryId() }
    const compiled = compile()
    if (kept === undefined) {
      const keep = bindsExactly(compiled, parameters)
      shapes.set(key, keep ? compiled : null)
      if (shapes.size > KEEP_LIST_SHAPES) shapes.delete(shapes.keys().next().value!)
      if (keep) runsOften(compiled.sql)
    }
    return compiled
  }

  /** Id, name (and parent, for a tree) of rows in scope, by name: what a picker offers. */
  /** `exactKeyword`: the keyword matches the whole name only (a name the caller sees masked). */
  async options(scope: RowScope, keyword: string | undefined, limit: number, equal: Record<string, number> = {}, lang: Language = 'en_US', exactKeyword = false): Promise<{ value: number; label: string; parentId?: number }[]> {
    const e = this.entity
    // Named, ordered and searched in the reader's language (a country: 荷兰 for a Chinese reader).
    const label = labelFieldIn(e, lang)
    let q = this.db
      .selectFrom(e.table)
      .select([e.idField, label, ...(e.treeParent ? [e.treeParent] : [])])
      .where((eb) => this.scoped(eb, scope))
      .orderBy(e.treeParent ? e.defaultSort.field : label)
      .orderBy(e.idField)
      .limit(limit)
    if (keyword) q = q.where(exactKeyword ? likePattern(label, escapeLike(keyword.toLowerCase())) : containsText(label, keyword))
    for (const [field, id] of Object.entries(equal)) q = q.where(field, '=', id)
    const rows = await q.execute()
    return rows.map((r) => ({
      value: Number(r[e.idField]),
      label: String(r[label]),
      ...(e.treeParent ? { parentId: Number(r[e.treeParent]) } : {}),
    }))
  }

  /**
   * An export's rows, read in pages so memory stays flat however many rows match: `columns` names
   * the values of each row of `pages` (the exported fields and what the paging needs, then each
   * exported reference's label as `<name>Label`), which come as arrays in that order, read past
   * Kysely's result plugins (readRowArrays). The next page is asked for as soon as one arrives, so
   * the database reads it (on SQLite, on a reader thread) while the workbook is written from this
   * one. Nothing is read before `pages` is iterated.
   */
  exportRead(body: Record<string, unknown>, scope: RowScope, lang: Language = 'en_US', exact: ReadonlySet<string> = NO_EXACT, pageSize = EXPORT_PAGE): { columns: string[]; pages: AsyncGenerator<unknown[][]> } {
    const e = this.entity
    const sort = sortColumn(e, body.orderByColumn as string | undefined)
    const references = this.references.filter((f) => e.exported.includes(f))
    const plain = [...new Set([...e.exported.map((f) => f.name), e.idField, ...(e.treeParent ? [e.treeParent] : []), sort])]
    const columns = [...plain, ...references.map((f) => `${f.name}Label`)]
    return { columns, pages: this.exportPages(body, scope, lang, exact, pageSize, { sort, plain, references, columns }) }
  }

  private async *exportPages(
    body: Record<string, unknown>,
    scope: RowScope,
    lang: Language,
    exact: ReadonlySet<string>,
    pageSize: number,
    o: { sort: string; plain: string[]; references: (FieldDef & { kind: 'reference' })[]; columns: string[] },
  ): AsyncGenerator<unknown[][]> {
    const e = this.entity
    if (e.treeParent) {
      // A tree is read whole and ordered as its page shows it (stream): its rows as arrays.
      for await (const rows of this.stream(body, scope, pageSize, lang, exact)) yield rows.map((r) => o.columns.map((c) => r[c]))
      return
    }
    const { sort, plain, references } = o
    const where = this.where(body, scope, exact)
    const isAsc = typeof body.isAsc === 'string' ? body.isAsc : undefined
    const desc = isAsc ? isAsc.startsWith('desc') : sort === e.defaultSort.field && e.defaultSort.order === 'desc'
    const direction = desc ? 'desc' : 'asc'
    // As stream(): by key after the last (sort, id) when the sort column is never null, else by offset.
    const keyset = sort === e.idField || storedColumns(e).some((c) => c.name === sort && !c.nullable)
    const sortAt = plain.indexOf(sort)
    const idAt = plain.indexOf(e.idField)
    const ordered = () => {
      let q = this.db.selectFrom(e.table).select(plain).where(where)
      if (sort !== e.idField) q = q.orderBy(sort, direction)
      return q.orderBy(e.idField, keyset ? direction : 'asc')
    }
    const page = (last: readonly unknown[] | undefined, offset: number) => {
      let q = ordered().limit(pageSize)
      if (!keyset) q = q.offset(offset)
      else if (last && sort === e.idField) q = q.where(e.idField, desc ? '<' : '>', last[idAt])
      else if (last) q = q.where((eb) => eb(eb.refTuple(sort, e.idField), desc ? '<' : '>', eb.tuple(last[sortAt], last[idAt])))
      const compiled = q.compile()
      // The same page statement hundreds of times: on PostgreSQL, prepared once per connection.
      if (last) runsOften(compiled.sql)
      return readRowArrays(this.typedDb, compiled)
    }
    // On SQLite pages by key, each read on a reader thread while the last is written; on PostgreSQL
    // the whole statement through a cursor (export-cursor.ts).
    async function* pages() {
      let next: Promise<unknown[][]> | undefined = page(undefined, 0)
      for (let offset = 0; next; offset += pageSize) {
        const rows: unknown[][] = await next
        next = rows.length < pageSize ? undefined : page(rows.at(-1), offset + pageSize)
        // A consumer that stops early leaves the next page unread: its failure is nobody's to hear.
        next?.catch(() => undefined)
        if (rows.length) yield rows
      }
    }
    // Labels by id, kept from page to page: a million rides name ten thousand members, and a lookup
    // per row (a join, or the list's subquery) cost the database more than reading the rides did.
    const labels = references.map((f) => ({ at: plain.indexOf(f.name), found: new LabelsById(), target: entityByKey(f.entity) }))
    for await (const rows of readCursorArrays(this.typedDb, ordered().compile(), pageSize) ?? pages()) {
      for (const l of labels) {
        const { at, found } = l
        // Each row's label, found with one lookup (null: no label); undefined until a missing one is read.
        const named: unknown[] = new Array(rows.length)
        let missing: Set<unknown> | undefined
        for (let k = 0; k < rows.length; k++) {
          const id = rows[k]![at]
          if (id === null || id === undefined) named[k] = null
          else if ((named[k] = found.get(id)) === undefined) (missing ??= new Set()).add(id)
        }
        if (missing) {
          // Bounded: a reference to a table as large as the export's is looked up page by page.
          if (found.size + missing.size > EXPORT_LABELS_KEPT) {
            found.clear()
            for (const r of rows) if (r[at] !== null && r[at] !== undefined) missing.add(r[at])
          }
          const label = labelFieldIn(l.target, lang)
          const ids = [...missing]
          for (let i = 0; i < ids.length; i += 1000) {
            const chunk = ids.slice(i, i + 1000)
            for (const [id, name] of await readRowArrays(this.typedDb, this.db.selectFrom(l.target.table).select([l.target.idField, label]).where(l.target.idField, 'in', chunk).compile())) found.set(id, name)
            // An id no row has (a dangling reference) has no label, as in the list.
            for (const id of chunk) if (!found.has(id)) found.set(id, null)
          }
          for (let k = 0; k < rows.length; k++) if (named[k] === undefined) named[k] = found.get(rows[k]![at])
        }
        for (let k = 0; k < rows.length; k++) rows[k]!.push(named[k])
      }
      yield rows
    }
  }

  /** Rows for export, in pages so memory stays flat however many rows match. */
  async *stream(body: Record<string, unknown>, scope: RowScope, batch = 2000, lang: Language = 'en_US', exact: ReadonlySet<string> = NO_EXACT): AsyncGenerator<Row[]> {
    const e = this.entity
    const where = this.where(body, scope, exact)
    if (e.treeParent) {
      // A tree exports as its page shows it, each node followed by what is below it: it is read
      // whole anyway (the list is too), and capped the same way.
      const rows = await this.db.selectFrom(e.table).select(e.columns).where(where).orderBy(e.defaultSort.field, e.defaultSort.order).orderBy(e.idField, 'asc').limit(TREE_LIMIT).execute()
      const ordered = inTreeOrder(rows, e.idField, e.treeParent)
      for (let i = 0; i < ordered.length; i += batch) yield await this.present(ordered.slice(i, i + batch), this.typedDb, false, lang)
      return
    }
    // In the list's order (its sort, else the definition's), ties by id, as the page shows them. A
    // column that is never null is read in batches after the last (value, id) seen, which an index
    // on it serves at any depth; a nullable one (databases put nulls at different ends) by offset.
    const sort = sortColumn(e, body.orderByColumn as string | undefined)
    const isAsc = typeof body.isAsc === 'string' ? body.isAsc : undefined
    const desc = isAsc ? isAsc.startsWith('desc') : sort === e.defaultSort.field && e.defaultSort.order === 'desc'
    const direction = desc ? 'desc' : 'asc'
    const keyset = sort === e.idField || storedColumns(e).some((c) => c.name === sort && !c.nullable)
    // The last row's sort value and id as the database gave them (present() reshapes the rows).
    let last: { value: unknown; id: unknown } | undefined
    for (let offset = 0; ; offset += batch) {
      let q = this.db.selectFrom(e.table).select(e.columns).where(where)
      if (sort !== e.idField) q = q.orderBy(sort, direction)
      // Ties by id in the sort's own direction when reading by key: (sort, id) after the last pair is
      // then one row-value comparison, which the index on the sort column (it holds the id) serves;
      // an OR of two comparisons would scan the table once per batch.
      q = q.orderBy(e.idField, sort === e.idField || keyset ? direction : 'asc').limit(batch)
      if (!keyset) q = q.offset(offset)
      else if (last && sort === e.idField) q = q.where(e.idField, desc ? '<' : '>', last.id)
      else if (last) {
        const { value, id } = last
        q = q.where((eb) => eb(eb.refTuple(sort, e.idField), desc ? '<' : '>', eb.tuple(value, id)))
      }
      const rows = await q.execute()
      if (rows.length === 0) return
      const end = rows.at(-1)!
      last = { value: end[sort], id: end[e.idField] }
      yield await this.present(rows, this.typedDb, false, lang)
      if (rows.length < batch) return
    }
  }

  /** One row as GET {path}/{id} answers it, to the caller: with its links, after the module's afterGet hooks. */
  async get(id: number, scope: RowScope, auth: AuthContext, lang: Language = 'en_US'): Promise<Row> {
    const row = await this.fetchOne(this.typedDb, id, scope, lang)
    await this.withLinks([row], this.links, lang)
    await runHooks(this.hooks.afterGet, { db: this.typedDb, auth, row })
    return row
  }

  /**
   * The rows' links through these fields, ids with their labels (a campaign's 5,000 target devices
   * by serial number, not by id): all of them, or in a list the first `cap` of each row and their
   * number (`<name>Total`). One query per field for all the rows.
   */
  private async withLinks(rows: Row[], fields: readonly (FieldDef & { kind: 'referenceMany' })[], lang: Language, cap?: number) {
    const ids = rows.map((r) => r[this.entity.idField])
    if (!ids.length) return
    for (const f of fields) {
      const target = entityByKey(f.entity)
      const linked = (await this.db
        .selectFrom(`${f.through.table} as l`)
        .leftJoin(`${target.table} as t`, `t.${target.idField}`, `l.${f.through.to}`)
        .select([`l.${f.through.from} as owner`, `l.${f.through.to} as id`, `t.${labelFieldIn(target, lang)} as label`])
        .where(`l.${f.through.from}`, 'in', ids)
        .orderBy(`l.${f.through.from}`)
        .orderBy(`l.${f.through.to}`)
        .execute()) as Row[]
      const byOwner = new Map<number, Row[]>()
      for (const l of linked) {
        const list = byOwner.get(Number(l.owner))
        if (list) list.push(l)
        else byOwner.set(Number(l.owner), [l])
      }
      for (const r of rows) {
        const all = byOwner.get(Number(r[this.entity.idField])) ?? []
        const shown = cap === undefined ? all : all.slice(0, cap)
        r[f.name] = shown.map((l) => Number(l.id))
        r[`${f.name}Labels`] = shown.map((l) => (l.label === null || l.label === undefined ? null : String(l.label)))
        if (cap !== undefined) r[`${f.name}Total`] = all.length
      }
    }
  }

  /** One row in scope, read through the given executor (the database or an open transaction). */
  async fetchOne(db: Db, id: number, scope: RowScope, lang: Language = 'en_US'): Promise<Row> {
    const row = await dynamicDb(db)
      .selectFrom(this.entity.table)
      .select(this.entity.columns)
      .where(this.entity.idField, '=', id)
      .where((eb) => this.scoped(eb, scope))
      .executeTakeFirst()
    if (!row) throw notFound()
    return (await this.present([row], db, false, lang))[0]!
  }

  /**
   * Values typed by another field (`typedBy`: a configuration value by its key) against that type,
   * whenever the value or the field that types it changes; `row` is the row as it will be. A fitting
   * value is stored in its canonical form ('TRUE' → 'true').
   */
  private checkTypedValues(changes: Row, row: Row) {
    for (const f of this.entity.fields) {
      if (!f.typedBy || !(f.name in changes || f.typedBy.field in changes)) continue
      const value = row[f.name]
      const type = VALUE_TYPE_TABLES[f.typedBy.table](row[f.typedBy.field])
      if (!type || value === undefined || value === null || value === '') continue
      const checked = checkTypedValue(type, String(value))
      if (checked.ok) {
        if (f.name in changes) changes[f.name] = checked.value
        continue
      }
      const key = String(row[f.typedBy.field]).trim()
      const p = checked.problem
      const errors = { errors: [{ field: f.name }] }
      switch (p.type) {
        case 'boolean':
          throw badRequest('value.boolean', { key }, errors)
        case 'integer':
          throw badRequest('value.integer', { key, min: p.min, max: p.max }, errors)
        case 'enum':
          throw badRequest('value.enum', { key, values: p.values.join(', ') }, errors)
        case 'text':
          throw badRequest('value.text', { key, ruleEn: p.rule?.en_US ?? 'has a wrong format', ruleZh: p.rule?.zh_CN ?? '格式不正确' }, errors)
      }
    }
  }

  /** Database rules on values that passed the schema: unique, dictionary, reference and tree. */
  async checkValues(db: Db, values: Row, exceptId?: number, memo?: CheckMemo) {
    const tx = dynamicDb(db)
    for (const f of this.entity.writable) {
      const v = values[f.name]
      // '' is no dictionary value: a required one left blank is refused, not stored; an optional one blank means none.
      if (v === undefined || v === null || (v === '' && (f.kind !== 'dict' || !f.required))) continue
      const taken = memo?.taken.get(f.name)
      if (f.unique && taken) {
        const owner = taken.get(v)
        if (owner !== undefined && owner !== exceptId) throw conflict('error.unique', { fieldEn: f.label.en_US, fieldZh: f.label.zh_CN, value: String(v) }, f.name)
      } else if (f.unique) {
        let q = tx.selectFrom(this.entity.table).select(this.entity.idField).where(f.name, '=', v)
        if (exceptId !== undefined) q = q.where(this.entity.idField, '<>', exceptId)
        if (await q.executeTakeFirst()) throw conflict('error.unique', { fieldEn: f.label.en_US, fieldZh: f.label.zh_CN, value: String(v) }, f.name)
      }
      if (f.kind === 'dict') {
        const known = `${f.dict}\u0000${String(v)}`
        if (!memo?.dictValues.has(known)) await assertDictValue(tx, f, String(v))
        memo?.dictValues.add(known)
      }
      if (f.kind === 'file') await assertStoredFile(db, this.entity, f, String(v), exceptId)
      if (f.kind === 'reference') await assertExists(tx, f, entityByKey(f.entity), [v])
      if (f.kind === 'referenceMany') await assertExists(tx, f, entityByKey(f.entity), v as unknown[])
      if (f.kind === 'treeParent' && v !== 0) {
        await assertExists(tx, f, this.entity, [v])
        if (exceptId !== undefined) {
          const below = await tx.selectNoFrom((eb) => eb(eb.val(v), 'in', subtreeIds(this.entity, exceptId)).as('loop')).executeTakeFirstOrThrow()
          if (Number(below.loop)) throw badRequest('tree.badParent', {}, { errors: [{ field: f.name }] })
        }
      }
    }
  }

  /**
   * A reference `within` another field is to a row that shares the row's value of it (a bike's
   * colour is one of its model's): checked when either changes, on the row as it will be.
   */
  private async checkWithin(db: Db, changes: Row, row: Row) {
    const tx = dynamicDb(db)
    for (const f of this.entity.writable) {
      const within = withinOf(this.entity, f)
      if (!within || (changes[f.name] === undefined && changes[within.field] === undefined)) continue
      const id = row[f.name]
      if (id === null || id === undefined) continue
      const { target, field } = within
      const found = await tx.selectFrom(target.table).select([field, target.labelField]).where(target.idField, '=', id).executeTakeFirst()
      if (!found || Number(found[field]) === Number(row[field])) continue
      const owner = entityByKey((target.fieldMap.get(field) as FieldDef & { kind: 'reference' }).entity)
      const named = await tx.selectFrom(owner.table).select(owner.labelField).where(owner.idField, '=', row[field]).executeTakeFirst()
      const by = this.entity.fieldMap.get(field)!.label
      throw badRequest(
        'error.notWithin',
        { fieldEn: f.label.en_US, fieldZh: f.label.zh_CN, value: String(found[target.labelField]), withinEn: by.en_US.toLowerCase(), withinZh: by.zh_CN, owner: String(named?.[owner.labelField] ?? row[field]) },
        { errors: [{ field: f.name }] },
      )
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
      if (!(v === null || (v === undefined && forAdd) || (v === '' && (f.kind === 'dict' || f.kind === 'enum')))) continue
      if ('default' in f && f.default !== undefined) out[f.name] = f.default
      else if (f.kind === 'treeParent') out[f.name] = 0
      else if (f.kind === 'referenceMany') out[f.name] = forAdd ? [] : undefined
      else if (isStringKind(f) && !['date', 'image', 'file'].includes(f.kind)) out[f.name] = ''
      else out[f.name] = null
    }
    return out
  }

  private async writeLinks(db: Db, id: unknown, values: Row) {
    const tx = dynamicDb(db)
    for (const f of this.links) {
      const ids = values[f.name] as number[] | undefined
      if (ids === undefined) continue
      await tx.deleteFrom(f.through.table).where(f.through.from, '=', id).execute()
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = [...new Set(ids.slice(i, i + 500))]
        if (chunk.length) await tx.insertInto(f.through.table).values(chunk.map((to) => ({ [f.through.from]: id, [f.through.to]: to }))).execute()
      }
    }
  }

  async create(values: Row, auth: AuthContext, confirmed = false, scope?: RowScope): Promise<Row> {
    const context: Record<string, unknown> = {}
    const row = await this.typedDb.transaction().execute(async (tx) => {
      const added = await this.createIn(tx, values, auth, undefined, context, confirmed)
      await this.assertInScope(tx, [this.scopedByParent ? added[this.entity.treeParent!] : added[this.entity.idField]], scope)
      return added
    })
    await runHooks(this.hooks.afterCommit, { auth, context, op: 'create', row })
    return row
  }

  /** Add one row inside an open transaction (import adds many in one). */
  async createIn(tx: Transaction<Database>, values: Row, auth: AuthContext, memo?: CheckMemo, context: Record<string, unknown> = {}, confirmed = false): Promise<Row> {
    const row = this.withDefaults(values, true)
    const hidden = await this.checkNew(tx, row, memo)
    await runHooks(this.hooks.beforeCreate, { tx, auth, context, confirmed, values: row, columns: hidden })
    const inserted = (await dynamicDb(tx).insertInto(this.entity.table).values(this.newColumns(row, hidden, auth)).returning(this.entity.columns).executeTakeFirstOrThrow()) as Row
    for (const [field, taken] of memo?.taken ?? []) if (row[field] !== undefined) taken.set(row[field], Number(inserted[this.entity.idField]))
    await this.writeLinks(tx, inserted[this.entity.idField], row)
    await runHooks(this.hooks.afterCreate, { tx, auth, context, confirmed, row: inserted, values: row })
    return (await this.present([inserted], tx))[0]!
  }

  /** The checks of a new row (its values with their defaults), and the columns it starts with that the definition does not expose (a status machine's). */
  private async checkNew(tx: Db, row: Row, memo: CheckMemo | undefined): Promise<Row> {
    await this.checkValues(tx, row, undefined, memo)
    await this.checkWithin(tx, row, row)
    this.checkTypedValues(row, row)
    return { ...(await initialState(tx, this.entity)) }
  }

  /** What a new row's INSERT writes: its values, the hidden columns, and who added it when. */
  private newColumns(row: Row, hidden: Row, auth: AuthContext): Row {
    // The table has the audit columns unless its definition says otherwise (storage.audited, as the migration made it).
    const audited = this.entity.storage?.audited !== false
    return { ...toColumns(this.entity, row), ...hidden, ...sliceColumns(this.entity), ...(audited ? { createBy: auth.userName, createTime: new Date().toISOString() } : {}) }
  }

  /**
   * Whether rows of this entity may be added many to a statement (checkedForAdd, then addMany), as an
   * import does: only when nothing of adding one row needs it written before the next is checked or
   * run once it is written. Not so with create hooks (each sees its own row, written), link tables
   * (written under the new id), or a reference to the same table (a tree's parent, which a row may
   * find among the rows added just before it).
   */
  get addsInBatches(): boolean {
    const e = this.entity
    return !hasHooks(this.hooks.beforeCreate) && !hasHooks(this.hooks.afterCreate) && this.links.length === 0 && !e.treeParent && !this.references.some((f) => f.entity === e.key)
  }

  /**
   * A new row checked as createIn checks it, with the same errors, and not written: the columns its
   * INSERT writes, for addMany. Only for an entity that addsInBatches.
   */
  async checkedForAdd(tx: Transaction<Database>, values: Row, auth: AuthContext, memo?: CheckMemo): Promise<Row> {
    const row = this.withDefaults(values, true)
    const hidden = await this.checkNew(tx, row, memo)
    return this.newColumns(row, hidden, auth)
  }

  /**
   * Writes rows from checkedForAdd in multi-row INSERTs: a statement per ADD_MANY_ROWS rows, fewer
   * when their columns would pass the bind-parameter limit, and a new one where the rows' columns
   * differ (an INSERT's rows share its column list). Their unique values go into the memo with the
   * new ids, as createIn notes them. With `answer`, the rows come back as createIn answers its row
   * (their order is not the given one); without, nothing does.
   */
  async addMany(tx: Transaction<Database>, rows: readonly Row[], memo?: CheckMemo, answer = false): Promise<Row[]> {
    const e = this.entity
    const unique = [...(memo?.taken.keys() ?? [])]
    const out: Row[] = []
    let start = 0
    while (start < rows.length) {
      const columns = Object.keys(rows[start]!).filter((k) => rows[start]![k] !== undefined)
      const shape = columns.join()
      const most = Math.max(1, Math.min(ADD_MANY_ROWS, Math.floor(MAX_BIND_PARAMETERS / Math.max(1, columns.length))))
      let end = start + 1
      while (end < rows.length && end - start < most && shapeOf(rows[end]!) === shape) end++
      const chunk = rows.slice(start, end)
      const inserted = (await dynamicDb(tx)
        .insertInto(e.table)
        .values(chunk as Row[])
        .returning(answer ? e.columns : [e.idField, ...unique])
        .execute()) as Row[]
      for (const field of unique) {
        const taken = memo!.taken.get(field)!
        // The value as the row gave it (the database may answer it typed otherwise, a bigint as text), by its text.
        const given = new Map(chunk.flatMap((r) => (r[field] === undefined || r[field] === null ? [] : [[String(r[field]), r[field]] as const])))
        for (const r of inserted) if (given.has(String(r[field]))) taken.set(given.get(String(r[field])), Number(r[e.idField]))
      }
      if (answer) out.push(...(await this.present(inserted, tx)))
      start = end
    }
    return out
  }

  async update(id: number, values: Row, auth: AuthContext, scope: RowScope, confirmed = false): Promise<Row> {
    const context: Record<string, unknown> = {}
    const { before, after } = await this.typedDb.transaction().execute((tx) => this.change(tx, id, values, auth, scope, undefined, context, confirmed))
    await runHooks(this.hooks.afterCommit, { auth, context, op: 'update', before, after })
    return after
  }

  /** Modify one row in scope inside an open transaction; undefined values are left as they are. */
  async updateIn(tx: Transaction<Database>, id: number, values: Row, auth: AuthContext, scope: RowScope, memo?: CheckMemo): Promise<{ before: Row; after: Row }> {
    return this.change(tx, id, values, auth, scope, memo)
  }

  /** Whether the module does anything once a change is committed (import keeps its changes only then). */
  get actsAfterCommit(): boolean {
    return typeof this.hooks.afterCommit === 'function' || !!this.hooks.afterCommit?.length
  }

  /** The effects after commit of changes made with createIn/updateIn (an import's rows), as create and update run them. */
  async committed(auth: AuthContext, changes: readonly ({ op: 'create'; row: Row } | { op: 'update'; before: Row; after: Row })[]) {
    for (const change of changes) await runHooks(this.hooks.afterCommit, { auth, context: {}, ...change })
  }

  private async change(
    tx: Transaction<Database>,
    id: number,
    values: Row,
    auth: AuthContext,
    scope: RowScope,
    memo?: CheckMemo,
    context: Record<string, unknown> = {},
    confirmed = false,
  ): Promise<{ before: Row; after: Row }> {
    const e = this.entity
    const before = await this.fetchOne(tx, id, scope)
    refuseDirectStatusChange(e, before, values)
    const editable = (k: string) => {
      const f = e.fieldMap.get(k)
      return !!f && k !== e.idField && !f.readOnly && !f.immutable && f.kind !== 'password' && k !== e.transitions?.field
    }
    const sent = this.withDefaults(Object.fromEntries(Object.entries(values).filter(([k, v]) => v !== undefined && editable(k))), false)
    // What the row's state no longer lets change is refused (409), before anything is checked or written.
    const changes = await allowedChanges(e, before, sent, (f) => this.linkedIds(tx, id, f))
    await this.checkValues(tx, changes, id, memo)
    const changed = { ...before, ...changes }
    await this.checkWithin(tx, changes, changed)
    this.checkTypedValues(changes, changed)
    await runHooks(this.hooks.beforeUpdate, { tx, auth, context, confirmed, before, values: changes })
    // A modify that changes nothing of a row its state locks writes nothing, not even who touched it.
    const audited = e.storage?.audited !== false && (Object.keys(changes).length > 0 || !lockedByState(e, before))
    const set = { ...toColumns(e, changes), ...(audited ? { updateBy: auth.userName, updateTime: new Date().toISOString() } : {}) }
    const after = (
      Object.keys(set).length
        ? await this.updateInState(tx, id, set, before, changes)
        : before
    ) as Row
    await this.writeLinks(tx, id, changes)
    // A change may not carry the row out of the caller's scope (to another country, another department).
    await this.assertInScope(tx, [id], scope)
    await runHooks(this.hooks.afterUpdate, { tx, auth, context, confirmed, before, after })
    return { before, after: (await this.present([after], tx))[0]! }
  }

  /** A modify's UPDATE, made only while the row is in the state its rules were judged in; a row moved on meanwhile is refused as it is now. */
  private async updateInState(executor: Db, id: number, set: Row, before: Row, changes: Row): Promise<Row> {
    const e = this.entity
    const tx = dynamicDb(executor)
    const same = sameStateCondition(e, before, 'edit')
    const row = (await tx
      .updateTable(e.table)
      .set(set)
      .where(e.idField, '=', id)
      .where((eb) => (same ? same(eb) : sql<boolean>`1 = 1`))
      .returning(e.columns)
      .executeTakeFirst()) as Row | undefined
    if (row) return row
    const now = await tx.selectFrom(e.table).select(e.columns).where(e.idField, '=', id).executeTakeFirst()
    if (now) await allowedChanges(e, (await this.present([now], executor))[0]!, changes, (f) => this.linkedIds(executor, id, f))
    throw conflict('error.raced')
  }

  /** The ids a row links to through a `referenceMany` field's join table. */
  private async linkedIds(db: Db, id: unknown, f: FieldDef): Promise<number[]> {
    if (f.kind !== 'referenceMany') return []
    const linked = await dynamicDb(db).selectFrom(f.through.table).select(f.through.to).where(f.through.from, '=', id).execute()
    return linked.map((l) => Number(l[f.through.to]))
  }

  async remove(ids: number[], auth: AuthContext, scope: RowScope): Promise<number> {
    const e = this.entity
    const context: Record<string, unknown> = {}
    const removed = await this.typedDb.transaction().execute(async (typedTx) => {
      const tx = dynamicDb(typedTx)
      const rows = (await tx
        .selectFrom(e.table)
        .select(e.columns)
        .where(e.idField, 'in', ids)
        .where((eb) => this.scoped(eb, scope))
        .execute()) as Row[]
      // Deleting ids that are missing or out of scope is refused whole, not half done.
      if (rows.length !== ids.length) throw notFound()
      if (e.treeParent) {
        const child = await tx.selectFrom(e.table).select(e.idField).where(e.treeParent, 'in', ids).where(e.idField, 'not in', ids).executeTakeFirst()
        if (child) throw conflict('tree.hasChildren')
      }
      // A row its state keeps (a finished order, a sent message) refuses the whole delete (409).
      refuseForbiddenDelete(e, rows)
      await runHooks(this.hooks.beforeDelete, { tx: typedTx, auth, context, confirmed: false, rows })
      for (const f of this.links) await tx.deleteFrom(f.through.table).where(f.through.from, 'in', ids).execute()
      // Only while none has been moved into such a state meanwhile. A row's history (sys_transition_log) stays.
      const same = sameStateCondition(e, rows[0]!, 'delete')
      const deleted = await tx
        .deleteFrom(e.table)
        .where(e.idField, 'in', ids)
        .where((eb) => (same ? same(eb) : sql<boolean>`1 = 1`))
        .executeTakeFirst()
      if (same && Number(deleted.numDeletedRows) !== ids.length) {
        refuseForbiddenDelete(e, await tx.selectFrom(e.table).select(e.columns).where(e.idField, 'in', ids).execute())
        throw conflict('error.raced')
      }
      return rows
    })
    await runHooks(this.hooks.afterCommit, { auth, context, op: 'remove', rows: removed })
    return removed.length
  }
}

/** A stored boolean or decimal as JSON has it, whatever the dialect returned (SQLite: 0/1, PostgreSQL: a decimal string). */
function jsonValue(f: FieldDef, v: unknown): unknown {
  if (v === null) return null
  if (f.kind === 'boolean') return Boolean(v)
  if (f.kind === 'money') return Number(v)
  return v
}

async function assertExists(db: DynamicDb, f: FieldDef, target: ResolvedEntity, ids: unknown[]) {
  const wanted = [...new Set(ids.map(Number))]
  for (let i = 0; i < wanted.length; i += 500) {
    const chunk = wanted.slice(i, i + 500)
    // A slice's row is no row of another slice of the table (a display campaign takes no IoT firmware).
    const found = new Set((await db.selectFrom(target.table).select(target.idField).where(target.idField, 'in', chunk).where(inSlice(target)).execute()).map((r) => Number(r[target.idField])))
    const missing = chunk.find((id) => !found.has(id))
    if (missing !== undefined) {
      throw badRequest('error.referenceMissing', { fieldEn: f.label.en_US, fieldZh: f.label.zh_CN, value: String(missing) }, { errors: [{ field: f.name }] })
    }
  }
}

async function assertDictValue(db: DynamicDb, f: FieldDef & { kind: 'dict' }, value: string) {
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
