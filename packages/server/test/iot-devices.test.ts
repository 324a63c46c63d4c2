import { type Registration, registrationRequest } from '@velo/device-sim'
import ExcelJS from 'exceljs'
import { describe, expect, it } from 'vitest'
import { otaPublicKeysOf } from '../src/modules/ota/signing'
import { createTestApp, limitedUser, type Refusal, useTestApp, waitForOperLog } from './harness'
import { deviceRow, demoModelId, type IotStreamEvent, openStream, randomSn, simulated, waitFor } from './iot-helpers'

// The embedded broker: the tests connect with the secrets the API hands out.
const t = useTestApp({ MQTT_PORT: '0', MQTT_PUBLIC_URL: 'mqtts://iot.example.com:8883' }, { iot: { presence: { flushMs: 10 } } })

/** A model whose every SN may register itself unless told otherwise. */
async function addModel(productId: string, snPrefix: string, registrationSerials = `${snPrefix}*`) {
  const res = await t.call<{ modelId: number }>({ method: 'POST', url: '/api/iot/model', token: t.admin, body: { productId, name: productId, productCode: 'T', snPrefix, registrationSerials } })
  expect(res.code).toBe(200)
  return res.data.modelId
}

async function registrationKey(modelId: number): Promise<string> {
  const res = await t.call<{ registrationKey: string }>({ url: `/api/iot/model/${modelId}/registrationKey`, token: t.admin })
  expect(res.code).toBe(200)
  return res.data.registrationKey
}

const register = <T = Registration>(body: unknown, lang?: 'en_US' | 'zh_CN') => t.call<T>({ method: 'POST', url: '/api/iot/register', body, lang })

describe('IoT devices in the console', () => {
  it('adding a device gives it a UUID and a secret shown once (never stored, listed or logged in clear)', async () => {
    const modelId = await demoModelId(t)
    const sn = randomSn()
    const res = await t.call<{ uuid: string; secret: string; deviceId: number }>({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn, modelId } })
    expect(res.code).toBe(200)
    expect(res.data).toMatchObject({ sn, modelId, state: 'inactive', flowState: 'normal', transportMode: 'off' })
    expect(res.data.uuid).toMatch(/^[0-9a-f-]{36}$/)
    expect(res.data.secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const { secret, deviceId } = res.data

    const got = await t.call<Record<string, unknown>>({ url: `/api/iot/device/${deviceId}`, token: t.admin })
    expect(got.data.secret).toBeUndefined()
    expect(got.data.secretHash).toBeUndefined()
    const listed = await t.call({ method: 'POST', url: '/api/iot/device/list', token: t.admin, body: { pageNum: 1, pageSize: 10, sn } })
    expect(JSON.stringify(listed.data)).not.toContain(secret)
    const stored = await deviceRow(t, deviceId)
    expect(stored.secretHash).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(stored)).not.toContain(secret)
    const log = await waitForOperLog(t, (r) => r.operUrl === '/api/iot/device' && r.operParam.includes(sn))
    expect(log.jsonResult).not.toContain(secret)
    expect(JSON.parse(log.jsonResult)).toMatchObject({ status: 200, code: 200, data: { deviceId } })

    const device = simulated(t.app, { sn, secret })
    await device.connect()
    await waitFor(async () => (await deviceRow(t, deviceId)).state === 'online', 'online')
    await device.disconnect()
  })

  it("refuses an SN that does not start with its model's prefix, on the sn field, in the caller's language", async () => {
    const modelId = await demoModelId(t)
    const res = await t.call({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn: 'XX000001', modelId } })
    expect(res.status).toBe(400)
    expect(res.msg).toBe('SN must start with VL, the SN prefix of its model')
    expect(res.data).toEqual({ errors: [{ field: 'sn' }] })
    const zh = await t.call({ method: 'POST', url: '/api/iot/device', token: t.admin, lang: 'zh_CN', body: { sn: 'XX000001', modelId } })
    expect(zh.msg).toBe('SN 必须以所属型号的 SN 前缀 VL 开头')
    // Moving a device to a model with another prefix is refused the same way.
    const other = await addModel(`P${randomSn()}`, 'QQ')
    const added = await t.call<{ deviceId: number }>({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn: randomSn(), modelId } })
    const moved = await t.call({ method: 'PUT', url: '/api/iot/device', token: t.admin, body: { deviceId: added.data.deviceId, modelId: other } })
    expect(moved.status).toBe(400)
    expect(moved.data).toEqual({ errors: [{ field: 'sn' }] })
  })

  it('imported devices get a UUID and a secret too (an admin resets it to learn it); a wrong prefix fails its row', async () => {
    const wb = new ExcelJS.Workbook()
    const ws = wb.addWorksheet('Sheet1')
    const [good, bad] = [randomSn(), `XX${randomSn('')}`]
    for (const row of [['SN', 'Product model'], [good, 'Velo 4G IoT module'], [bad, 'Velo 4G IoT module']]) ws.addRow(row)
    const upload = async () => {
      const boundary = `----velo${Date.now()}`
      const payload = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="devices.xlsx"\r\nContent-Type: application/octet-stream\r\n\r\n`),
        Buffer.from(await wb.xlsx.writeBuffer()),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ])
      return t.call({ method: 'POST', url: '/api/iot/device/import', token: t.admin, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } })
    }
    const refused = await upload()
    expect(refused.status).toBe(400)
    expect(JSON.stringify(refused.data)).toContain('SN must start with VL')

    ws.spliceRows(3, 1)
    const res = await upload()
    expect(res.status, JSON.stringify(res.data)).toBe(200)
    expect(res.data).toEqual({ inserted: 1, updated: 0 })
    const row = await t.app.services.db.selectFrom('iotDevice').selectAll().where('sn', '=', good).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ state: 'inactive', uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), secretHash: expect.stringMatching(/^[0-9a-f]{64}$/) })
  })

  it('resets a secret only with iot:device:edit', async () => {
    const added = await t.call<{ deviceId: number; secret: string }>({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn: randomSn(), modelId: await demoModelId(t) } })
    const viewer = await limitedUser(t, { userName: 'iotviewer', perms: ['iot:device:list', 'iot:device:query'], dataScope: '1' })
    const refused = await t.call({ method: 'PUT', url: `/api/iot/device/${added.data.deviceId}/secret`, token: viewer.token })
    expect(refused.status).toBe(403)
    const editor = await limitedUser(t, { userName: 'iotdevedit', perms: ['iot:device:edit'], dataScope: '1' })
    const reset = await t.call<{ secret: string }>({ method: 'PUT', url: `/api/iot/device/${added.data.deviceId}/secret`, token: editor.token })
    expect(reset.code).toBe(200)
    expect(reset.data.secret).not.toBe(added.data.secret)
    expect((await t.call({ method: 'PUT', url: '/api/iot/device/999999/secret', token: t.admin })).status).toBe(404)
  })
})

describe('the live stream and the gateway status', () => {
  it('need iot:device:list', async () => {
    const other = await limitedUser(t, { userName: 'iotmodelonly', perms: ['iot:model:list'], dataScope: '1' })
    expect((await t.call({ url: '/api/iot/stream', token: other.token })).status).toBe(403)
    expect((await t.call({ url: '/api/iot/gateway', token: other.token })).status).toBe(403)
    expect((await t.call({ url: '/api/iot/stream' })).status).toBe(401)
    const lister = await limitedUser(t, { userName: 'iotlister', perms: ['iot:device:list'], dataScope: '1' })
    expect((await t.call({ url: '/api/iot/gateway', token: lister.token })).data).toMatchObject({ protocolVersion: 1, embedded: true, port: t.app.broker!.port, connected: true })
  })

  it('carry a device’s position only to who may see positions (member:pii:location); others get it masked', async () => {
    const blind = await limitedUser(t, { userName: 'iotnopositions', perms: ['iot:device:list'], dataScope: '1' })
    const sighted = await limitedUser(t, { userName: 'iotpositions', perms: ['iot:device:list', 'member:pii:location'], dataScope: '1' })
    const sn = `PS${randomSn('')}`
    const added = await t.call<{ deviceId: number }>({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn, modelId: await addModel(`P${randomSn()}`, 'PS') } })
    expect(added.code, added.msg).toBe(200)
    const streams = await Promise.all([blind, sighted].map((u) => openStream<IotStreamEvent>(t.app, '/api/iot/stream', u.token)))
    try {
      const change = { deviceId: added.data.deviceId, sn, battery: 77, latitude: 52.370216, longitude: 4.895168 }
      await t.app.iot.events.publish({ type: 'device', data: change as never })
      const [hidden, shown] = await Promise.all(streams.map((s) => s.next((e) => e.event === 'device' && e.data.sn === sn, 'the position change')))
      expect(shown!.data).toMatchObject({ battery: 77, latitude: 52.370216, longitude: 4.895168 })
      expect(shown!.data).not.toHaveProperty('masked')
      expect(hidden!.data).toMatchObject({ battery: 77, latitude: null, longitude: null, masked: ['latitude', 'longitude'] })
      // A change without a position names nothing as masked.
      await t.app.iot.events.publish({ type: 'device', data: { deviceId: added.data.deviceId, sn, battery: 76 } as never })
      const next = await streams[0]!.next((e) => e.event === 'device' && e.data.sn === sn && (e.data as { battery?: number }).battery === 76, 'the battery change')
      expect(next!.data).not.toHaveProperty('masked')
    } finally {
      for (const s of streams) await s.close()
    }
    // One device's messages: a telemetry report's position is masked inside its payload.
    const watching = await Promise.all([blind, sighted].map((u) => openStream<IotStreamEvent>(t.app, `/api/iot/stream?deviceId=${added.data.deviceId}`, u.token)))
    try {
      const payload = JSON.stringify({ v: 1, battery: 75, gps: { lat: 52.370216, lng: 4.895168 } })
      await t.app.iot.events.publish({ type: 'message', data: { deviceId: added.data.deviceId, sn, direction: 'up', kind: 'telemetry', topic: `velo/v1/${sn}/up/telemetry`, payload, time: new Date().toISOString() } })
      const [hidden, shown] = await Promise.all(watching.map((s) => s.next((e) => e.event === 'message' && e.data.sn === sn, 'the message')))
      expect(JSON.parse((shown!.data as { payload: string }).payload).gps).toEqual({ lat: 52.370216, lng: 4.895168 })
      expect(JSON.parse((hidden!.data as { payload: string }).payload)).toEqual({ v: 1, battery: 75, gps: '•••' })
    } finally {
      for (const s of watching) await s.close()
    }
  })
})

describe('IoT models', () => {
  it('get a registration key on add that only iot:model:edit reads or resets, and that no list shows', async () => {
    const modelId = await addModel(`M${randomSn()}`, 'MK')
    const key = await registrationKey(modelId)
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/)
    const listed = await t.call({ method: 'POST', url: '/api/iot/model/list', token: t.admin, body: { pageNum: 1, pageSize: 100 } })
    expect(JSON.stringify(listed.data)).not.toContain(key)
    expect(JSON.stringify((await t.call({ url: `/api/iot/model/${modelId}`, token: t.admin })).data)).not.toContain(key)

    const reader = await limitedUser(t, { userName: 'iotmodelreader', perms: ['iot:model:list', 'iot:model:query'], dataScope: '1' })
    expect((await t.call({ url: `/api/iot/model/${modelId}/registrationKey`, token: reader.token })).status).toBe(403)
    expect((await t.call({ method: 'PUT', url: `/api/iot/model/${modelId}/registrationKey`, token: reader.token })).status).toBe(403)
    const editor = await limitedUser(t, { userName: 'iotmodeleditor', perms: ['iot:model:edit'], dataScope: '1' })
    expect((await t.call<{ registrationKey: string }>({ url: `/api/iot/model/${modelId}/registrationKey`, token: editor.token })).data.registrationKey).toBe(key)

    const reset = await t.call<{ registrationKey: string }>({ method: 'PUT', url: `/api/iot/model/${modelId}/registrationKey`, token: editor.token })
    expect(reset.code).toBe(200)
    expect(reset.data.registrationKey).not.toBe(key)
    expect(await registrationKey(modelId)).toBe(reset.data.registrationKey)
    const log = await waitForOperLog(t, (r) => r.operUrl === `/api/iot/model/${modelId}/registrationKey`)
    expect(log.jsonResult).not.toContain(reset.data.registrationKey)
    expect((await t.call({ url: '/api/iot/model/999999/registrationKey', token: t.admin })).status).toBe(404)
    expect((await t.call({ method: 'PUT', url: '/api/iot/model/999999/registrationKey', token: t.admin })).status).toBe(404)
  })

  it('cannot be deleted while devices use them', async () => {
    const modelId = await addModel(`D${randomSn()}`, 'DD')
    const added = await t.call<{ deviceId: number }>({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn: `DD${randomSn('')}`, modelId } })
    expect(added.code).toBe(200)
    const refused = await t.call({ method: 'DELETE', url: `/api/iot/model/${modelId}`, token: t.admin })
    expect(refused.status).toBe(409)
    expect(refused.msg).toMatch(/is used by 1 device and cannot be deleted/)
    expect((await t.call({ method: 'DELETE', url: `/api/iot/model/${modelId}`, token: t.admin, lang: 'zh_CN' })).msg).toMatch(/已被 1 台设备使用/)
    await t.call({ method: 'DELETE', url: `/api/iot/device/${added.data.deviceId}`, token: t.admin })
    expect((await t.call({ method: 'DELETE', url: `/api/iot/model/${modelId}`, token: t.admin })).code).toBe(200)
  })
})

describe('device self-registration', () => {
  it('registers a new SN with a good signature: inactive, with a secret it connects with and where to connect', async () => {
    const modelId = await demoModelId(t)
    const key = await registrationKey(modelId)
    const sn = randomSn()
    const res = await register(registrationRequest('VELO-4G', key, sn))
    expect(res.code).toBe(200)
    expect(res.data).toEqual({
      sn,
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      mqtt: { url: 'mqtts://iot.example.com:8883', port: t.app.broker!.port },
      // The public keys OTA manifests are signed with (docs/iot-protocol.md › Signed images).
      otaKeys: otaPublicKeysOf(t.app.services),
      // The interval the server counts silence in (iot.heartbeat.seconds).
      heartbeatSeconds: 60,
    })
    const row = await t.app.services.db.selectFrom('iotDevice').selectAll().where('sn', '=', sn).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ state: 'inactive', modelId, createBy: 'register' })
    const log = await waitForOperLog(t, (r) => r.operUrl === '/api/iot/register' && r.operParam.includes(sn))
    expect(log.jsonResult).not.toContain(res.data.secret)

    const device = simulated(t.app, { sn, secret: res.data.secret })
    await device.connect()
    await waitFor(async () => (await deviceRow(t, Number(row.deviceId))).state === 'online', 'online')
    // It has connected: registering again could take over a bike in use.
    const again = await register(registrationRequest('VELO-4G', key, sn))
    expect(again.status).toBe(409)
    expect(again.msg).toBe(`Device ${sn} is already registered`)
    await device.disconnect()
  })

  it('tells the device the heartbeat interval staff set, in the registration answer and at GET /iot/broker', async () => {
    const key = await registrationKey(await demoModelId(t))
    const config = await t.app.services.db.selectFrom('sysConfig').select('configId').where('configKey', '=', 'iot.heartbeat.seconds').executeTakeFirstOrThrow()
    expect((await t.call({ method: 'PUT', url: '/api/system/config', token: t.admin, body: { configId: config.configId, configValue: '45' } })).code).toBe(200)
    try {
      expect((await register(registrationRequest('VELO-4G', key, randomSn()))).data.heartbeatSeconds).toBe(45)
      expect((await t.call<{ heartbeatSeconds: number }>({ url: '/api/iot/broker' })).data.heartbeatSeconds).toBe(45)
    } finally {
      await t.call({ method: 'PUT', url: '/api/system/config', token: t.admin, body: { configId: config.configId, configValue: '60' } })
    }
  })

  it('gives an SN that never connected a new secret when it registers again; the old one stops working', async () => {
    const key = await registrationKey(await demoModelId(t))
    const sn = randomSn()
    const first = await register(registrationRequest('VELO-4G', key, sn))
    const second = await register(registrationRequest('VELO-4G', key, sn))
    expect(second.code).toBe(200)
    expect(second.data.secret).not.toBe(first.data.secret)
    await expect(simulated(t.app, { sn, secret: first.data.secret }).connect()).rejects.toMatchObject({ code: 5 })
    const device = simulated(t.app, { sn, secret: second.data.secret })
    await device.connect()
    await device.disconnect()
  })

  it('never replaces the secret of a device staff added (the factory flashed it), even before it first connects', async () => {
    const key = await registrationKey(await demoModelId(t))
    const sn = randomSn()
    const added = await t.call<{ deviceId: number; secret: string }>({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn, modelId: await demoModelId(t) } })
    expect(added.code).toBe(200)
    const { secretHash } = await deviceRow(t, added.data.deviceId)
    const taken = await register(registrationRequest('VELO-4G', key, sn))
    expect(taken.status).toBe(409)
    expect(taken.msg).toBe(`Device ${sn} is already registered`)
    expect((await deviceRow(t, added.data.deviceId)).secretHash).toBe(secretHash)
    const device = simulated(t.app, { sn, secret: added.data.secret })
    await device.connect()
    await device.disconnect()
  })

  it('registers only the serials the factory announced on the model, so SNs still to be made cannot be claimed first', async () => {
    const productId = `S${randomSn()}`
    const modelId = await addModel(productId, 'SR', '')
    const key = await registrationKey(modelId)
    // A new model lets none register itself until staff name its serials.
    const none = await register(registrationRequest(productId, key, 'SR000150'))
    expect(none.status).toBe(403)
    expect(none.msg).toBe('SN SR000150 is not among the serials this model lets register themselves')
    expect((await register(registrationRequest(productId, key, 'SR000151'), 'zh_CN')).msg).toBe('序列号 SR000151 不在该型号允许自注册的序列号中')

    const edit = (registrationSerials: string, lang?: 'en_US' | 'zh_CN') => t.call({ method: 'PUT', url: '/api/iot/model', token: t.admin, lang, body: { modelId, registrationSerials } })
    expect((await edit('SR000100-SR000199, SR000300, SRX*')).code).toBe(200)
    // A range that could hold nothing, or text that is no range, is refused on the field and changes nothing.
    for (const [bad, msg] of <[string, string][]>[
      ['SR000199-SR000100', 'The range SR000199-SR000100 holds no serial: its two ends must have the same length, the first not after the second'],
      ['SR0001-SR000199', 'The range SR0001-SR000199 holds no serial: its two ends must have the same length, the first not after the second'],
      ['SR000100..SR000199', 'Serials: ranges VL000100-VL000199, single SNs or a prefix VL*, comma-separated'],
    ]) {
      const refused = await edit(bad)
      expect(refused.status, bad).toBe(400)
      expect(refused.msg).toContain(msg)
      expect(JSON.stringify(refused.data)).toContain('registrationSerials')
    }
    expect((await edit('SR000199-SR000100', 'zh_CN')).msg).toBe('区间 SR000199-SR000100 不含任何序列号：两端长度须相同，且起点不能在终点之后')

    for (const sn of ['SR000100', 'SR000150', 'SR000199', 'SR000300', 'SRX12345']) expect((await register(registrationRequest(productId, key, sn))).code, sn).toBe(200)
    for (const sn of ['SR000200', 'SR000099', 'SR0001500', 'SR000301']) {
      expect((await register(registrationRequest(productId, key, sn))).status, sn).toBe(403)
      expect(await t.app.services.db.selectFrom('iotDevice').select('deviceId').where('sn', '=', sn).executeTakeFirst(), sn).toBeUndefined()
    }
    // The factory adds an SN it has not announced yet: nobody took it first.
    expect((await t.call({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn: 'SR000200', modelId } })).code).toBe(200)
  })

  it('refuses a replayed request, on any instance, and changes nothing: the first secret keeps working', async () => {
    const key = await registrationKey(await demoModelId(t))
    const sn = randomSn()
    const signed = registrationRequest('VELO-4G', key, sn)
    const first = await register(signed)
    expect(first.code).toBe(200)
    const { secretHash } = await t.app.services.db.selectFrom('iotDevice').select('secretHash').where('sn', '=', sn).executeTakeFirstOrThrow()

    const replay = await register(signed)
    expect(replay.status).toBe(409)
    expect(replay.msg).toBe(`This registration request of ${sn} was already used: sign a new one with a new nonce`)
    expect(replay.data).toEqual({ reason: 'E_REPLAYED', errors: [{ field: 'nonce' }] })
    expect((await register(signed, 'zh_CN')).msg).toBe(`设备 ${sn} 的这个注册请求已经使用过，请用新的 nonce 重新签名`)
    // The same signature spelt in upper case is the same request.
    expect((await register({ ...signed, sign: signed.sign.toUpperCase() })).status).toBe(409)
    // The nonce is signed: a copy with another one is not a request of the device's.
    expect((await register({ ...signed, nonce: registrationRequest('VELO-4G', key, sn).nonce })).status).toBe(403)
    // Another instance of the deployment knows the nonce too (the key-value store: SQL, or Redis).
    const other = await createTestApp({ MQTT_PORT: '0' }, { databaseUrl: t.databaseUrl })
    try {
      expect((await other.call({ method: 'POST', url: '/api/iot/register', body: signed })).status).toBe(409)
    } finally {
      await other.close()
    }
    expect((await t.app.services.db.selectFrom('iotDevice').select('secretHash').where('sn', '=', sn).executeTakeFirstOrThrow()).secretHash).toBe(secretHash)

    const device = simulated(t.app, { sn, secret: first.data.secret })
    await device.connect()
    await waitFor(async () => (await t.app.services.db.selectFrom('iotDevice').select('state').where('sn', '=', sn).executeTakeFirstOrThrow()).state === 'online', 'online')
    await device.disconnect()
    // A fresh request of a device that has connected is refused as before.
    expect((await register(registrationRequest('VELO-4G', key, sn))).msg).toBe(`Device ${sn} is already registered`)
  })

  it('takes two requests with different nonces, even of the same millisecond, and requires a nonce', async () => {
    const key = await registrationKey(await demoModelId(t))
    const sn = randomSn()
    const timestamp = Date.now()
    const first = await register(registrationRequest('VELO-4G', key, sn, timestamp))
    const second = await register(registrationRequest('VELO-4G', key, sn, timestamp))
    expect([first.code, second.code]).toEqual([200, 200])
    expect(second.data.secret).not.toBe(first.data.secret)

    const { nonce: _, ...withoutNonce } = registrationRequest('VELO-4G', key, randomSn())
    expect((await register(withoutNonce)).status).toBe(400)
    const short = await register<Refusal>(registrationRequest('VELO-4G', key, randomSn(), Date.now(), 'tooShort'))
    expect(short.status).toBe(400)
    expect(short.data.errors[0]!.field).toBe('nonce')
  })

  it('refuses an SN of another model', async () => {
    const other = await addModel(`R${randomSn()}`, 'VL')
    const sn = randomSn()
    expect((await register(registrationRequest('VELO-4G', await registrationKey(await demoModelId(t)), sn))).code).toBe(200)
    const otherKey = await registrationKey(other)
    const res = await register(registrationRequest((await t.call<{ productId: string }>({ url: `/api/iot/model/${other}`, token: t.admin })).data.productId, otherKey, sn))
    expect(res.status).toBe(409)
  })

  it('answers a bad signature, an unknown product and a disabled model alike', async () => {
    const modelId = await addModel(`S${randomSn()}`, 'SG')
    const productId = (await t.call<{ productId: string }>({ url: `/api/iot/model/${modelId}`, token: t.admin })).data.productId
    const key = await registrationKey(modelId)
    const sn = `SG${randomSn('')}`
    const badSign = await register(registrationRequest(productId, `${key}x`, sn))
    const unknown = await register(registrationRequest('NO-SUCH-PRODUCT', key, sn))
    await t.call({ method: 'PUT', url: '/api/iot/model', token: t.admin, body: { modelId, status: '1' } })
    const disabled = await register(registrationRequest(productId, key, sn))
    for (const res of [badSign, unknown, disabled]) {
      expect(res.status).toBe(403)
      expect(res.msg).toBe('Unknown product or wrong signature')
    }
    expect((await register(registrationRequest(productId, key, sn), 'zh_CN')).msg).toBe('产品不存在或签名错误')
    await t.call({ method: 'PUT', url: '/api/iot/model', token: t.admin, body: { modelId, status: '0' } })
    expect((await register(registrationRequest(productId, key, sn))).code).toBe(200)
    expect(await t.app.services.db.selectFrom('iotDevice').select('sn').where('sn', '=', sn).executeTakeFirst()).toBeDefined()
  })

  it('refuses a stale timestamp, a malformed SN and an SN without the model prefix, each with a reason a device reads', async () => {
    const key = await registrationKey(await demoModelId(t))
    const stale = await register(registrationRequest('VELO-4G', key, randomSn(), Date.now() - 6 * 60_000))
    expect(stale.status).toBe(400)
    expect(stale.msg).toBe('The timestamp is more than 5 minutes away from the server clock')
    expect(stale.data).toEqual({ reason: 'E_STALE', errors: [{ field: 'timestamp' }] })
    const future = await register(registrationRequest('VELO-4G', key, randomSn(), Date.now() + 6 * 60_000))
    expect(future.status).toBe(400)
    const lower = await register(registrationRequest('VELO-4G', key, 'vl-000001'))
    expect(lower.status).toBe(400)
    expect(lower.data).toEqual({ reason: 'E_BAD_SN', errors: [{ field: 'sn' }] })
    const prefix = await register(registrationRequest('VELO-4G', key, 'AB000001'))
    expect(prefix.status).toBe(400)
    expect(prefix.msg).toBe('SN must start with VL, the SN prefix of its model')
    expect(prefix.data).toEqual({ reason: 'E_SN_PREFIX', errors: [{ field: 'sn' }] })
    const malformed = await register({ productId: 'VELO-4G', sn: randomSn(), timestamp: Date.now(), sign: 'nothex' })
    expect(malformed.status).toBe(400)
    // The others: a signature that does not verify, an SN not announced, an SN taken.
    expect((await register(registrationRequest('VELO-4G', `${key}x`, randomSn()))).data).toEqual({ reason: 'E_REFUSED' })
    const model = await addModel(`N${randomSn()}`, 'NA', '')
    const productId = (await t.call<{ productId: string }>({ url: `/api/iot/model/${model}`, token: t.admin })).data.productId
    expect((await register(registrationRequest(productId, await registrationKey(model), 'NA000001'))).data).toEqual({ reason: 'E_NOT_ANNOUNCED', errors: [{ field: 'sn' }] })
    const added = await t.call<{ sn: string }>({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn: randomSn(), modelId: await demoModelId(t) } })
    expect((await register(registrationRequest('VELO-4G', key, added.data.sn))).data).toEqual({ reason: 'E_TAKEN', errors: [{ field: 'sn' }] })
  })
})
