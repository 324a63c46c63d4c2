import { type ResolvedEntity, systemEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { BusinessType } from '../../platform/audit/operation-log'
import { liftSignInThrottles } from '../../platform/auth/sign-in'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { ok } from '../../platform/envelope'
import { notFound } from '../../platform/errors'
import { done, envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'

/** Login log, operation log and the mail outbox: read, export and clean up; accounts locked by wrong passwords are unlocked here. */
export function registerLogs(app: FastifyInstance, services: Services) {
  const { db } = services
  const api = app.withTypeProvider<ZodTypeProvider>()

  // Static segments win over /:ids, so "clean" is never read as an id list.
  const clean = (e: ResolvedEntity, table: 'sysLoginLog' | 'sysOperLog') =>
    api.delete(
      `${e.path}/clean`,
      {
        config: { permission: `${e.permission}:remove`, audit: { module: e.label.en_US, businessType: BusinessType.clean } },
        schema: { tags: [e.label.en_US], summary: `Delete every entry of the ${e.label.en_US}`, response: { 200: envelope(z.object({ deleted: z.number() })) } },
      },
      async (req) => {
        // The clean-up's own row, written before it ran, stays: its outcome goes into it.
        const own = table === 'sysOperLog' ? req.auditRowId : undefined
        const query = own === undefined ? db.deleteFrom(table) : db.deleteFrom('sysOperLog').where('operId', '<>', own)
        const { numDeletedRows } = await query.executeTakeFirst()
        return ok({ deleted: Number(numDeletedRows) }, 'log.cleaned', { count: Number(numDeletedRows) })
      },
    )
  clean(systemEntities.loginLog, 'sysLoginLog')
  clean(systemEntities.operLog, 'sysOperLog')

  api.get(
    '/monitor/logininfor/unlock/:userName',
    {
      config: { permission: 'monitor:logininfor:unlock', audit: { module: systemEntities.loginLog.label.en_US, businessType: BusinessType.other } },
      schema: {
        tags: [systemEntities.loginLog.label.en_US],
        summary: 'Lift the lock that wrong passwords put on an account',
        params: z.object({ userName: z.string().trim().min(1).max(64) }),
        response: { 200: done },
      },
    },
    async (req) => {
      const { userName } = req.params
      const { numUpdatedRows } = await db.updateTable('sysUser').set({ failedLogins: 0, lockedUntil: null }).where('userName', '=', userName).executeTakeFirst()
      if (Number(numUpdatedRows) === 0) throw notFound()
      await liftSignInThrottles(services, userName)
      return ok(null, 'log.unlocked', { userName })
    },
  )

  registerEntityRoutes(app, services, systemEntities.loginLog)
  registerEntityRoutes(app, services, systemEntities.operLog)
  registerEntityRoutes(app, services, systemEntities.mailOutbox)
}
