/**
 * OTA benchmark (the `ota` part of `npm run bench`; alone with BENCH_ONLY=ota). For each database and
 * broker, through bench/fleet-harness.ts as the other fleet benches: a fresh server with
 * BENCH_OTA_DEVICES (10,000) devices written into its database, all connected from this process with
 * the simulator's Fleet; a BENCH_OTA_MB (2) MB firmware uploaded through the API (supplier, product,
 * the file, the firmware row), ota.approvalRequired off, and a campaign for the fleet's devices
 * submitted and started without a rate limit. Measured: the time until every device has succeeded
 * (the campaign's overview counts; a device succeeds once its status reports the new version), the
 * bytes the devices received against the image's size times the devices, the server's CPU and peak
 * RSS. Then a second campaign with a rate limit of BENCH_OTA_RATE (1,000) devices a minute runs for
 * BENCH_OTA_RATE_SECONDS (90): the most devices notified within any 60 s (the limit is a sliding
 * minute) and the average rate, from their rows; it is then cancelled (forced).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHash, randomBytes } from 'node:crypto'
import { checkManifest, type Fleet } from '@velo/device-sim'
import { OTA_PROTOCOL, type OtaCampaignOverview, type OtaOfferPayload, type OtaPublicKey, type OtaSignedKeySet, otaKeySetSchema, PROTOCOL_VERSION } from '@velo/shared'
import type { Db } from '../src/db/database'
import { OtaKeyring } from '../src/modules/ota/signing/keys'
import { manifestOf, ManifestSigner } from '../src/modules/ota/signing/manifest'
import { cpuText, fleetBench, type Broker, mb, phase, seconds, sleep } from './fleet-harness'
import { fmt, log } from './format'
import { api, type Line, type Target } from './run'

export interface OtaBench {
  devices: number
  concurrency: number
  megabytes: number
  /** Devices notified per minute in the rate-limited campaign. */
  rate: number
  rateSeconds: number
  /** How long the unlimited campaign may take before the run is reported unfinished. */
  timeoutSeconds: number
}

/** Bench SNs: the demo model's prefix VL, then O (apart from the other benches' and the simulator's). */
const SN_PREFIX = 'VLO'
const PRODUCT_ID = 'VELO-4G'
/** The simulated devices report this hardware revision: the product must match it. */
const HARDWARE = 'HW-A1'

type Headers = Record<string, string>

async function ok<T>(res: Promise<{ status: number; code: number; msg: string; data: T | undefined }>, what: string) {
  const r = await res
  if (r.code !== 200) throw new Error(`${what} answered ${r.status} ${r.msg}`)
  return r.data!
}

/** A firmware of the IoT module with `bytes` as its file, through the API as the console adds one. */
async function addFirmware(base: string, headers: Headers, productIds: { supplierId: number; productId: number }, version: string, bytes: Buffer) {
  const form = new FormData()
  form.append('file', new Blob([bytes]), `bench-${version}.bin`)
  const upload = await fetch(`${base}/iot/firmware/file/file`, { method: 'POST', headers: { authorization: headers.authorization! }, body: form })
  const uploaded = (await upload.json()) as { code: number; msg: string; data: { fileName: string } }
  if (uploaded.code !== 200) throw new Error(`the firmware upload answered ${upload.status} ${uploaded.msg}`)
  const body = { name: `Bench firmware ${version}`, code: `BENCH-${version}-${randomBytes(3).toString('hex')}`, ...productIds, customVersion: version, file: uploaded.data.fileName, moduleType: 'whole' }
  const row = await ok(api<{ firmwareId: number }>(base, '/iot/firmware', { method: 'POST', headers, body }), 'adding the firmware')
  return Number(row.firmwareId)
}

/** A campaign for the bench's devices, submitted and started (no approval: ota.approvalRequired is off). */
async function startCampaign(base: string, headers: Headers, o: { name: string; firmwareId: number; modelId: number; deviceIds: number[]; ratePerMinute: number }) {
  const body = {
    name: o.name,
    payload: 'firmware',
    firmwareId: o.firmwareId,
    modelIds: [o.modelId],
    deviceIds: o.deviceIds,
    // One canary of 10 %, then the rest; a failing device must not stop what is measured.
    canaryPercent: 10,
    waveCount: 1,
    successPercent: 90,
    errorPercent: 100,
    ratePerMinute: o.ratePerMinute,
    randomOrder: false,
    timeoutMinutes: 30,
    retries: 0,
    minBattery: 0,
    alarmRateFactor: 0,
  }
  const row = await ok(api<{ campaignId: number }>(base, '/iot/upgrade', { method: 'POST', headers, body }), `adding campaign ${o.name}`)
  const campaignId = Number(row.campaignId)
  await ok(api(base, `/iot/upgrade/${campaignId}/submit`, { method: 'POST', headers, body: {} }), 'submitting the campaign')
  await ok(api(base, `/iot/upgrade/${campaignId}/start`, { method: 'POST', headers, body: {} }), 'starting the campaign')
  return campaignId
}

/** Sets a config key (the seed may have it, or not). */
async function setConfig(db: Db, key: string, value: string) {
  const updated = await db.updateTable('sysConfig').set({ configValue: value }).where('configKey', '=', key).executeTakeFirst()
  if (Number(updated.numUpdatedRows) === 0) await db.insertInto('sysConfig').values({ configName: key, configKey: key, configValue: value, configType: 'N', createBy: 'bench', createTime: new Date().toISOString() }).execute()
}

/** What the fleet's devices did with their upgrades. */
function fleetOta(fleet: Fleet) {
  let installed = 0
  let bytes = 0
  let frames = 0
  for (const d of fleet.devices) {
    const s = d.ota.state
    if (!s) continue
    // A firmware's upgrade ends committed after its trial (docs/ota.md › Commit or roll back); an audio file's installed.
    if (s.stage === 'committed' || s.stage === 'installed') installed++
    bytes += s.bytesReceived
    frames += s.framesReceived
  }
  return { installed, bytes, frames }
}

export async function runOta(target: Target, broker: Broker, bench: OtaBench, serverEntry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const n = bench.devices
  // A device asks again for blocks that have not come after 10 s: under load the broker is slow, not lossy.
  const setup = { target, broker, serverEntry, prefix: SN_PREFIX, devices: n, concurrency: bench.concurrency, label: 'ota', failure: 'ota', behaviour: { otaRetryMs: 10_000 } }
  return fleetBench(setup, async ({ name, add, notes, server, db, base, headers, ids, connect }) => {
    const { fleet } = await connect()
    // The devices are given the server's keys as their registration would give them (they were written
    // straight into the database): one request here, not one per device.
    const keySet = await ok(api<OtaSignedKeySet>(base, '/iot/ota-keys', { headers }), 'the OTA key set')
    const otaKeys: OtaPublicKey[] = otaKeySetSchema.parse(JSON.parse(keySet.keys)).keys
    for (const d of fleet.devices) d.behaviour.otaKeys = otaKeys
    await setConfig(db, 'ota.approvalRequired', 'false')
    const model = await db.selectFrom('iotModel').select('modelId').where('productId', '=', PRODUCT_ID).executeTakeFirstOrThrow()
    const supplier = await ok(api<{ supplierId: number }>(base, '/ota/iotpart/supplier', { method: 'POST', headers, body: { name: 'Bench supplier', supplierCode: 'BS', iotCode: 'BS' } }), 'adding the supplier')
    const supplierId = Number(supplier.supplierId)
    const product = await ok(
      api<{ productId: number }>(base, '/ota/iotpart/product', { method: 'POST', headers, body: { supplierId, name: 'Bench module', productCode: 'BM', hardwareRevision: HARDWARE, bikeModelIds: [] } }),
      'adding the product',
    )
    const productIds = { supplierId, productId: Number(product.productId) }
    const size = Math.round(bench.megabytes * 1024 * 1024)
    const deviceIds = [...ids.values()]

    // --- every device, no rate limit
    const firmwareId = await addFirmware(base, headers, productIds, '2.0.0', randomBytes(size))
    log(`${name}: a ${mb(size)} image to ${fmt(n)} devices, no rate limit`)
    const run = phase(server)
    const campaignId = await startCampaign(base, headers, { name: 'Bench upgrade', firmwareId, modelId: Number(model.modelId), deviceIds, ratePerMinute: 0 })
    let counts: Record<string, number> = {}
    let status = ''
    const until = performance.now() + bench.timeoutSeconds * 1000
    let lastLog = 0
    while (performance.now() < until) {
      const overview = await ok(api<OtaCampaignOverview>(base, `/iot/upgrade/${campaignId}/overview`, { headers }), 'the overview')
      counts = overview.counts ?? {}
      status = overview.status
      const finished = ['succeeded', 'failed', 'rolledBack', 'timedOut', 'rejected', 'skipped', 'cancelled'].reduce((sum, s) => sum + (counts[s] ?? 0), 0)
      if (finished >= n || status === 'finished' || status === 'paused') break
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now()
        log(`${name}: ${fmt(counts.succeeded ?? 0)} succeeded, ${fmt(fleetOta(fleet).installed)} installed on the devices`)
      }
      await sleep(500)
    }
    const done = run.stop()
    const succeeded = counts.succeeded ?? 0
    const onDevices = fleetOta(fleet)
    add(`OTA ${mb(size)} to ${fmt(n)} devices (no rate limit): all succeeded`, succeeded === n ? seconds(done.wall * 1000) : `${fmt(succeeded)} of ${fmt(n)} after ${seconds(done.wall * 1000)} (campaign ${status})`, {
      pass: succeeded === n,
    })
    add(
      'OTA: image bytes the devices received',
      `${mb(onDevices.bytes)} (${fmt(onDevices.bytes / (size * n), 3)} × image × devices; ${fmt(onDevices.frames)} blocks, ${fmt(onDevices.bytes / Math.max(1, done.wall) / 1024 / 1024, 1)} MB/s)`,
    )
    add('OTA: device states', Object.entries(counts).filter(([, c]) => c > 0).map(([s, c]) => `${fmt(c)} ${s}`).join(', ') || 'none')
    add('OTA: server', cpuText(done))
    const cost = signingCost(size)
    add('OTA: signing a manifest (server, Ed25519; once per campaign and key, then cached)', `${fmt(cost.signUs, 1)} µs`)
    add('OTA: checking an offer’s manifest (device: signature and fields)', `${fmt(cost.verifyUs, 1)} µs per offer`)

    // --- a rate limit
    const secondId = await addFirmware(base, headers, productIds, '3.0.0', randomBytes(size))
    log(`${name}: a campaign limited to ${fmt(bench.rate)} devices a minute, for ${bench.rateSeconds} s`)
    const rated = await startCampaign(base, headers, { name: 'Bench rate limit', firmwareId: secondId, modelId: Number(model.modelId), deviceIds, ratePerMinute: bench.rate })
    const rateUntil = performance.now() + bench.rateSeconds * 1000
    let rateStatus = 'running'
    while (performance.now() < rateUntil && rateStatus === 'running') {
      await sleep(1000)
      rateStatus = (await ok(api<OtaCampaignOverview>(base, `/iot/upgrade/${rated}/overview`, { headers }), 'the overview')).status
    }
    const notified = await db.selectFrom('otaCampaignDevice').select('notifiedAt').where('campaignId', '=', rated).where('notifiedAt', 'is not', null).orderBy('notifiedAt').execute()
    if (rateStatus === 'running') await ok(api(base, `/iot/upgrade/${rated}/cancel`, { method: 'POST', headers, body: { forced: true } }), 'cancelling the rate-limited campaign')
    const times = notified.map((r) => new Date(r.notifiedAt!).getTime())
    if (times.length === 0) {
      add(`OTA rate limit ${fmt(bench.rate)}/min`, `no device notified in ${bench.rateSeconds} s`, { pass: false })
      return
    }
    // The limit is a sliding minute: never more than the rate notified within any 60 s.
    let busiestMinute = 0
    for (let from = 0, to = 0; to < times.length; to++) {
      while (times[to]! - times[from]! >= 60_000) from++
      busiestMinute = Math.max(busiestMinute, to - from + 1)
    }
    const spanMs = times.at(-1)! - times[0]!
    const sustained = spanMs >= 60_000 ? `, ${fmt((times.length - 1) / (spanMs / 60_000))}/min on average over ${seconds(spanMs)}` : ''
    add(`OTA rate limit ${fmt(bench.rate)}/min: most notified within any 60 s`, `${fmt(busiestMinute)} (${fmt(times.length)} notified in all${sustained})`, {
      target: `≤ ${fmt(bench.rate)}`,
      pass: busiestMinute <= bench.rate,
    })
    if (times.length >= n) notes.push(`${name}: every device was notified within the ${bench.rateSeconds} s of the rate-limited campaign; more devices make a longer measure.`)
  })
}

/**
 * What signed images cost, measured in this process with the server's signer and the simulator's
 * check: signing one manifest (the server signs each campaign's once per key, then serves it from its
 * cache), and a device's check of one offer (the Ed25519 verification and the manifest's fields).
 */
function signingCost(size: number): { signUs: number; verifyUs: number } {
  const dir = mkdtempSync(join(tmpdir(), 'velo-bench-signing-'))
  try {
    const keyring = OtaKeyring.load({ dataDir: dir })
    const rounds = 2000
    const manifests = Array.from({ length: rounds }, (_, i) =>
      manifestOf({ part: 'iot', payload: 'firmware', approved: { sha256: createHash('sha256').update(String(i)).digest('hex'), size }, version: '2.0.0', supplier: 'BS', product: 'BM', hardware: [HARDWARE] }),
    )
    // A fresh signer per round would measure the cache; each manifest differs, so each is signed.
    const signer = new ManifestSigner(keyring)
    let t0 = performance.now()
    const signed = manifests.map((m) => signer.sign(m))
    const signUs = ((performance.now() - t0) * 1000) / rounds
    const offers: OtaOfferPayload[] = signed.map((s, i) => ({
      v: PROTOCOL_VERSION,
      ota: OTA_PROTOCOL,
      op: 'offer',
      id: `c${i}a1`,
      part: 'iot',
      payload: 'firmware',
      version: '2.0.0',
      size,
      sha256: manifests[i]!.sha256,
      crc8: '00',
      blockBytes: 4096,
      blocks: Math.ceil(size / 4096),
      timeoutSeconds: 1800,
      ...s,
    }))
    t0 = performance.now()
    let failed = 0
    for (const offer of offers) if (!checkManifest(offer, keyring.keys, { currentVersion: '1.0.0', hardware: HARDWARE }).ok) failed++
    const verifyUs = ((performance.now() - t0) * 1000) / rounds
    if (failed) throw new Error(`${failed} of ${rounds} signed manifests did not verify`)
    return { signUs, verifyUs }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
