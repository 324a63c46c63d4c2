import { createReadStream } from 'node:fs'
import { entityName, entitySources, type EntitySource } from './sources'
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { type Language } from '@velo/shared'
import type { Insertable } from 'kysely'
import type { OperLogTable } from '../../db/schema'
import { BusinessType, outcomeSummary } from '../audit/operation-log'
import { importWorkbook, type ImportIssue, type ImportResult } from '../crud/import'
import { AppError, forbidden } from '../errors'
import { t } from '../i18n'
import { hasPermission } from '../rbac/auth-context'
import { resolveRowScope } from '../rbac/data-scope'
import type { Storage } from '../storage'
import type { JobContext } from './registry'
import { countImported } from '../observability/metrics'
import { defineJobKind } from './registry'
import type { Db } from '../../db/database'

/** What POST {path}/import/job queues: where the upload waits, and the import's options. */
export interface ImportJobParams {
  entity: string
  /**
   * The upload as the route stored it, under STORAGE_DIR (jobs/incoming/…). The route moves it into
   * the job's own folder once the job exists; the job does so itself if it runs first.
   */
  upload: string
  /** The name the user's file had: the kept copy downloads under it. */
  fileName: string
  updateSupport: boolean
  /** The starter's language at the time: the row problems are written in it, as the direct import answers them. */
  lang: Language
  /** The request that queued the job, for the operation-log row of its outcome. */
  request: { url: string; route: string; ip: string; id: string }
}

/** What a failed import job keeps as its result: the problems by row, as the direct import's `data.errors`. */
export interface ImportJobProblems {
  errors: ImportIssue[]
}

const sources = entitySources()

/** Called where an entity's import route is registered, so a job can run the same import. */
export const registerImportSource = sources.register

/** Uploads not yet handed to a job: a request still receiving, or one whose server died meanwhile. */
export const INCOMING_FOLDER = 'jobs/incoming'
/** An incoming upload untouched for this long was left by a request that never finished. */
const INCOMING_STALE_MS = 3600_000
/** The upload in the job's own folder, which goes with the job (its outcome, or retention). */
export const importUploadOf = (jobId: number) => `jobs/${jobId}/upload.xlsx`

/**
 * Moves an incoming upload into the job's folder. The route (right after queueing) and the job
 * (when it starts) both call it, whichever comes first: a rename is atomic, so the second finds
 * nothing to move and the file where it should be. Answers the upload's absolute path.
 */
export async function adoptUpload(storage: Storage, incoming: string, jobId: number): Promise<string> {
  const from = storage.resolve(incoming)
  const to = storage.resolve(importUploadOf(jobId))
  if (!from || !to) throw new Error(`bad upload name ${incoming}`)
  await mkdir(dirname(to), { recursive: true })
  try {
    await rename(from, to)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  return to
}

/** Removes incoming uploads left behind by requests that never finished (their server died). */
export async function sweepIncoming(storage: Storage): Promise<void> {
  const folder = storage.resolve(INCOMING_FOLDER)
  if (!folder) return
  const names = await readdir(folder).catch(() => [] as string[])
  const cutoff = Date.now() - INCOMING_STALE_MS
  for (const name of names) {
    const full = join(folder, name)
    const old = await stat(full).then(
      (s) => s.mtimeMs < cutoff,
      () => false,
    )
    if (old) await rm(full, { force: true }).catch(() => undefined)
  }
}

const MAX_TEXT = 2000
const clip = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text)

/** The import's own row in the operation log (the request that queued it has one too). */
function operLogRow(ctx: JobContext<ImportJobParams>, source: EntitySource | undefined, started: number, outcome: { result: ImportResult } | { code?: number; msg: string; data?: unknown }): Insertable<OperLogTable> {
  const { params, auth } = ctx
  const ok = 'result' in outcome
  const answer = ok ? { code: 200, msg: t(params.lang, 'import.done', { ...outcome.result }), data: outcome.result } : outcome
  return {
    title: (source?.entity.label.en_US ?? params.entity).slice(0, 64),
    businessType: BusinessType.import,
    method: `JOB ${params.request.route} #${ctx.jobId}`.slice(0, 255),
    requestMethod: 'JOB',
    operName: auth.userName,
    deptName: auth.deptName,
    operUrl: params.request.url.slice(0, 500),
    operIp: params.request.ip,
    operParam: clip(JSON.stringify({ jobId: ctx.jobId, attempt: ctx.attempt, file: params.fileName, updateSupport: params.updateSupport })),
    // Its outcome and counts, not the row problems: their messages may quote a member's values.
    jsonResult: outcomeSummary(undefined, answer),
    status: ok ? '0' : '1',
    errorMsg: ok ? '' : clip(answer.msg),
    operTime: new Date().toISOString(),
    costTime: Date.now() - started,
    requestId: params.request.id,
  }
}

/** The job's row while this instance holds it: a write to it counts only then. */
const heldRow = (db: Db, ctx: JobContext<ImportJobParams>) =>
  db.updateTable('sysJob').where('jobId', '=', ctx.jobId).where('state', '=', 'running').where('instanceId', '=', ctx.services.jobs.instanceId)

/** The result an earlier run of this job committed with its rows, if one did (it died before its outcome was written). */
async function committedBefore(ctx: JobContext<ImportJobParams>): Promise<ImportResult | undefined> {
  const row = await ctx.services.db.selectFrom('sysJob').select('result').where('jobId', '=', ctx.jobId).executeTakeFirst()
  try {
    const result = JSON.parse(row?.result ?? 'null') as Partial<ImportResult> | null
    return typeof result?.inserted === 'number' && typeof result.updated === 'number' ? { inserted: result.inserted, updated: result.updated } : undefined
  } catch {
    return undefined
  }
}

/** Why the job's signal was aborted: cancel, shutdown or lost (taken over); undefined when it was not. */
const abortedFor = (signal: AbortSignal) => (signal.aborted ? ((signal.reason as { why?: string } | undefined)?.why ?? 'aborted') : undefined)

/**
 * POST {path}/import as a job, for files larger than a browser should wait on: the same checks and
 * messages, all rows or none in one transaction, the starter's right and data scope as they are when
 * the job runs. Progress is rows written of the file's rows; cancel stops it at its next row and rolls
 * the transaction back.
 *
 * Its result is the direct import's answer, `{inserted, updated}`. A file with row problems fails the
 * job with the direct import's message ("Import failed: 3 rows have errors…"), and its result holds
 * the problems, `{errors: [{row, field, message}]}`, as the direct import's `data`. The job keeps the
 * uploaded file once it succeeded (it downloads from GET /monitor/job/:id/file under its own name).
 *
 * Resumable: an import that did not commit left nothing, so it simply runs again; one that did commit
 * wrote its result to the job's row in the same transaction, so a run after a crash between the
 * commit and the job's outcome answers that result instead of importing the file twice. The commit
 * also requires this instance to still hold the job, so a run taken over meanwhile rolls back.
 * Each run that ends leaves a row in the operation log with its outcome (a successful one in the
 * import's transaction, so exactly one per import).
 */
export const importJob = defineJobKind<ImportJobParams>({
  kind: 'import',
  resumable: true,
  title: (params, lang) => t(lang, 'job.import.title', { entity: entityName(params.entity, lang) }),
  async run(ctx) {
    const started = Date.now()
    const { params, services } = ctx
    const db = services.db
    const source = sources.get(services, params.entity)
    try {
      if (!source) throw new AppError(404, 'job.import.gone', { entity: params.entity })
      const { repo, permission } = source
      if (!hasPermission(ctx.auth, permission)) throw forbidden('error.forbidden', { permission })
      const scope = await resolveRowScope(services.db, ctx.auth)
      const upload = await adoptUpload(services.storage, params.upload, ctx.jobId)
      const exists = await stat(upload).then(
        (s) => s.isFile(),
        () => false,
      )
      const earlier = await committedBefore(ctx)
      if (earlier) {
        if (exists) await ctx.writeFile(params.fileName, createReadStream(upload))
        return earlier
      }
      if (!exists) throw new AppError(410, 'job.import.fileGone')
      // Kept first: a job that does not succeed leaves no file, so it goes if the import fails.
      await ctx.writeFile(params.fileName, createReadStream(upload))
      return await importWorkbook({
        repo,
        db,
        bytes: await readFile(upload),
        updateSupport: params.updateSupport,
        auth: ctx.auth,
        scope,
        lang: params.lang,
        progress: (done, total) => ctx.progress(done, total),
        signal: ctx.signal,
        beforeCommit: async (tx, result) => {
          // With the rows or not at all: the mark a later run finds, and the log row of the success.
          const { numUpdatedRows } = await heldRow(tx, ctx).set({ result: JSON.stringify(result) }).executeTakeFirst()
          if (numUpdatedRows === 0n) {
            ctx.signal.throwIfAborted()
            throw new Error(`import job ${ctx.jobId} is no longer held by this instance`)
          }
          await tx.insertInto('sysOperLog').values(operLogRow(ctx, source, started, { result })).execute()
        },
      }).then((result) => countImported(services, params.entity, result))
    } catch (err) {
      const why = abortedFor(ctx.signal)
      // Stopped with its server or taken over: it runs again (here or elsewhere), and that run logs.
      if (why === 'shutdown' || why === 'lost') throw err
      const { lang } = params
      let failure: { code?: number; msg: string; data?: unknown }
      if (why) failure = { msg: t(lang, 'job.cancelled') }
      else if (err instanceof AppError) {
        const errors = (err.data as Partial<ImportJobProblems> | null)?.errors
        failure = { code: err.code, msg: t(lang, err.messageKey, err.params), ...(errors ? { data: { errors: errors.slice(0, 20) } } : {}) }
        // The problems by row, where the browser reads them: the job's result (its error is one message).
        if (errors) {
          await heldRow(db, ctx)
            .set({ result: JSON.stringify({ errors } satisfies ImportJobProblems) })
            .execute()
            .catch((writeErr: unknown) => ctx.log.error({ err: writeErr }, 'could not keep the row problems of an import job'))
        }
      } else failure = { code: 500, msg: t(lang, 'job.failedUnexpectedly', { jobId: ctx.jobId }) }
      await db
        .insertInto('sysOperLog')
        .values(operLogRow(ctx, source, started, failure))
        .execute()
        .catch((logErr: unknown) => ctx.log.error({ err: logErr }, 'could not write the operation log row of an import job'))
      throw err
    }
  },
})
