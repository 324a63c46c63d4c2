import { unlink } from 'node:fs/promises'
import type { ResolvedEntity } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { SweepDef } from '../jobs/schedule'
import type { Services } from '../services'
import { ENTITY_FILES_FOLDER, fileEntitiesOf, isEntityFile } from './routes'
import { dynamicDb } from '../../db/database'

/** Uploads looked at, and checked against the entity's table, per query. */
const SWEEP_BATCH = 500

export interface SweepOptions {
  /** The time the grace period counts back from (tests inject it). */
  now?: Date
  /** How long an upload may wait for a row to take it up; default FILE_SWEEP_GRACE_HOURS. */
  graceMs?: number
  batchSize?: number
  /** Asked between batches: true stops the sweep there (the server is closing). */
  stopped?: () => boolean
  logger?: FastifyBaseLogger
}

/**
 * Deletes the uploads of `file` fields that no row took up (DESIGN: files on local disk): an upload
 * is stored before its form is saved, so a form left unsaved, a file replaced by another or a row
 * deleted leaves one behind. An upload older than the grace period, under the entity files folder,
 * whose name no row of its entity's table holds in its field, goes: its stored file first, then its
 * sys_file row, so a sweep cut short leaves a row the next one finds again (a file already gone is
 * fine). Uploads are read in batches by id, each checked against the table in one query just
 * before its files are deleted, so a million of them never sit in memory and a row that took one
 * up keeps it. Every delete is idempotent: instances sweeping at once each delete what is left.
 * Answers how many uploads it removed.
 */
export async function sweepUnheldFiles(services: Services, o: SweepOptions = {}): Promise<number> {
  const cutoff = new Date((o.now ?? new Date()).getTime() - (o.graceMs ?? services.config.fileSweepGraceMs)).toISOString()
  let swept = 0
  for (const e of fileEntitiesOf(services)) {
    for (const f of e.fields) {
      if (f.kind !== 'file') continue
      if (o.stopped?.()) return swept
      swept += await sweepField(services, e, f.name, cutoff, o)
    }
  }
  return swept
}

async function sweepField(services: Services, e: ResolvedEntity, field: string, cutoff: string, o: SweepOptions): Promise<number> {
  const db = services.db
  const batchSize = o.batchSize ?? SWEEP_BATCH
  let swept = 0
  let after = 0
  for (;;) {
    if (o.stopped?.()) return swept
    const batch = await services.db
      .selectFrom('sysFile')
      .select(['fileId', 'fileName'])
      .where('entity', '=', e.key)
      .where('field', '=', field)
      .where('createTime', '<', cutoff)
      .where('fileName', 'like', `${ENTITY_FILES_FOLDER}/%`)
      .where('fileId', '>', after)
      .orderBy('fileId')
      .limit(batchSize)
      .execute()
    if (batch.length === 0) return swept
    after = batch[batch.length - 1]!.fileId
    // Checked now, not when the batch was read: a row saved meanwhile keeps its file.
    const held = new Set(
      (await dynamicDb(db).selectFrom(e.table).select(field).where(field, 'in', batch.map((b) => b.fileName)).execute()).map((r) => r[field] as string),
    )
    const gone: number[] = []
    for (const b of batch) {
      if (held.has(b.fileName) || !isEntityFile(b.fileName)) continue
      if (await removeStored(services, b.fileName, o.logger)) gone.push(b.fileId)
    }
    if (gone.length) {
      const deleted = await services.db.deleteFrom('sysFile').where('fileId', 'in', gone).executeTakeFirst()
      swept += Number(deleted.numDeletedRows)
    }
    if (batch.length < batchSize) return swept
  }
}

/** Deletes one stored file; true when it is gone (already, too), false when it could not be deleted and its row must stay. */
async function removeStored(services: Services, fileName: string, logger?: FastifyBaseLogger): Promise<boolean> {
  const full = services.storage.resolve(fileName)
  // A name that leaves the storage folder names no file of ours: only its row goes.
  if (!full) return true
  try {
    await unlink(full)
    return true
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return true
    logger?.warn({ err, fileName }, 'could not delete an upload no row holds')
    return false
  }
}

/**
 * The upload sweep as the scheduler runs it: hourly, and once at start (a server that was down for a
 * day has a day of abandoned uploads); once per hour across instances.
 */
export function uploadSweep(services: Services, logger: FastifyBaseLogger): SweepDef {
  return {
    key: 'uploadSweep',
    every: '1h',
    atStart: true,
    run: async (signal) => {
      const n = await sweepUnheldFiles(services, { stopped: () => signal.aborted, logger })
      if (n > 0) logger.info({ swept: n }, `deleted ${n} uploaded file(s) no row took up`)
    },
  }
}
