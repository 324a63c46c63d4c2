import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { crc8, downTopic, encodeOtaBlock, otaBlockRequestPayload, otaManifestText, type OtaOfferPayload, parseTopic, PROTOCOL_VERSION, statusPayload, upTopic } from '@velo/shared'
import { type DeviceOptions, SimulatedDevice } from '../src'
import { secretOf, startBroker, type TestBroker, waitFor } from './helpers'

// The simulator's upgrades against a test broker where this file plays the server: it answers block
// requests with frames of one image (the server's block server is tested in packages/server).

let broker: TestBroker
const devices: SimulatedDevice[] = []
let n = 0
const BLOCK = 1024
const hex2 = (v: number) => v.toString(16).toUpperCase().padStart(2, '0')

/** Images by upgrade id; every block request is answered from them (or not at all, for `dropped` blocks). */
const images = new Map<string, Buffer>()
const served = { blocks: 0 }
/** Blocks (by number) answered once with a wrong CRC-8. */
const damagedOnce = new Set<number>()

function publish(topic: string, payload: Buffer | string) {
  return new Promise<void>((resolve, reject) =>
    broker.aedes.publish({ cmd: 'publish', topic, payload: Buffer.from(payload), qos: 0, retain: false, dup: false }, (err) => (err ? reject(err) : resolve())),
  )
}

beforeAll(async () => {
  broker = await startBroker()
  broker.aedes.on('publish', (packet) => {
    const topic = parseTopic(packet.topic)
    if (topic?.direction !== 'up' || topic.kind !== 'otaReq') return
    const request = otaBlockRequestPayload.parse(JSON.parse(packet.payload.toString()))
    const image = images.get(request.id)
    if (!image) return
    const blockBytes = request.blockBytes ?? BLOCK
    for (let b = request.first; b < request.first + request.count && b * blockBytes < image.length; b++) {
      const bytes = image.subarray(b * blockBytes, (b + 1) * blockBytes)
      const bad = damagedOnce.delete(b)
      served.blocks++
      void publish(downTopic(topic.sn, 'otaBlock'), Buffer.from(encodeOtaBlock({ id: request.id, n: b, crc8: hex2(crc8(bytes) ^ (bad ? 1 : 0)), size: bytes.length }, bytes)))
    }
  })
})
afterEach(async () => {
  await Promise.all(devices.splice(0).map((d) => d.disconnect()))
})
afterAll(async () => {
  await broker.close()
})

async function device(o: Partial<DeviceOptions> = {}) {
  const sn = `OT${String(++n).padStart(4, '0')}`
  const d = new SimulatedDevice({ url: broker.url, sn, secret: secretOf(sn), mqtt: { reconnectPeriod: 0 }, otaRetryMs: 300, otaKeys: TEST_KEYS, ...o })
  devices.push(d)
  await d.connect()
  return d
}

/** The key this file signs its offers' manifests with, as the server does (devices are given its public half). */
const signingKey = generateKeyPairSync('ed25519')
const rawPublic = Buffer.from(String(signingKey.publicKey.export({ format: 'jwk' }).x), 'base64url')
const TEST_KEYS = [{ keyId: createHash('sha256').update(rawPublic).digest('hex').slice(0, 16), publicKey: rawPublic.toString('base64') }]

/** The offer's manifest, signed: what the offer says of its image, with no hardware or minimum version. */
function signed<T extends Omit<OtaOfferPayload, 'manifest' | 'signature' | 'keyId'>>(offer: T) {
  const manifest = otaManifestText({
    format: 1,
    part: offer.part,
    kind: offer.payload,
    supplier: '',
    product: '',
    name: offer.payload === 'audio' ? (offer.name ?? '') : '',
    version: offer.version,
    size: offer.size,
    sha256: offer.sha256,
    hardware: [],
    minVersion: '',
  })
  return { ...offer, manifest, signature: sign(null, Buffer.from(manifest), signingKey.privateKey).toString('base64'), keyId: TEST_KEYS[0]!.keyId }
}

function offerOf(image: Buffer, o: Partial<OtaOfferPayload> = {}): OtaOfferPayload {
  const id = `c${++n}a1`
  images.set(id, image)
  return signed({
    v: PROTOCOL_VERSION,
    ota: 2,
    op: 'offer',
    id,
    part: 'iot',
    payload: 'firmware',
    version: '3.1.0',
    size: image.length,
    sha256: createHash('sha256').update(image).digest('hex'),
    crc8: hex2(crc8(image)),
    blockBytes: BLOCK,
    blocks: Math.ceil(image.length / BLOCK),
    timeoutSeconds: 600,
    ...o,
  })
}

const offer = (d: SimulatedDevice, payload: Record<string, unknown>) => publish(downTopic(d.sn, 'ota'), JSON.stringify(payload))
const stages = (d: SimulatedDevice, id: string) =>
  broker
    .on(upTopic(d.sn, 'ota'))
    .filter((m) => m.payload.id === id)
    .map((m) => (m.payload.code ? `${m.payload.stage}:${m.payload.code}` : m.payload.progress !== undefined ? `${m.payload.stage} ${m.payload.progress}` : m.payload.stage))
const lastStatus = (d: SimulatedDevice) => statusPayload.parse(broker.on(upTopic(d.sn, 'status')).at(-1)!.payload)

describe('SimulatedDevice upgrades', () => {
  it('downloads in windows, reports every 10 %, verifies, installs, reboots, goes on trial and commits after its self-test', async () => {
    const d = await device()
    const o = offerOf(randomBytes(50 * BLOCK + 3))
    const finished = d.ota.finished(o.id)
    await offer(d, o)
    expect(await finished).toEqual({ id: o.id, result: 'installed' })
    expect(stages(d, o.id)).toEqual([
      'accepted',
      'downloading 0',
      ...[10, 20, 30, 40, 50, 60, 70, 80, 90].map((p) => `downloading ${p}`),
      'downloaded 100',
      'verified',
      'installing',
      'rebooting',
      'trial',
      'committed',
    ])
    // The trial names the version it runs; the commit comes after the status that reported it.
    const reports = broker.on(upTopic(d.sn, 'ota')).filter((m) => m.payload.id === o.id)
    expect(reports.find((m) => m.payload.stage === 'trial')?.payload.version).toBe('3.1.0')
    expect(d.ota.state?.stage).toBe('committed')
    const requests = broker.on(upTopic(d.sn, 'otaReq')).map((m) => [m.payload.first, m.payload.count])
    expect(requests).toEqual([0, 8, 16, 24, 32, 40, 48].map((first) => [first, first === 48 ? 3 : 8]))
    await waitFor(() => lastStatus(d).firmwareVersion === '3.1.0', 'the new version in a status')
    expect(broker.on(upTopic(d.sn, 'presence')).map((m) => m.payload.reason ?? m.payload.state)).toEqual(['online', 'reboot', 'online'])
  })

  it('asks again for a block whose CRC-8 is wrong', async () => {
    const d = await device()
    const o = offerOf(randomBytes(12 * BLOCK))
    damagedOnce.add(5)
    const finished = d.ota.finished(o.id)
    await offer(d, o)
    expect((await finished).result).toBe('installed')
    expect(d.ota.state).toMatchObject({ badFrames: 1, blocksReceived: 12 })
    expect(broker.on(upTopic(d.sn, 'otaReq')).map((m) => m.payload.first)).toContain(5)
  })

  it('resumes after a dropped connection from the first missing block', async () => {
    const d = await device({ otaDropAfterBlocks: 10 })
    const o = offerOf(randomBytes(40 * BLOCK))
    const before = served.blocks
    const finished = d.ota.finished(o.id)
    await offer(d, o)
    expect((await finished).result).toBe('installed')
    // The drop, and the reboot after installing.
    expect(d.counters.drops).toBe(2)
    expect(served.blocks - before).toBeLessThanOrEqual(40 + 8)
    const firsts = broker.on(upTopic(d.sn, 'otaReq')).map((m) => m.payload.first as number)
    // No request starts before the blocks already in.
    expect(firsts.every((f, i) => i === 0 || f >= firsts[i - 1]!)).toBe(true)
  })

  it('fails at verify with E_VERIFY_SHA256 when the image is damaged, and an install with its code', async () => {
    const corrupt = await device({ otaCorrupt: true })
    const o1 = offerOf(randomBytes(4 * BLOCK))
    const f1 = corrupt.ota.finished(o1.id)
    await offer(corrupt, o1)
    expect(await f1).toEqual({ id: o1.id, result: 'failed', code: 'E_VERIFY_SHA256' })

    const broken = await device({ otaInstallFailCode: 'E_FLASH_WRITE' })
    const o2 = offerOf(randomBytes(4 * BLOCK))
    const f2 = broken.ota.finished(o2.id)
    await offer(broken, o2)
    expect(await f2).toEqual({ id: o2.id, result: 'failed', code: 'E_FLASH_WRITE' })
    expect(stages(broken, o2.id).slice(-3)).toEqual(['verified', 'installing', 'failed:E_FLASH_WRITE'])
    expect(broken.behaviour.firmwareVersion).toBe('1.0.0')
  })

  it('reports the old version after the reboot when told to', async () => {
    const d = await device({ otaKeepOldVersion: true })
    const o = offerOf(randomBytes(2 * BLOCK))
    const finished = d.ota.finished(o.id)
    await offer(d, o)
    expect((await finished).result).toBe('installed')
    await waitFor(() => broker.on(upTopic(d.sn, 'presence')).length >= 3, 'back after the reboot')
    expect(lastStatus(d).firmwareVersion).toBe('1.0.0')
  })

  it('rolls back when its self-test fails: rolledBack with E_SELF_TEST, then the old version again after another reboot', async () => {
    const d = await device({ otaSelfTestFail: true })
    const o = offerOf(randomBytes(2 * BLOCK))
    const finished = d.ota.finished(o.id)
    await offer(d, o)
    expect(await finished).toEqual({ id: o.id, result: 'rolledBack', code: 'E_SELF_TEST' })
    expect(stages(d, o.id).slice(-3)).toEqual(['rebooting', 'trial', 'rolledBack:E_SELF_TEST'])
    const rolledBack = broker.on(upTopic(d.sn, 'ota')).find((m) => m.payload.id === o.id && m.payload.stage === 'rolledBack')!
    expect(rolledBack.payload).toMatchObject({ code: 'E_SELF_TEST', version: '1.0.0' })
    expect(d.behaviour.firmwareVersion).toBe('1.0.0')
    await waitFor(() => lastStatus(d).firmwareVersion === '1.0.0' && broker.on(upTopic(d.sn, 'presence')).length >= 5, 'back on the old version')
    // Into the new image and back out of it: two reboots.
    expect(broker.on(upTopic(d.sn, 'presence')).map((m) => m.payload.reason ?? m.payload.state)).toEqual(['online', 'reboot', 'online', 'reboot', 'online'])
    expect(d.ota.state).toMatchObject({ stage: 'rolledBack', code: 'E_SELF_TEST' })
  })

  it('rolls back by itself when it has not committed within the offer’s commitSeconds', async () => {
    const d = await device({ otaNeverCommit: true })
    const o = offerOf(randomBytes(2 * BLOCK), { commitSeconds: 1 })
    const finished = d.ota.finished(o.id)
    await offer(d, o)
    await waitFor(() => d.ota.state?.stage === 'trial' || null, 'on trial')
    const onTrial = Date.now()
    expect(await finished).toEqual({ id: o.id, result: 'rolledBack', code: 'E_COMMIT_TIMEOUT' })
    expect(Date.now() - onTrial).toBeGreaterThanOrEqual(800)
    expect(stages(d, o.id).slice(-2)).toEqual(['trial', 'rolledBack:E_COMMIT_TIMEOUT'])
    await waitFor(() => lastStatus(d).firmwareVersion === '1.0.0' || null, 'the old version reported')
  })

  it('rolls a display back through its IoT module when the part’s self-test fails', async () => {
    const d = await device({ otaSelfTestFail: true })
    const o = offerOf(randomBytes(2 * BLOCK), { part: 'display', version: '4.0.1' })
    const finished = d.ota.finished(o.id)
    await offer(d, o)
    expect(await finished).toEqual({ id: o.id, result: 'rolledBack', code: 'E_SELF_TEST' })
    expect(stages(d, o.id).slice(-3)).toEqual(['rebooting', 'trial', 'rolledBack:E_SELF_TEST'])
    await waitFor(() => lastStatus(d).parts?.display?.version === '1.0.0' || null, 'the display’s old version in a status')
    expect(d.counters.drops).toBe(0)
  })

  it('relays a display image: the module stays online and its status reports the part’s new version', async () => {
    const d = await device()
    const o = offerOf(randomBytes(3 * BLOCK), { part: 'display', version: '4.0.1' })
    const finished = d.ota.finished(o.id)
    await offer(d, o)
    expect((await finished).result).toBe('installed')
    await waitFor(() => lastStatus(d).parts?.display?.version === '4.0.1', 'the display version in a status')
    expect(lastStatus(d).firmwareVersion).toBe('1.0.0')
    expect(d.counters.drops).toBe(0)
  })

  it('installs an audio file: its status lists it, nothing reboots', async () => {
    const d = await device()
    const o = offerOf(randomBytes(2 * BLOCK), { payload: 'audio', name: 'welcome', version: '1.2.0' })
    const finished = d.ota.finished(o.id)
    await offer(d, o)
    expect((await finished).result).toBe('installed')
    await waitFor(() => lastStatus(d).audio?.welcome === '1.2.0', 'the audio in a status')
    expect(stages(d, o.id)).not.toContain('rebooting')
  })

  it('refuses while riding, below the battery minimum, on low SIM data, and a second upgrade while busy', async () => {
    const cases: [Partial<DeviceOptions>, Partial<OtaOfferPayload>, string][] = [
      [{ riding: true }, {}, 'riding'],
      [{ battery: 20 }, { minBattery: 30 }, 'batteryLow'],
      [{ simDataLow: true }, {}, 'simDataLow'],
      [{ simUsedMb: 1024, simLimitMb: 1024 }, {}, 'simDataLow'],
    ]
    for (const [behaviour, extra, code] of cases) {
      const d = await device(behaviour)
      const o = offerOf(randomBytes(BLOCK), extra)
      const finished = d.ota.finished(o.id)
      await offer(d, o)
      expect(await finished).toEqual({ id: o.id, result: 'rejected', code })
    }
    const busy = await device({ otaBytesPerSecond: 4 * BLOCK })
    const first = offerOf(randomBytes(40 * BLOCK))
    const second = offerOf(randomBytes(BLOCK))
    await offer(busy, first)
    const refused = busy.ota.finished(second.id)
    await offer(busy, second)
    expect(await refused).toEqual({ id: second.id, result: 'rejected', code: 'busy' })
  })

  it('stops on an abort and reports aborted', async () => {
    const d = await device({ otaBytesPerSecond: 8 * BLOCK })
    const o = offerOf(randomBytes(100 * BLOCK))
    const finished = d.ota.finished(o.id)
    await offer(d, o)
    await waitFor(() => (d.ota.state?.blocksReceived ?? 0) >= 8, 'a first window')
    await offer(d, { v: 1, ota: 2, op: 'abort', id: o.id })
    expect(await finished).toEqual({ id: o.id, result: 'aborted' })
    const asked = broker.on(upTopic(d.sn, 'otaReq')).length
    await new Promise((r) => setTimeout(r, 400))
    expect(broker.on(upTopic(d.sn, 'otaReq')).length).toBe(asked)
    expect(stages(d, o.id).at(-1)).toBe('aborted')
  })
})
