import { iotSimEntities } from '@velo/shared'
import type { Kysely } from 'kysely'
import type { Db } from '../../../db/database'
import type { Database, TableOf } from '../../../db/schema'

/** The iot_sim table as Kysely sees it (the coordinator moves it into db/schema.ts's Database with the other issue 17 tables). */
export type IotSimTable = TableOf<typeof iotSimEntities.iotSim>

export type SimDb = Kysely<Database & { iotSim: IotSimTable }>

export const simDb = (db: Db) => db as unknown as SimDb
