import { memberEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { dataPackageAction } from '../../platform/privacy/data-package'
import { eraseAction, erasePreview } from '../../platform/privacy/erasure'
import type { Services } from '../../platform/services'

const { member } = memberEntities

/**
 * Members › Members: the engine serves the list, details, modify and export; a rider's requests under
 * the GDPR are its two actions (docs/privacy.md › Requests): the data package and erasure.
 */
export function registerMemberRequests(app: FastifyInstance, services: Services) {
  registerEntityRoutes(app, services, member, {
    previews: { erase: erasePreview },
    actions: { dataPackage: dataPackageAction, erase: eraseAction },
  })
}
