import { contentEntities } from '@velo/shared'
import { yieldWhenDue } from '../../lib/event-loop'
import type { Services } from '../../platform/services'

const { appUploadLog } = contentEntities

export const UPLOADED_LOG_RETENTION_KEY = 'privacy.retention.uploadedLogDays'
export const DEFAULT_UPLOADED_LOG_RETENTION_DAYS = 30
const DAY_MS = 86_400_000
/** Uploads per step: each is a file to delete too. */
const CHUNK = 500

/**
 * Deletes the logs and crash reports the app uploaded longer ago than privacy.retention.uploadedLogDays,
 * with their stored files and sys_file rows (docs/privacy.md › Retention); answers how many uploads.
 * The rows go first: a step cut short leaves files no row holds, which the upload sweep
 * (platform/files/sweep.ts) deletes later, never a row whose file is gone.
 */
export async function trimUploadedLogs(services: Services, signal: AbortSignal, now = Date.now()): Promise<number> {
  const days = await services.configValues.int(UPLOADED_LOG_RETENTION_KEY, DEFAULT_UPLOADED_LOG_RETENTION_DAYS)
  const cutoff = new Date(now - days * DAY_MS).toISOString()
  const { db, storage } = services
  let removed = 0
  for (;;) {
    signal.throwIfAborted()
    const oldest = await db.selectFrom('monAppUploadLog').select('uploadId').where('uploadTime', '<', cutoff).orderBy('uploadTime').limit(CHUNK).execute()
    if (!oldest.length) return removed
    // Only the rows this step deleted name files to delete: another instance deleting at once takes the others.
    const deleted = await db
      .deleteFrom('monAppUploadLog')
      .where('uploadId', 'in', oldest.map((r) => r.uploadId))
      .returning('file')
      .execute()
    removed += deleted.length
    const names = [...new Set(deleted.flatMap((r) => (r.file ? [r.file] : [])))]
    if (names.length) {
      const stillHeld = new Set((await db.selectFrom('monAppUploadLog').select('file').where('file', 'in', names).execute()).map((r) => r.file))
      const gone = names.filter((n) => !stillHeld.has(n))
      for (const name of gone) await storage.remove(name)
      if (gone.length) await db.deleteFrom('sysFile').where('fileName', 'in', gone).where('entity', '=', appUploadLog.key).execute()
    }
    if (oldest.length < CHUNK) return removed
    await yieldWhenDue()
  }
}
