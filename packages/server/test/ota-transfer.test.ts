import { createHash, randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import type { DeviceOptions, SimulatedDevice } from '@velo/device-sim'
import { crc8, FILE_CRC8, OTA_BLOCK_BYTES, OTA_MAX_BLOCKS_PER_REQUEST, otaOfferPayload } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { KnownDevice } from '../src/gateway/types'
import { otaRolloutOf } from '../src/modules/ota/rollout'
import { blockServerOf } from '../src/modules/ota/transfer'
import { ImageCache, ImageMismatch } from '../src/modules/ota/transfer/image-cache'
import { abortPayload, approvedImageOf, buildOffer, imageOf, otaIdOf } from '../src/modules/ota/transfer/offer'
import { useTestApp } from './harness'
import { clearRetained, deviceRow, insertDevice, simulated, waitFor } from './iot-helpers'

// The OTA transfer end to end: offers built by buildOffer go down through the real gateway and broker
// (embedded, or TEST_MQTT_URL), the reference device pulls the blocks the block server publishes (or
// the signed link), checks, installs, reboots and reports. Nothing is mocked.

const t = useTestApp()
const sims: SimulatedDevice[] = []
const db = () => t.app.services.db
const stats = () => ({ ...blockServerOf(t.app.services)!.stats })
/** Small blocks keep the images small and the block counts meaningful. */
const BLOCK_BYTES = OTA_BLOCK_BYTES.min
let serial = 0

/** A firmware whose file is in storage with its sys_file row, as an upload leaves it. */
async function firmware(bytes: Buffer, version = '2.0.0') {
  const n = ++serial
  const fileName = await t.app.services.storage.save('file/iotFirmware', 'bin', bytes)
  const now = new Date().toISOString()
  await db()
    .insertInto('sysFile')
    .values({
      fileName,
      originalName: `fw-${n}.bin`,
      size: bytes.length,
      contentType: 'application/octet-stream',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      md5: createHash('md5').update(bytes).digest('hex'),
      crc8: crc8(bytes).toString(16).toUpperCase().padStart(2, '0'),
      crc8Variant: FILE_CRC8,
      entity: 'iotFirmware',
      field: 'file',
      createBy: 'test',
      createTime: now,
    })
    .execute()
  const row = await db()
    .insertInto('otaFirmware')
    .values({ name: `Firmware ${n}`, code: `FW-T-${Date.now()}-${n}`, supplierId: 1, productId: 1, customVersion: version, file: fileName, partKind: 'iot', versionNumber: 0, createTime: now })
    .returning('firmwareId')
    .executeTakeFirstOrThrow()
  return { firmwareId: Number(row.firmwareId), fileName, bytes }
}

/** A running campaign of the firmware, its image approved as it is stored (docs/ota.md › Approval binds). */
async function campaign(fw: { firmwareId: number; bytes: Buffer }) {
  const approved = { imageSha256: createHash('sha256').update(fw.bytes).digest('hex'), imageSize: fw.bytes.length }
  const row = await db()
    .insertInto('otaCampaign')
    .values({ name: `Campaign ${++serial}`, status: 'running', firmwareId: fw.firmwareId, partKind: 'iot', payload: 'firmware', targetVersion: '', ...approved, createTime: new Date().toISOString() })
    .returning('campaignId')
    .executeTakeFirstOrThrow()
  return Number(row.campaignId)
}

/** A device of a campaign, notified: the row the block server checks requests against. */
async function upgradeRow(campaignId: number, deviceId: number, state = 'notified', attempt = 1) {
  const row = await db()
    .insertInto('otaCampaignDevice')
    .values({ campaignId, deviceId, state, attempt, wave: 0, partKind: 'iot', updatedAt: new Date().toISOString() })
    .returning('upgradeId')
    .executeTakeFirstOrThrow()
  return Number(row.upgradeId)
}

async function device(behaviour: Partial<DeviceOptions> = {}) {
  const reg = await insertDevice(t)
  const sim = simulated(t.app, reg, behaviour)
  sims.push(sim)
  await sim.connect()
  await waitFor(async () => (await deviceRow(t, reg.deviceId)).online, `${reg.sn} online`)
  const known: KnownDevice = { deviceId: reg.deviceId, sn: reg.sn, modelId: Number((await deviceRow(t, reg.deviceId)).modelId) }
  return { ...reg, sim, known }
}

/** A firmware, a campaign and a notified upgrade of a fresh device, and the offer the rollout would send it. */
async function upgrade(image: Buffer, behaviour: Partial<DeviceOptions> = {}) {
  const fw = await firmware(image)
  const campaignId = await campaign(fw)
  const d = await device(behaviour)
  const upgradeId = await upgradeRow(campaignId, d.deviceId)
  const found = await imageOf(t.app.services.db, { payload: 'firmware', firmwareId: fw.firmwareId })
  const approved = approvedImageOf(await db().selectFrom('otaCampaign').selectAll().where('campaignId', '=', campaignId).executeTakeFirstOrThrow())
  const offer = await buildOffer(t.app.services, { upgradeId, attempt: 1, part: 'iot', payload: 'firmware', image: found!, approved: approved!, timeoutSeconds: 600, minBattery: 30, commitSeconds: 300 })
  return { ...d, fw, campaignId, upgradeId, offer }
}

const send = (known: KnownDevice, payload: Record<string, unknown>) => t.app.iot.gateway.publishToDevice(known, 'ota', payload)

/** The stages a device reported for one upgrade, from the message log (which keeps up/ota). */
async function stagesOf(deviceId: number, id: string): Promise<string[]> {
  await t.app.iot.messageLog.flush()
  const rows = await db().selectFrom('iotMessage').select(['payload']).where('deviceId', '=', deviceId).where('kind', '=', 'ota').where('direction', '=', 'up').orderBy('messageId').execute()
  return rows.map((r: { payload: string }) => JSON.parse(r.payload)).filter((p: { id: string }) => p.id === id).map((p: { stage: string; code?: string }) => (p.code ? `${p.stage}:${p.code}` : p.stage))
}

beforeAll(async () => {
  const updated = await db().updateTable('sysConfig').set({ configValue: String(BLOCK_BYTES) }).where('configKey', '=', 'ota.blockBytes').executeTakeFirst()
  if (Number(updated.numUpdatedRows) === 0) {
    await db().insertInto('sysConfig').values({ configName: 'OTA block size', configKey: 'ota.blockBytes', configValue: String(BLOCK_BYTES), configType: 'N', createBy: 'test', createTime: new Date().toISOString() }).execute()
  }
})

afterAll(async () => {
  await Promise.all(sims.map((d) => d.disconnect().catch(() => {})))
  await clearRetained(
    t.app,
    sims.map((s) => s.sn),
  )
})

describe('OTA transfer', () => {
  it('builds an offer: the approved digests, blocks of ota.blockBytes, a signed expiring link to the upgrade’s image, the upgrade id', async () => {
    const image = randomBytes(5 * BLOCK_BYTES + 100)
    const { offer, upgradeId } = await upgrade(image)
    expect(otaOfferPayload.parse(offer)).toEqual(offer)
    expect(offer).toMatchObject({
      ota: 2,
      op: 'offer',
      id: otaIdOf(upgradeId, 1),
      part: 'iot',
      payload: 'firmware',
      version: '2.0.0',
      size: image.length,
      sha256: createHash('sha256').update(image).digest('hex'),
      crc8: crc8(image).toString(16).toUpperCase().padStart(2, '0'),
      blockBytes: BLOCK_BYTES,
      blocks: 6,
      minBattery: 30,
      commitSeconds: 300,
    })
    expect(offer.url).toMatch(new RegExp(`^/api/ota/image/${offer.id}\\?exp=\\d+&sig=[\\w-]{43}$`))
    expect(offer.urlExpiresAt).toBeGreaterThan(Date.now())
    expect(abortPayload(offer.id, 'cancelled')).toEqual({ v: 1, ota: 2, op: 'abort', id: offer.id, reason: 'cancelled' })
  })

  it('a device downloads the blocks, verifies, installs, reboots and reports the new version; the image is read from disk once', async () => {
    const image = randomBytes(40 * BLOCK_BYTES + 17)
    const a = await upgrade(image)
    const before = stats()
    const readsBefore = blockServerOf(t.app.services)!.images.reads
    const finished = a.sim.ota.finished(a.offer.id)
    await send(a.known, a.offer)
    expect(await finished).toEqual({ id: a.offer.id, result: 'installed' })
    await waitFor(async () => (await deviceRow(t, a.deviceId)).firmwareVersion === '2.0.0', 'the new version reported')
    const after = stats()
    expect(after.blocks - before.blocks).toBe(41)
    expect(after.bytes - before.bytes).toBe(image.length)
    expect(a.sim.ota.state).toMatchObject({ stage: 'committed', blocksReceived: 41, badFrames: 0 })
    // The last reports may still be on their way through the broker when the device says it is done.
    await waitFor(async () => (await stagesOf(a.deviceId, a.offer.id)).includes('committed'), 'the commit report logged')
    expect(await stagesOf(a.deviceId, a.offer.id)).toEqual([
      'accepted',
      'downloading',
      ...[10, 20, 30, 40, 50, 60, 70, 80, 90].map(() => 'downloading'),
      'downloaded',
      'verified',
      'installing',
      'rebooting',
      'trial',
      'committed',
    ])

    // A second device of the same campaign: the image comes from memory.
    const d2 = await device()
    const upgradeId = await upgradeRow(a.campaignId, d2.deviceId)
    const offer = { ...a.offer, id: otaIdOf(upgradeId, 1) }
    const second = d2.sim.ota.finished(offer.id)
    await send(d2.known, offer)
    expect((await second).result).toBe('installed')
    expect(blockServerOf(t.app.services)!.images.reads - readsBefore).toBe(1)
    // The block traffic stays out of the message log.
    await t.app.iot.messageLog.flush()
    const logged = await db().selectFrom('iotMessage').select('kind').where('deviceId', 'in', [a.deviceId, d2.deviceId]).where('kind', 'in', ['otaReq', 'otaBlock']).execute()
    expect(logged).toEqual([])
  })

  it('resumes from the first missing block after a dropped connection: about one window more, not the image twice', async () => {
    const image = randomBytes(64 * BLOCK_BYTES)
    const a = await upgrade(image, { otaDropAfterBlocks: 20, otaWindow: 8 })
    const before = stats()
    const finished = a.sim.ota.finished(a.offer.id)
    await send(a.known, a.offer)
    expect((await finished).result).toBe('installed')
    // The drop, and the reboot after installing.
    expect(a.sim.counters.drops).toBe(2)
    const served = stats().blocks - before.blocks
    expect(served).toBeGreaterThanOrEqual(64)
    expect(served).toBeLessThanOrEqual(64 + 8)
    await waitFor(async () => (await deviceRow(t, a.deviceId)).firmwareVersion === '2.0.0', 'the new version reported')
  })

  it('sends the offer again when the device asks (up/sync) while it has not downloaded the image: the same id; nothing once it has', async () => {
    const a = await upgrade(randomBytes(10 * BLOCK_BYTES))
    // The rollout handed the upgrade to the device and its offer was lost on the way (here: never sent).
    const finished = a.sim.ota.finished(a.offer.id)
    await a.sim.publish('sync', {})
    expect(await finished).toEqual({ id: a.offer.id, result: 'installed' })
    await waitFor(async () => (await deviceRow(t, a.deviceId)).firmwareVersion === '2.0.0', 'the new version reported')
    // Downloaded and installed: an ask finds nothing to offer.
    expect(await otaRolloutOf(t.app.services).offerAgain(a.known)).toBe(0)
  })

  it('a corrupted image is refused at verify (E_VERIFY_SHA256): nothing installed', async () => {
    const a = await upgrade(randomBytes(10 * BLOCK_BYTES), { otaCorrupt: true })
    const finished = a.sim.ota.finished(a.offer.id)
    await send(a.known, a.offer)
    expect(await finished).toEqual({ id: a.offer.id, result: 'failed', code: 'E_VERIFY_SHA256' })
    expect(a.sim.behaviour.firmwareVersion).toBe('1.0.0')
    await waitFor(async () => (await stagesOf(a.deviceId, a.offer.id)).includes('failed:E_VERIFY_SHA256'), 'failed reported')
    expect(await stagesOf(a.deviceId, a.offer.id)).not.toContain('verified')
  })

  it('serves no block for another device’s upgrade, another attempt, or an upgrade no longer active', async () => {
    const a = await upgrade(randomBytes(4 * BLOCK_BYTES))
    const other = await device()
    const ask = async (sim: SimulatedDevice, id: string) => {
      const before = stats()
      await sim.publish('otaReq', { id, first: 0, count: 4, blockBytes: BLOCK_BYTES })
      await waitFor(() => stats().requests > before.requests, 'the request handled')
      await waitFor(() => stats().ignored > before.ignored || stats().blocks > before.blocks, 'the request answered or refused')
      return stats().blocks - before.blocks
    }
    expect(await ask(other.sim, a.offer.id)).toBe(0)
    expect(await ask(a.sim, otaIdOf(a.upgradeId, 2))).toBe(0)
    expect(await ask(a.sim, 'not-an-upgrade')).toBe(0)
    // Its own, active upgrade is served.
    expect(await ask(a.sim, a.offer.id)).toBe(4)

    const finishedUpgrade = await upgrade(randomBytes(2 * BLOCK_BYTES))
    await db().updateTable('otaCampaignDevice').set({ state: 'succeeded' }).where('upgradeId', '=', finishedUpgrade.upgradeId).execute()
    expect(await ask(finishedUpgrade.sim, finishedUpgrade.offer.id)).toBe(0)
  })

  it('answers a request for the device’s own upgrade asking too many blocks, none of the image, or a block size out of range with an error frame', async () => {
    const a = await upgrade(randomBytes(4 * BLOCK_BYTES))
    const ask = async (request: Record<string, unknown>) => {
      const before = stats()
      const errors = a.sim.ota.blockErrors.length
      await a.sim.publish('otaReq', { id: a.offer.id, ...request })
      await waitFor(() => stats().requests > before.requests, 'the request handled')
      await waitFor(() => stats().wrong > before.wrong || stats().blocks > before.blocks, 'the request answered')
      expect(stats().blocks).toBe(before.blocks)
      await waitFor(() => a.sim.ota.blockErrors.length > errors, 'the error frame received')
      return a.sim.ota.blockErrors.at(-1)
    }
    expect(await ask({ first: 0, count: OTA_MAX_BLOCKS_PER_REQUEST + 1, blockBytes: BLOCK_BYTES })).toEqual({ id: a.offer.id, first: 0, error: 'E_WINDOW' })
    expect(await ask({ first: 4, count: 1, blockBytes: BLOCK_BYTES })).toEqual({ id: a.offer.id, first: 4, error: 'E_WINDOW' })
    expect(await ask({ first: 0, count: 4, blockBytes: OTA_BLOCK_BYTES.max + 1 })).toEqual({ id: a.offer.id, first: 0, error: 'E_BLOCK_BYTES' })
    expect(await ask({ first: 0, count: 4, blockBytes: 100 })).toEqual({ id: a.offer.id, first: 0, error: 'E_BLOCK_BYTES' })
    // Another device's upgrade still gets nothing, wrong or not: no frame says an id exists.
    const other = await device()
    const before = stats()
    await other.sim.publish('otaReq', { id: a.offer.id, first: 0, count: 99 })
    await waitFor(() => stats().ignored > before.ignored, 'the request ignored')
    expect(other.sim.ota.blockErrors).toEqual([])
  })

  it('downloads through the signed HTTPS link with byte ranges instead of MQTT blocks', async () => {
    let address = t.app.server.address() as AddressInfo | null
    if (!address) {
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      address = t.app.server.address() as AddressInfo
    }
    const image = randomBytes(30 * BLOCK_BYTES + 5)
    const a = await upgrade(image, { otaUseHttp: true, httpOrigin: `http://127.0.0.1:${address.port}` })

    const range = await t.call({ method: 'GET', url: a.offer.url!, headers: { range: `bytes=${BLOCK_BYTES}-${2 * BLOCK_BYTES - 1}` } })
    expect(range.status).toBe(206)
    expect(range.raw.equals(image.subarray(BLOCK_BYTES, 2 * BLOCK_BYTES))).toBe(true)
    // The link names this file: another signature is refused.
    const forged = await t.call({ method: 'GET', url: a.offer.url!.replace(/sig=[\w-]+/, `sig=${'A'.repeat(43)}`) })
    expect(forged.status).toBe(403)

    const before = stats()
    const finished = a.sim.ota.finished(a.offer.id)
    await send(a.known, a.offer)
    expect((await finished).result).toBe('installed')
    expect(stats().blocks - before.blocks).toBe(0)
    await waitFor(async () => (await deviceRow(t, a.deviceId)).firmwareVersion === '2.0.0', 'the new version reported')
  })

  it('renews a link that no longer works: the device asks (up/sync), the offer comes again with a fresh link, and the download carries on over HTTPS', async () => {
    let address = t.app.server.address() as AddressInfo | null
    if (!address) {
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      address = t.app.server.address() as AddressInfo
    }
    const a = await upgrade(randomBytes(12 * BLOCK_BYTES), { otaUseHttp: true, httpOrigin: `http://127.0.0.1:${address.port}` })
    // As a link past its time answers: 403 (here its time is altered, which answers the same).
    const stale = { ...a.offer, url: a.offer.url!.replace(/exp=\d+/, 'exp=1') }
    const before = stats()
    const finished = a.sim.ota.finished(a.offer.id)
    await send(a.known, stale)
    expect((await finished).result).toBe('installed')
    expect(a.sim.ota.linksRenewed).toBe(1)
    expect(stats().blocks - before.blocks).toBe(0)
  })

  it('an abort stops the download: the device reports aborted, asks for nothing more and keeps its version', async () => {
    const image = randomBytes(200 * BLOCK_BYTES)
    const a = await upgrade(image, { otaBytesPerSecond: 20 * BLOCK_BYTES })
    const finished = a.sim.ota.finished(a.offer.id)
    await send(a.known, a.offer)
    await waitFor(() => (a.sim.ota.state?.blocksReceived ?? 0) >= 10, 'some blocks in')
    await send(a.known, abortPayload(a.offer.id, 'cancelled'))
    expect(await finished).toEqual({ id: a.offer.id, result: 'aborted' })
    const after = stats().requests
    await new Promise((r) => setTimeout(r, 600))
    expect(stats().requests).toBe(after)
    expect(a.sim.ota.state?.stage).toBe('aborted')
    expect(a.sim.behaviour.firmwareVersion).toBe('1.0.0')
    await waitFor(async () => (await stagesOf(a.deviceId, a.offer.id)).includes('aborted'), 'aborted reported')
  })

  it('a device refuses while riding, on low battery or low SIM data, and for good the version it already runs', async () => {
    for (const [behaviour, code] of [
      [{ firmwareVersion: '2.0.0' }, 'incompatible'],
      [{ riding: true }, 'riding'],
      [{ battery: 12 }, 'batteryLow'],
      [{ simDataLow: true }, 'simDataLow'],
    ] as const) {
      const a = await upgrade(randomBytes(BLOCK_BYTES), behaviour)
      const finished = a.sim.ota.finished(a.offer.id)
      await send(a.known, a.offer)
      expect(await finished).toEqual({ id: a.offer.id, result: 'rejected', code })
      await waitFor(async () => (await stagesOf(a.deviceId, a.offer.id)).includes(`rejected:${code}`), `rejected ${code} reported`)
    }
  })
})

describe('OTA image cache', () => {
  const stored = async (bytes: Buffer) => ({ fileName: await t.app.services.storage.save('file/iotFirmware', 'bin', bytes), sha256: createHash('sha256').update(bytes).digest('hex') })

  it('keeps images within its byte budget, least recently used out first', async () => {
    const cache = new ImageCache(t.app.services.storage, 3000)
    const [a, b, c] = await Promise.all([stored(randomBytes(1000)), stored(randomBytes(1000)), stored(randomBytes(1500))])
    await Promise.all([cache.get(a), cache.get(a), cache.get(b)])
    expect(cache.reads).toBe(2)
    await cache.get(a)
    await cache.get(c)
    // b was used least recently: it made room for c.
    expect(cache.size).toEqual({ images: 2, bytes: 2500 })
    await cache.get(a)
    expect(cache.reads).toBe(3)
    await cache.get(b)
    expect(cache.reads).toBe(4)
  })

  it('never serves bytes that no longer have the offered SHA-256', async () => {
    const cache = new ImageCache(t.app.services.storage, 10_000)
    const image = await stored(randomBytes(1000))
    await writeFile(t.app.services.storage.resolve(image.fileName)!, randomBytes(1000))
    await expect(cache.get(image)).rejects.toBeInstanceOf(ImageMismatch)
  })
})
