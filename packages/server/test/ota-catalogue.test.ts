import { createHash, randomBytes } from 'node:crypto'
import type { Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { crc8 } from '../src/platform/files/crc8'
import { multipart, useTestApp } from './harness'

// The OTA catalogue (issue 18): firmware and audio are known by the digests the server computed
// while the file streamed in, never by what a form claims; versions compare as numbers.

const t = useTestApp()
let serial = 0

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
/** A row of the catalogue as its routes answer it. */
type Row = Record<string, unknown>
type Firmware = Row & { firmwareId: number; customVersion: string; downloadUrl: string }
const call = <T = Row>(method: Method, url: string, body?: unknown, lang?: 'en_US' | 'zh_CN') => t.call<T>({ method, url: `/api${url}`, token: t.admin, body, lang })
const db = () => t.app.services.db
const hex = (n: number) => n.toString(16).toUpperCase().padStart(2, '0')

async function ok<T = Row>(method: Method, url: string, body?: unknown) {
  const res = await call<T>(method, url, body)
  expect(res.status, res.msg).toBe(200)
  return res.data
}

async function upload(path: string, name: string, bytes: Buffer) {
  const res = await t.call<{ fileName: string; size: number; sha256: string; md5: string; crc8: { variant: string; value: string } }>({ method: 'POST', url: `/api${path}/file/file`, token: t.admin, ...multipart([{ name, bytes }]) })
  expect(res.status, res.msg).toBe(200)
  return res.data
}

/** A supplier and a product of the display part, for its firmware. */
async function displayProduct(hardwareRevision = 'H2') {
  const supplier = await ok('POST', '/ota/displaypart/supplier', { name: `Bafang ${++serial}`, supplierCode: 'BF', iotCode: 'B' })
  return ok('POST', '/ota/displaypart/product', { supplierId: supplier.supplierId, name: `DP C18 ${serial}`, productCode: 'DC', hardwareRevision })
}

async function firmwareFile(bytes = randomBytes(40_000)) {
  return { bytes, stored: await upload('/ota/displaypart/firmware', 'dp-c18.bin', bytes) }
}

const firmwareValues = (product: Row, fileName: string, values: Record<string, unknown> = {}) => ({
  name: `DP C18 firmware ${++serial}`,
  code: `dp-c18-${serial}-${Date.now()}`,
  supplierId: product.supplierId,
  productId: product.productId,
  customVersion: '1.0.0',
  file: fileName,
  ...values,
})

describe('firmware digests', () => {
  it('answers and lists the size, SHA-256 and CRC-8 with its variant, computed from the uploaded file', async () => {
    const product = await displayProduct('H2')
    const { bytes, stored } = await firmwareFile()
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    expect(stored).toMatchObject({ size: bytes.length, sha256, crc8: { variant: 'CRC-8/SMBUS', value: hex(crc8(bytes)) } })

    const added = await ok<Firmware>('POST', '/ota/displaypart/firmware', firmwareValues(product, stored.fileName))
    expect(added).toMatchObject({ size: bytes.length, sha256, crc8: hex(crc8(bytes)), crcVariant: 'CRC-8/SMBUS' })
    // Empty hardware revisions are the product's; the console's own download path of the file.
    expect(added.hardwareRevisions).toBe('H2')
    expect(added.downloadUrl).toBe(`/api/ota/displaypart/firmware/file/file/${stored.fileName}`)
    const download = await t.call({ method: 'GET', url: added.downloadUrl, token: t.admin })
    expect(download.status).toBe(200)
    expect(Buffer.compare(download.raw, bytes)).toBe(0)

    const listed = await ok('POST', '/ota/displaypart/firmware/list', { pageNum: 1, pageSize: 10, code: added.code })
    expect(listed.rows).toEqual([expect.objectContaining({ size: bytes.length, crc8: hex(crc8(bytes)) })])
    expect((await ok('GET', `/ota/displaypart/firmware/${added.firmwareId}`)).sha256).toBe(sha256)
  })

  it('takes a declared CRC8 that matches, in either case', async () => {
    const product = await displayProduct()
    const { bytes, stored } = await firmwareFile()
    const added = await ok('POST', '/ota/displaypart/firmware', firmwareValues(product, stored.fileName, { crc8: hex(crc8(bytes)).toLowerCase() }))
    expect(added.crc8).toBe(hex(crc8(bytes)))
  })

  it('refuses a declared CRC8 that differs from the file, naming both values and the variant, and stores nothing', async () => {
    const product = await displayProduct()
    const { bytes, stored } = await firmwareFile()
    const wrong = hex((crc8(bytes) + 1) % 256)
    const before = await db().selectFrom('otaFirmware').select('firmwareId').execute()
    const res = await call('POST', '/ota/displaypart/firmware', firmwareValues(product, stored.fileName, { crc8: wrong }))
    expect(res.status).toBe(400)
    expect(res.msg).toBe(`The declared CRC8 ${wrong} does not match the file: its CRC-8/SMBUS is ${hex(crc8(bytes))}`)
    expect(res.data.errors).toEqual([{ field: 'crc8' }])
    const zh = await call('POST', '/ota/displaypart/firmware', firmwareValues(product, stored.fileName, { crc8: wrong }), 'zh_CN')
    expect(zh.msg).toBe(`声明的 CRC8 ${wrong} 与文件不符：文件的 CRC-8/SMBUS 为 ${hex(crc8(bytes))}`)
    expect(await db().selectFrom('otaFirmware').select('firmwareId').execute()).toEqual(before)
  })

  it('sums a replaced file again on modify, and checks a CRC8 declared then', async () => {
    const product = await displayProduct()
    const first = await firmwareFile()
    const added = await ok('POST', '/ota/displaypart/firmware', firmwareValues(product, first.stored.fileName))
    const second = await firmwareFile(randomBytes(12_345))
    // The form sends the stored CRC8 back beside the new file: that was the old file's, not a claim.
    const changed = await ok('PUT', '/ota/displaypart/firmware', { firmwareId: added.firmwareId, file: second.stored.fileName, crc8: added.crc8 })
    expect(changed).toMatchObject({ size: 12_345, sha256: second.stored.sha256, crc8: hex(crc8(second.bytes)) })
    expect(changed.downloadUrl).toContain(second.stored.fileName)
    const wrong = hex((crc8(second.bytes) + 7) % 256)
    const refused = await call('PUT', '/ota/displaypart/firmware', { firmwareId: added.firmwareId, crc8: wrong })
    expect(refused.status).toBe(400)
    expect(refused.data.errors).toEqual([{ field: 'crc8' }])
    expect((await ok('GET', `/ota/displaypart/firmware/${added.firmwareId}`)).crc8).toBe(hex(crc8(second.bytes)))
  })
  it('sums the stored file itself for a row written without an upload (demo data, a module)', async () => {
    const product = await displayProduct()
    const bytes = randomBytes(9_999)
    const fileName = await t.app.services.storage.save('demo/firmware', 'bin', bytes)
    const { firmwareId } = await db()
      .insertInto('otaFirmware')
      .values({ ...firmwareValues(product, fileName), partKind: 'display', versionNumber: 1_000_000, createBy: 'test', createTime: new Date().toISOString() } as never)
      .returning('firmwareId')
      .executeTakeFirstOrThrow()
    const wrong = hex((crc8(bytes) + 3) % 256)
    const refused = await call('PUT', '/ota/displaypart/firmware', { firmwareId, crc8: wrong })
    expect(refused.status).toBe(400)
    expect(refused.msg).toBe(`The declared CRC8 ${wrong} does not match the file: its CRC-8/SMBUS is ${hex(crc8(bytes))}`)
    const changed = await ok('PUT', '/ota/displaypart/firmware', { firmwareId, crc8: '' })
    expect(changed).toMatchObject({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), crc8: hex(crc8(bytes)), crcVariant: 'CRC-8/SMBUS' })
  })
})

describe('firmware versions', () => {
  it('sort numerically when the list is sorted by custom version (1.10.0 after 1.9.0)', async () => {
    const product = await displayProduct()
    const { stored } = await firmwareFile()
    for (const v of ['1.10.0', '1.9.0', '2.0.0', '1.9.10']) await ok('POST', '/ota/displaypart/firmware', firmwareValues(product, stored.fileName, { customVersion: v }))
    const list = async (isAsc: string) =>
      (await ok<Paged<Firmware>>('POST', '/ota/displaypart/firmware/list', { pageNum: 1, pageSize: 10, productId: product.productId, orderByColumn: 'customVersion', isAsc })).rows.map((r) => r.customVersion)
    expect(await list('ascending')).toEqual(['1.9.0', '1.9.10', '1.10.0', '2.0.0'])
    expect(await list('descending')).toEqual(['2.0.0', '1.10.0', '1.9.10', '1.9.0'])
    // A modified version moves with its number.
    const row = (await ok<Paged<Firmware>>('POST', '/ota/displaypart/firmware/list', { pageNum: 1, pageSize: 10, productId: product.productId, customVersion: '1.9.0' })).rows[0]!
    await ok('PUT', '/ota/displaypart/firmware', { firmwareId: row.firmwareId, customVersion: '3.0.0' })
    expect(await list('descending')).toEqual(['3.0.0', '2.0.0', '1.10.0', '1.9.10'])
  })

  it("refuses a second firmware of one product with the same version (409), in the reader's language", async () => {
    const product = await displayProduct()
    const { stored } = await firmwareFile()
    const first = await ok('POST', '/ota/displaypart/firmware', firmwareValues(product, stored.fileName, { customVersion: '4.2.0' }))
    const res = await call('POST', '/ota/displaypart/firmware', firmwareValues(product, stored.fileName, { customVersion: '4.2.0' }))
    expect(res.status).toBe(409)
    expect(res.msg).toBe(`Product "${product.name}" already has firmware version 4.2.0 ("${first.name}")`)
    const zh = await call('POST', '/ota/displaypart/firmware', firmwareValues(product, stored.fileName, { customVersion: '4.2.0' }), 'zh_CN')
    expect(zh.msg).toBe(`产品“${product.name}”已有版本为 4.2.0 的固件（“${first.name}”）`)
    // Modifying another one to it is refused too; another product may have it.
    const second = await ok('POST', '/ota/displaypart/firmware', firmwareValues(product, stored.fileName, { customVersion: '4.3.0' }))
    expect((await call('PUT', '/ota/displaypart/firmware', { firmwareId: second.firmwareId, customVersion: '4.2.0' })).status).toBe(409)
    const other = await displayProduct()
    await ok('POST', '/ota/displaypart/firmware', firmwareValues(other, stored.fileName, { customVersion: '4.2.0' }))
  })

  it('takes the highest minimum app version of its supported functions', async () => {
    const product = await displayProduct()
    const { stored } = await firmwareFile()
    const fn = async (name: string, minAppVersion: string | null) =>
      (
        await db()
          .insertInto('iotFunction')
          .values({ name: `${name} ${serial}`, command: 'lock', description: '', firmwareVersions: '1.0.0', minAppVersion, status: '0', createBy: 'test', createTime: new Date().toISOString() } as never)
          .returning('functionId')
          .executeTakeFirstOrThrow()
      ).functionId
    const ids = [await fn('Find my bike', '1.9.0'), await fn('Anti-theft alarm', '1.10.0'), await fn('Headlight', null)]
    const added = await ok('POST', '/ota/displaypart/firmware', firmwareValues(product, stored.fileName, { functionIds: ids }))
    expect(added.minAppVersion).toBe('1.10.0')
    const changed = await ok('PUT', '/ota/displaypart/firmware', { firmwareId: added.firmwareId, functionIds: [ids[0]] })
    expect(changed.minAppVersion).toBe('1.9.0')
  })
})

describe('in use', () => {
  const campaign = (values: Record<string, unknown>) =>
    db()
      .insertInto('otaCampaign')
      .values({ name: `Campaign ${++serial}`, partKind: 'display', createBy: 'test', createTime: new Date().toISOString(), ...values } as never)
      .returning('campaignId')
      .executeTakeFirstOrThrow()

  it('a firmware a campaign was submitted with is not deleted (409, naming the campaign); one only a draft names is', async () => {
    const product = await displayProduct()
    const { stored } = await firmwareFile()
    const used = await ok<Firmware>('POST', '/ota/displaypart/firmware', firmwareValues(product, stored.fileName))
    const drafted = await ok<Firmware>('POST', '/ota/displaypart/firmware', firmwareValues(product, stored.fileName, { customVersion: '1.0.1' }))
    await campaign({ name: 'Spring rollout', status: 'running', firmwareId: used.firmwareId })
    await campaign({ status: 'draft', firmwareId: drafted.firmwareId })
    const res = await call('DELETE', `/ota/displaypart/firmware/${used.firmwareId},${drafted.firmwareId}`)
    expect(res.status).toBe(409)
    expect(res.msg).toBe(`Firmware "${used.name}" is used by upgrade campaign "Spring rollout" and cannot be deleted`)
    expect(await db().selectFrom('otaFirmware').select('firmwareId').where('firmwareId', 'in', [used.firmwareId, drafted.firmwareId]).execute()).toHaveLength(2)
    await ok('DELETE', `/ota/displaypart/firmware/${drafted.firmwareId}`)
  })

  it('an audio a campaign deploys is not deleted', async () => {
    const bytes = randomBytes(3000)
    const stored = await upload('/iot/audio', 'beep.mp3', Buffer.concat([Buffer.from('ID3'), bytes]))
    const audio = await ok('POST', '/iot/audio', { appName: 'Lock beep', iotName: `lock_beep_${serial++}`, file: stored.fileName })
    await campaign({ name: 'New sounds', status: 'finished', payload: 'audio', audioId: audio.audioId, partKind: 'iot' })
    const res = await call('DELETE', `/iot/audio/${audio.audioId}`, undefined, 'zh_CN')
    expect(res.status).toBe(409)
    expect(res.msg).toBe('音频“Lock beep”已被升级任务“New sounds”使用，不能删除')
  })
})

describe('audio digests', () => {
  it('answers the size, MD5, SHA-256 and CRC-8 of the file, and refuses a declared CRC8 that differs', async () => {
    const bytes = Buffer.concat([Buffer.from('ID3'), randomBytes(5000)])
    const stored = await upload('/iot/audio', 'unlock.mp3', bytes)
    const sums = { size: bytes.length, md5: createHash('md5').update(bytes).digest('hex'), sha256: createHash('sha256').update(bytes).digest('hex'), crc8: hex(crc8(bytes)) }
    const wrong = hex((crc8(bytes) + 1) % 256)
    const before = await db().selectFrom('iotAudio').select('audioId').execute()
    const refused = await call('POST', '/iot/audio', { appName: 'Unlock', iotName: `unlock_${serial}`, file: stored.fileName, crc8: wrong })
    expect(refused.status).toBe(400)
    expect(refused.msg).toBe(`The declared CRC8 ${wrong} does not match the file: its CRC-8/SMBUS is ${sums.crc8}`)
    expect(await db().selectFrom('iotAudio').select('audioId').execute()).toEqual(before)
    const added = await ok('POST', '/iot/audio', { appName: 'Unlock', iotName: `unlock_${serial}`, file: stored.fileName })
    expect(added).toMatchObject(sums)
    expect((await ok<Paged<Row>>('POST', '/iot/audio/list', { pageNum: 1, pageSize: 10, iotName: `unlock_${serial}` })).rows[0]).toMatchObject({ size: sums.size, md5: sums.md5, crc8: sums.crc8 })
  })
})
