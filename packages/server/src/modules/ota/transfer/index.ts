import { blockRequestError, crc8Hex, encodeOtaBlock, encodeOtaBlockError, OTA_ACTIVE_STATES, type OtaBlockRequestPayload, type OtaDeviceState, otaIdSchema } from '@velo/shared'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { KnownDevice, UpMessage } from '../../../gateway/types'
import { AppError, forbidden, notFound } from '../../../platform/errors'
import { fileLinks } from '../../../platform/files/links'
import { sendBytes } from '../../../platform/files/send'
import { PUBLIC } from '../../../platform/rbac/guard'
import { rangedFileAnswer } from '../../../platform/responses'
import type { Services } from '../../../platform/services'
import { type CachedImage, ImageCache, ImageMismatch } from './image-cache'
import { type ApprovedImage, approvedImageOf, currentBlockBytes, type ImageRefusal, imageLinkTarget, imageOf, type OtaImage, parseOtaId, refusalOf } from './offer'

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
  upgradeId: number
  campaignId: number
  deviceId: number
  attempt: number
  state: OtaDeviceState
  /** The file the campaign's firmware or audio names now (null: none stored). */
  image: OtaImage | null
  /** What the campaign's approval binds: the only bytes served for it. */
  approved: ApprovedImage | null
}

/** What the block server did, for the bench and the tests (the message log leaves block traffic out). */
export interface TransferStats {
  requests: number
  /** Requests not served: not the device's upgrade, another attempt, not active, an image refused. */
  ignored: number
  /** Requests for the device's own upgrade answered with an error frame (a window or block size out of range). */
  wrong: number
  /** Upgrades refused because their image is not the approved one (each fails once, and its device is told). */
  refused: number
  blocks: number
  bytes: number
}

/** An upgrade whose image was refused: its attempt, and why. */
export interface RefusedUpgrade {
  upgradeId: number
  attempt: number
  campaignId: number
  approved: ApprovedImage | null
  refusal: ImageRefusal
}

const ACTIVE: ReadonlySet<OtaDeviceState> = new Set(OTA_ACTIVE_STATES)

/**
 * Serves the blocks devices pull over MQTT (docs/iot-protocol.md › OTA, version 2): on up/otaReq it
 * checks that the upgrade id names a campaign device row of the asking device, in its current
 * attempt, still active, and publishes the blocks asked for on down/otaBlock, each with its CRC-8.
 * Anything else is ignored: a device only ever fetches an image offered to it.
 */
export class BlockServer {
  readonly stats: TransferStats = { requests: 0, ignored: 0, refused: 0, wrong: 0, blocks: 0, bytes: 0 }
  readonly images: ImageCache
  /** Told when an upgrade's image is refused (the rollout fails the attempt, tells the device, pauses the campaign). */
  onRefused: ((refused: RefusedUpgrade) => Promise<void>) | null = null
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
    const served = await this.approvedBytes(request.id, grant)
    if ('refusal' in served) {
      this.stats.ignored++
      return
    }
    const image = served.bytes
    const blockBytes = request.blockBytes ?? (await this.currentBlockBytes())
    // The device's own upgrade, asked for wrongly: it is told why, or it would ask again at every timeout.
    const error = blockRequestError(request, blockBytes, image.bytes.length)
    if (error) {
      this.stats.wrong++
      await this.publish(device, encodeOtaBlockError({ id: request.id, first: request.first, error }))
      return
    }
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

  /**
   * The bytes an upgrade is served: its campaign's approved image, read from storage once and summed
   * again (ImageCache). Anything else — no approved digest, a file row that names other bytes, a
   * stored file that changed or went — is refused: the attempt fails with the reason (onRefused) and
   * nothing of it is served, by blocks or by its link.
   */
  async approvedBytes(id: string, grant: Grant): Promise<{ bytes: CachedImage; approved: ApprovedImage } | { refusal: ImageRefusal }> {
    let refusal = refusalOf(grant.approved, grant.image)
    if (!refusal) {
      const approved = grant.approved!
      try {
        return { bytes: await this.images.get({ fileName: grant.image!.fileName, sha256: approved.sha256 }), approved }
      } catch (err) {
        if (!(err instanceof ImageMismatch)) throw err
        refusal = err.found
          ? { code: 'E_IMAGE_CHANGED', key: 'ota.image.changed', params: { approved: approved.sha256, found: err.found } }
          : { code: 'E_IMAGE_MISSING', key: 'ota.image.missing', params: { approved: approved.sha256 } }
      }
    }
    // Remembered as no grant: the requests that follow are ignored without reading the file again.
    this.grants.set(id, { grant: null, until: Date.now() + GRANT_TTL_MS })
    this.stats.refused++
    this.log.error({ id, code: refusal.code, approved: grant.approved?.sha256, found: refusal.params.found }, 'OTA image refused: not the approved bytes')
    await this.onRefused?.({ upgradeId: grant.upgradeId, attempt: grant.attempt, campaignId: grant.campaignId, approved: grant.approved, refusal }).catch((err) =>
      this.log.error({ err, id }, 'could not fail an upgrade whose image was refused'),
    )
    return { refusal }
  }

  /** The campaign device row an upgrade id names, as the block server needs it (cached briefly). */
  async grantOf(id: string): Promise<Grant | null> {
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
    const row = await this.services.db
      .selectFrom('otaCampaignDevice')
      .innerJoin('otaCampaign', 'otaCampaign.campaignId', 'otaCampaignDevice.campaignId')
      .select([
        'otaCampaignDevice.deviceId',
        'otaCampaignDevice.attempt',
        'otaCampaignDevice.state',
        'otaCampaign.campaignId',
        'otaCampaign.payload',
        'otaCampaign.firmwareId',
        'otaCampaign.audioId',
        'otaCampaign.imageSha256',
        'otaCampaign.imageSize',
      ])
      .where('otaCampaignDevice.upgradeId', '=', parsed.upgradeId)
      .executeTakeFirst()
    if (!row || Number(row.attempt ?? 0) !== parsed.attempt) return null
    return {
      upgradeId: parsed.upgradeId,
      campaignId: Number(row.campaignId),
      deviceId: Number(row.deviceId),
      attempt: parsed.attempt,
      state: row.state as OtaDeviceState,
      image: await imageOf(this.services.db, row),
      approved: approvedImageOf(row),
    }
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

  // The offer's link (offer.ts imageLink): the same approved bytes over HTTPS, byte ranges included.
  api.withTypeProvider<ZodTypeProvider>().get(
    '/ota/image/:id',
    {
      // The signature stands in for a token: the offer made it for this one upgrade.
      config: { permission: PUBLIC },
      exposeHeadRoute: true,
      schema: {
        tags: ['OTA transfer'],
        summary:
          "An upgrade's image through the signed link of its offer: the campaign's approved bytes only, one byte range answered 206; a changed or expired link 403, an upgrade no longer under way 404, an image that is not the approved one 409 (the upgrade then fails)",
        params: z.object({ id: otaIdSchema }),
        querystring: z.object({ exp: z.string().max(20).optional(), sig: z.string().max(100).optional() }),
        response: rangedFileAnswer('application/octet-stream', 'The image; ETag is its approved SHA-256'),
      },
    },
    async (req, reply) => {
      const { id } = req.params
      const check = await fileLinks(services.kv).check(imageLinkTarget(id), req.query.exp, req.query.sig)
      if (check === 'expired') throw forbidden('file.linkExpired')
      if (check !== 'valid') throw forbidden('file.linkInvalid')
      const grant = await server.grantOf(id)
      if (!grant || !ACTIVE.has(grant.state)) throw notFound('ota.image.notActive')
      const served = await server.approvedBytes(id, grant)
      if ('refusal' in served) throw new AppError(409, served.refusal.key, served.refusal.params, 409, { code: served.refusal.code })
      return sendBytes(req, reply, { bytes: served.bytes.bytes, contentType: 'application/octet-stream', etag: served.approved.sha256, cacheControl: 'private, no-cache' })
    },
  )
}
