import { extname } from 'node:path'
import { IMAGE_EXTENSIONS } from '@velo/shared'
import type { FastifyRequest } from 'fastify'
import { fileTypeFromBuffer } from 'file-type'
import { AppError, badRequest } from '../../platform/errors'
import type { Services } from '../../platform/services'

export interface UploadedImage {
  bytes: Buffer
  extension: 'jpg' | 'png'
  originalName: string
}

/**
 * Reads the single image of a multipart request. The name's extension and the bytes themselves must
 * both say jpg/jpeg/png: a renamed file is refused.
 */
export async function readOneImage(req: FastifyRequest, services: Services): Promise<UploadedImage> {
  if (!req.isMultipart()) throw badRequest('upload.noFile')
  let found: UploadedImage | undefined
  try {
    for await (const part of req.parts()) {
      if (part.type !== 'file') continue
      if (found) throw badRequest('upload.oneFile')
      const bytes = await part.toBuffer()
      const nameExt = extname(part.filename).slice(1).toLowerCase()
      const sniffed = await fileTypeFromBuffer(bytes)
      if (!(IMAGE_EXTENSIONS as readonly string[]).includes(nameExt) || (sniffed?.ext !== 'jpg' && sniffed?.ext !== 'png')) {
        throw badRequest('upload.badImage')
      }
      found = { bytes, extension: sniffed.ext, originalName: part.filename }
    }
  } catch (err) {
    // The parser's own limits surface as errors of the part stream; say what went wrong in the client's terms.
    const code = (err as { code?: unknown }).code
    if (code === 'FST_FILES_LIMIT') throw badRequest('upload.oneFile')
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError(413, 'upload.tooLarge', { maxMb: Number((services.config.uploadMaxBytes / 1024 / 1024).toPrecision(3)) })
    throw err
  }
  if (!found || found.bytes.length === 0) throw badRequest('upload.noFile')
  return found
}
