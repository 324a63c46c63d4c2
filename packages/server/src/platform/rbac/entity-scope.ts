import { entityByKey, ownerOf, type ResolvedEntity } from '@velo/shared'
import { type CompiledQuery, type RawBuilder, type SqlBool, sql } from 'kysely'
import { notFound } from '../errors'
import type { Services } from '../services'
import type { AuthContext } from './auth-context'
import { resolveRowScope, type RowScope } from './data-scope'
import { type Db, dynamicDb } from '../../db/database'

/**
 * An entity's data scope as SQL (docs/entity-engine.md › Data scope): the rows of `e` the caller may
 * see, for every route that reads, counts, exports, changes or deletes them. Built from the
 * definition's `scope` alone — column names come from definitions, never from a request, and every
 * value is bound. `qualifier` names the table the columns belong to (inner subqueries use their own
 * alias, so a column never resolves to an outer table's).
 */
export function entityScope(e: ResolvedEntity, scope: RowScope, qualifier?: string): RawBuilder<SqlBool> {
  if (scope.all) return sql<SqlBool>`1 = 1`
  return ownedRows(e, scope, qualifier, 0)
}

/** Whether the entity's rows are filtered at all for a caller (rows declared nobody's never are). */
export function isScoped(e: ResolvedEntity): boolean {
  return ownerOf(e) !== null
}

function ownedRows(e: ResolvedEntity, scope: RowScope & { all: false }, qualifier: string | undefined, depth: number): RawBuilder<SqlBool> {
  const owner = ownerOf(e)
  if (!owner) return sql<SqlBool>`1 = 1`
  // Always qualified: inside a subquery an unqualified name would find the inner table's column of that name first.
  const col = (name: string) => sql.ref(`${qualifier ?? e.table}.${name}`)
  const parts: RawBuilder<SqlBool>[] = []
  if (owner.dept && scope.deptIds.length) parts.push(sql<SqlBool>`${col(owner.dept)} in (${sql.join(scope.deptIds)})`)
  if (owner.country && scope.countryIds.length) parts.push(sql<SqlBool>`${col(owner.country)} in (${sql.join(scope.countryIds)})`)
  // Related rows as correlated EXISTS: the planner may then walk the list's own order (newest first)
  // and probe each row's owner by its key, instead of sorting every row in scope for a page of twenty.
  if (owner.via) {
    const f = e.fieldMap.get(owner.via)!
    const target = entityByKey((f as { entity: string }).entity)
    const alias = `scope${depth}`
    const inner = ownedRows(target, scope, alias, depth + 1)
    if (!isFalse(inner)) {
      parts.push(sql<SqlBool>`exists (select 1 from ${sql.table(target.table)} as ${sql.id(alias)} where ${sql.ref(`${alias}.${target.idField}`)} = ${col(owner.via)} and ${inner})`)
    }
  }
  if (owner.heldBy) {
    const holder = entityByKey(owner.heldBy.entity)
    const alias = `scope${depth}`
    const inner = ownedRows(holder, scope, alias, depth + 1)
    if (!isFalse(inner)) {
      parts.push(sql<SqlBool>`exists (select 1 from ${sql.table(holder.table)} as ${sql.id(alias)} where ${sql.ref(`${alias}.${owner.heldBy.field}`)} = ${col(e.idField)} and ${inner})`)
    }
  }
  if (owner.person === 'createBy' && scope.userName !== null) parts.push(sql<SqlBool>`${col('createBy')} = ${scope.userName}`)
  else if (owner.person && owner.person !== 'createBy' && scope.userId !== null) parts.push(sql<SqlBool>`${col(owner.person)} = ${scope.userId}`)
  if (parts.length === 0) return NOTHING
  if (parts.length === 1) return parts[0]!
  return sql<SqlBool>`(${sql.join(parts, sql` or `)})`
}

/** No row: a scope that grants nothing on this entity ("personal only" on members, a department without countries). */
const NOTHING = sql<SqlBool>`1 = 0`
const isFalse = (b: RawBuilder<SqlBool>) => b === NOTHING

/**
 * The scope's condition as a list statement's shape and values: its SQL text names the shape (the
 * same for every caller with as many departments, countries and a user alike), its parameters are
 * what a kept statement binds for this caller.
 */
export function scopeStatementPart(e: ResolvedEntity, scope: RowScope, compile: (b: RawBuilder<SqlBool>) => CompiledQuery): { shape: string; values: readonly unknown[] } {
  if (scope.all || !isScoped(e)) return ALL_ROWS
  // A caller's scope object is kept with their signed-in context: its condition is built and
  // compiled once per entity, not on every page they ask for.
  let parts = compiledParts.get(scope)
  if (!parts) compiledParts.set(scope, (parts = new Map()))
  let part = parts.get(e.key)
  if (!part) {
    const compiled = compile(entityScope(e, scope))
    parts.set(e.key, (part = { shape: compiled.sql, values: compiled.parameters }))
  }
  return part
}

const ALL_ROWS = { shape: 'all', values: [] } as const
const compiledParts = new WeakMap<RowScope, Map<string, { shape: string; values: readonly unknown[] }>>()

/**
 * Refuses ids of rows outside the caller's scope as if they did not exist (404), for routes beside
 * the engine that act on rows by id (a command to devices, a device's new secret): the same rule as
 * the engine's own routes, so no way around a list leads to another country's rows.
 */
export async function assertIdsInScope(db: Db, e: ResolvedEntity, scope: RowScope, ids: readonly number[]): Promise<void> {
  if (scope.all || !isScoped(e) || ids.length === 0) return
  const wanted = [...new Set(ids)]
  for (let i = 0; i < wanted.length; i += 500) {
    const chunk = wanted.slice(i, i + 500)
    const found = await dynamicDb(db).selectFrom(e.table).select((eb) => eb.fn.countAll<number>().as('n')).where(e.idField, 'in', chunk).where(entityScope(e, scope)).executeTakeFirstOrThrow()
    if (Number(found.n) !== chunk.length) throw notFound()
  }
}

/** The caller's data scope, kept with their signed-in context (dropped when roles or departments change). */
export function callerScope(services: Services, auth: AuthContext): Promise<RowScope> {
  return services.authCache.rowScope(auth, () => resolveRowScope(services.db, auth))
}
