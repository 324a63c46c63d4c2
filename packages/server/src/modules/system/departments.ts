import { systemEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { Transaction } from 'kysely'
import { sql } from 'kysely'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { conflict, forbidden } from '../../platform/errors'
import type { AuthContext } from '../../platform/rbac/auth-context'
import { grantCheckIn, holdersOfTreeScopes } from '../../platform/rbac/grants'
import { caller, SIGNED_IN } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'
import { envelope } from '../../platform/responses'
import { countryScopeFor } from '../dashboard/scope'
import { deptInScope, deptTree, scopeOf, treeOptionSchema } from './access'
import type { Database } from '../../db/schema'

type Row = Record<string, unknown>
type Tx = Transaction<Database>

const ENABLED = '0'

async function deptById(tx: Tx, deptId: unknown) {
  const id = Number(deptId ?? 0)
  if (id === 0) return null
  return (
    (await tx.selectFrom('sysDept').select(['deptId', 'deptName', 'ancestors', 'status']).where('deptId', '=', id).executeTakeFirst()) ?? null
  )
}

/**
 * Where a department may go: under a parent in the caller's data scope (a root only with scope
 * "all"; checked when it is placed, not when it stays), and, when it is enabled, under an enabled parent.
 */
async function assertPlaceable(tx: Tx, auth: AuthContext, parentId: unknown, enabled: boolean, placed = true) {
  const parent = await deptById(tx, parentId)
  if (placed && !deptInScope(await scopeOf(tx, auth), parent ? Number(parent.deptId) : null)) throw forbidden('scope.dept', { deptId: Number(parentId ?? 0) })
  if (enabled && parent && parent.status !== ENABLED) throw conflict('dept.parentDisabled', { deptName: parent.deptName }, 'parentId')
}

/**
 * A region (dept.countryIds) is what a department's dashboards count: it may gain only countries the
 * caller's own dashboards count, so no one widens a department's view, their own included, past theirs.
 * Countries it holds already may stay.
 */
async function assertRegionInScope(tx: Tx, auth: AuthContext, deptId: number | null, countryIds: unknown) {
  if (!Array.isArray(countryIds) || countryIds.length === 0) return
  const scope = await countryScopeFor(tx, auth)
  if (scope.all) return
  const held = new Set(
    deptId === null ? [] : (await tx.selectFrom('sysDeptCountry').select('countryId').where('deptId', '=', deptId).execute()).map((r) => Number(r.countryId)),
  )
  const outside = countryIds.map(Number).filter((c) => !held.has(c) && !scope.countryIds.includes(c))
  if (outside.length) throw forbidden('scope.region', { countryIds: outside.join(', ') })
}

/** Sets `ancestors` ('0,1,3') of a department from its parent, and of everything below it, level by level. */
async function rewriteAncestors(tx: Tx, deptId: number) {
  const self = await tx.selectFrom('sysDept').select('parentId').where('deptId', '=', deptId).executeTakeFirstOrThrow()
  const parent = await deptById(tx, self.parentId)
  let level = new Map([[deptId, parent ? `${parent.ancestors},${parent.deptId}` : '0']])
  while (level.size) {
    const next = new Map<number, string>()
    for (const [id, ancestors] of level) {
      await tx.updateTable('sysDept').set({ ancestors }).where('deptId', '=', id).execute()
      const children = await tx.selectFrom('sysDept').select('deptId').where('parentId', '=', id).execute()
      for (const c of children) next.set(Number(c.deptId), `${ancestors},${id}`)
    }
    level = next
  }
}

/** Enabled departments anywhere below this one. */
async function enabledBelow(tx: Tx, deptId: number) {
  return tx
    .selectFrom('sysDept')
    .select('deptId')
    .where(sql<string>`',' || ${sql.ref('ancestors')} || ','`, 'like', `%,${deptId},%`)
    .where('status', '=', ENABLED)
    .executeTakeFirst()
}

/**
 * Departments (SPEC §3): a tree kept with its ancestors path (what data scopes read), in the
 * caller's data scope; a department with enabled children stays enabled, one with users stays.
 */
export function registerDepartments(app: FastifyInstance, services: Services) {
  const { db } = services

  registerEntityRoutes(app, services, systemEntities.dept, {
    beforeCreate: async ({ tx, auth, context, values }) => {
      await assertPlaceable(tx, auth, values.parentId, values.status === ENABLED)
      await assertRegionInScope(tx, auth, null, values.countryIds)
      await grantCheckIn.begin(context, tx, auth, { users: await holdersOfTreeScopes(tx) })
    },
    // A department placed in the tree widens what "department and below" shows to those above it.
    afterCreate: async ({ tx, context, row }) => {
      await rewriteAncestors(tx, Number(row.deptId))
      await grantCheckIn.finish(context, tx, { departments: [Number(row.deptId)] })
    },
    beforeUpdate: async ({ tx, auth, context, before, values }) => {
      const moved = values.parentId !== undefined && Number(values.parentId) !== Number(before.parentId)
      await assertRegionInScope(tx, auth, Number(before.deptId), values.countryIds)
      await grantCheckIn.begin(context, tx, auth, { users: moved ? await holdersOfTreeScopes(tx) : [] })
      const status = values.status ?? before.status
      if (moved || (status === ENABLED && before.status !== ENABLED)) {
        await assertPlaceable(tx, auth, values.parentId ?? before.parentId, status === ENABLED, moved)
      }
      if (status !== ENABLED && before.status === ENABLED && (await enabledBelow(tx, Number(before.deptId)))) {
        throw conflict('dept.enabledChildren', { deptName: String(before.deptName) }, 'status')
      }
    },
    afterUpdate: async ({ tx, context, before, after }) => {
      if (Number(before.parentId) !== Number(after.parentId)) await rewriteAncestors(tx, Number(after.deptId))
      await grantCheckIn.finish(context, tx)
    },
    // The tree is what "department and below" scopes read, and a name is in each member's context.
    afterCommit: () => services.authCache.changed({ all: true }),
    beforeDelete: async ({ tx, rows }) => {
      const ids = rows.map((r: Row) => Number(r.deptId))
      const member = await tx.selectFrom('sysUser').select('deptId').where('deptId', 'in', ids).executeTakeFirst()
      if (member) throw conflict('dept.hasUsers', { deptName: String(rows.find((r) => Number(r.deptId) === Number(member.deptId))!.deptName) })
      await tx.deleteFrom('sysRoleDept').where('deptId', 'in', ids).execute()
    },
  })

  // Any signed-in user: it only offers departments in the caller's data scope (role data scopes, user forms).
  app.withTypeProvider<ZodTypeProvider>().get(
    '/system/dept/treeselect',
    {
      config: { permission: SIGNED_IN },
      schema: { tags: [systemEntities.dept.label.en_US], summary: "The departments in the caller's data scope, as a tree", response: { 200: envelope(z.array(treeOptionSchema)) } },
    },
    async (req) => deptTree(db, caller(req)),
  )
}
