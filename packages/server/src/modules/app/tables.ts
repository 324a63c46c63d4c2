import type { contentEntities, memberEntities } from '@velo/shared'
import type { Kysely } from 'kysely'
import type { Database, TableOf } from '../../db/schema'
import type { Services } from '../../platform/services'

/**
 * The tables the app API writes, typed from their definitions. The product's Database names only
 * the tables other code needed typed so far; these are added here rather than there, as only this
 * module reads them by name.
 */
export interface AppTables extends Database {
  memMember: TableOf<typeof memberEntities.member>
  cntMessage: TableOf<typeof contentEntities.message>
  cntMessageRecipient: TableOf<typeof contentEntities.messageRecipient>
  cntProtocol: TableOf<typeof contentEntities.protocol>
  cntProtocolSignature: TableOf<typeof contentEntities.protocolSignature>
  cntAppVersion: TableOf<typeof contentEntities.appVersion>
  cntServiceCentre: TableOf<typeof contentEntities.serviceCentre>
  monAppUploadLog: TableOf<typeof contentEntities.appUploadLog>
}

export type AppDb = Kysely<AppTables>

export const appDb = (services: Services): AppDb => services.db as unknown as AppDb

/** OpenAPI group of every route of the app API. */
export const APP_TAGS = ['App API']

/** The OpenAPI security of member routes: the member token of POST /app/v1/auth/login. */
export const MEMBER_SECURITY = [{ memberToken: [] }]
