import type { FastifyInstance } from 'fastify'
import type { Services } from '../../platform/services'
import { registerAgreements } from './agreements'
import { registerAppVersions } from './app-versions'
import { registerMessages } from './messages'
import { registerSchedules } from './schedules'
import { registerUploadLog } from './upload-log'

export { agreementStanding } from './agreements'
export { deliverDueMessages, deliverMessage } from './messages'

/**
 * App content (docs/app-content.md) and Monitoring › App upload log: the rules beyond the
 * definitions. FAQ, guides, achievements, policies, user help, error codes and service centres
 * have none: the engine serves them from their definitions. The riders' app reads it all through
 * modules/app.
 */
export function registerContent(app: FastifyInstance, services: Services) {
  registerMessages(app, services)
  registerAgreements(app, services)
  registerAppVersions(app, services)
  registerSchedules(app, services)
  registerUploadLog(app, services)
}
