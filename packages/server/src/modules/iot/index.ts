import type { FastifyInstance } from 'fastify'
import type { Services } from '../../platform/services'
import { registerBrokerHooks } from './broker-hooks'
import { registerCommandRoutes } from './commands'
import { registerDevices } from './devices'
import { registerModels } from './models'
import { registerMqDebugRoutes } from './mq-debug'
import { registerIotStream } from './stream'

/** The IoT area's routes (the gateway itself is app.iot, started before the routes). */
export function registerIot(api: FastifyInstance, services: Services) {
  registerModels(api, services)
  registerDevices(api, services)
  registerIotStream(api, services)
  registerBrokerHooks(api, services)
  registerCommandRoutes(api, () => api.iot.commands)
  registerMqDebugRoutes(api, () => api.iot.mqDebugger)
}
