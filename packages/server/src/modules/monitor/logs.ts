import { systemEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../platform/crud/routes'
import type { Services } from '../../platform/services'

/** Login log, operation log and the mail outbox: read, export and clean up. */
export function registerLogs(app: FastifyInstance, services: Services) {
  registerEntityRoutes(app, services, systemEntities.loginLog)
  registerEntityRoutes(app, services, systemEntities.operLog)
  registerEntityRoutes(app, services, systemEntities.mailOutbox)
}
