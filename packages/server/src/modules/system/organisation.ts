import { systemEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../platform/crud/routes'
import type { Services } from '../../platform/services'

/**
 * Users and departments, read side: both lists are filtered by the caller's data scope.
 * Their editing pages come with the system area on the entity engine.
 */
export function registerOrganisation(app: FastifyInstance, services: Services) {
  registerEntityRoutes(app, services, systemEntities.dept)
  registerEntityRoutes(app, services, systemEntities.user)
}
