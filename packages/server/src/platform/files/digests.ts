import { createHash, type Hash } from 'node:crypto'
import { Crc8, CRC8_VARIANTS, type Crc8Name, FILE_CRC8 } from './crc8'

/** What a stored file is summed to: the answer of an upload and its row in sys_file. */
export interface FileDigests {
  size: number
  sha256: string
  md5: string
  crc8: { variant: Crc8Name; value: string }
}

/**
 * SHA-256, MD5 and CRC-8 of a file fed chunk by chunk while it streams to disk, so a file of any size
 * is read once and never held whole. SHA-256 is the one to trust; MD5 is what vendors' firmware tools
 * and `md5sum` lists still print; the CRC-8 is what a device's bootloader checks per block.
 */
export class StreamDigests {
  private readonly sha256: Hash = createHash('sha256')
  private readonly md5: Hash = createHash('md5')
  private readonly crc8 = new Crc8(CRC8_VARIANTS[FILE_CRC8])
  private size = 0

  update(chunk: Buffer): void {
    this.sha256.update(chunk)
    this.md5.update(chunk)
    this.crc8.update(chunk)
    this.size += chunk.length
  }

  get bytes(): number {
    return this.size
  }

  /** The sums; call once, after the last chunk. */
  result(): FileDigests {
    return { size: this.size, sha256: this.sha256.digest('hex'), md5: this.md5.digest('hex'), crc8: { variant: FILE_CRC8, value: this.crc8.hex() } }
  }
}
