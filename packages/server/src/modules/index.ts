import type { FastifyInstance } from 'fastify'
import { authRoutes } from '../platform/auth/routes'
import { ssoRoutes } from '../platform/auth/sso/routes'
import type { Services } from '../platform/services'
import { registerAppApi } from './app'
import { registerBikes } from './bike'
import { registerFiles } from './common/files'
import { registerContent } from './content'
import { registerDashboards } from './dashboard'
import { registerIot } from './iot'
import { registerMembers } from './member'
import { registerMonitorData } from './monitor/data'
import { registerJobs } from './monitor/jobs'
import { registerLogs } from './monitor/logs'
import { registerOnline } from './monitor/online'
import { registerOrders } from './order'
import { registerOta } from './ota'
import { registerRepairOrders } from './service/repair-orders'
import { registerTool } from './tool'
import { registerConfiguration } from './system/configuration'
import { registerDepartments } from './system/departments'
import { registerDictionaries } from './system/dictionaries'
import { registerMenus } from './system/menus'
import { registerProfile } from './system/profile'
import { registerProfileSecurity } from './system/profile-security'
import { registerRoles } from './system/roles'
import { registerSsoGroups } from './system/sso-groups'
import { registerUsers } from './system/users'

/**
 * Every API module with code of its own, by menu area. Entities without rules (countries, i18n data,
 * FAQ, …) need none: the engine serves each registered definition after these.
 */
export async function registerModules(api: FastifyInstance, services: Services) {
  await api.register(authRoutes(services))
  await api.register(ssoRoutes(services))
  registerFiles(api, services)
  registerDictionaries(api, services)
  registerConfiguration(api, services)
  registerDepartments(api, services)
  registerUsers(api, services)
  registerRoles(api, services)
  registerSsoGroups(api, services)
  registerMenus(api, services)
  registerProfile(api, services)
  registerProfileSecurity(api, services)
  registerLogs(api, services)
  registerOnline(api, services)
  registerJobs(api, services)
  registerMonitorData(api, services)
  registerIot(api, services)
  registerOta(api, services)
  registerRepairOrders(api, services)
  registerMembers(api, services)
  registerBikes(api, services)
  registerOrders(api, services)
  registerContent(api, services)
  registerAppApi(api, services)
  registerTool(api, services)
  registerDashboards(api, services)
}
