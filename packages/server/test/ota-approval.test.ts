import { createHash, randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import type { SimulatedDevice } from '@velo/device-sim'
import type { OtaCampaignOverview } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { otaRolloutOf } from '../src/modules/ota/rollout'
import { blockServerOf } from '../src/modules/ota/transfer'
import { clearRetained, deviceRow, insertDevice, simulated, waitFor } from './iot-helpers'
import { limitedUser, multipart, useTestApp } from './harness'

// Issue 35 §1, approval binds (docs/ota.md › Approval binds). A second person's approval controls
// what reaches the bikes: the image a campaign was submitted with cannot be swapped (its firmware or
// audio row and file never change once a campaign outside draft names them), the campaign cannot be
// rewritten (a change is a new revision, back to draft and approved again), and no bytes but the
// approved ones are served for it, whatever happens to the stored file.

const t = useTestApp()
const sims: SimulatedDevice[] = []
let serial = 0

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
const call = <T = unknown>(method: Method, url: string, body?: unknown, o: { token?: string; lang?: 'en_US' | 'zh_CN' } = {}) =>
  t.call<T>({ method, url: `/api${url}`, token: o.token ?? t.admin, body: body ?? (method === 'POST' ? {} : undefined), lang: o.lang })
const db = () => t.app.services.db
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

async function ok<T = unknown>(method: Method, url: string, body?: unknown, token?: string) {
  const res = await call<T>(method, url, body, { token })
  expect(res.status, res.msg).toBe(200)
  return res.data
}

async function setApproval(required: boolean) {
  await db().updateTable('sysConfig').set({ configValue: String(required) }).where('configKey', '=', 'ota.approvalRequired').execute()
}

beforeAll(async () => {
  otaRolloutOf(t.app.services).configure({ tickMs: 100 })
  await setApproval(true)
})

afterAll(async () => {
  await Promise.all(sims.map((s) => s.disconnect().catch(() => {})))
  await clearRetained(
    t.app,
    sims.map((s) => s.sn),
  ).catch(() => {})
})

async function upload(path: string, name: string, bytes: Buffer, token = t.admin) {
  const res = await t.call<{ fileName: string; sha256: string; size: number }>({ method: 'POST', url: `/api${path}/file/file`, token, ...multipart([{ name, bytes }]) })
  expect(res.status, res.msg).toBe(200)
  return res.data
}

/** An IoT module firmware of this version, its file uploaded (the digests are the server's). */
async function firmware(version: string, bytes = randomBytes(5000)) {
  const supplier = await ok<{ supplierId: number }>('POST', '/ota/iotpart/supplier', { name: `Quectel ${++serial}`, supplierCode: 'QT', iotCode: 'Q' })
  const product = await ok<{ productId: number }>('POST', '/ota/iotpart/product', { supplierId: supplier.supplierId, name: `EC200 ${serial}`, productCode: 'EC', hardwareRevision: 'HW-A1' })
  const file = await upload('/iot/firmware', 'fw.bin', bytes)
  const fw = await ok<{ firmwareId: number; name: string }>('POST', '/iot/firmware', { name: `EC200 ${version} ${serial}`, code: `ec200-${serial}-${Date.now()}`, supplierId: supplier.supplierId, productId: product.productId, customVersion: version, file: file.fileName })
  return { ...fw, firmwareId: Number(fw.firmwareId), bytes, fileName: file.fileName }
}

/** A device that has reported version 1.0.0 (so a campaign targets it), online or not. */
async function deviceAt100(online = false) {
  const d = await insertDevice(t)
  await db().updateTable('iotDevice').set({ firmwareVersion: '1.0.0', hardwareVersion: 'HW-A1', online: online ? 1 : 0 }).where('deviceId', '=', d.deviceId).execute()
  return d
}

const ROLLOUT = { randomOrder: false, canaryCount: 1, waveCount: 1, successPercent: 100, errorPercent: 50, errorMinFinished: 1, alarmRateFactor: 0, retries: 0, timeoutMinutes: 5, ratePerMinute: 0, minBattery: 30 }

async function draft(firmwareId: number, deviceIds: number[], values: Record<string, unknown> = {}) {
  const c = await ok<{ campaignId: number }>('POST', '/iot/upgrade', { name: `Campaign ${++serial}`, payload: 'firmware', firmwareId, deviceIds, ...ROLLOUT, ...values })
  return Number(c.campaignId)
}

const campaign = async (id: number) => db().selectFrom('otaCampaign').selectAll().where('campaignId', '=', id).executeTakeFirstOrThrow()
const firmwareRow = async (id: number) => db().selectFrom('otaFirmware').selectAll().where('firmwareId', '=', id).executeTakeFirstOrThrow()
const devicesOf = async (id: number) => db().selectFrom('otaCampaignDevice').selectAll().where('campaignId', '=', id).orderBy('position').execute()

/** A second person who may approve IoT upgrades. */
async function approver() {
  const userName = `approver${++serial}`
  return { userName, ...(await limitedUser(t, { userName, perms: ['iot:upgrade:approve', 'iot:upgrade:query'], dataScope: '1' })) }
}

describe('the swap: an image a campaign was submitted with never changes', () => {
  it('refuses a new file, or any change, to firmware a submitted campaign uses (409 naming the campaign), even to one holding only the firmware rights', async () => {
    const fw = await firmware('2.0.0')
    const device = await deviceAt100()
    const name = `Spring ${++serial}`
    const id = await draft(fw.firmwareId, [device.deviceId], { name })
    expect((await ok<{ status: string }>('POST', `/iot/upgrade/${id}/submit`)).status).toBe('awaitingApproval')
    const stored = await firmwareRow(fw.firmwareId)

    // The user: firmware rights only, a new image uploaded and put in place of the approved one.
    const { token } = await limitedUser(t, { userName: `fwonly${++serial}`, perms: ['iot:firmware:list', 'iot:firmware:query', 'iot:firmware:add', 'iot:firmware:edit'], dataScope: '1' })
    const other = await upload('/iot/firmware', 'evil.bin', randomBytes(5000), token)
    const swapped = await call('PUT', '/iot/firmware', { firmwareId: fw.firmwareId, file: other.fileName }, { token })
    expect(swapped.status).toBe(409)
    expect(swapped.msg).toBe(`Firmware "${fw.name}" is used by upgrade campaign "${name}" and cannot be changed: a new image is a new firmware version`)
    const zh = await call('PUT', '/iot/firmware', { firmwareId: fw.firmwareId, file: other.fileName }, { token, lang: 'zh_CN' })
    expect(zh.msg).toBe(`固件“${fw.name}”已被升级任务“${name}”使用，不能修改：新的镜像请添加为新的固件版本`)
    // Nor its name, version or hardware revisions; nor may it go.
    for (const change of [{ name: 'Renamed' }, { customVersion: '2.0.1' }, { hardwareRevisions: 'HW-B1' }]) {
      expect((await call('PUT', '/iot/firmware', { firmwareId: fw.firmwareId, ...change })).status).toBe(409)
    }
    expect((await call('DELETE', `/iot/firmware/${fw.firmwareId}`)).status).toBe(409)
    const after = await firmwareRow(fw.firmwareId)
    expect({ file: after.file, sha256: after.sha256, size: after.size, name: after.name, customVersion: after.customVersion }).toEqual({
      file: stored.file,
      sha256: sha256(fw.bytes),
      size: stored.size,
      name: stored.name,
      customVersion: '2.0.0',
    })
    // A form that sends the row back unchanged changes nothing and passes.
    await ok('PUT', '/iot/firmware', { firmwareId: fw.firmwareId, name: fw.name, file: fw.fileName, customVersion: '2.0.0' })
    // What was submitted is what the campaign binds.
    expect((await campaign(id)).imageSha256).toBe(sha256(fw.bytes))
    await ok('POST', `/iot/upgrade/${id}/cancel`, {})
    // Cancelled, the campaign still documents what it would have shipped: the firmware stays as it was.
    expect((await call('PUT', '/iot/firmware', { firmwareId: fw.firmwareId, file: other.fileName })).status).toBe(409)
  })

  it('refuses it for the firmware of a running campaign and of any part; a firmware only a draft names may change', async () => {
    await setApproval(false)
    try {
      const fw = await firmware('2.1.0')
      const device = await deviceAt100()
      const id = await draft(fw.firmwareId, [device.deviceId])
      await ok('POST', `/iot/upgrade/${id}/submit`)
      expect((await ok<{ status: string }>('POST', `/iot/upgrade/${id}/start`)).status).toBe('running')
      const other = await upload('/iot/firmware', 'new.bin', randomBytes(4000))
      expect((await call('PUT', '/iot/firmware', { firmwareId: fw.firmwareId, file: other.fileName })).status).toBe(409)
      expect((await firmwareRow(fw.firmwareId)).file).toBe(fw.fileName)
      await ok('POST', `/iot/upgrade/${id}/cancel`, {})

      // A display part's firmware, bound by a scheduled campaign.
      const supplier = await ok<{ supplierId: number }>('POST', '/ota/displaypart/supplier', { name: `Bafang ${++serial}`, supplierCode: 'BF', iotCode: 'B' })
      const product = await ok<{ productId: number }>('POST', '/ota/displaypart/product', { supplierId: supplier.supplierId, name: `DP ${serial}`, productCode: 'DC', hardwareRevision: 'H2' })
      const file = await upload('/ota/displaypart/firmware', 'dp.bin', randomBytes(3000))
      const dp = await ok<{ firmwareId: number }>('POST', '/ota/displaypart/firmware', { name: `DP ${serial}`, code: `dp-${serial}-${Date.now()}`, supplierId: supplier.supplierId, productId: product.productId, customVersion: '1.1.0', file: file.fileName })
      await db()
        .insertInto('otaCampaign')
        .values({ name: `Display ${serial}`, status: 'scheduled', firmwareId: dp.firmwareId, partKind: 'display', createBy: 'test', createTime: new Date().toISOString() })
        .execute()
      const dpOther = await upload('/ota/displaypart/firmware', 'dp2.bin', randomBytes(3000))
      const refused = await call('PUT', '/ota/displaypart/firmware', { firmwareId: dp.firmwareId, file: dpOther.fileName })
      expect(refused.status).toBe(409)
      expect(refused.msg).toContain(`upgrade campaign "Display ${serial}"`)

      // Only drafts name it: nothing is bound yet.
      const free = await firmware('2.2.0')
      await draft(free.firmwareId, [device.deviceId])
      const replaced = await ok<{ sha256: string }>('PUT', '/iot/firmware', { firmwareId: free.firmwareId, file: other.fileName })
      expect(replaced.sha256).toBe(other.sha256)
    } finally {
      await setApproval(true)
    }
  })

  it('keeps an audio a campaign deployed as it was; its next version is another audio with the same IoT name', async () => {
    const bytes = Buffer.concat([Buffer.from('ID3'), randomBytes(3000)])
    const stored = await upload('/iot/audio', 'bell.mp3', bytes)
    const iotName = `bell_${++serial}`
    const audio = await ok<{ audioId: number }>('POST', '/iot/audio', { appName: 'Bell', iotName, version: '1.0.0', file: stored.fileName })
    await db()
      .insertInto('otaCampaign')
      .values({ name: 'Bells', status: 'finished', payload: 'audio', audioId: audio.audioId, partKind: 'iot', createBy: 'test', createTime: new Date().toISOString() })
      .execute()
    const next = await upload('/iot/audio', 'bell2.mp3', Buffer.concat([Buffer.from('ID3'), randomBytes(3000)]))
    const refused = await call('PUT', '/iot/audio', { audioId: audio.audioId, file: next.fileName }, { lang: 'zh_CN' })
    expect(refused.status).toBe(409)
    expect(refused.msg).toBe('音频“Bell”已被升级任务“Bells”使用，不能修改：新的声音请添加为新的音频版本（相同的设备端名称，不同的版本）')
    expect((await db().selectFrom('iotAudio').select('file').where('audioId', '=', audio.audioId).executeTakeFirst())!.file).toBe(stored.fileName)
    await ok('POST', '/iot/audio', { appName: 'Bell', iotName, version: '1.0.1', file: next.fileName })
    const twice = await call('POST', '/iot/audio', { appName: 'Bell again', iotName, version: '1.0.1', file: next.fileName })
    expect(twice.status).toBe(409)
    expect(twice.msg).toBe(`Audio "${iotName}" already has version 1.0.1 ("Bell")`)
  })
})

describe('the rewrite: a change after submit is a new revision, approved again', () => {
  it('refuses modifying a submitted or approved campaign; Revise takes it back to a draft with its approval cleared, and the history keeps both revisions', async () => {
    const fw = await firmware('3.0.0')
    const fw2 = await firmware('3.0.1')
    const device = await deviceAt100()
    const id = await draft(fw.firmwareId, [device.deviceId], { minBattery: 30 })
    expect((await ok<{ status: string }>('POST', `/iot/upgrade/${id}/submit`)).status).toBe('awaitingApproval')
    expect((await call('PUT', '/iot/upgrade', { campaignId: id, minBattery: 0 })).status).toBe(409)
    const a = await approver()
    const approved = await ok<{ approvedAt: string | null }>('POST', `/iot/upgrade/${id}/approve`, {}, a.token)
    expect(approved).toMatchObject({ status: 'scheduled', approvedBy: a.userName, revision: 1, imageSha256: sha256(fw.bytes), imageSize: fw.bytes.length })
    expect(approved.approvedAt).toBeTruthy()

    // The rewrite after approval: each refused, nothing changed, the approval as it was.
    for (const change of [{ minBattery: 0 }, { errorPercent: 100 }, { alarmRateFactor: 5 }, { allowDowngrade: true }, { firmwareId: fw2.firmwareId }]) {
      const res = await call('PUT', '/iot/upgrade', { campaignId: id, ...change })
      expect(res.status, JSON.stringify(change)).toBe(409)
      expect(res.msg).toContain('Cannot modify upgrade campaign')
    }
    expect(await campaign(id)).toMatchObject({ status: 'scheduled', minBattery: 30, errorPercent: 50, firmwareId: fw.firmwareId, approvedBy: a.userName })

    // Revise: back to a draft, a new revision, the approval and the image it bound cleared.
    const revised = await ok('POST', `/iot/upgrade/${id}/revise`, { reason: 'Battery floor too high for the fleet' })
    expect(revised).toMatchObject({ status: 'draft', revision: 2, approvedBy: '', approvedAt: null, imageSha256: '', imageSize: null, totalDevices: 0 })
    expect(await devicesOf(id)).toEqual([])
    // A draft again: the author changes what they want, the firmware included.
    await ok('PUT', '/iot/upgrade', { campaignId: id, minBattery: 0 })
    await ok('PUT', '/iot/upgrade', { campaignId: id, firmwareId: fw2.firmwareId })
    expect(await campaign(id)).toMatchObject({ minBattery: 0, firmwareId: fw2.firmwareId })

    // Submitted again it needs approving again: it cannot start, and it binds the new image.
    const resubmitted = await ok('POST', `/iot/upgrade/${id}/submit`)
    expect(resubmitted).toMatchObject({ status: 'awaitingApproval', approvedBy: '', imageSha256: sha256(fw2.bytes), revision: 2 })
    expect((await call('POST', `/iot/upgrade/${id}/start`)).status).toBe(409)
    expect(await ok('POST', `/iot/upgrade/${id}/approve`, {}, a.token)).toMatchObject({ status: 'scheduled', approvedBy: a.userName })

    // The history: both revisions, each step and each change with who made it.
    const history = await ok<{ step: string; fromState: string; toState: string; userName: string; input: Record<string, unknown> }[]>('GET', `/iot/upgrade/${id}/history`)
    expect(history.map((h) => [h.step, h.fromState, h.toState, h.userName])).toEqual([
      ['submit', 'draft', 'awaitingApproval', 'admin'],
      ['approve', 'awaitingApproval', 'scheduled', a.userName],
      ['revise', 'scheduled', 'draft', 'admin'],
      ['modify', 'draft', 'draft', 'admin'],
      ['modify', 'draft', 'draft', 'admin'],
      ['submit', 'draft', 'awaitingApproval', 'admin'],
      ['approve', 'awaitingApproval', 'scheduled', a.userName],
    ])
    expect(history[0]!.input).toMatchObject({ revision: 1, imageSha256: sha256(fw.bytes), targets: 1 })
    expect(history[1]!.input).toMatchObject({ revision: 1, imageSha256: sha256(fw.bytes) })
    expect(history[2]!.input).toMatchObject({ revision: 1, approvedBy: a.userName, imageSha256: sha256(fw.bytes), reason: 'Battery floor too high for the fleet' })
    expect(history[3]!.input).toEqual({ revision: 2, minBattery: { from: 30, to: 0 } })
    expect(history[4]!.input).toEqual({ revision: 2, firmwareId: { from: fw.firmwareId, to: fw2.firmwareId } })
    expect(history[5]!.input).toMatchObject({ revision: 2, imageSha256: sha256(fw2.bytes) })
    await ok('POST', `/iot/upgrade/${id}/cancel`, {})
  })

  it('is revised only before it starts: running or paused, it is cancelled and a new campaign added', async () => {
    await setApproval(false)
    try {
      const fw = await firmware('3.1.0')
      const device = await deviceAt100()
      const id = await draft(fw.firmwareId, [device.deviceId])
      await ok('POST', `/iot/upgrade/${id}/submit`)
      await ok('POST', `/iot/upgrade/${id}/start`)
      const refused = await call('POST', `/iot/upgrade/${id}/revise`, {})
      expect(refused.status).toBe(409)
      expect(refused.msg).toContain('Revise')
      await ok('POST', `/iot/upgrade/${id}/pause`, {})
      expect((await call('POST', `/iot/upgrade/${id}/revise`, {})).status).toBe(409)
      await ok('POST', `/iot/upgrade/${id}/cancel`, {})
    } finally {
      await setApproval(true)
    }
  })

  it('has its menu button, so the right can be granted', async () => {
    const buttons = await db().selectFrom('sysMenu').select('perms').where('perms', 'in', ['iot:upgrade:revise', 'ota:displaypart:revise', 'ota:bmspart:revise', 'ota:ecupart:revise']).execute()
    expect(buttons.map((b) => b.perms).sort()).toEqual(['iot:upgrade:revise', 'ota:bmspart:revise', 'ota:displaypart:revise', 'ota:ecupart:revise'])
  })
})

describe('the approved digest: no other bytes are served for a campaign', () => {
  /** A campaign of one device approved by a second person, its stored file then overwritten on disk (the approval is not). */
  async function approvedThenTampered(device: { deviceId: number }) {
    const fw = await firmware('4.0.0', randomBytes(6000))
    const id = await draft(fw.firmwareId, [device.deviceId], { minBattery: 0 })
    await ok('POST', `/iot/upgrade/${id}/submit`)
    await ok('POST', `/iot/upgrade/${id}/approve`, {}, (await approver()).token)
    const tampered = randomBytes(6000)
    await writeFile(t.app.services.storage.resolve(fw.fileName)!, tampered)
    return { fw, id, tampered }
  }

  it('offers the approved digest and refuses the blocks of bytes that differ: the device is told with a code, its upgrade fails with the reason, the campaign pauses', async () => {
    const reg = await insertDevice(t)
    const sim = simulated(t.app, reg, { firmwareVersion: '1.0.0', hardwareVersion: 'HW-A1', otaInstallMs: 5 })
    sims.push(sim)
    await sim.connect()
    await waitFor(async () => (await deviceRow(t, reg.deviceId)).firmwareVersion === '1.0.0' && (await deviceRow(t, reg.deviceId)).online, 'the device online with its version')
    const { fw, id, tampered } = await approvedThenTampered(reg)
    const refusedBefore = blockServerOf(t.app.services)!.stats.refused
    const blocksBefore = blockServerOf(t.app.services)!.stats.blocks

    await ok('POST', `/iot/upgrade/${id}/start`)
    const [row] = await waitFor(async () => {
      const rows = await devicesOf(id)
      return rows[0]?.state === 'failed' ? rows : null
    }, 'the upgrade failed')
    expect(row!.code).toBe('E_IMAGE_CHANGED')
    expect(row!.message).toContain(`Not served: the stored image no longer has the approved SHA-256 ${sha256(fw.bytes).slice(0, 12)}… (it has ${sha256(tampered).slice(0, 12)}…)`)
    expect(row!.message).toContain('未下发：存储的镜像已不是审批的 SHA-256')
    // Not one block of the other bytes went out; the device was told why and kept its version.
    expect(blockServerOf(t.app.services)!.stats.refused).toBe(refusedBefore + 1)
    expect(blockServerOf(t.app.services)!.stats.blocks).toBe(blocksBefore)
    await waitFor(() => (sim.ota.state?.stage === 'aborted' ? true : null), 'the device told to stop')
    expect(sim.ota.state).toMatchObject({ stage: 'aborted', code: 'E_IMAGE_CHANGED', blocksReceived: 0 })
    expect(sim.behaviour.firmwareVersion).toBe('1.0.0')
    // The offer carried the approved digest, not the stored file's; the abort the code.
    await t.app.iot.messageLog.flush()
    const sent = await db().selectFrom('iotMessage').select('payload').where('deviceId', '=', reg.deviceId).where('direction', '=', 'down').where('kind', '=', 'ota').orderBy('messageId').execute()
    expect(sent.map((m: { payload: string }) => JSON.parse(m.payload))).toEqual([
      expect.objectContaining({ op: 'offer', sha256: sha256(fw.bytes), size: fw.bytes.length }),
      expect.objectContaining({ op: 'abort', reason: 'E_IMAGE_CHANGED' }),
    ])
    const paused = await waitFor(async () => ((await campaign(id)).status === 'paused' ? campaign(id) : null), 'the campaign paused')
    expect(paused.pauseReason).toMatch(/^Paused itself: Not served: the stored image no longer has the approved SHA-256/)
    const overview = await ok<OtaCampaignOverview>('GET', `/iot/upgrade/${id}/overview`)
    expect(overview.failed[0]).toMatchObject({ code: 'E_IMAGE_CHANGED', message: expect.stringMatching(/^Not served:/) })
    await ok('POST', `/iot/upgrade/${id}/cancel`, {})
  })

  it('refuses them through the offer’s HTTPS link too (409 with the code)', async () => {
    const device = await deviceAt100(true)
    const { id } = await approvedThenTampered(device)
    await ok('POST', `/iot/upgrade/${id}/start`)
    // The device is marked online but nobody listens: the offer is only logged, and its link fetched here.
    const offer = await waitFor(async () => {
      await t.app.iot.messageLog.flush()
      const logged = await db().selectFrom('iotMessage').select('payload').where('deviceId', '=', device.deviceId).where('direction', '=', 'down').where('kind', '=', 'ota').executeTakeFirst()
      return logged ? JSON.parse(logged.payload) : null
    }, 'the offer sent')
    const res = await t.call({ method: 'GET', url: offer.url, headers: { range: 'bytes=0-1023' } })
    expect(res.status).toBe(409)
    expect(res.data).toEqual({ code: 'E_IMAGE_CHANGED' })
    expect(res.msg).toMatch(/^Not served: the stored image no longer has the approved SHA-256/)
    expect((await devicesOf(id))[0]).toMatchObject({ state: 'failed', code: 'E_IMAGE_CHANGED' })
    // Ended, the upgrade's link serves nothing at all.
    expect((await t.call({ method: 'GET', url: offer.url })).status).toBe(404)
    await ok('POST', `/iot/upgrade/${id}/cancel`, {})
  })

  it('sends no offer when the firmware row names other bytes than the approved ones (changed behind the console)', async () => {
    const device = await deviceAt100(true)
    const fw = await firmware('4.1.0')
    const id = await draft(fw.firmwareId, [device.deviceId])
    await ok('POST', `/iot/upgrade/${id}/submit`)
    await ok('POST', `/iot/upgrade/${id}/approve`, {}, (await approver()).token)
    const other = await upload('/iot/firmware', 'other.bin', randomBytes(5000))
    await db().updateTable('otaFirmware').set({ file: other.fileName }).where('firmwareId', '=', fw.firmwareId).execute()
    await ok('POST', `/iot/upgrade/${id}/start`)
    const [row] = await waitFor(async () => {
      const rows = await devicesOf(id)
      return rows[0]?.state === 'failed' ? rows : null
    }, 'the upgrade failed')
    expect(row!.code).toBe('E_IMAGE_CHANGED')
    // The abort goes out once the failure is committed: the row can be read failed a moment before it is sent.
    const sent = await waitFor(async () => {
      await t.app.iot.messageLog.flush()
      const down = await db().selectFrom('iotMessage').select('payload').where('deviceId', '=', device.deviceId).where('direction', '=', 'down').where('kind', '=', 'ota').execute()
      return down.length ? down : null
    }, 'the abort sent')
    expect(sent.map((m: { payload: string }) => JSON.parse(m.payload).op)).toEqual(['abort'])
    await ok('POST', `/iot/upgrade/${id}/cancel`, {})
  })
})
