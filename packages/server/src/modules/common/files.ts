import { basename, extname, posix, relative, sep } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { attachment } from '../../platform/crud/excel'
import { ok } from '../../platform/envelope'
import { badRequest, forbidden, notFound } from '../../platform/errors'
import { PUBLIC, SIGNED_IN } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'
import { readOneImage } from '../../platform/uploads'
import { isEntityFile } from '../../platform/files/routes'
import { isJobsFolderName } from '../../platform/jobs/output'
import type { Storage } from '../../platform/storage'
import { envelope, fileAnswer } from '../../platform/responses'

const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pdf': 'application/pdf',
}

/** Bytes of one of these content types (each documented; none goes through the serializer). */
function filesAnswer(contentTypes: readonly string[], description: string) {
  const content: ReturnType<typeof fileAnswer>['content'] = {}
  for (const type of contentTypes) Object.assign(content, fileAnswer(type, description).content)
  return { description, content }
}

const uploadedSchema = z.object({ fileName: z.string(), originalFilename: z.string(), url: z.string() })

/** Files on the storage folder: avatars, downloads and image uploads (SPEC §5, §7). */
export function registerFiles(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const { storage } = services
  const tags = ['Files']

  // Public because <img> tags send no Authorization header; stored names are random UUIDs.
  api.get(
    '/common/avatar',
    {
      config: { permission: PUBLIC },
      schema: {
        tags,
        summary: 'An avatar image by its stored name',
        querystring: z.object({ url: z.string().min(1).max(255) }),
        response: { 200: filesAnswer(['image/png', 'image/jpeg'], 'The avatar image') },
      },
    },
    async (req, reply) => {
      // Normalized first: 'avatar/../upload/…' names a file outside the avatar folder.
      const name = posix.normalize(req.query.url.replace(/^\/+/, ''))
      if (!name.startsWith('avatar/') || !storage.resolve(name)) throw badRequest('download.badName')
      const bytes = await storage.read(name)
      if (!bytes) throw notFound('download.missing')
      return reply
        .type(CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream')
        .header('Cache-Control', 'private, max-age=86400')
        .send(bytes)
    },
  )

  api.get(
    '/common/download',
    {
      config: { permission: SIGNED_IN },
      schema: {
        tags,
        summary: "Download a file from the storage folder (not a record's file nor a job's: their own routes serve them); delete=true removes a generated download (download/…) afterwards",
        querystring: z.object({ fileName: z.string().min(1).max(255), delete: z.enum(['true', 'false']).default('false') }),
        response: { 200: filesAnswer([...new Set(Object.values(CONTENT_TYPES)), 'application/octet-stream'], 'The file, typed by its extension, as an attachment') },
      },
    },
    async (req, reply) => {
      if (!storage.resolve(req.query.fileName)) throw badRequest('download.badName')
      // A job's file is its starter's: GET /monitor/job/:id/file serves it under mayReadJobOutput, never this route.
      if (isJobsFolderName(storage, req.query.fileName)) throw forbidden('download.jobFile')
      // Only what is shared by nature, judged on the name as resolved (no `../files/file/…` around it):
      // anything else — a record's file, kept to its permission and data scope — has its own route.
      const folder = storedFolderOf(storage, req.query.fileName)
      if (folder === 'file' || isEntityFile(posix.normalize(req.query.fileName))) throw forbidden('download.entityFile')
      if (!SHARED_FOLDERS.has(folder)) throw notFound('download.missing')
      // Uploaded images and avatars are shared; only one-off generated files may go with the download.
      if (req.query.delete === 'true' && !posix.normalize(req.query.fileName).startsWith('download/')) throw forbidden('download.deleteRefused')
      const bytes = await storage.read(req.query.fileName)
      if (!bytes) throw notFound('download.missing')
      if (req.query.delete === 'true') await storage.remove(req.query.fileName)
      return reply
        .type(CONTENT_TYPES[extname(req.query.fileName).toLowerCase()] ?? 'application/octet-stream')
        .header('Content-Disposition', attachment(basename(req.query.fileName)))
        .send(bytes)
    },
  )

  api.post(
    '/common/upload',
    { config: { permission: SIGNED_IN, audit: { module: 'Files' } }, schema: { tags, summary: 'Upload one image (jpg, jpeg, png)', consumes: ['multipart/form-data'], response: { 200: envelope(uploadedSchema) } } },
    async (req) => {
      const image = await readOneImage(req, services.config.uploadMaxBytes)
      const fileName = await storage.save('upload', image.extension, image.bytes)
      return ok({ fileName, originalFilename: image.originalName, url: `${services.config.apiPrefix}/common/download?fileName=${encodeURIComponent(fileName)}` })
    },
  )
}

/**
 * What /common/download serves: uploaded images and avatars (shown to every signed-in user), the
 * demo's pictures, and one-off generated downloads. Records' files and jobs' outputs have routes of
 * their own that check who may read them.
 */
const SHARED_FOLDERS = new Set(['upload', 'avatar', 'demo', 'download'])

/** The first folder of a stored name once resolved under STORAGE_DIR, lower-cased without trailing dots or spaces ('' when it resolves nowhere). */
function storedFolderOf(storage: Storage, name: string): string {
  const full = storage.resolve(name)
  if (!full) return ''
  const parts = relative(storage.root, full).split(sep)
  return parts.length > 1 ? (parts[0] ?? '').replace(/[. ]+$/, '').toLowerCase() : ''
}
