import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { MEMBER } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'
import { registerAgreements } from './agreements'
import { registerAppBikes } from './bikes'
import { installAnswerCaching } from './caching'
import { registerAppFeedback } from './feedback'
import { registerCentresNear } from './centres'
import { registerAppDataPackage } from './data-package'
import { registerAppErasure } from './erasure'
import { registerInbox } from './inbox'
import { memberAuthenticator, registerMemberRoutes } from './members'
import { registerAppReads } from './reads'
import { registerTracking } from './tracking'
import { registerUploads } from './uploads'
import { registerVersionCheck } from './version'

/** Where the riders' app API lives, below the API prefix. */
export const APP_API_PREFIX = '/app/v1'

/** First path segments of the app API's own routes: no definition's app.path may take one. */
const OWN_SEGMENTS = new Set(['auth', 'me', 'inbox', 'version', 'agreements', 'files', 'uploads', 'tracking', 'feedback'])

/**
 * The riders' mobile app's API (docs/app-api.md): public, cacheable reads of what the definitions
 * declare for the app, the version check, agreements, service centres near a point, and for a
 * signed-in member their inbox, agreements, uploads, tracking events, feedback and erasure. Its own scope: members authenticate here
 * with their own tokens (every MEMBER route of the scope gets the hook), and its public answers
 * carry ETags. Staff rights, sessions and the operation log are the console's, not the app's.
 */
function appApi(services: Services): FastifyPluginAsync {
  return async (app) => {
    app.decorateRequest('member', null)
    const authenticate = memberAuthenticator(services)
    // Before the body is read or validated, as the staff guard does for staff routes.
    app.addHook('onRoute', (route) => {
      if (route.config?.permission !== MEMBER) return
      const own = Array.isArray(route.onRequest) ? route.onRequest : route.onRequest ? [route.onRequest] : []
      route.onRequest = [...own, authenticate]
    })
    installAnswerCaching(app)
    registerMemberRoutes(app, services)
    registerAppBikes(app, services)
    registerAppErasure(app, services)
    registerVersionCheck(app, services)
    registerAgreements(app, services)
    registerInbox(app, services)
    registerCentresNear(app, services)
    registerUploads(app, services)
    registerTracking(app, services)
    registerAppFeedback(app, services)
    registerAppDataPackage(app, services)
    registerAppReads(app, services, OWN_SEGMENTS)
  }
}

export function registerAppApi(api: FastifyInstance, services: Services) {
  void api.register(appApi(services), { prefix: APP_API_PREFIX })
}
