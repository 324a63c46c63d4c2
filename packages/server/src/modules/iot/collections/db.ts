import type { iotTelemetryEntities } from '@velo/shared'
import type { Kysely } from 'kysely'
import type { Db } from '../../../db/database'
import type { Database, TableOf } from '../../../db/schema'

/** The iot_telemetry table as Kysely sees it (the coordinator moves it into db/schema.ts's Database with the other issue 17 tables). */
export type IotTelemetryTable = TableOf<typeof iotTelemetryEntities.iotTelemetry>

export type TelemetryDb = Kysely<Database & { iotTelemetry: IotTelemetryTable }>

export const telemetryDb = (db: Db) => db as unknown as TelemetryDb
