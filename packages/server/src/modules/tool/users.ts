import { randomBytes } from 'node:crypto'
import { PASSWORD_PATTERN, toolEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { hashPassword } from '../../platform/auth/passwords'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { conflict } from '../../platform/errors'
import type { Services } from '../../platform/services'

/**
 * Tool users (SPEC §3): the entity's routes, where the password is stored hashed and the e-mail in
 * lower case, so that one address is one account however it is typed and the tool's sign-in finds it.
 */
export function registerToolUsers(app: FastifyInstance, services: Services) {
  registerEntityRoutes(app, services, toolEntities.toolUser, {
    beforeCreate: async ({ values }) => {
      if (typeof values.email === 'string') values.email = values.email.trim().toLowerCase()
      // Imported rows carry no password: they get an unusable random one until the account is added again.
      const given = typeof values.password === 'string' && PASSWORD_PATTERN.test(values.password) ? values.password : randomBytes(24).toString('base64url')
      values.password = await hashPassword(given)
    },
    beforeUpdate: async ({ values }) => {
      if (typeof values.email === 'string') values.email = values.email.trim().toLowerCase()
    },
    actions: {
      // The hash only: the operation log masks the input by its name, the answer is the row without it.
      resetPassword: async ({ tx, rows, input }) => {
        const row = rows[0]!
        const password = await hashPassword(String(input.password))
        await tx
          .updateTable('toolUser')
          .set((eb) => ({ password, sessionGeneration: eb('sessionGeneration', '+', 1) }))
          .where('toolUserId', '=', Number(row.toolUserId))
          .execute()
        return row
      },
    },
    // The devices they registered keep naming their operator: such an account is disabled, not deleted.
    beforeDelete: async ({ tx, rows }) => {
      const ids = rows.map((r) => Number(r.toolUserId))
      const used = await tx.selectFrom('toolDevice').select('operatorId').where('operatorId', 'in', ids).executeTakeFirst()
      if (used) {
        const user = rows.find((r) => Number(r.toolUserId) === Number(used.operatorId))!
        throw conflict('tool.user.inUse', { email: String(user.email) })
      }
    },
  })
}
