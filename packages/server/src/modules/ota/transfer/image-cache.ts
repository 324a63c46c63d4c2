import { createHash } from 'node:crypto'
import { Crc8 } from '@velo/shared'
import type { Storage } from '../../../platform/storage'

/** An image in memory, with each block's CRC-8/SMBUS per block size (computed once, not per device). */
export interface CachedImage {
  bytes: Buffer
  /** Block size → the CRC of each block. */
  blockCrcs: Map<number, Uint8Array>
}

/** The CRC-8/SMBUS of every `blockBytes` block of an image. */
export function blockCrcsOf(bytes: Uint8Array, blockBytes: number): Uint8Array {
  const blocks = Math.ceil(bytes.length / blockBytes)
  const crcs = new Uint8Array(blocks)
  for (let n = 0; n < blocks; n++) crcs[n] = new Crc8().update(bytes.subarray(n * blockBytes, (n + 1) * blockBytes)).digest()
  return crcs
}

export class ImageMismatch extends Error {
  override name = 'ImageMismatch'
  constructor(
    message: string,
    /** The SHA-256 the stored bytes have now; null when no file is stored under the name. */
    readonly found: string | null,
  ) {
    super(message)
  }
}

/**
 * Images read from storage, kept by SHA-256 within a byte budget, least recently used out first: a
 * campaign to 10,000 devices reads its image from disk once, not 10,000 times. What is read is summed
 * again; bytes that no longer match the digest the offer gave are never served (ImageMismatch).
 */
export class ImageCache {
  private readonly images = new Map<string, CachedImage>()
  private readonly loading = new Map<string, Promise<CachedImage>>()
  private bytes = 0
  /** Reads from storage, for the bench and tests: how often the disk was touched. */
  reads = 0

  constructor(
    private readonly storage: Storage,
    readonly budgetBytes: number,
  ) {}

  async get(image: { fileName: string; sha256: string }): Promise<CachedImage> {
    const known = this.images.get(image.sha256)
    if (known) {
      // Most recently used last: Map keeps insertion order.
      this.images.delete(image.sha256)
      this.images.set(image.sha256, known)
      return known
    }
    let pending = this.loading.get(image.sha256)
    if (!pending) {
      pending = this.load(image).finally(() => this.loading.delete(image.sha256))
      this.loading.set(image.sha256, pending)
    }
    return pending
  }

  private async load(image: { fileName: string; sha256: string }): Promise<CachedImage> {
    this.reads++
    const bytes = await this.storage.read(image.fileName)
    if (!bytes) throw new ImageMismatch(`${image.fileName} is not in storage`, null)
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    if (sha256 !== image.sha256) throw new ImageMismatch(`${image.fileName} no longer has the SHA-256 it was offered with`, sha256)
    const cached: CachedImage = { bytes, blockCrcs: new Map() }
    // An image larger than the whole budget is served, just not kept.
    if (bytes.length <= this.budgetBytes) {
      this.images.set(sha256, cached)
      this.bytes += bytes.length
      for (const [key, old] of this.images) {
        if (this.bytes <= this.budgetBytes) break
        this.images.delete(key)
        this.bytes -= old.bytes.length
      }
    }
    return cached
  }

  crcsOf(image: CachedImage, blockBytes: number): Uint8Array {
    let crcs = image.blockCrcs.get(blockBytes)
    if (!crcs) image.blockCrcs.set(blockBytes, (crcs = blockCrcsOf(image.bytes, blockBytes)))
    return crcs
  }

  get size(): { images: number; bytes: number } {
    return { images: this.images.size, bytes: this.bytes }
  }
}
