import type { iotConfigEntities } from '@velo/shared'
import type { Kysely } from 'kysely'
import type { Db } from '../../../db/database'
import type { Database, TableOf } from '../../../db/schema'

/** The configuration module's tables beside the shared schema (db/schema.ts names only the platform's). */
export interface ConfigTables {
  iotConfig: TableOf<typeof iotConfigEntities.iotConfig>
  iotConfigPush: TableOf<typeof iotConfigEntities.iotConfigPush>
  iotConfigReport: TableOf<typeof iotConfigEntities.iotConfigReport>
  iotConfigDrift: TableOf<typeof iotConfigEntities.iotConfigDrift>
}
export type ConfigDb = Kysely<Database & ConfigTables>

export const configDb = (db: Db | Kysely<never>): ConfigDb => db as unknown as ConfigDb
