import type { FastifyInstance } from 'fastify'
import { authRoutes } from '../platform/auth/routes'
import type { Services } from '../platform/services'
import { registerFiles } from './common/files'
import { registerLogs } from './monitor/logs'
import { registerConfiguration } from './system/configuration'
import { registerDictionaries } from './system/dictionaries'
import { registerOrganisation } from './system/organisation'
import { registerProfile } from './system/profile'

/** Every API module, by menu area. */
export async function registerModules(api: FastifyInstance, services: Services) {
  await api.register(authRoutes(services))
  registerFiles(api, services)
  registerDictionaries(api, services)
  registerConfiguration(api, services)
  registerOrganisation(api, services)
  registerProfile(api, services)
  registerLogs(api, services)
}
