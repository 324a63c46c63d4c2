import { toolOperatorName } from '@velo/shared'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { TOOL } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'
import { registerToolApiRoutes } from './api'
import { recordLineFixes } from './line'
import { toolAuthenticator } from './sessions'
import { registerGen } from './gen'
import { registerSql } from './sql'
import { registerToolUsers } from './users'

/** Where the production-line tool's API lives, below the API prefix. */
export const TOOL_API_PREFIX = '/tool-api/v1'

/**
 * The tool's own scope: operators authenticate here with tool tokens (every TOOL route gets the
 * hook before its body is read), and each call's row in the operation log names the operator.
 */
function toolApi(services: Services): FastifyPluginAsync {
  return async (app) => {
    app.decorateRequest('toolOperator', null)
    const authenticate = toolAuthenticator(services)
    app.addHook('onRoute', (route) => {
      if (route.config?.permission !== TOOL) return
      const own = Array.isArray(route.onRequest) ? route.onRequest : route.onRequest ? [route.onRequest] : []
      route.onRequest = [...own, authenticate]
    })
    // After the operation log's own onSend (the parent scope's hooks run first), which wrote the row.
    app.addHook('onSend', async (req, _reply, payload) => {
      const operator = req.toolOperator
      if (operator && req.auditRowId !== undefined) {
        try {
          await services.db
            .updateTable('sysOperLog')
            .set({ operName: toolOperatorName(operator.email), deptName: operator.companyName.slice(0, 64) })
            .where('operId', '=', req.auditRowId)
            .execute()
        } catch (err) {
          req.log.error({ err }, 'could not name the tool operator in the operation log')
        }
      }
      return payload
    })
    registerToolApiRoutes(app, services, recordLineFixes(app, services))
  }
}

/**
 * Tool system › Tool users and Tool-system IoT (the engine serves its list), the production tool's API
 * (docs/tool-api.md), SQL execution and code generation (docs/tools.md).
 */
export function registerTool(api: FastifyInstance, services: Services) {
  registerToolUsers(api, services)
  registerSql(api, services)
  registerGen(api, services)
  void api.register(toolApi(services), { prefix: TOOL_API_PREFIX })
}
