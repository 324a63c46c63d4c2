import type { otaEntities } from '@velo/shared'
import type { Kysely } from 'kysely'
import type { Db } from '../../../db/database'
import type { Database, TableOf } from '../../../db/schema'

/** The catalogue's tables beside the shared schema (db/schema.ts names only the platform's); every part's slice has one shape. */
export interface CatalogueTables {
  otaProduct: TableOf<typeof otaEntities.iotPartProduct>
  otaFirmware: TableOf<typeof otaEntities.iotFirmware>
  otaCampaign: TableOf<typeof otaEntities.displayUpgrade>
  iotAudio: TableOf<typeof otaEntities.iotAudio>
}
export type CatalogueDb = Kysely<Database & CatalogueTables>

export const catalogueDb = (db: Db | Kysely<never>): CatalogueDb => db as unknown as CatalogueDb
