import { systemEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ConfigKey } from '../../platform/config-keys'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { ok } from '../../platform/envelope'
import { conflict, notFound } from '../../platform/errors'
import type { Services } from '../../platform/services'
import { envelope } from '../../platform/responses'
import { assertNewAccountRoleGrantable } from './sso-groups'

/** System configuration (SPEC §7: /system/config/*). */
export function registerConfiguration(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  api.get(
    '/system/config/configKey/:key',
    {
      // Not to anyone signed in (RuoYi's choice): values include the initial password of new accounts.
      config: { permission: 'system:config:query' },
      schema: { tags: ['System configuration'], summary: 'The value of a configuration key (system:config:query)', params: z.object({ key: z.string().max(100) }), response: { 200: envelope(z.string()) } },
    },
    async (req) => {
      const value = await services.configValues.get(req.params.key)
      if (value === undefined) throw notFound()
      // A bare string would skip serialization and so the envelope: wrap it.
      return ok(value)
    },
  )
  registerEntityRoutes(app, services, systemEntities.config, {
    beforeCreate: async ({ tx, auth, values }) => {
      if (String(values.configKey ?? '').trim() === ConfigKey.ssoNewUserRoleKey) await assertNewAccountRoleGrantable(services, tx, auth, String(values.configValue ?? ''))
    },
    // The platform reads built-in keys by name: they keep their key and stay undeletable.
    beforeUpdate: async ({ tx, auth, before, values }) => {
      const key = String(values.configKey ?? before.configKey).trim()
      const value = String(values.configValue ?? before.configValue)
      if (key === ConfigKey.ssoNewUserRoleKey && (key !== before.configKey || value !== before.configValue)) await assertNewAccountRoleGrantable(services, tx, auth, value)
      if (before.configType !== 'Y') return
      const renamed = values.configKey !== undefined && values.configKey !== before.configKey
      const retyped = values.configType !== undefined && values.configType !== 'Y'
      if (renamed || retyped) throw conflict('config.builtInKey', { configKey: String(before.configKey) })
    },
    beforeDelete: async ({ rows }) => {
      const builtIn = rows.find((r) => r.configType === 'Y')
      if (builtIn) throw conflict('config.builtIn', { configKey: String(builtIn.configKey) })
    },
  })
}
