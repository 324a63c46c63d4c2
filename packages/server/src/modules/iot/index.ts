import type { FastifyInstance } from 'fastify'
import type { Services } from '../../platform/services'
import { registerBrokerHooks } from './broker-hooks'
import { registerCollections } from './collections'
import { registerCommandRoutes } from './commands'
import { registerIotConfig } from './config'
import { registerIotMap } from './map'
import { registerGeofences } from './geofence'
import { registerDevices } from './devices'
import { registerModels } from './models'
import { registerMqDebugRoutes } from './mq-debug'
import { registerPositionRetention } from './position-retention'
import { registerSimCards } from './sim'
import { registerIotStream } from './stream'
import { registerIotTrace } from './trace'
import { registerWarnings } from './warnings'

/** The IoT area's routes (the gateway itself is app.iot, started before the routes). */
export function registerIot(api: FastifyInstance, services: Services) {
  registerModels(api, services)
  registerDevices(api, services)
  registerIotStream(api, services)
  registerBrokerHooks(api, services)
  registerCommandRoutes(api, () => api.iot.commands)
  registerMqDebugRoutes(api, () => api.iot.mqDebugger)
  // Warnings first: the configuration push and the SIM cards raise them.
  registerWarnings(api, services)
  registerIotConfig(api, services)
  registerSimCards(api, services)
  registerCollections(api, services)
  registerIotMap(api, services)
  // Positions checked against the geofences where they arrive; crossings raise through the warnings above.
  registerGeofences(api, services)
  registerIotTrace(api, services)
  // The retention job empties riders' positions past their retention in the IoT tables through this.
  registerPositionRetention(services)
}
