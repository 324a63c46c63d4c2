import { randomBytes } from 'node:crypto'
import { PASSWORD_PATTERN, systemEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import type { Kysely, Transaction } from 'kysely'
import { z } from 'zod'
import { BusinessType } from '../../platform/audit/operation-log'
import { hashPassword } from '../../platform/auth/passwords'
import { passwordRule } from '../../platform/auth/routes'
import { liftSignInThrottles } from '../../platform/auth/sign-in'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { ok } from '../../platform/envelope'
import { conflict, forbidden } from '../../platform/errors'
import { t } from '../../platform/i18n'
import type { AuthContext } from '../../platform/rbac/auth-context'
import { grantCheckIn, grantorOf, rightsOfUsers, withinGrantor } from '../../platform/rbac/grants'
import { caller } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'
import { done, envelope, rowOf } from '../../platform/responses'
import { adminRoleIds, assertDeptInScope, deptTree, holdsAdminRole, isBuiltInAdmin, scopeOf, statusChange, treeOptionSchema, userInScope } from './access'
import type { Database } from '../../db/schema'

type Row = Record<string, unknown>
type Tx = Transaction<Database>

/** Only an admin grants the admin role (the grant check would refuse it too; this says it plainly first). */
async function assertRolesGrantable(tx: Tx, auth: AuthContext, roleIds: unknown) {
  if (auth.isAdmin || !Array.isArray(roleIds) || roleIds.length === 0) return
  const admins = await adminRoleIds(tx)
  if (roleIds.some((id) => admins.includes(Number(id)))) throw forbidden('user.grantAdmin')
}

/**
 * Only someone who holds all of an account's rights changes it (edit, status, password, delete):
 * else one narrow right would reach a richer account by resetting its password. Admin accounts
 * therefore only by admins.
 */
async function assertMayChange(tx: Kysely<Database>, auth: AuthContext, target: Row) {
  if (auth.isAdmin) return
  if (await holdsAdminRole(tx, Number(target.userId))) throw forbidden('user.adminTarget')
  const rights = (await rightsOfUsers(tx, [Number(target.userId)])).get(Number(target.userId))
  if (rights && !withinGrantor(await grantorOf(tx, auth), rights)) throw forbidden('user.richerTarget')
}

/** Nobody changes their own roles, not even within their own rights. */
async function assertNotOwnRoles(tx: Tx, auth: AuthContext, target: Row, roleIds: unknown) {
  if (!Array.isArray(roleIds) || Number(target.userId) !== auth.userId) return
  const current = (await tx.selectFrom('sysUserRole').select('roleId').where('userId', '=', auth.userId).execute()).map((r) => Number(r.roleId))
  const wanted = new Set(roleIds.map(Number))
  if (wanted.size !== current.length || current.some((id) => !wanted.has(id))) throw forbidden('user.ownRoles')
}

function assertMayDisable(auth: AuthContext, target: Row) {
  if (isBuiltInAdmin(target)) throw conflict('user.builtInAdmin')
  if (Number(target.userId) === auth.userId) throw conflict('user.disableSelf')
}

/**
 * System users (SPEC §3): the entity's routes with the account rules, plus password reset, status
 * change and the department tree of the user filter. Every call keeps to the caller's data scope.
 */
export function registerUsers(app: FastifyInstance, services: Services) {
  const { db } = services
  const api = app.withTypeProvider<ZodTypeProvider>()
  const e = systemEntities.user
  const tags = [e.label.en_US]
  const module = e.label.en_US

  const { stepUp } = services.identity
  // Granting a role is a dangerous action: it asks for a second proof, and a role that may do it requires a second factor.
  stepUp.sensitiveRights.add('system:user:add')
  stepUp.sensitiveRights.add('system:user:edit')
  const assertRecentProofToGrant = async (tx: Tx, auth: AuthContext, target: Row | null, roleIds: unknown) => {
    if (!Array.isArray(roleIds)) return
    const wanted = new Set(roleIds.map(Number))
    const current = target ? (await tx.selectFrom('sysUserRole').select('roleId').where('userId', '=', Number(target.userId)).execute()).map((r) => Number(r.roleId)) : []
    if (wanted.size === current.length && current.every((id) => wanted.has(id))) return
    await stepUp.assert(auth)
  }

  const repo = registerEntityRoutes(app, services, e, {
    beforeCreate: async ({ tx, auth, context, values }) => {
      await assertDeptInScope(tx, auth, values.deptId ?? null)
      await assertRolesGrantable(tx, auth, values.roleIds)
      await assertRecentProofToGrant(tx, auth, null, values.roleIds)
      await grantCheckIn.begin(context, tx, auth, {})
      // Imported rows carry no password: they get an unusable random one until an admin resets it.
      const given = typeof values.password === 'string' && PASSWORD_PATTERN.test(values.password) ? values.password : randomBytes(24).toString('base64url')
      values.password = await hashPassword(given)
    },
    afterCreate: async ({ tx, context, row }) => grantCheckIn.finish(context, tx, { users: [Number(row.userId)] }),
    beforeUpdate: async ({ tx, auth, context, before, values }) => {
      await assertMayChange(tx, auth, before)
      if (values.status === '1' && before.status !== '1') assertMayDisable(auth, before)
      if (values.deptId !== undefined && values.deptId !== before.deptId) await assertDeptInScope(tx, auth, values.deptId)
      if (Array.isArray(values.roleIds) && isBuiltInAdmin(before)) {
        const admins = await adminRoleIds(tx)
        if (!values.roleIds.some((id) => admins.includes(Number(id)))) throw conflict('user.adminKeepsRole')
      }
      await assertNotOwnRoles(tx, auth, before, values.roleIds)
      await assertRolesGrantable(tx, auth, values.roleIds)
      await assertRecentProofToGrant(tx, auth, before, values.roleIds)
      await grantCheckIn.begin(context, tx, auth, { users: [Number(before.userId)] })
    },
    afterUpdate: async ({ tx, context }) => grantCheckIn.finish(context, tx),
    // Disabled or deleted, through any route: their sessions end now, not at their expiry.
    afterCommit: async (change) => {
      // Roles, department, status: what every instance keeps of their signed-in context is stale.
      if (change.op !== 'create') await services.authCache.changed({ users: change.op === 'update' ? [Number(change.after.userId)] : change.rows.map((r) => Number(r.userId)) })
      if (change.op === 'update' && change.after.status === '1' && change.before.status !== '1') await services.sessions.revokeUser(Number(change.after.userId))
      if (change.op === 'remove') for (const r of change.rows) await services.sessions.revokeUser(Number(r.userId))
    },
    beforeDelete: async ({ tx, auth, rows }) => {
      if (rows.some((r) => Number(r.userId) === auth.userId)) throw conflict('user.deleteSelf')
      if (rows.some(isBuiltInAdmin)) throw conflict('user.builtInAdmin')
      for (const r of rows) await assertMayChange(tx, auth, r)
    },
    actions: {
      // A lost phone: every factor and recovery code goes, the user's sessions end, and a role that
      // requires a factor has them set one up again at their next sign-in.
      resetFactors: async ({ tx, auth, rows, lang, afterCommit }) => {
        const target = rows[0]!
        await assertMayChange(tx, auth, target)
        const userId = Number(target.userId)
        const count = await services.identity.factors.reset(userId, tx)
        await tx.updateTable('sysUser').set({ secondFactorDue: new Date().toISOString(), updateBy: auth.userName, updateTime: new Date().toISOString() }).where('userId', '=', userId).execute()
        afterCommit(async () => {
          await services.identity.factors.forgetEnrolment(userId)
          await services.sessions.revokeUser(userId)
        })
        return { removed: count, message: t(lang, 'auth.factorsReset', { count }) }
      },
    },
  })

  api.put(
    '/system/user/resetPwd',
    {
      config: { permission: 'system:user:resetPwd', stepUp: true, audit: { module, businessType: BusinessType.update } },
      schema: {
        tags,
        summary: "Set a user's password (clears a lockout and ends the user's sessions)",
        body: z.object({ userId: z.number().int().positive(), password: passwordRule }),
        response: { 200: done },
      },
    },
    async (req) => {
      const auth = caller(req)
      const user = await userInScope(db, auth, req.body.userId)
      await db.transaction().execute((tx) => assertMayChange(tx, auth, user))
      await db
        .updateTable('sysUser')
        .set({ password: await hashPassword(req.body.password), failedLogins: 0, lockedUntil: null, updateBy: auth.userName, updateTime: new Date().toISOString() })
        .where('userId', '=', user.userId)
        .execute()
      await services.sessions.revokeUser(user.userId)
      await liftSignInThrottles(services, user.userName)
      return ok(null, 'user.passwordReset', { userName: user.userName })
    },
  )

  api.put(
    '/system/user/changeStatus',
    {
      config: { permission: 'system:user:edit', audit: { module, businessType: BusinessType.update } },
      schema: { tags, summary: 'Enable or disable a user (disabling ends their sessions)', body: statusChange('userId'), response: { 200: envelope(rowOf(e)) } },
    },
    async (req) => {
      const auth = caller(req)
      const { userId, status } = req.body
      return ok(await repo.update(userId, { status }, auth, await scopeOf(db, auth)))
    },
  )

  api.get(
    '/system/user/deptTree',
    { config: { permission: 'system:user:list' }, schema: { tags, summary: "The departments in the caller's data scope, as a tree", response: { 200: envelope(z.array(treeOptionSchema)) } } },
    async (req) => deptTree(db, caller(req)),
  )
}
