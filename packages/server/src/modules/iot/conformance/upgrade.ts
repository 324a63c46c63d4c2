import { createHash, randomBytes, randomInt } from 'node:crypto'
import { crc8, crc8Hex, encodeOtaBlock, OTA_BLOCK_BYTES, OTA_PROTOCOL, otaOfferPayload } from '@velo/shared'
import type { Gateway, KnownDevice } from '../../../gateway/types'
import type { ManifestSigner } from '../../ota/signing/manifest'
import { manifestOf } from '../../ota/signing/manifest'

/** The IoT name of the kit's test audio: an audio file reboots nothing, so a conforming device is left as it ran. */
export const TEST_AUDIO_NAME = 'velo_conformance'
/** Smallest block size the protocol allows: more blocks, so a window and a resume happen within a few KB. */
export const TEST_BLOCK_BYTES = 1024
/** More blocks than the largest window (32), so every device asks at least twice. */
export const TEST_BLOCKS = 48

/** What the kit may do wrong on purpose: only a conformance run's own upgrade ever gets a fault. */
export interface Faults {
  /** The signature is damaged before the offer goes out (the device must refuse it with E_SIGNATURE). */
  badSignature?: boolean
}

/**
 * One test upgrade of the conformance kit: a random image offered as an audio file for the IoT
 * module, signed with the server's manifest key, its blocks served by the kit itself. Its id
 * (`k{job}x{n}`) is no campaign's (`c{row}a{attempt}`), so the rollout and the block server ignore
 * it, and nothing the kit damages can reach a campaign's upgrade.
 */
export class TestUpgrade {
  readonly image: Buffer
  readonly sha256: string
  readonly blocks = TEST_BLOCKS
  readonly blockBytes = TEST_BLOCK_BYTES
  readonly version: string
  /** Blocks sent damaged, by number (each once). */
  readonly damaged = new Set<number>()

  constructor(
    readonly id: string,
    private readonly gateway: Pick<Gateway, 'publishToDevice' | 'publishBytes'>,
    private readonly device: KnownDevice,
    private readonly signer: ManifestSigner,
  ) {
    this.image = randomBytes(TEST_BLOCKS * TEST_BLOCK_BYTES)
    this.sha256 = createHash('sha256').update(this.image).digest('hex')
    // A version the device cannot hold yet: a device that already has the audio at it would refuse it.
    this.version = `${randomInt(1, 1000)}.${randomInt(0, 1000)}.${randomInt(0, 1000)}`
  }

  async offer(faults: Faults = {}): Promise<void> {
    const signed = this.signer.sign(manifestOf({ part: 'iot', payload: 'audio', approved: { sha256: this.sha256, size: this.image.length }, version: this.version, name: TEST_AUDIO_NAME }))
    let signature = signed.signature
    if (faults.badSignature) {
      const bytes = Buffer.from(signature, 'base64')
      bytes[10] = bytes[10]! ^ 0x40
      signature = bytes.toString('base64')
    }
    const offer = otaOfferPayload.omit({ v: true }).parse({
      ota: OTA_PROTOCOL,
      op: 'offer',
      id: this.id,
      part: 'iot',
      payload: 'audio',
      name: TEST_AUDIO_NAME,
      version: this.version,
      size: this.image.length,
      sha256: this.sha256,
      crc8: crc8Hex(crc8(this.image)),
      blockBytes: this.blockBytes,
      blocks: this.blocks,
      timeoutSeconds: 600,
      manifest: signed.manifest,
      signature,
      keyId: signed.keyId,
    })
    await this.gateway.publishToDevice(this.device, 'ota', offer)
  }

  async abort(): Promise<void> {
    await this.gateway.publishToDevice(this.device, 'ota', { ota: OTA_PROTOCOL, op: 'abort', id: this.id, reason: 'cancelled' })
  }

  /**
   * Sends blocks first…first+count-1 (those that exist). Block `damage`, the first time it goes, has
   * one byte changed under its true CRC-8: the device must drop it and ask for it again.
   */
  async serve(first: number, count: number, damage?: number, blockBytes = this.blockBytes): Promise<void> {
    // Another block size within range is served as asked, as the block server does (block n is bytes n × blockBytes on).
    const size = blockBytes >= OTA_BLOCK_BYTES.min && blockBytes <= OTA_BLOCK_BYTES.max ? blockBytes : this.blockBytes
    const last = Math.min(first + count, Math.ceil(this.image.length / size))
    const sent: Promise<void>[] = []
    for (let n = first; n < last; n++) {
      const bytes = this.image.subarray(n * size, (n + 1) * size)
      let payload: Uint8Array = bytes
      if (n === damage && !this.damaged.has(n)) {
        this.damaged.add(n)
        const copy = Buffer.from(bytes)
        copy[7] = copy[7]! ^ 0x5a
        payload = copy
      }
      sent.push(this.gateway.publishBytes(this.device, 'otaBlock', encodeOtaBlock({ id: this.id, n, crc8: crc8Hex(crc8(bytes)), size: bytes.length }, payload), 0))
    }
    await Promise.all(sent)
  }
}
