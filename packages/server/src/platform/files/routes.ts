import { stat } from 'node:fs/promises'
import { extname } from 'node:path'
import type { MultipartFile } from '@fastify/multipart'
import { type FieldDef, formatBytes, type ResolvedEntity } from '@velo/shared'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, rangedFileAnswer } from '../responses'
import { BusinessType } from '../audit/operation-log'
import { attachment } from '../crud/excel'
import { ok } from '../envelope'
import { AppError, badRequest, forbidden, notFound } from '../errors'
import { type AuthContext, hasPermission } from '../rbac/auth-context'
import { resolveRowScope } from '../rbac/data-scope'
import { entityScope, isScoped } from '../rbac/entity-scope'
import { caller, PUBLIC, SIGNED_IN } from '../rbac/guard'
import type { Services } from '../services'
import type { FileDigests } from './digests'
import { FILE_LINK_TTL_SECONDS, fileLinks } from './links'
import { isJobsFolderName } from '../jobs/output'
import { sendFile } from './send'
import { storeStream, tooLarge } from './store'
import { dynamicDb } from '../../db/database'

type FileField = FieldDef & { kind: 'file' }

/** What an upload answers: the name to put in the field, and what the server made of the file. */
export interface UploadedFileAnswer extends FileDigests {
  fileName: string
  originalName: string
  contentType: string
}

const uploadedFileAnswer = z.object({
  fileName: z.string(),
  originalName: z.string(),
  contentType: z.string(),
  size: z.number(),
  sha256: z.string(),
  md5: z.string(),
  crc8: z.object({ variant: z.string(), value: z.string() }),
}) satisfies z.ZodType<Omit<UploadedFileAnswer, 'crc8'> & { crc8: { variant: string; value: string } }>

/** A link to one stored file that works without the token for a while (files/links.ts); `url` is the path with the API prefix. */
const fileLinkAnswer = z.object({ url: z.string(), expiresAt: z.string() })

/** Stored names of entity files start here; /common/download refuses them (see isEntityFile). */
export const ENTITY_FILES_FOLDER = 'file'

/** Whether a stored name (already normalized) is an entity file, served only by its entity's route. */
export const isEntityFile = (normalizedName: string) => normalizedName.startsWith(`${ENTITY_FILES_FOLDER}/`)

/** The entities with `file` fields whose routes each server registered: what the sweep of unheld uploads walks (files/sweep.ts). */
const entitiesWithFileRoutes = new WeakMap<Services, ResolvedEntity[]>()

/** The entities with `file` fields registered on this server, so their tables exist. */
export const fileEntitiesOf = (services: Services): readonly ResolvedEntity[] => entitiesWithFileRoutes.get(services) ?? []

/**
 * Room for the multipart framing and the few small text fields around the file: a request longer
 * than the limit plus this cannot hold a file within it, and is refused before a byte is read.
 */
const MULTIPART_SLACK = 1024 * 1024

/** The accept list as bare lower-case extensions ('.PDF' → 'pdf'). */
export const acceptOf = (f: FileField) => f.accept.map((a) => a.replace(/^\./, '').toLowerCase())

/** A client's file name as it is kept and given back on download: no path, no control characters, at most 255 characters. */
function cleanName(name: string): string {
  const base = (name.split(/[/\\]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim()
  return [...(base || 'file')].slice(0, 255).join('')
}

/** The parser's own refusals in the client's terms. */
function multipartError(err: unknown): Error {
  if (err instanceof AppError) return err
  const code = (err as { code?: unknown }).code
  if (code === 'FST_FILES_LIMIT') return badRequest('upload.oneFile')
  return badRequest('upload.badMultipart')
}

/**
 * After a refusal with the request body still arriving: the parser is detached, so the rest is read
 * and dropped. Left unread, it would stall the connection and the client would never see the answer.
 */
function discardRest(req: FastifyRequest) {
  req.raw.unpipe()
  req.raw.resume()
}

function requireAny(auth: AuthContext, permissions: string[]) {
  if (!permissions.some((p) => hasPermission(auth, p))) throw forbidden('error.forbidden', { permission: permissions.join(' | ') })
}

/**
 * The upload and download routes of an entity's `file` fields (DESIGN: files on local disk):
 * POST {path}/file/{field} takes one multipart file, for callers who may add or modify rows; it
 * checks the field's extensions and size limit, streams the file to storage while summing it, checks
 * its content where the type can be sniffed and answers the stored name with its digests.
 * GET {path}/file/{field}/{stored name} streams it back under its original name, for callers who may
 * list or read rows and, on an entity with a data scope, only when a row in their scope holds it; it
 * answers one byte range (206) when asked, for video players and resumed downloads (files/send.ts).
 * GET {path}/file/{field}/link/{stored name}, with the same checks, answers a link to
 * {path}/file/{field}/signed/{stored name} that serves the file without the token for ten minutes:
 * a <video> element cannot send it (files/links.ts).
 */
export function registerFileRoutes(app: FastifyInstance, services: Services, e: ResolvedEntity) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db
  const tags = [e.label.en_US]
  const module = e.label.en_US
  const writers = (['add', 'edit'] as const).filter((op) => e.operations.includes(op)).map((op) => `${e.permission}:${op}`)
  const readers = [`${e.permission}:query`, `${e.permission}:list`]
  if (e.fields.some((f) => f.kind === 'file')) entitiesWithFileRoutes.set(services, [...fileEntitiesOf(services), e])

  for (const f of e.fields) {
    if (f.kind !== 'file') continue
    const accept = acceptOf(f)
    const maxBytes = f.maxBytes ?? services.config.fileMaxBytes

    if (writers.length && e.writable.includes(f)) {
      api.post(
        `${e.path}/file/${f.name}`,
        {
          config: { permission: SIGNED_IN, audit: { module, businessType: BusinessType.insert } },
          schema: {
            tags,
            summary: `Upload the ${f.label.en_US} of ${e.label.en_US}: one ${accept.join(', ')} file of at most ${formatBytes(maxBytes)} (multipart), streamed to storage; answers its stored name, SHA-256, MD5 and CRC-8/SMBUS`,
            consumes: ['multipart/form-data'],
            response: { 200: envelope(uploadedFileAnswer) },
          },
        },
        async (req) => {
          const auth = caller(req)
          requireAny(auth, writers)
          if (!req.isMultipart()) throw badRequest('upload.noFile')
          if (Number(req.headers['content-length']) > maxBytes + MULTIPART_SLACK) throw tooLarge(maxBytes)
          let part: MultipartFile | undefined
          try {
            part = await req.file({ limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 4096, parts: 11 } })
          } catch (err) {
            throw multipartError(err)
          }
          if (!part) throw badRequest('upload.noFile')
          const originalName = cleanName(part.filename)
          const extension = extname(originalName).slice(1).toLowerCase()
          if (!accept.includes(extension)) {
            part.file.destroy()
            discardRest(req)
            throw badRequest('file.badType', { accept: accept.join(', ') })
          }
          let stored
          try {
            stored = await storeStream(services.storage, { source: part.file, folder: `${ENTITY_FILES_FOLDER}/${e.key}`, extension, originalName, maxBytes })
          } catch (err) {
            discardRest(req)
            if (err instanceof AppError) throw err
            // The disk's own failures (full, not writable) are the server's: logged, answered 500.
            if ((err as { syscall?: unknown }).syscall) throw err
            // The client went away, or the body broke off: the parser says so in plain Errors.
            throw badRequest('upload.badMultipart')
          }
          const { fileName, contentType, size, sha256, md5, crc8 } = stored
          try {
            await services.db
              .insertInto('sysFile')
              .values({ fileName, originalName, size, contentType, sha256, md5, crc8: crc8.value, crc8Variant: crc8.variant, entity: e.key, field: f.name, createBy: auth.userName, createTime: new Date().toISOString() })
              .execute()
          } catch (err) {
            await services.storage.remove(fileName)
            throw err
          }
          const answer: UploadedFileAnswer = { fileName, originalName, size, contentType, sha256, md5, crc8 }
          return ok(answer)
        },
      )
    }

    /**
     * The stored file a reader may fetch: the caller holds :list or :query and, on an entity with a
     * data scope, a row in their scope holds it (or they uploaded it and no row holds it yet).
     */
    const readableFile = async (auth: AuthContext, fileName: string) => {
      requireAny(auth, readers)
      const file = await services.db
        .selectFrom('sysFile')
        .select(['originalName', 'contentType', 'createBy', 'sha256'])
        .where('fileName', '=', fileName)
        .where('entity', '=', e.key)
        .where('field', '=', f.name)
        .executeTakeFirst()
      if (!file) throw notFound('download.missing')
      if (isScoped(e)) {
        const scope = await resolveRowScope(services.db, auth)
        const inScope = scope.all || (await dynamicDb(db).selectFrom(e.table).select(e.idField).where(f.name, '=', fileName).where(entityScope(e, scope)).executeTakeFirst())
        if (!inScope) {
          // A file no row holds yet is on its way into a form: its uploader may look at it again.
          const held = await dynamicDb(db).selectFrom(e.table).select(e.idField).where(f.name, '=', fileName).executeTakeFirst()
          // As for a row out of scope: not found, which says nothing about whether it exists.
          if (held || file.createBy !== auth.userName) throw notFound('download.missing')
        }
      }
      return file
    }

    /** Streams a stored file (its row read just before), honouring one byte range. */
    const send = async (req: FastifyRequest, reply: FastifyReply, fileName: string, file: { originalName: string; contentType: string; sha256: string }) => {
      // A job's file is never a record's, whatever a row says (GET /monitor/job/:id/file alone serves it).
      const full = isJobsFolderName(services.storage, fileName) ? undefined : services.storage.resolve(fileName)
      const size = full ? await stat(full).then((s) => (s.isFile() ? s.size : -1), () => -1) : -1
      if (!full || size < 0) throw notFound('download.missing')
      return sendFile(req, reply, { path: full, size, contentType: file.contentType, disposition: attachment(file.originalName), etag: file.sha256, cacheControl: 'private, no-cache' })
    }

    const storedName = z.object({ '*': z.string().min(1).max(255) })
    const fileAnswers = rangedFileAnswer('application/octet-stream', 'The file, with its stored content type, under its original name; ETag is its SHA-256')

    api.get(
      `${e.path}/file/${f.name}/*`,
      {
        config: { permission: SIGNED_IN },
        exposeHeadRoute: true,
        schema: {
          tags,
          summary: `Download a ${f.label.en_US} of ${e.label.en_US} by its stored name, under its original name; one byte range (Range: bytes=a-b, a- or -n) answers 206 with those bytes, a range past the end 416`,
          params: storedName,
          response: fileAnswers,
        },
      },
      async (req, reply) => {
        const fileName = req.params['*']
        return send(req, reply, fileName, await readableFile(caller(req), fileName))
      },
    )

    // Static segments win over the stored name's wildcard, and no stored name starts with them (they start with ENTITY_FILES_FOLDER).
    api.get(
      `${e.path}/file/${f.name}/link/*`,
      {
        config: { permission: SIGNED_IN },
        schema: {
          tags,
          summary: `A link to a ${f.label.en_US} of ${e.label.en_US} that works without the token for ${FILE_LINK_TTL_SECONDS / 60} minutes, for a player that cannot send it (<video>): the download's rights and data scope are checked now; the link names this one file`,
          params: storedName,
          response: { 200: envelope(fileLinkAnswer) },
        },
      },
      async (req) => {
        const fileName = req.params['*']
        await readableFile(caller(req), fileName)
        const { exp, sig } = await fileLinks(services.kv).sign({ entity: e.key, field: f.name, fileName })
        const path = `${services.config.apiPrefix}${e.path}/file/${f.name}/signed/${fileName.split('/').map(encodeURIComponent).join('/')}`
        return ok({ url: `${path}?exp=${exp}&sig=${sig}`, expiresAt: new Date(exp * 1000).toISOString() })
      },
    )

    api.get(
      `${e.path}/file/${f.name}/signed/*`,
      {
        // The signature stands in for the token: it was made by the link route above, for this file only.
        config: { permission: PUBLIC },
        exposeHeadRoute: true,
        schema: {
          tags,
          summary: `A ${f.label.en_US} of ${e.label.en_US} through a link from .../link/{stored name}: as the download, byte ranges included; a changed or expired link is refused (403)`,
          params: storedName,
          querystring: z.object({ exp: z.string().max(20).optional(), sig: z.string().max(100).optional() }),
          response: fileAnswers,
        },
      },
      async (req, reply) => {
        const fileName = req.params['*']
        const check = await fileLinks(services.kv).check({ entity: e.key, field: f.name, fileName }, req.query.exp, req.query.sig)
        if (check === 'expired') throw forbidden('file.linkExpired')
        if (check !== 'valid') throw forbidden('file.linkInvalid')
        const file = await services.db
          .selectFrom('sysFile')
          .select(['originalName', 'contentType', 'sha256'])
          .where('fileName', '=', fileName)
          .where('entity', '=', e.key)
          .where('field', '=', f.name)
          .executeTakeFirst()
        if (!file) throw notFound('download.missing')
        return send(req, reply, fileName, file)
      },
    )
  }
}
