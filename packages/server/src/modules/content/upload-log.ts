import { contentEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { t } from '../../platform/i18n'
import type { Services } from '../../platform/services'

const { appUploadLog } = contentEntities

const DAY_MS = 86_400_000

/**
 * Monitoring › App upload log: Clean up deletes the uploads older than a number of days. Their
 * stored files are then held by no row, and the hourly sweep of unheld uploads (platform/files/
 * sweep.ts, which walks every entity's `file` fields) deletes them and their sys_file rows.
 */
export function registerUploadLog(app: FastifyInstance, services: Services) {
  registerEntityRoutes(app, services, appUploadLog, {
    actions: {
      cleanUp: async ({ tx, input, lang }) => {
        const days = Number(input.olderThanDays)
        const cutoff = new Date(Date.now() - days * DAY_MS).toISOString()
        const removed = await tx.deleteFrom(appUploadLog.table).where('uploadTime', '<', cutoff).executeTakeFirst()
        const deleted = Number(removed.numDeletedRows)
        return { deleted, message: t(lang, 'content.uploadLog.cleaned', { count: deleted, days }) }
      },
    },
  })
}
