import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkManifest, type DeviceOptions, registerDevice, type SimulatedDevice, verifySigned } from '@velo/device-sim'
import { type OtaCampaignOverview, otaKeySetSchema, otaManifestSchema, otaManifestText, otaOfferPayload, type OtaPublicKey, type OtaSignedKeySet, type SqlRunResult } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config'
import { otaRolloutOf } from '../src/modules/ota/rollout'
import { otaPublicKeysOf, otaSignerOf } from '../src/modules/ota/signing'
import { keyIdOf, rawPublicKeyOf, RETIRED_FOLDER, SIGNING_FOLDER, SIGNING_KEY_FILE } from '../src/modules/ota/signing/keys'
import { blockServerOf } from '../src/modules/ota/transfer'
import { approvedImageOf, buildOffer, imageOf } from '../src/modules/ota/transfer/offer'
import { backupMessage, createBackup } from '../src/ops/backup'
import { createTestApp, multipart, type TestApp, useTestApp } from './harness'
import { clearRetained, insertDevice, simulated, waitFor } from './iot-helpers'

// Signed images (issue 35 §2, docs/ota.md › Signed images): every offer carries the manifest of the
// campaign's approved image signed with the environment's Ed25519 key; devices learn the public keys
// at registration (or from a key update signed by a key they trust) and refuse an offer whose
// signature, key or manifest does not check out, before a byte is downloaded. Through the real
// server, its rollout and the embedded broker (or TEST_MQTT_URL), with the simulator as the device.

const t = useTestApp()
const sims: SimulatedDevice[] = []
const others: TestApp[] = []
let serial = 0
const db = () => t.app.services.db

type Method = 'GET' | 'POST' | 'PUT'
async function ok<T = unknown>(method: Method, url: string, body?: unknown, app: TestApp | typeof t = t, token?: string) {
  const res = await app.call<T>({ method, url: `/api${url}`, token: token ?? t.admin, body: body ?? (method === 'POST' ? {} : undefined) })
  expect(res.status, res.msg).toBe(200)
  return res.data
}

beforeAll(async () => {
  otaRolloutOf(t.app.services).configure({ tickMs: 100 })
  await db().updateTable('sysConfig').set({ configValue: 'false' }).where('configKey', '=', 'ota.approvalRequired').execute()
})

afterAll(async () => {
  await Promise.all(sims.map((s) => s.disconnect().catch(() => {})))
  await clearRetained(t.app, sims.map((s) => s.sn)).catch(() => {})
  for (const o of others) await o.close()
})

/** An IoT module firmware uploaded through the API, its supplier and product with codes the manifest carries. */
async function firmware(version: string, bytes = Buffer.from(`image ${version} ${Date.now()} ${++serial}`.repeat(300))) {
  const supplier = await ok<{ supplierId: number }>('POST', '/ota/iotpart/supplier', { name: `Signing supplier ${++serial}`, supplierCode: 'QT', iotCode: 'Q' })
  const product = await ok<{ productId: number }>('POST', '/ota/iotpart/product', { supplierId: supplier.supplierId, name: `Signing module ${serial}`, productCode: 'EC', hardwareRevision: 'HW-A1' })
  const upload = await t.call<{ fileName: string }>({ method: 'POST', url: '/api/iot/firmware/file/file', token: t.admin, ...multipart([{ name: 'fw.bin', bytes }]) })
  expect(upload.status, upload.msg).toBe(200)
  const fw = await ok<{ firmwareId: number }>('POST', '/iot/firmware', {
    name: `Signed ${version} ${serial}`,
    code: `signed-${serial}-${Date.now()}`,
    supplierId: supplier.supplierId,
    productId: product.productId,
    customVersion: version,
    file: upload.data.fileName,
  })
  return { firmwareId: Number(fw.firmwareId), bytes }
}

/** A campaign of the firmware for these devices, submitted (approval off) and started. */
async function running(firmwareId: number, deviceIds: number[]) {
  const c = await ok<{ campaignId: number }>('POST', '/iot/upgrade', {
    name: `Signed rollout ${++serial}`,
    payload: 'firmware',
    firmwareId,
    deviceIds,
    randomOrder: false,
    canaryCount: deviceIds.length,
    waveCount: 1,
    successPercent: 100,
    errorPercent: 100,
    errorMinFinished: 100,
    alarmRateFactor: 0,
    retries: 0,
    timeoutMinutes: 5,
    ratePerMinute: 0,
    minBattery: 0,
  })
  const campaignId = Number(c.campaignId)
  expect((await ok<{ status: string }>('POST', `/iot/upgrade/${campaignId}/submit`)).status).toBe('scheduled')
  expect((await ok<{ status: string }>('POST', `/iot/upgrade/${campaignId}/start`)).status).toBe('running')
  return campaignId
}

async function onlineDevice(behaviour: Partial<DeviceOptions> = {}, app: TestApp | typeof t = t) {
  const reg = await insertDevice(app)
  const sim = simulated(app.app, reg, { firmwareVersion: '1.0.0', otaInstallMs: 5, ...behaviour })
  sims.push(sim)
  await sim.connect()
  await waitFor(
    async () => (await app.app.services.db.selectFrom('iotDevice').select('firmwareVersion').where('deviceId', '=', reg.deviceId).where('online', '=', 1).executeTakeFirst())?.firmwareVersion === '1.0.0',
    `${reg.sn} online with its version`,
  )
  return { ...reg, sim }
}

const deviceRow = (campaignId: number, deviceId: number) => db().selectFrom('otaCampaignDevice').selectAll().where('campaignId', '=', campaignId).where('deviceId', '=', deviceId).executeTakeFirst()

/** The offers a device received (down/ota op offer), from the message log. */
async function offersTo(deviceId: number) {
  await t.app.iot.messageLog.flush()
  const rows = await db().selectFrom('iotMessage').select(['payload']).where('deviceId', '=', deviceId).where('kind', '=', 'ota').where('direction', '=', 'down').orderBy('messageId').execute()
  return rows.map((r: { payload: string }) => JSON.parse(r.payload)).filter((p: { op: string }) => p.op === 'offer')
}

/** Every form the private key could leak in: PEM body, DER and the raw seed, in hex, base64 and base64url. */
function privateForms(key: KeyObject): string[] {
  const der = key.export({ format: 'der', type: 'pkcs8' })
  const seed = der.subarray(der.length - 32)
  return [der, seed].flatMap((b) => [b.toString('hex'), b.toString('base64'), b.toString('base64url')]).concat(String(key.export({ format: 'pem', type: 'pkcs8' })).split('\n')[1]!)
}
const leaks = (text: string, forms: string[]) => forms.filter((f) => text.toLowerCase().includes(f.toLowerCase()))

describe('OTA signing keys', () => {
  it('makes a key pair at the first start into DATA_DIR/ota-signing (folder 0700, key 0600) and hands out only its public half', async () => {
    const dir = join(t.app.services.config.dataDir, SIGNING_FOLDER)
    const file = join(dir, SIGNING_KEY_FILE)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const key = createPrivateKey(readFileSync(file, 'utf8'))
    const raw = rawPublicKeyOf(key)
    const keys = otaPublicKeysOf(t.app.services)
    expect(keys).toEqual([{ keyId: createHash('sha256').update(raw).digest('hex').slice(0, 16), publicKey: raw.toString('base64') }])

    // GET /iot/ota-keys: the same keys, as a set signed by the key itself.
    const res = await t.call<OtaSignedKeySet>({ method: 'GET', url: '/api/iot/ota-keys' })
    expect(res.status, res.msg).toBe(200)
    const set = otaKeySetSchema.parse(JSON.parse(res.data.keys))
    expect(set.keys).toEqual(keys)
    expect(res.data.signatures.map((s: { keyId: string }) => s.keyId)).toEqual([keys[0]!.keyId])
    expect(verifySigned(res.data.keys, res.data.signatures[0]!.signature, keys[0]!.publicKey)).toBe(true)
  })

  it('gives a registering device the public keys', async () => {
    const address = await listening()
    const model = await db().selectFrom('iotModel').select(['modelId']).where('productId', '=', 'VELO-4G').executeTakeFirstOrThrow()
    const { registrationKey } = await ok<{ registrationKey: string }>('GET', `/iot/model/${model.modelId}/registrationKey`)
    const registration = await registerDevice(`http://127.0.0.1:${address.port}/api`, 'VELO-4G', registrationKey, `VL${Date.now().toString().slice(-8)}`)
    expect(registration.otaKeys).toEqual(otaPublicKeysOf(t.app.services))
  })

  it('uses the operator’s OTA_SIGNING_KEY, and refuses a signing folder inside STORAGE_DIR', async () => {
    const given = generateKeyPairSync('ed25519').privateKey
    const app = await createTestApp({ OTA_SIGNING_KEY: String(given.export({ format: 'pem', type: 'pkcs8' })) })
    others.push(app)
    const raw = rawPublicKeyOf(given)
    expect(otaPublicKeysOf(app.app.services)).toEqual([{ keyId: keyIdOf(raw), publicKey: raw.toString('base64') }])
    // Given as base64 DER as well; anything that is not an Ed25519 key is refused at start.
    const der = given.export({ format: 'der', type: 'pkcs8' }).toString('base64')
    expect(loadConfig({ OTA_SIGNING_KEY: der }).otaSigningKey).toBe(der)

    const data = mkdtempSync(join(tmpdir(), 'velo-signing-'))
    try {
      const outside = (name: string) => join(data, '..', `${name}-${serial++}`)
      expect(() => loadConfig({ DATA_DIR: data, STORAGE_DIR: data, DATABASE_URL: `sqlite:${outside('db')}.db`, MAIL_DIR: outside('mail'), BACKUP_DIR: outside('backups') })).toThrow(ConfigError)
      expect(() => loadConfig({ DATA_DIR: data, STORAGE_DIR: data, DATABASE_URL: `sqlite:${outside('db')}.db`, MAIL_DIR: outside('mail'), BACKUP_DIR: outside('backups') })).toThrow(/ota-signing.*signing key/)
    } finally {
      rmSync(data, { recursive: true, force: true })
    }
  })

  it('never shows the private key: not in the configuration list, the SQL tool, the key set, a registration, an offer, or a backup', async () => {
    const key = createPrivateKey(readFileSync(join(t.app.services.config.dataDir, SIGNING_FOLDER, SIGNING_KEY_FILE), 'utf8'))
    const forms = privateForms(key)
    const seen: Record<string, string> = {}
    const configList = await t.call({ method: 'POST', url: '/api/system/config/list', token: t.admin, body: { pageNum: 1, pageSize: 500 } })
    expect(configList.status, configList.msg).toBe(200)
    expect(JSON.stringify(configList.data)).toContain('ota.approvalRequired')
    seen.configList = JSON.stringify(configList.data)
    seen.keySet = JSON.stringify((await t.call({ method: 'GET', url: '/api/iot/ota-keys' })).data)
    for (const query of ['SELECT * FROM sys_config', 'SELECT * FROM sys_file', "SELECT readfile('ota-signing/signing-key.pem')"]) {
      const res = await t.call<SqlRunResult>({ method: 'POST', url: '/api/tool/sql/run', token: t.admin, body: { sql: query } })
      // The tool reads the database, and only it: no function of it reads a file of the server's.
      if (query === 'SELECT * FROM sys_config') expect(res.data?.rows?.length, `${query}: ${res.msg}`).toBeGreaterThan(0)
      seen[query] = JSON.stringify(res)
    }
    const fw = await firmware('2.0.0')
    const d = await onlineDevice({ otaBadSignature: true })
    const campaignId = await running(fw.firmwareId, [d.deviceId])
    await waitFor(async () => (await offersTo(d.deviceId)).length > 0, 'an offer')
    seen.offer = JSON.stringify(await offersTo(d.deviceId))
    await waitFor(async () => (await deviceRow(campaignId, d.deviceId))?.state === 'failed', 'the upgrade failed')
    for (const [where, text] of Object.entries(seen)) expect(leaks(text, forms), where).toEqual([])

    // A backup copies the database and STORAGE_DIR; the key lives beside them and stays out (the
    // backup command says so: keep the folder apart).
    if (t.app.services.config.database.dialect === 'sqlite') {
      const target = join(mkdtempSync(join(tmpdir(), 'velo-signing-backup-')), 'backup')
      const { dir } = await createBackup({ database: t.app.services.config.database, storageDir: t.app.services.config.storageDir, target, serverVersion: 'test' })
      const files: string[] = []
      const walk = (p: string) => (statSync(p).isDirectory() ? readdirSync(p).forEach((n) => walk(join(p, n))) : files.push(p))
      walk(dir)
      expect(files.some((f) => f.endsWith('velo.db'))).toBe(true)
      for (const f of files) expect(leaks(readFileSync(f).toString('latin1'), forms), f).toEqual([])
      const der = key.export({ format: 'der', type: 'pkcs8' })
      for (const f of files) expect(readFileSync(f).includes(der.subarray(der.length - 32)), f).toBe(false)
      rmSync(join(target, '..'), { recursive: true, force: true })
    }
    expect(backupMessage('en_US', 'signingKeyApart', { dir: 'data/ota-signing' })).toContain('Not in the backup: the OTA signing key (data/ota-signing)')
    expect(backupMessage('zh_CN', 'signingKeyApart', { dir: 'data/ota-signing' })).toContain('备份中不含 OTA 签名密钥（data/ota-signing）')
  })
})

describe('OTA signed manifests', () => {
  it('signs the approved image’s manifest into each offer: it verifies with the server’s public key, and any change breaks it', async () => {
    const fw = await firmware('2.1.0')
    const d = await onlineDevice()
    const campaignId = await running(fw.firmwareId, [d.deviceId])
    await waitFor(async () => (await deviceRow(campaignId, d.deviceId))?.state === 'succeeded', 'the signed upgrade succeeded', 20_000)
    const [offer] = await offersTo(d.deviceId)
    const parsed = otaOfferPayload.parse(offer)
    const campaign = await db().selectFrom('otaCampaign').selectAll().where('campaignId', '=', campaignId).executeTakeFirstOrThrow()
    const [key] = otaPublicKeysOf(t.app.services)
    expect(parsed.keyId).toBe(key!.keyId)
    expect(verifySigned(parsed.manifest, parsed.signature, key!.publicKey)).toBe(true)
    const manifest = otaManifestSchema.parse(JSON.parse(parsed.manifest))
    // What is signed is what was approved: the campaign's digests, the firmware's version, product and hardware.
    expect(manifest).toEqual({
      format: 1,
      part: 'iot',
      kind: 'firmware',
      supplier: 'QT',
      product: 'EC',
      name: '',
      version: '2.1.0',
      size: Number(campaign.imageSize),
      sha256: campaign.imageSha256,
      hardware: ['HW-A1'],
      minVersion: '',
    })
    expect(manifest.sha256).toBe(createHash('sha256').update(fw.bytes).digest('hex'))
    // The text is the canonical one: keys in order, no spaces.
    expect(parsed.manifest).toBe(otaManifestText(manifest))

    // Each field changed (to a value that still parses) fails the signature.
    const changed: Record<string, unknown> = {
      part: 'display',
      kind: 'audio',
      supplier: 'XX',
      product: 'YY',
      name: 'bell',
      version: '9.9.9',
      size: manifest.size + 1,
      sha256: '0'.repeat(64),
      hardware: ['HW-B2'],
      minVersion: '1.0.0',
    }
    for (const [field, value] of Object.entries(changed)) {
      const text = otaManifestText({ ...manifest, [field]: value })
      expect(verifySigned(text, parsed.signature, key!.publicKey), field).toBe(false)
    }
    // Another key's signature of the very same text is not the server's.
    const stranger = generateKeyPairSync('ed25519').privateKey
    expect(verifySigned(parsed.manifest, sign(null, Buffer.from(parsed.manifest), stranger).toString('base64'), key!.publicKey)).toBe(false)
  })

  it('signs a campaign’s manifest once, however many offers it makes', async () => {
    const signer = otaSignerOf(t.app.services)
    const fw = await firmware('2.2.0')
    const campaignId = await running(fw.firmwareId, [(await onlineDevice()).deviceId])
    const campaign = await db().selectFrom('otaCampaign').selectAll().where('campaignId', '=', campaignId).executeTakeFirstOrThrow()
    const image = await imageOf(t.app.services.db, { payload: 'firmware', firmwareId: fw.firmwareId })
    const before = signer.signatures
    const offers = []
    for (let attempt = 1; attempt <= 50; attempt++) {
      offers.push(await buildOffer(t.app.services, { upgradeId: 999_000 + attempt, attempt, part: 'iot', payload: 'firmware', image: image!, approved: approvedImageOf(campaign)!, timeoutSeconds: 600, commitSeconds: 300 }))
    }
    expect(signer.signatures - before).toBeLessThanOrEqual(1)
    expect(new Set(offers.map((o) => o.signature)).size).toBe(1)
  })

  it('a device whose check of the signature fails reports failed with E_SIGNATURE and downloads nothing', async () => {
    const fw = await firmware('2.3.0')
    const bad = await onlineDevice({ otaBadSignature: true })
    const good = await onlineDevice()
    const requestsBefore = blockServerOf(t.app.services)!.stats.requests
    const campaignId = await running(fw.firmwareId, [bad.deviceId, good.deviceId])
    const failed = await waitFor(async () => {
      const row = await deviceRow(campaignId, bad.deviceId)
      return row?.state === 'failed' ? row : null
    }, 'the bad signature reported')
    expect(failed.code).toBe('E_SIGNATURE')
    expect(bad.sim.ota.state).toMatchObject({ stage: 'failed', code: 'E_SIGNATURE', bytesReceived: 0, framesReceived: 0 })
    expect(bad.sim.behaviour.firmwareVersion).toBe('1.0.0')
    await waitFor(async () => (await deviceRow(campaignId, good.deviceId))?.state === 'succeeded', 'the other device upgraded', 20_000)
    // Only the good device asked for blocks.
    const overview = await ok<OtaCampaignOverview>('GET', `/iot/upgrade/${campaignId}/overview`)
    expect(overview.failed.map((f) => [f.sn, f.code])).toEqual([[bad.sn, 'E_SIGNATURE']])
    expect(blockServerOf(t.app.services)!.stats.requests).toBeGreaterThan(requestsBefore)
  })

  it('a device that trusts no key fails with E_KEY_UNKNOWN, unless it can fetch the server’s key set first', async () => {
    const address = await listening()
    const fw = await firmware('2.4.0')
    const stranger = await onlineDevice({ otaKeys: [] })
    const fetching = await onlineDevice({ otaKeys: [], otaKeysUrl: `http://127.0.0.1:${address.port}/api/iot/ota-keys` })
    const campaignId = await running(fw.firmwareId, [stranger.deviceId, fetching.deviceId])
    const failed = await waitFor(async () => {
      const row = await deviceRow(campaignId, stranger.deviceId)
      return row?.state === 'failed' ? row : null
    }, 'the unknown key reported')
    expect(failed.code).toBe('E_KEY_UNKNOWN')
    await waitFor(async () => (await deviceRow(campaignId, fetching.deviceId))?.state === 'succeeded', 'the fetching device upgraded', 20_000)
    expect(fetching.sim.behaviour.otaKeys).toEqual(otaPublicKeysOf(t.app.services))
  })

  it('a manifest that does not match the device (another hardware revision) fails with E_MANIFEST', async () => {
    const fw = await firmware('2.5.0')
    const d = await onlineDevice()
    const image = await imageOf(t.app.services.db, { payload: 'firmware', firmwareId: fw.firmwareId })
    const offer = await buildOffer(t.app.services, {
      upgradeId: 1,
      attempt: 1,
      part: 'iot',
      payload: 'firmware',
      image: { ...image!, hardware: ['HW-Z9'] },
      approved: { sha256: image!.sha256, size: image!.size },
      timeoutSeconds: 600,
      commitSeconds: 300,
    })
    const check = checkManifest(offer, d.sim.behaviour.otaKeys, { currentVersion: '1.0.0', hardware: d.sim.behaviour.hardwareVersion })
    expect(check).toMatchObject({ ok: false, code: 'E_MANIFEST' })
    // The offer's own digest changed (a swapped image, a tampered offer): the manifest no longer matches it.
    expect(checkManifest({ ...offer, hardware: undefined, sha256: 'f'.repeat(64) } as never, d.sim.behaviour.otaKeys, {})).toMatchObject({ ok: false, code: 'E_MANIFEST' })
    expect(checkManifest(offer, d.sim.behaviour.otaKeys, {})).toMatchObject({ ok: true })
  })
})

describe('OTA key rotation', () => {
  it('while a retired key is kept, a connecting device that trusts only it is sent the new key set, signed by it, and takes it', async () => {
    // The old key, retired into the folder; the server makes a new current key at its start.
    const data = mkdtempSync(join(tmpdir(), 'velo-rotation-'))
    const old = generateKeyPairSync('ed25519').privateKey
    mkdirSync(join(data, SIGNING_FOLDER, RETIRED_FOLDER), { recursive: true, mode: 0o700 })
    writeFileSync(join(data, SIGNING_FOLDER, RETIRED_FOLDER, 'old.pem'), old.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 })
    const app = await createTestApp({ DATA_DIR: data, STORAGE_DIR: join(data, 'files'), MAIL_DIR: join(data, 'mail'), BACKUP_DIR: join(data, 'backups') })
    others.push(app)
    const oldRaw = rawPublicKeyOf(old)
    const oldKey: OtaPublicKey = { keyId: keyIdOf(oldRaw), publicKey: oldRaw.toString('base64') }
    const keys = otaPublicKeysOf(app.app.services)
    expect(keys).toHaveLength(2)
    expect(keys[1]).toEqual(oldKey)
    expect(keys[0]!.keyId).not.toBe(oldKey.keyId)

    const d = await onlineDevice({ otaKeys: [oldKey] }, app)
    await waitFor(() => d.sim.behaviour.otaKeys.length === 2, 'the key update taken')
    expect(d.sim.behaviour.otaKeys).toEqual(keys)
    // Offers are now signed with the new key, which the device trusts.
    const fw = await firmwareOn(app)
    const image = await imageOf(app.app.services.db, { payload: 'firmware', firmwareId: fw })
    const offer = await buildOffer(app.app.services, { upgradeId: 1, attempt: 1, part: 'iot', payload: 'firmware', image: image!, approved: { sha256: image!.sha256, size: image!.size }, timeoutSeconds: 600, commitSeconds: 300 })
    expect(offer.keyId).toBe(keys[0]!.keyId)
    expect(checkManifest(offer, d.sim.behaviour.otaKeys, {})).toMatchObject({ ok: true })
    expect(checkManifest(offer, [oldKey], {})).toMatchObject({ ok: false, code: 'E_KEY_UNKNOWN' })
    await d.sim.disconnect()
    await clearRetained(app.app, [d.sn])
  })
})

/** The app listening on a free port (registration and the key set are fetched over HTTP). */
async function listening(): Promise<AddressInfo> {
  if (!t.app.server.address()) await t.app.listen({ port: 0, host: '127.0.0.1' })
  return t.app.server.address() as AddressInfo
}

/** A firmware row of another app, its file stored as an upload leaves it. */
async function firmwareOn(app: TestApp): Promise<number> {
  const res = await app.call<{ fileName: string }>({ method: 'POST', url: '/api/iot/firmware/file/file', token: await app.login(), ...multipart([{ name: 'fw.bin', bytes: Buffer.from('rotation image'.repeat(100)) }]) })
  expect(res.status, res.msg).toBe(200)
  const row = await app.app.services.db
    .insertInto('otaFirmware')
    .values({ name: 'Rotation firmware', code: `ROT-${Date.now()}`, supplierId: 1, productId: 1, customVersion: '3.0.0', file: res.data.fileName, partKind: 'iot', versionNumber: 0, createTime: new Date().toISOString() })
    .returning('firmwareId')
    .executeTakeFirstOrThrow()
  return Number(row.firmwareId)
}
