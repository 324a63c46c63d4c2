import { formatBytes } from '@velo/shared'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir, rename, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import { type Readable, Transform, type TransformCallback } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { AppError, badRequest } from '../errors'
import type { Storage } from '../storage'
import { type FileDigests, StreamDigests } from './digests'
import { sniff, SNIFF_BYTES } from './sniff'

export const tooLarge = (maxBytes: number) => new AppError(413, 'file.tooLarge', { max: formatBytes(maxBytes) })

/**
 * Passes a file through once: every chunk is summed, and the first SNIFF_BYTES are held back until
 * the content's type is known, so a file that is not what its name says never reaches the disk.
 */
class Inspection extends Transform {
  private head: Buffer[] = []
  private headBytes = 0
  private decided = false
  readonly digests = new StreamDigests()
  contentType = 'application/octet-stream'

  constructor(
    private readonly extension: string,
    private readonly originalName: string,
  ) {
    super()
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.digests.update(chunk)
    if (this.decided) return done(null, chunk)
    this.head.push(chunk)
    this.headBytes += chunk.length
    if (this.headBytes < SNIFF_BYTES) return done()
    this.decide().then(() => done(), done)
  }

  override _flush(done: TransformCallback): void {
    if (this.decided) return done()
    this.decide().then(() => done(), done)
  }

  private async decide(): Promise<void> {
    this.decided = true
    const head = Buffer.concat(this.head)
    this.head = []
    if (head.length === 0) throw badRequest('file.empty')
    const found = await sniff(this.extension, head)
    if (!found.ok) throw badRequest('file.badContent', { name: this.originalName, extension: this.extension })
    this.contentType = found.contentType
    this.push(head)
  }
}

export interface StoredFile extends FileDigests {
  /** Relative to STORAGE_DIR. */
  fileName: string
  contentType: string
}

/**
 * Streams one uploaded file to `folder/yyyy/mm/dd/<uuid>.<extension>` under the storage root: written
 * to a temporary name beside it and renamed only once the whole file has arrived within `maxBytes`
 * and its content matched its extension. On any failure (too large, wrong content, the client gone)
 * the temporary file is deleted and nothing is left behind.
 *
 * `source` is a multipart file stream: busboy stops passing bytes at the size limit, sets
 * `truncated` and emits 'limit'.
 */
export async function storeStream(
  storage: Storage,
  o: { source: Readable & { truncated?: boolean }; folder: string; extension: string; originalName: string; maxBytes: number },
): Promise<StoredFile> {
  const d = new Date()
  const day = `${d.getUTCFullYear()}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${String(d.getUTCDate()).padStart(2, '0')}`
  const fileName = `${o.folder}/${day}/${randomUUID()}.${o.extension}`
  const full = storage.resolve(fileName)
  if (!full) throw new Error(`stored name ${fileName} leaves the storage folder`)
  const temp = `${full}.part`
  await mkdir(dirname(full), { recursive: true })
  const inspection = new Inspection(o.extension, o.originalName)
  // Refused at the limit, not after busboy has skipped the rest of the part.
  const onLimit = () => inspection.destroy(tooLarge(o.maxBytes))
  o.source.once('limit', onLimit)
  const out = createWriteStream(temp, { flags: 'wx' })
  try {
    await pipeline(o.source, inspection, out)
    if (o.source.truncated) throw tooLarge(o.maxBytes)
    await rename(temp, full)
  } catch (err) {
    // A refusal in the first bytes can come before the file is even opened: the open still creates it
    // afterwards, so the temporary file is deleted only once the stream has closed.
    if (!out.closed) await once(out, 'close').catch(() => undefined)
    await unlink(temp).catch(() => undefined)
    throw err
  } finally {
    o.source.off('limit', onLimit)
  }
  return { fileName, contentType: inspection.contentType, ...inspection.digests.result() }
}
