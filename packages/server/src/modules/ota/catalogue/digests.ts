import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import type { OtaPart } from '@velo/shared'
import { Crc8, CRC8_VARIANTS, type Crc8Name } from '../../../platform/files/crc8'
import type { Storage } from '../../../platform/storage'
import type { Db } from '../../../db/database'

/**
 * The CRC-8 each part's bootloader checks an image with (DOMAIN.md › CRC-8 variants): every CRC-8 is
 * called "CRC-8" by someone, so the variant is named with every value. All four parts take SMBUS
 * today (the BMS's TI battery-monitor chips use it); a part that moves to another variant changes here.
 */
export const PART_CRC8: Record<OtaPart, Crc8Name> = {
  iot: 'CRC-8/SMBUS',
  display: 'CRC-8/SMBUS',
  bms: 'CRC-8/SMBUS',
  ecu: 'CRC-8/SMBUS',
}

/** IoT audio is played by the IoT module, whose bootloader's variant it shares. */
export const AUDIO_CRC8: Crc8Name = PART_CRC8.iot

export interface StoredDigests {
  size: number
  sha256: string
  md5: string
  crc8: string
  crcVariant: Crc8Name
}

/**
 * The digests of a file uploaded for an entity's field: those the upload summed (sys_file) when its
 * CRC-8 is of the wanted variant, else summed again from the stored file (a variant the upload does
 * not compute, or a file stored without an upload: demo data). Undefined when no such file is kept.
 */
export async function digestsOf(db: Db, storage: Storage, o: { entity: string; field: string; fileName: string; variant: Crc8Name }): Promise<StoredDigests | undefined> {
  const uploaded = await db
    .selectFrom('sysFile')
    .select(['size', 'sha256', 'md5', 'crc8', 'crc8Variant'])
    .where('fileName', '=', o.fileName)
    .where('entity', '=', o.entity)
    .where('field', '=', o.field)
    .executeTakeFirst()
  if (uploaded && uploaded.crc8Variant === o.variant) return { size: Number(uploaded.size), sha256: uploaded.sha256, md5: uploaded.md5, crc8: uploaded.crc8, crcVariant: o.variant }
  const full = storage.resolve(o.fileName)
  if (!full) return undefined
  const sha256 = createHash('sha256')
  const md5 = createHash('md5')
  const crc = new Crc8(CRC8_VARIANTS[o.variant])
  let size = 0
  try {
    for await (const chunk of createReadStream(full) as AsyncIterable<Buffer>) {
      sha256.update(chunk)
      md5.update(chunk)
      crc.update(chunk)
      size += chunk.length
    }
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return undefined
    throw err
  }
  return { size, sha256: sha256.digest('hex'), md5: md5.digest('hex'), crc8: crc.hex(), crcVariant: o.variant }
}
