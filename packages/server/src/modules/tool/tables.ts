import type { toolEntities } from '@velo/shared'
import type { Kysely } from 'kysely'
import type { Database, TableOf } from '../../db/schema'
import type { Services } from '../../platform/services'

/** The tool's tables, typed from their definitions (only this module reads them by name). */
export interface ToolTables extends Database {
  toolUser: TableOf<typeof toolEntities.toolUser>
  toolDevice: TableOf<typeof toolEntities.toolDevice>
}

export type ToolDb = Kysely<ToolTables>

export const toolDb = (services: Services): ToolDb => services.db as unknown as ToolDb

/** OpenAPI group of every route of the tool API. */
export const TOOL_TAGS = ['Tool API']

/** The OpenAPI security of operator routes: the tool token of POST /tool-api/v1/auth/login. */
export const TOOL_SECURITY = [{ toolToken: [] }]

/** The operation log's module title of tool API calls. */
export const TOOL_AUDIT_MODULE = 'Tool API'
