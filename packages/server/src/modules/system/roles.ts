import { ADMIN_ROLE, apiRowSchema, systemEntities, type ApiRowOf } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import type { Transaction } from 'kysely'
import { z } from 'zod'
import { BusinessType } from '../../platform/audit/operation-log'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { containsText } from '../../platform/crud/repository'
import { idParam, pagingFields } from '../../platform/crud/schemas'
import { ok } from '../../platform/envelope'
import { conflict, forbidden, notFound } from '../../platform/errors'
import type { AuthContext } from '../../platform/rbac/auth-context'
import { DataScope, scopeCondition } from '../../platform/rbac/data-scope'
import { grantCheckIn, holdersOfRoles } from '../../platform/rbac/grants'
import { caller } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'
import { envelope, pageOf, rowOf } from '../../platform/responses'
import { adminRoleIds, deptInScope, isBuiltInAdmin, scopeOf, statusChange } from './access'
import type { Database } from '../../db/schema'

type Row = Record<string, unknown>
type Tx = Transaction<Database>

const isAdminRole = (row: Row) => row.roleKey === ADMIN_ROLE

/** The menus granted by any of these roles. */
async function menusOf(tx: Tx, roleIds: number[]): Promise<Set<number>> {
  if (!roleIds.length) return new Set()
  return new Set((await tx.selectFrom('sysRoleMenu').select('menuId').where('roleId', 'in', roleIds).execute()).map((r) => Number(r.menuId)))
}

/**
 * A non-admin grants only what they have: menus of their own roles (or already on the role being
 * edited), and custom-scope departments inside their own data scope.
 */
async function assertGrantable(tx: Tx, auth: AuthContext, values: Row, roleId?: number) {
  if (auth.isAdmin) return
  if (Array.isArray(values.menuIds) && values.menuIds.length) {
    const held = await menusOf(tx, [...auth.roles.map((r) => r.roleId), ...(roleId ? [roleId] : [])])
    if (values.menuIds.some((id) => !held.has(Number(id)))) throw forbidden('role.menuNotGranted')
  }
  if (Array.isArray(values.deptIds) && values.deptIds.length) {
    const scope = await scopeOf(tx, auth)
    const outside = values.deptIds.find((id) => !deptInScope(scope, Number(id)))
    if (outside !== undefined) throw forbidden('scope.dept', { deptId: Number(outside) })
  }
}

/**
 * A non-admin's menu tree shows only the menus they hold; the role's other menus, which they could
 * neither see nor untick, stay on it.
 */
async function keepUnseenMenus(tx: Tx, auth: AuthContext, values: Row, roleId: number) {
  if (auth.isAdmin || !Array.isArray(values.menuIds)) return
  const held = await menusOf(tx, auth.roles.map((r) => r.roleId))
  const current = await menusOf(tx, [roleId])
  values.menuIds = [...new Set([...values.menuIds.map(Number), ...[...current].filter((id) => !held.has(id))])]
}

const pageBody = z.object({
  ...pagingFields,
  userName: z.string().trim().max(64).optional(),
  phonenumber: z.string().trim().max(32).optional(),
})

/** A user holding a role, as the role's user list shows them (with the department's name). */
const roleUserFields = { userId: true, userName: true, nickName: true, email: true, phonenumber: true, status: true, deptId: true, createTime: true } as const
const roleUserSchema = apiRowSchema(systemEntities.user)
  .pick(roleUserFields)
  .extend({ deptName: z.string().nullable() }) as unknown as z.ZodType<Pick<ApiRowOf<typeof systemEntities.user>, keyof typeof roleUserFields> & { deptName: string | null }>

/**
 * Roles (SPEC §3, §6): the entity's routes with the admin role fixed and roles in use kept, plus
 * status, data scope and the users holding a role.
 */
export function registerRoles(app: FastifyInstance, services: Services) {
  const { db } = services
  const api = app.withTypeProvider<ZodTypeProvider>()
  const e = systemEntities.role
  const tags = [e.label.en_US]
  const module = e.label.en_US

  // A role's rights, scope, status and second-factor rule are grants: each change asks for a second
  // proof, and a role that may make them requires a second factor.
  const { stepUp } = services.identity
  stepUp.sensitiveRights.add('system:role:add')
  stepUp.sensitiveRights.add('system:role:edit')

  const repo = registerEntityRoutes(app, services, e, {
    beforeCreate: async ({ tx, auth, context, values }) => {
      await stepUp.assert(auth)
      await assertGrantable(tx, auth, values)
      await grantCheckIn.begin(context, tx, auth, {})
    },
    afterCreate: async ({ tx, context, row }) => grantCheckIn.finish(context, tx, { roles: [Number(row.roleId)] }),
    beforeUpdate: async ({ tx, auth, context, before, values }) => {
      const roleId = Number(before.roleId)
      if (isAdminRole(before)) throw conflict('role.builtInAdmin')
      // Whoever could edit their own role would only need one right to widen it.
      if (auth.roles.some((r) => r.roleId === roleId)) throw forbidden('role.ownRole')
      await stepUp.assert(auth)
      await assertGrantable(tx, auth, values, roleId)
      await keepUnseenMenus(tx, auth, values, roleId)
      await grantCheckIn.begin(context, tx, auth, { roles: [roleId], users: await holdersOfRoles(tx, [roleId]) })
    },
    afterUpdate: async ({ tx, context, after }) => {
      // Departments only mean something for the custom scope.
      if (after.dataScope !== DataScope.custom) await tx.deleteFrom('sysRoleDept').where('roleId', '=', after.roleId as number).execute()
      await grantCheckIn.finish(context, tx)
    },
    // Its menus, scope or status changed what its holders may do, on every instance.
    afterCommit: () => services.authCache.changed({ all: true }),
    beforeDelete: async ({ tx, rows }) => {
      if (rows.some(isAdminRole)) throw conflict('role.builtInAdmin')
      for (const r of rows) {
        const used = await tx
          .selectFrom('sysUserRole')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('roleId', '=', r.roleId as number)
          .executeTakeFirstOrThrow()
        if (Number(used.count) > 0) throw conflict('role.inUse', { roleName: String(r.roleName), count: Number(used.count) })
        // A mapping would otherwise keep naming a role that is gone.
        const mapped = await tx
          .selectFrom('sysSsoGroupRole')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('roleId', '=', r.roleId as number)
          .executeTakeFirstOrThrow()
        if (Number(mapped.count) > 0) throw conflict('role.ssoMapped', { roleName: String(r.roleName), count: Number(mapped.count) })
      }
    },
  })

  api.put(
    '/system/role/changeStatus',
    {
      config: { permission: 'system:role:edit', audit: { module, businessType: BusinessType.update } },
      schema: { tags, summary: 'Enable or disable a role', body: statusChange('roleId'), response: { 200: envelope(rowOf(e)) } },
    },
    async (req) => ok(await repo.update(req.body.roleId, { status: req.body.status }, caller(req), { all: true })),
  )

  api.put(
    '/system/role/dataScope',
    {
      config: { permission: 'system:role:edit', audit: { module, businessType: BusinessType.grant } },
      schema: {
        tags,
        summary: "Set a role's data scope; departments are kept for the custom scope ('2') only",
        body: z.object({
          roleId: z.number().int().positive(),
          dataScope: z.enum([DataScope.all, DataScope.custom, DataScope.ownDept, DataScope.deptAndBelow, DataScope.selfOnly]),
          deptIds: z.array(z.number().int().positive()).max(10_000).default([]),
        }),
        response: { 200: envelope(rowOf(e)) },
      },
    },
    async (req) => {
      const { roleId, dataScope, deptIds } = req.body
      const values = { dataScope, deptIds: dataScope === DataScope.custom ? deptIds : [] }
      return ok(await repo.update(roleId, values, caller(req), { all: true }))
    },
  )

  /** The role, or 404. */
  const roleOf = async (roleId: number) => {
    const role = await db.selectFrom('sysRole').select(['roleId', 'roleKey']).where('roleId', '=', roleId).executeTakeFirst()
    if (!role) throw notFound()
    return role
  }

  api.post(
    '/system/role/:id/users/list',
    {
      config: { permission: 'system:role:list', audit: false },
      schema: { tags, summary: "The users holding a role, in the caller's data scope (paged)", params: idParam, body: pageBody, response: { 200: envelope(pageOf(roleUserSchema)) } },
    },
    async (req) => {
      const role = await roleOf(req.params.id)
      const scope = await scopeOf(db, caller(req))
      const { pageNum, pageSize, userName, phonenumber } = req.body
      const base = db
        .selectFrom('sysUser as u')
        .innerJoin('sysUserRole as ur', 'ur.userId', 'u.userId')
        .leftJoin('sysDept as d', 'd.deptId', 'u.deptId')
        .where('ur.roleId', '=', role.roleId)
        .where((eb) => scopeCondition(eb, scope, 'u.deptId', 'u.userId'))
        .$if(!!userName, (q) => q.where(containsText('u.userName', userName!)))
        .$if(!!phonenumber, (q) => q.where(containsText('u.phonenumber', phonenumber!)))
      const [count, rows] = await Promise.all([
        base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
        base
          .select(['u.userId', 'u.userName', 'u.nickName', 'u.email', 'u.phonenumber', 'u.status', 'u.deptId', 'd.deptName', 'u.createTime'])
          .orderBy('u.userId')
          .limit(pageSize)
          .offset((pageNum - 1) * pageSize)
          .execute(),
      ])
      return { rows, total: Number(count.total) }
    },
  )

  api.put(
    '/system/role/:id/users/cancel',
    {
      config: { permission: 'system:role:edit', audit: { module, businessType: BusinessType.grant } },
      schema: {
        tags,
        summary: "Take a role away from users (all in the caller's data scope, or nothing)",
        params: idParam,
        body: z.object({ userIds: z.array(z.number().int().positive()).min(1).max(1000) }),
        response: { 200: envelope(z.object({ removed: z.number() })) },
      },
    },
    async (req) => {
      const auth = caller(req)
      const role = await roleOf(req.params.id)
      const userIds = [...new Set(req.body.userIds)]
      const scope = await scopeOf(db, auth)
      const users = await db
        .selectFrom('sysUser')
        .select(['userId', 'userName'])
        .where('userId', 'in', userIds)
        .where((eb) => scopeCondition(eb, scope, 'deptId', 'userId'))
        .execute()
      if (users.length !== userIds.length) throw notFound()
      if ((await adminRoleIds(db)).includes(Number(role.roleId))) {
        if (!auth.isAdmin) throw forbidden('role.adminMembers')
        if (users.some(isBuiltInAdmin)) throw conflict('user.adminKeepsRole')
      }
      const removed = await db.deleteFrom('sysUserRole').where('roleId', '=', role.roleId).where('userId', 'in', userIds).executeTakeFirst()
      await services.authCache.changed({ users: userIds })
      return ok({ removed: Number(removed.numDeletedRows) })
    },
  )
}
