import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { dirname, extname } from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ResolvedEntity } from '@velo/shared'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { BusinessType } from '../audit/operation-log'
import { ok } from '../envelope'
import { badRequest } from '../errors'
import { languageOf } from '../http'
import { adoptUpload, INCOMING_FOLDER, jobInfo, registerImportSource, sweepIncoming, type ImportJobParams } from '../jobs'
import { jobInfoSchema } from '../jobs/schema'
import { envelope } from '../responses'
import { caller } from '../rbac/guard'
import type { Services } from '../services'
import { multipartFailure, uploadTooLarge } from '../uploads'
import { checkWorkbookFile, updateSupportField } from './import'
import type { EntityRepository } from './repository'

/** Bytes of a file's start that checkWorkbookFile reads (the zip or OLE signature). */
const MAGIC_BYTES = 4

interface ReceivedWorkbook {
  /** Stored name under STORAGE_DIR. */
  name: string
  originalName: string
  fields: Record<string, string>
}

/**
 * Passes bytes through once the first ones say what the file is: checkWorkbookFile on the name's
 * extension and the file's first bytes, before anything more is written.
 */
function checkedWorkbook(nameExtension: string): Transform {
  let head: Buffer | null = Buffer.alloc(0)
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (head) {
        head = Buffer.concat([head, chunk])
        if (head.length < MAGIC_BYTES) return done()
        try {
          checkWorkbookFile(nameExtension, head)
        } catch (err) {
          return done(err as Error)
        }
        const all = head
        head = null
        return done(null, all)
      }
      done(null, chunk)
    },
    flush(done) {
      // A file shorter than the signature: refused as the direct import refuses it.
      if (!head) return done()
      try {
        checkWorkbookFile(nameExtension, head)
        done(null, head)
      } catch (err) {
        done(err as Error)
      }
    },
  })
}

/**
 * The single workbook of a multipart request, streamed to STORAGE_DIR/jobs/incoming (never whole in
 * memory), with the text fields around it: the same limit, checks and messages as readOneFile and
 * checkWorkbookFile give the direct import. Nothing is kept of a refused file.
 */
async function receiveWorkbook(req: FastifyRequest, services: Services): Promise<ReceivedWorkbook> {
  const maxBytes = services.config.importMaxBytes
  if (!req.isMultipart()) throw badRequest('upload.noFile')
  await sweepIncoming(services.storage)
  const fields: Record<string, string> = {}
  let found: ReceivedWorkbook | undefined
  const written: string[] = []
  try {
    for await (const part of req.parts({ limits: { fileSize: maxBytes, files: 1 } })) {
      if (part.type !== 'file') {
        fields[part.fieldname] = String(part.value)
        continue
      }
      if (found) throw badRequest('upload.oneFile')
      const nameExtension = extname(part.filename).slice(1).toLowerCase()
      const name = `${INCOMING_FOLDER}/${randomUUID()}.xlsx`
      const full = services.storage.resolve(name)!
      await mkdir(dirname(full), { recursive: true })
      written.push(full)
      await pipeline(part.file, checkedWorkbook(nameExtension), createWriteStream(full))
      if (part.file.truncated) throw uploadTooLarge(maxBytes)
      found = { name, originalName: part.filename, fields }
    }
    if (!found) throw badRequest('upload.noFile')
    return found
  } catch (err) {
    for (const full of written) await rm(full, { force: true })
    throw multipartFailure(err, maxBytes)
  }
}

/**
 * POST {path}/import/job: the direct import's form (a `file` and `updateSupport`) for files larger
 * than a browser should wait on. The upload is streamed to storage and checked as the direct import
 * checks it (size, extension, signature: the same 400/413 messages) before a job is queued; the job
 * (platform/jobs/import-job.ts) then imports it with the starter's right and data scope as they are
 * when it runs. Answers the queued job, like {path}/export/job.
 */
export function registerImportJobRoute(
  app: FastifyInstance,
  services: Services,
  e: ResolvedEntity,
  repo: EntityRepository,
  o: { permission: string; module: string; tags: string[] },
) {
  registerImportSource(services, { entity: e, repo, permission: o.permission })
  const api = app.withTypeProvider<ZodTypeProvider>()
  api.post(
    `${e.path}/import/job`,
    {
      config: { permission: o.permission, audit: { module: o.module, businessType: BusinessType.import } },
      schema: {
        tags: o.tags,
        summary: `Import ${e.label.en_US} from .xlsx as a job (same form as import); answers the job, whose result is {inserted, updated}, or {errors} when it fails on row problems`,
        querystring: z.object({ updateSupport: updateSupportField }),
        consumes: ['multipart/form-data'],
        response: { 200: envelope(jobInfoSchema) },
      },
    },
    async (req) => {
      const lang = languageOf(req)
      const file = await receiveWorkbook(req, services)
      const flag = file.fields.updateSupport ?? req.query.updateSupport
      const params: ImportJobParams = {
        entity: e.key,
        upload: file.name,
        fileName: file.originalName,
        updateSupport: flag === 'true' || flag === '1',
        lang,
        request: { url: req.url.split('?')[0]!, route: `${req.method} ${req.routeOptions.url}`, ip: req.ip, id: String(req.id) },
      }
      let job
      try {
        job = await services.jobs.enqueue('import', params, caller(req))
      } catch (err) {
        await services.storage.remove(file.name)
        throw err
      }
      // Into the job's own folder, which goes with the job; the job moves it itself if it started first.
      await adoptUpload(services.storage, file.name, job.jobId).catch((err: unknown) => req.log.warn({ err, jobId: job.jobId }, 'import upload left in the incoming folder'))
      return ok(jobInfo(job, lang), 'job.queued')
    },
  )
}
