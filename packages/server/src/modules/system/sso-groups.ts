import { ssoEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { badRequest, forbidden } from '../../platform/errors'
import type { AuthContext } from '../../platform/rbac/auth-context'
import { DataScope } from '../../platform/rbac/data-scope'
import { grantorOf, rightsOfRoleIds, withinGrantor } from '../../platform/rbac/grants'
import type { Services } from '../../platform/services'
import type { Database } from '../../db/schema'
import { adminRoleIds } from './access'

/**
 * Mapping a group to a role grants the role to everyone the identity provider puts in the group:
 * held to the rule of granting a role to a user. Only an administrator maps to the administrator
 * role, and nobody to a role holding a right (or a data scope) they do not hold themselves.
 */
export async function assertMappable(db: Kysely<Database>, auth: AuthContext, roleId: unknown) {
  if (auth.isAdmin) return
  const id = Number(roleId)
  if ((await adminRoleIds(db)).includes(id)) throw forbidden('user.grantAdmin')
  const grantor = await grantorOf(db, auth)
  const rights = (await rightsOfRoleIds(db, [id])).get(id)
  if (rights && !withinGrantor(grantor, rights)) throw forbidden('ssoGroup.richerRole')
  // Whose department the role will cover is not known when the group is mapped: only someone who sees every department maps it.
  const role = await db.selectFrom('sysRole').select('dataScope').where('roleId', '=', id).executeTakeFirst()
  if (!grantor.all && (role?.dataScope === DataScope.ownDept || role?.dataScope === DataScope.deptAndBelow)) throw forbidden('ssoGroup.departmentScope')
}

/**
 * The role of accounts made at their first single sign-on (config key sys.sso.newUserRoleKey) is a
 * grant to whoever signs in next: a new value must name an enabled role the caller may map a group
 * to, with a second proof.
 */
export async function assertNewAccountRoleGrantable(services: Services, db: Kysely<Database>, auth: AuthContext, roleKey: string) {
  const key = roleKey.trim()
  if (key === '-' || key === '') return
  await services.identity.stepUp.assert(auth)
  const role = await db.selectFrom('sysRole').select('roleId').where('roleKey', '=', key).where('status', '=', '0').where('delFlag', '=', '0').executeTakeFirst()
  if (!role) throw badRequest('config.ssoRoleUnknown', { roleKey: key }, { errors: [{ field: 'configValue' }] })
  await assertMappable(db, auth, role.roleId)
}

/** System › Single sign-on groups: the entity's routes, each write checked as a grant. */
export function registerSsoGroups(app: FastifyInstance, services: Services) {
  const { stepUp } = services.identity
  // A mapping grants a role: it asks for a second proof, and a role that may make one requires a second factor.
  stepUp.sensitiveRights.add('system:ssoGroup:add')
  stepUp.sensitiveRights.add('system:ssoGroup:edit')

  registerEntityRoutes(app, services, ssoEntities.ssoGroup, {
    beforeCreate: async ({ tx, auth, values }) => {
      await stepUp.assert(auth)
      await assertMappable(tx, auth, values.roleId)
    },
    beforeUpdate: async ({ tx, auth, before, values }) => {
      const regrants = (values.roleId !== undefined && Number(values.roleId) !== Number(before.roleId)) || (values.groupName !== undefined && values.groupName !== before.groupName)
      if (!regrants) return
      await stepUp.assert(auth)
      // Taking a mapping away from a role is as much the grantor's business as giving one.
      await assertMappable(tx, auth, before.roleId)
      await assertMappable(tx, auth, values.roleId ?? before.roleId)
    },
    // Its members lose the role at their next sign-in: only someone who could give the role takes it away.
    beforeDelete: async ({ tx, auth, rows }) => {
      for (const row of rows) await assertMappable(tx, auth, row.roleId)
    },
  })
}
