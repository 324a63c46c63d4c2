import { createReadStream } from 'node:fs'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../errors'

/** Bytes start to end of a file, both included (as Content-Range counts them). */
export interface ByteRange {
  start: number
  end: number
}

/**
 * The one byte range a `Range` header asks of a file of `size` bytes (RFC 9110 §14.1.2, §14.2):
 * `bytes=a-b`, `bytes=a-` (from a to the end) or `bytes=-n` (the last n bytes). 'unsatisfiable' when
 * it lies wholly past the end (or asks for the last 0 bytes): a 416. Undefined when there is no
 * header or it is not one we answer — another unit, several ranges, a last byte before the first,
 * anything malformed — and the whole file goes out, as RFC 9110 lets a server ignore Range.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined
  const m = /^bytes=(\d*)-(\d*)$/i.exec(header.trim())
  if (!m) return undefined
  const [, first = '', last = ''] = m
  if (first === '' && last === '') return undefined
  if (first === '') {
    const suffix = Number(last)
    if (suffix === 0 || size === 0) return 'unsatisfiable'
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(first)
  const end = last === '' ? Number.POSITIVE_INFINITY : Number(last)
  if (end < start) return undefined
  if (start >= size) return 'unsatisfiable'
  return { start, end: Math.min(end, size - 1) }
}

export interface FileToSend {
  /** Absolute path of a file known to exist (stat'ed by the caller). */
  path: string
  size: number
  contentType: string
  /** Content-Disposition, when the file goes out as an attachment. */
  disposition?: string
  /** A strong validator of the content (a digest), sent as ETag and matched against If-Range. */
  etag?: string
  cacheControl?: string
}

/**
 * Streams a stored file, honouring one byte range: 206 with Content-Range and only those bytes, 416
 * (its Content-Range naming only the size) when the range lies past the end, the whole file otherwise.
 * `Accept-Ranges: bytes` always tells the client it may ask (a browser's video player seeks so, a
 * download manager resumes so). With an `If-Range` that is not our ETag (another version, or a date:
 * we send no Last-Modified to compare it with) the range is ignored and the whole file goes out.
 * Every permission check belongs before this call: it is what reads the file.
 */
export function sendFile(req: FastifyRequest, reply: FastifyReply, file: FileToSend): FastifyReply {
  const range = rangeToSend(req, reply, file)
  reply.type(file.contentType)
  if (!range) return reply.header('Content-Length', file.size).send(createReadStream(file.path))
  return reply
    .code(206)
    .header('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`)
    .header('Content-Length', range.end - range.start + 1)
    .send(createReadStream(file.path, { start: range.start, end: range.end }))
}

export interface BytesToSend extends Omit<FileToSend, 'path' | 'size'> {
  bytes: Uint8Array
}

/** As sendFile, for bytes already in memory (an OTA image the server has summed and keeps). */
export function sendBytes(req: FastifyRequest, reply: FastifyReply, o: BytesToSend): FastifyReply {
  const size = o.bytes.length
  const range = rangeToSend(req, reply, { ...o, size })
  reply.type(o.contentType)
  const bytes = Buffer.from(o.bytes.buffer, o.bytes.byteOffset, size)
  if (!range) return reply.header('Content-Length', size).send(bytes)
  return reply
    .code(206)
    .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
    .header('Content-Length', range.end - range.start + 1)
    .send(bytes.subarray(range.start, range.end + 1))
}

/** The headers every answer gets, and the one range to send (none: the whole content); 416 past the end. */
function rangeToSend(req: FastifyRequest, reply: FastifyReply, file: Omit<FileToSend, 'path' | 'contentType'>): ByteRange | undefined {
  const etag = file.etag === undefined ? undefined : `"${file.etag}"`
  reply.header('Accept-Ranges', 'bytes')
  if (etag) reply.header('ETag', etag)
  if (file.disposition) reply.header('Content-Disposition', file.disposition)
  if (file.cacheControl) reply.header('Cache-Control', file.cacheControl)
  const ifRange = req.headers['if-range']
  const rangeApplies = ifRange === undefined || (etag !== undefined && typeof ifRange === 'string' && ifRange.trim() === etag)
  const range = rangeApplies ? parseRange(req.headers.range, file.size) : undefined
  if (range === 'unsatisfiable') {
    reply.header('Content-Range', `bytes */${file.size}`)
    throw new AppError(416, 'download.badRange', { size: file.size })
  }
  return range
}
