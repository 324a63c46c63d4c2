import { extname } from 'node:path'
import { IMAGE_EXTENSIONS } from '@velo/shared'
import type { FastifyRequest } from 'fastify'
import { AppError, badRequest } from './errors'

export interface UploadedFile {
  bytes: Buffer
  /** Lower-case extension of the client's file name, without the dot. */
  nameExtension: string
  originalName: string
  /** The form's text fields, sent before or after the file. */
  fields: Record<string, string>
}

/**
 * Reads the single file of a multipart request (SPEC §5: one file at a time) with the request's
 * size limit, and the text fields around it.
 */
export async function readOneFile(req: FastifyRequest, maxBytes: number): Promise<UploadedFile> {
  if (!req.isMultipart()) throw badRequest('upload.noFile')
  let found: UploadedFile | undefined
  const fields: Record<string, string> = {}
  try {
    for await (const part of req.parts({ limits: { fileSize: maxBytes, files: 1 } })) {
      if (part.type !== 'file') {
        fields[part.fieldname] = String(part.value)
        continue
      }
      if (found) throw badRequest('upload.oneFile')
      const bytes = await part.toBuffer()
      found = { bytes, nameExtension: extname(part.filename).slice(1).toLowerCase(), originalName: part.filename, fields }
    }
  } catch (err) {
    throw multipartFailure(err, maxBytes)
  }
  if (!found) throw badRequest('upload.noFile')
  return found
}

/** A file over the request's size limit (413, in MB). */
export const uploadTooLarge = (maxBytes: number) => new AppError(413, 'upload.tooLarge', { maxMb: Number((maxBytes / 1024 / 1024).toPrecision(3)) })

/**
 * What went wrong while reading a multipart request's parts, in the client's terms: the parser's own
 * limits surface as errors of the part stream.
 */
export function multipartFailure(err: unknown, maxBytes: number): Error {
  if (err instanceof AppError) return err
  const code = (err as { code?: unknown }).code
  if (code === 'FST_FILES_LIMIT') return badRequest('upload.oneFile')
  if (code === 'FST_REQ_FILE_TOO_LARGE') return uploadTooLarge(maxBytes)
  // Nothing but parsing runs in the loop: any other failure (no boundary, a broken one, a body cut
  // short, too many fields) is the request's, and busboy says so only in plain Errors.
  return badRequest('upload.badMultipart')
}

export interface UploadedImage {
  bytes: Buffer
  extension: 'jpg' | 'png'
  originalName: string
}

/**
 * Reads the single image of a multipart request. The name's extension and the bytes themselves must
 * both say jpg/jpeg/png: a renamed file is refused.
 */
export async function readOneImage(req: FastifyRequest, maxBytes: number): Promise<UploadedImage> {
  const file = await readOneFile(req, maxBytes)
  const { fileTypeFromBuffer } = await import('file-type')
  const sniffed = await fileTypeFromBuffer(file.bytes)
  if (!(IMAGE_EXTENSIONS as readonly string[]).includes(file.nameExtension) || (sniffed?.ext !== 'jpg' && sniffed?.ext !== 'png')) {
    throw badRequest('upload.badImage')
  }
  return { bytes: file.bytes, extension: sniffed.ext, originalName: file.originalName }
}
