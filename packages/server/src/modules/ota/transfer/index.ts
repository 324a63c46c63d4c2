import { crc8Hex, encodeOtaBlock, OTA_ACTIVE_STATES, type OtaBlockRequestPayload, type OtaDeviceState } from '@velo/shared'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { KnownDevice, UpMessage } from '../../../iot/types'
import type { Services } from '../../../platform/services'
import { ImageCache, ImageMismatch } from './image-cache'
import { currentBlockBytes, imageOf, type OtaImage, parseOtaId } from './offer'
import { transferDb } from './tables'

/** Images kept in memory at once (a few campaigns' images; a 2 MB image costs 2 MB, not 2 MB per device). */
export const IMAGE_CACHE_BYTES = 256 * 1024 * 1024
/**
 * How long what a campaign device row says is trusted. A device asks every few hundred milliseconds
 * while it downloads: 10,000 of them must not cost a query each. An upgrade that ended (cancelled,
 * timed out) is served for at most this long after its row changed; a forced cancel's abort stops
 * the device itself at once.
 */
const GRANT_TTL_MS = 15_000
/** A refusal is remembered shorter: an offer may reach the device a moment before its row says notified. */
const REFUSAL_TTL_MS = 1_000
const BLOCK_BYTES_TTL_MS = 10_000

interface Grant {
  deviceId: number
  attempt: number
  state: OtaDeviceState
  image: OtaImage
}

/** What the block server did, for the bench and the tests (the message log leaves block traffic out). */
export interface TransferStats {
  requests: number
  /** Requests not served: not the device's upgrade, another attempt, not active, no image. */
  ignored: number
  blocks: number
  bytes: number
}

const ACTIVE: ReadonlySet<OtaDeviceState> = new Set(OTA_ACTIVE_STATES)

/**
 * Serves the blocks devices pull over MQTT (docs/iot-protocol.md › OTA, version 2): on up/otaReq it
 * checks that the upgrade id names a campaign device row of the asking device, in its current
 * attempt, still active, and publishes the blocks asked for on down/otaBlock, each with its CRC-8.
 * Anything else is ignored: a device only ever fetches an image offered to it.
 */
export class BlockServer {
  readonly stats: TransferStats = { requests: 0, ignored: 0, blocks: 0, bytes: 0 }
  readonly images: ImageCache
  private readonly grants = new Map<string, { grant: Grant | null; until: number }>()
  private readonly lookups = new Map<string, Promise<Grant | null>>()
  private blockBytes: { value: number; until: number } | null = null

  constructor(
    private readonly services: Services,
    private readonly publish: (device: KnownDevice, frame: Uint8Array) => Promise<void>,
    private readonly log: FastifyBaseLogger,
    cacheBytes = IMAGE_CACHE_BYTES,
  ) {
    this.images = new ImageCache(services.storage, cacheBytes)
  }

  async handle(message: UpMessage): Promise<void> {
    const request = message.payload as OtaBlockRequestPayload
    const { device } = message
    this.stats.requests++
    const grant = await this.grantOf(request.id)
    if (!grant || grant.deviceId !== device.deviceId || !ACTIVE.has(grant.state)) {
      this.stats.ignored++
      this.log.debug({ sn: device.sn, id: request.id, state: grant?.state }, 'OTA block request refused: not an active upgrade of this device')
      return
    }
    let image
    try {
      image = await this.images.get(grant.image)
    } catch (err) {
      if (!(err instanceof ImageMismatch)) throw err
      // The stored file changed or went after the offer: serving it would only fail at the device's verify.
      this.stats.ignored++
      this.log.error({ err: err.message, id: request.id }, 'OTA image not served')
      return
    }
    const blockBytes = request.blockBytes ?? (await this.currentBlockBytes())
    const blocks = Math.ceil(image.bytes.length / blockBytes)
    const crcs = this.images.crcsOf(image, blockBytes)
    const last = Math.min(request.first + request.count, blocks)
    const sent: Promise<void>[] = []
    for (let n = request.first; n < last; n++) {
      const bytes = image.bytes.subarray(n * blockBytes, (n + 1) * blockBytes)
      const crc8 = crc8Hex(crcs[n]!)
      sent.push(this.publish(device, encodeOtaBlock({ id: request.id, n, crc8, size: bytes.length }, bytes)))
      this.stats.blocks++
      this.stats.bytes += bytes.length
    }
    await Promise.all(sent)
  }

  /** The campaign device row an upgrade id names, as the block server needs it (cached briefly). */
  private async grantOf(id: string): Promise<Grant | null> {
    const cached = this.grants.get(id)
    if (cached && cached.until > Date.now()) return cached.grant
    let pending = this.lookups.get(id)
    if (!pending) {
      pending = this.lookUp(id).finally(() => this.lookups.delete(id))
      this.lookups.set(id, pending)
    }
    const grant = await pending
    // Expired entries go when the map grows: ids are bounded by the upgrades under way.
    if (this.grants.size > 100_000) for (const [key, entry] of this.grants) if (entry.until <= Date.now()) this.grants.delete(key)
    this.grants.set(id, { grant, until: Date.now() + (grant && ACTIVE.has(grant.state) ? GRANT_TTL_MS : REFUSAL_TTL_MS) })
    return grant
  }

  private async lookUp(id: string): Promise<Grant | null> {
    const parsed = parseOtaId(id)
    if (!parsed) return null
    const row = await transferDb(this.services.db)
      .selectFrom('otaCampaignDevice')
      .innerJoin('otaCampaign', 'otaCampaign.campaignId', 'otaCampaignDevice.campaignId')
      .select(['otaCampaignDevice.deviceId', 'otaCampaignDevice.attempt', 'otaCampaignDevice.state', 'otaCampaign.payload', 'otaCampaign.firmwareId', 'otaCampaign.audioId'])
      .where('otaCampaignDevice.upgradeId', '=', parsed.upgradeId)
      .executeTakeFirst()
    if (!row || Number(row.attempt ?? 0) !== parsed.attempt) return null
    const image = await imageOf(this.services.db, row)
    if (!image) return null
    return { deviceId: Number(row.deviceId), attempt: parsed.attempt, state: row.state as OtaDeviceState, image }
  }

  private async currentBlockBytes(): Promise<number> {
    if (this.blockBytes && this.blockBytes.until > Date.now()) return this.blockBytes.value
    const value = await currentBlockBytes(this.services)
    this.blockBytes = { value, until: Date.now() + BLOCK_BYTES_TTL_MS }
    return value
  }
}

const servers = new WeakMap<Services, BlockServer>()

/** The block server of a running server (its stats and image cache), once registered. */
export const blockServerOf = (services: Services): BlockServer | undefined => servers.get(services)

/**
 * The transfer's side of the gateway: block requests (up/otaReq) answered with blocks
 * (down/otaBlock, QoS 0: a lost block is asked for again after the device's timeout, and an
 * acknowledgement per block would double the packets of the largest traffic the broker carries).
 */
export function registerOtaTransfer(api: FastifyInstance, services: Services) {
  const server = new BlockServer(services, (device, frame) => api.iot.gateway.publishBytes(device, 'otaBlock', frame, 0), api.log)
  servers.set(services, server)
  api.iot.gateway.on('otaReq', (message) => server.handle(message))
}
