import { extname } from 'node:path'
import { contentEntities, type FieldDef, formatBytes, writeSchema } from '@velo/shared'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ok } from '../../platform/envelope'
import { AppError, badRequest } from '../../platform/errors'
import { ENTITY_FILES_FOLDER } from '../../platform/files/routes'
import { type StoredFile, storeStream, tooLarge } from '../../platform/files/store'
import { languageOf } from '../../platform/http'
import { localizeIssue } from '../../platform/i18n/zod-messages'
import { MEMBER } from '../../platform/rbac/guard'
import { envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { signedInMember } from './members'
import { APP_TAGS, MEMBER_SECURITY } from './tables'

const uploadLog = contentEntities.appUploadLog
const fileField = uploadLog.fieldMap.get('file') as FieldDef & { kind: 'file' }
const ACCEPT = fileField.accept.map((a) => a.toLowerCase())
/** The fields the app sends beside the file, checked by the definition's own rules. */
const DESCRIBED = ['deviceId', 'logType', 'platform', 'appVersion', 'osVersion'] as const
const describedSchema = z.object(Object.fromEntries(DESCRIBED.map((name) => [name, writeSchema(uploadLog.fieldMap.get(name)!, 'add')])))

/** Uploads per member and hour: a crash loop must not fill the disk. */
const UPLOADS_PER_MEMBER = { max: 20, timeWindow: '1 hour' } as const
// Room for the multipart framing and the few text fields around the file.
const MULTIPART_SLACK = 64 * 1024

const uploadAnswer = z.object({ uploadId: z.number(), originalName: z.string(), fileSize: z.number() })

/** A client's file name as it is kept: no path, no control characters, at most 255 characters. */
function cleanName(name: string): string {
  const base = (name.split(/[/\\]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim()
  return [...(base || 'file')].slice(0, 255).join('')
}

/** The rest of a refused request is read and dropped, or the client would never see the answer. */
function discardRest(req: FastifyRequest) {
  req.raw.unpipe()
  req.raw.resume()
}

function multipartError(err: unknown): Error {
  if (err instanceof AppError) return err
  const code = (err as { code?: unknown }).code
  if (code === 'FST_FILES_LIMIT') return badRequest('upload.oneFile')
  // The disk's own failures (full, not writable) are the server's: logged, answered 500.
  if ((err as { syscall?: unknown }).syscall) return err as Error
  return badRequest('upload.badMultipart')
}

/**
 * POST /uploads: the app sends a log or crash report (Monitoring › App upload log). The file is
 * streamed to storage as the definition's `file` field takes files (its extensions and size limit,
 * content sniffed where it can be, digests on the way, a sys_file row for entity appUploadLog), so
 * staff download it through that field's route and the sweep treats it like any upload.
 */
export function registerUploads(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db
  const maxBytes = fileField.maxBytes ?? services.config.fileMaxBytes

  api.post(
    '/uploads',
    {
      config: {
        permission: MEMBER,
        audit: false,
        rateLimit: { ...UPLOADS_PER_MEMBER, keyGenerator: (req) => `app-upload:${req.member?.memberId ?? req.ip}` },
      },
      schema: {
        tags: APP_TAGS,
        summary: `Upload a log or crash report (multipart: one file of ${ACCEPT.join(', ')} up to ${formatBytes(maxBytes)}, with deviceId, logType log|crash, platform ios|android, appVersion, osVersion); ${UPLOADS_PER_MEMBER.max} per member and hour`,
        security: MEMBER_SECURITY,
        consumes: ['multipart/form-data'],
        response: { 200: envelope(uploadAnswer) },
      },
    },
    async (req) => {
      const { memberId } = signedInMember(req)
      if (!req.isMultipart()) throw badRequest('upload.noFile')
      if (Number(req.headers['content-length']) > maxBytes + MULTIPART_SLACK) throw tooLarge(maxBytes)
      const fields: Record<string, string> = {}
      let stored: (StoredFile & { originalName: string }) | undefined
      try {
        try {
          // A few fields beyond the described ones are read and ignored: an app may send more than we keep.
          for await (const part of req.parts({ limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 1024, parts: 11 } })) {
            if (part.type === 'field') {
              if ((DESCRIBED as readonly string[]).includes(part.fieldname)) fields[part.fieldname] = String(part.value)
              continue
            }
            if (part.fieldname !== 'file') throw badRequest('app.uploadField')
            const originalName = cleanName(part.filename)
            const extension = extname(originalName).slice(1).toLowerCase()
            // Refused before a byte is kept.
            if (!ACCEPT.includes(extension)) throw badRequest('file.badType', { accept: ACCEPT.join(', ') })
            const file = await storeStream(services.storage, { source: part.file, folder: `${ENTITY_FILES_FOLDER}/${uploadLog.key}`, extension, originalName, maxBytes })
            stored = { ...file, originalName }
          }
        } catch (err) {
          discardRest(req)
          throw multipartError(err)
        }
        if (!stored) throw badRequest('upload.noFile')
        // The fields may come before or after the file: they are checked once all are in.
        const described = describedSchema.safeParse(fields)
        if (!described.success) {
          const lang = languageOf(req)
          const errors = described.error.issues.map((iss) => {
            const field = String(iss.path[0] ?? '')
            return { field, message: localizeIssue({ code: iss.code, path: field, message: iss.message, params: iss as never }, lang) }
          })
          throw badRequest('error.validation', { details: errors.map((e) => e.message).join('; ') }, { errors })
        }
        const values = described.data as Record<(typeof DESCRIBED)[number], string | null | undefined>
        const file = stored
        const now = new Date().toISOString()
        const uploadId = await db.transaction().execute(async (tx) => {
          await tx
            .insertInto('sysFile')
            .values({
              fileName: file.fileName,
              originalName: file.originalName,
              size: file.size,
              contentType: file.contentType,
              sha256: file.sha256,
              md5: file.md5,
              crc8: file.crc8.value,
              crc8Variant: file.crc8.variant,
              entity: uploadLog.key,
              field: fileField.name,
              createBy: `member:${memberId}`,
              createTime: now,
            })
            .execute()
          const row = await tx
            .insertInto('monAppUploadLog')
            .values({
              memberId,
              deviceId: values.deviceId ?? '',
              logType: values.logType!,
              platform: values.platform!,
              appVersion: values.appVersion ?? '',
              osVersion: values.osVersion ?? '',
              file: file.fileName,
              originalName: file.originalName,
              fileSize: file.size,
              uploadTime: now,
            })
            .returning('uploadId')
            .executeTakeFirstOrThrow()
          return Number(row.uploadId)
        })
        return ok({ uploadId, originalName: file.originalName, fileSize: file.size }, 'app.uploadReceived')
      } catch (err) {
        if (stored) await services.storage.remove(stored.fileName)
        throw err
      }
    },
  )
}

