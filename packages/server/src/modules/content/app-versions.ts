import { contentEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { conflict } from '../../platform/errors'
import type { Services } from '../../platform/services'
import { isTrue, merged, optionLabel } from './fields'
import type { Db } from '../../db/database'

const { appVersion } = contentEntities

type Row = Record<string, unknown>

/** A version code is unique per platform (a unique index): refused here by name, not by the database. */
async function checkVersionFree(tx: Db, row: Row, exceptId?: unknown) {
  let q = tx.selectFrom(appVersion.table).select('versionId').where('platform', '=', row.platform as string).where('versionCode', '=', row.versionCode as string)
  if (exceptId !== undefined) q = q.where('versionId', '<>', exceptId as number)
  if (await q.executeTakeFirst()) {
    throw conflict('content.appVersion.exists', { platform: optionLabel(appVersion, 'platform', row.platform).en_US, version: String(row.versionCode) }, 'versionCode')
  }
}

/** The app is offered one version per platform: a row saved as current takes the mark from the others. */
async function keepOneCurrent(tx: Db, row: Row) {
  if (!isTrue(row.current)) return
  await tx.updateTable(appVersion.table).set({ current: 0 }).where('platform', '=', row.platform as string).where('current', '=', 1).where('versionId', '<>', row.versionId as number).execute()
}

/** Content › App versions: a version code once per platform, and one current version per platform. */
export function registerAppVersions(app: FastifyInstance, services: Services) {
  registerEntityRoutes(app, services, appVersion, {
    beforeCreate: async ({ tx, values }) => checkVersionFree(tx, values),
    beforeUpdate: async ({ tx, before, values }) => {
      const after = merged(before, values)
      if (after.platform !== before.platform || after.versionCode !== before.versionCode) await checkVersionFree(tx, after, before.versionId)
    },
    afterCreate: async ({ tx, row }) => keepOneCurrent(tx, row),
    afterUpdate: async ({ tx, after }) => keepOneCurrent(tx, after),
  })
}
