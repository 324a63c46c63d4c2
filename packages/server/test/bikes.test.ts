import { randomBytes } from 'node:crypto'
import type { Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { limitedUser, multipart, type Refusal, snapshot, useTestApp, waitForOperLog } from './harness'
import { clearRetained, insertDevice, simulated, waitFor } from './iot-helpers'

// Bikes › Bikes, pictures, model colours and sizes, vehicle records: the module's own rules
// (modules/bike). The engine contract test covers the rest of the definitions.
const t = useTestApp()
const db = () => t.app.services.db
type Row = Record<string, unknown>

const code = (prefix = '') => `${prefix}${randomBytes(3).toString('hex').toUpperCase()}`

async function post<T = unknown>(url: string, body: object, lang?: 'en_US' | 'zh_CN') {
  return t.call<T>({ method: 'POST', url: `/api${url}`, token: t.admin, body, lang })
}
async function put<T = unknown>(url: string, body: object, lang?: 'en_US' | 'zh_CN') {
  return t.call<T>({ method: 'PUT', url: `/api${url}`, token: t.admin, body, lang })
}
async function remove<T = unknown>(url: string, lang?: 'en_US' | 'zh_CN') {
  return t.call<T>({ method: 'DELETE', url: `/api${url}`, token: t.admin, lang })
}
async function added<T = Row>(url: string, body: object): Promise<T> {
  const res = await post<T>(url, body)
  expect(res.status, `${url}: ${res.msg} ${JSON.stringify(res.data)}`).toBe(200)
  return res.data
}

const addModel = async () => added<{ modelId: number; name: string }>('/bike/modelSpec', { category: 'city', name: `Model ${code()}`, code: code('M') })
const addColour = async (modelId: number, c = code('C')) => added<{ colourId: number; name: string }>('/bike/modelSpec/colour', { modelId, name: `Colour ${c}`, code: c })
const addSize = async (modelId: number, values: Row = {}) => added<{ sizeId: number }>('/bike/modelSpec/size', { modelId, name: 'M', code: code('S'), ...values })

/** A model with a colour and a size. */
async function spec() {
  const model = await addModel()
  const colour = await addColour(model.modelId)
  const size = await addSize(model.modelId)
  return { modelId: model.modelId as number, colourId: colour.colourId as number, sizeId: size.sizeId as number }
}

const addBike = async (s: Row, values: Row = {}) => added<{ bikeId: number; frameNumber: string }>('/bike/bike', { category: 'city', frameNumber: code('VL'), ...s, ...values })

/** A member as the app writes one: staff never add members. */
async function insertMember(): Promise<number> {
  const row = await db()
    .insertInto('memMember')
    .values({ email: `rider${code()}@example.com`, firstName: 'Ada', lastName: 'Rider', createBy: 'app', createTime: new Date().toISOString() })
    .returning('memberId')
    .executeTakeFirstOrThrow()
  return Number(row.memberId)
}

/** Binds a bike to a member as the app does. */
async function bind(bikeId: number, memberId: number) {
  await db().updateTable('bikeBike').set({ memberId, bindStatus: 'bound', boundTime: '2026-03-01T08:00:00.000Z', defaultBike: 1 }).where('bikeId', '=', bikeId).execute()
  await db().updateTable('memMember').set({ bindStatus: 'bound' }).where('memberId', '=', memberId).execute()
}

const records = async (bikeId: number) => {
  const res = await post<Paged<{ bikeId: number; bikeIdLabel: string; eventKind: string; eventTime: string; frameNumber: string; detail: string; operBy: string }>>('/bike/record/list', { bikeId, pageSize: 100, orderByColumn: 'recordId', isAsc: 'ascending' })
  expect(res.status, res.msg).toBe(200)
  return res.data.rows
}

const fields = (res: { data: Refusal | null }) => (res.data?.errors ?? []).map((e: { field: string }) => e.field)

async function uploadPng(): Promise<string> {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex')
  const body = multipart([{ name: 'bike.png', bytes: png }])
  const res = await t.call<{ fileName: string }>({ method: 'POST', url: '/api/common/upload', token: t.admin, ...body })
  expect(res.status, res.msg).toBe(200)
  return res.data.fileName
}

describe('unbinding a bike', () => {
  it('clears the member and bound time, keeps the member bound while another bike is, and writes an unbound record', async () => {
    const s = await spec()
    const memberId = await insertMember()
    const first = await addBike(s)
    const second = await addBike(s)
    await bind(first.bikeId, memberId)
    await bind(second.bikeId, memberId)

    const res = await post(`/bike/bike/${first.bikeId}/action/unbind`, { reason: 'sold' })
    expect(res.status, res.msg).toBe(200)
    expect(res.msg).toBe('Unbind: done')
    const got = await t.call({ url: `/api/bike/bike/${first.bikeId}`, token: t.admin })
    expect(got.data).toMatchObject({ memberId: null, boundTime: null, bindStatus: 'unbound', defaultBike: false })
    // The member still has a bound bike.
    expect((await db().selectFrom('memMember').select('bindStatus').where('memberId', '=', memberId).executeTakeFirstOrThrow()).bindStatus).toBe('bound')
    const unbound = (await records(first.bikeId)).filter((r) => r.eventKind === 'unbound')
    expect(unbound).toHaveLength(1)
    expect(unbound[0]).toMatchObject({ memberId, operBy: 'admin', frameNumber: first.frameNumber, detail: 'Sold or given away' })
    expect(Date.now() - new Date(unbound[0]!.eventTime).getTime()).toBeLessThan(60_000)
    // The engine logs the action.
    const log = await waitForOperLog(t, (r) => r.operUrl === `/api/bike/bike/${first.bikeId}/action/unbind`)
    expect(log.status).toBe('0')

    // The last bound bike: the member is unbound too.
    expect((await post(`/bike/bike/${second.bikeId}/action/unbind`, { reason: 'memberRequest' })).status).toBe(200)
    expect((await db().selectFrom('memMember').select('bindStatus').where('memberId', '=', memberId).executeTakeFirstOrThrow()).bindStatus).toBe('unbound')
  })

  it('refuses a bike that is not bound (409) and a role without the right (403), changing nothing', async () => {
    const s = await spec()
    const bike = await addBike(s)
    const before = await snapshot(t, 'bikeBike' as never, 'bikeRecord' as never)
    const en = await post(`/bike/bike/${bike.bikeId}/action/unbind`, { reason: 'sold' })
    expect(en.status).toBe(409)
    expect(en.msg).toBe('Cannot Unbind while it is Unbound')
    const zh = await post(`/bike/bike/${bike.bikeId}/action/unbind`, { reason: 'sold' }, 'zh_CN')
    expect(zh.msg).toBe('当前为“未绑定”，不能解绑')
    expect(await snapshot(t, 'bikeBike' as never, 'bikeRecord' as never)).toEqual(before)

    const memberId = await insertMember()
    await bind(bike.bikeId, memberId)
    const bound = await snapshot(t, 'bikeBike' as never, 'bikeRecord' as never, 'memMember' as never)
    const clerk = await limitedUser(t, { userName: 'bikeclerk', dataScope: '1', perms: ['bike:bike:list', 'bike:bike:query', 'bike:bike:edit'] })
    const refused = await t.call({ method: 'POST', url: `/api/bike/bike/${bike.bikeId}/action/unbind`, token: clerk.token, body: { reason: 'sold' } })
    expect(refused.status).toBe(403)
    expect(await snapshot(t, 'bikeBike' as never, 'bikeRecord' as never, 'memMember' as never)).toEqual(bound)
  })
})

// Issue 36: staff say why a bike was unbound, and the bike's history keeps it.
describe('the reason for unbinding', () => {
  it('is required (400, localized, nothing changed), Other needs a note, and the record keeps it in the caller’s language', async () => {
    const s = await spec()
    const memberId = await insertMember()
    const device = await insertDevice(t)
    const bike = await addBike(s, { iotDeviceId: device.deviceId })
    await bind(bike.bikeId, memberId)
    await db().updateTable('iotDevice').set({ bindState: 'bound' }).where('deviceId', '=', device.deviceId).execute()
    const tables = ['bikeBike', 'bikeRecord', 'memMember', 'iotDevice'] as never[]
    const before = await snapshot(t, ...tables)

    const none = await post<Refusal>(`/bike/bike/${bike.bikeId}/action/unbind`, {})
    expect(none.status).toBe(400)
    expect(fields(none)).toEqual(['reason'])
    expect(none.msg).toBe('Invalid request: Reason is required')
    const noneZh = await post(`/bike/bike/${bike.bikeId}/action/unbind`, { note: '   ' }, 'zh_CN')
    expect(noneZh.status).toBe(400)
    expect(noneZh.msg).toBe('请求参数有误：原因不能为空')
    const unknown = await post<Refusal>(`/bike/bike/${bike.bikeId}/action/unbind`, { reason: 'bored' })
    expect(unknown.status).toBe(400)
    expect(fields(unknown)).toEqual(['reason'])
    const other = await post<Refusal>(`/bike/bike/${bike.bikeId}/action/unbind`, { reason: 'other' })
    expect(other.status).toBe(400)
    expect(other.msg).toBe('Note is required when the reason is Other')
    expect(fields(other)).toEqual(['note'])
    const otherZh = await post(`/bike/bike/${bike.bikeId}/action/unbind`, { reason: 'other', note: '' }, 'zh_CN')
    expect(otherZh.msg).toBe('原因为“其他”时，说明不能为空')
    expect(await snapshot(t, ...tables)).toEqual(before)

    const done = await post(`/bike/bike/${bike.bikeId}/action/unbind`, { reason: 'stolen', note: 'Reported to the police on 3 March' }, 'zh_CN')
    expect(done.status, done.msg).toBe(200)
    const got = await t.call({ url: `/api/bike/bike/${bike.bikeId}`, token: t.admin })
    expect(got.data).toMatchObject({ bindStatus: 'unbound', memberId: null, iotDeviceId: device.deviceId })
    // The device stays fitted; its bind state follows the bike's.
    expect((await db().selectFrom('iotDevice').select('bindState').where('deviceId', '=', device.deviceId).executeTakeFirstOrThrow()).bindState).toBe('unbound')
    // The bike's history (its details' vehicle records) says why, and from whom.
    const unbound = (await records(bike.bikeId)).filter((r) => r.eventKind === 'unbound')
    expect(unbound).toHaveLength(1)
    expect(unbound[0]).toMatchObject({ memberId, operBy: 'admin', detail: '被盗或丢失: Reported to the police on 3 March' })
    // The operation log keeps the request as sent.
    const log = await waitForOperLog(t, (r) => r.operUrl === `/api/bike/bike/${bike.bikeId}/action/unbind` && r.status === '0')
    expect(log.operParam).toContain('Reported to the police')
  })
})

describe('deleting bikes', () => {
  it('refuses any bound bike among the ids, deleting none, and deletes them once unbound', async () => {
    const s = await spec()
    const free = await addBike(s)
    const taken = await addBike(s)
    await bind(taken.bikeId, await insertMember())
    const before = await snapshot(t, 'bikeBike' as never)

    const en = await remove(`/bike/bike/${free.bikeId},${taken.bikeId}`)
    expect(en.status).toBe(409)
    expect(en.msg).toMatch(/^Cannot delete bike ".+": Bound vehicle cannot be deleted$/)
    const zh = await remove(`/bike/bike/${taken.bikeId},${free.bikeId}`, 'zh_CN')
    expect(zh.msg).toMatch(/已绑定的车辆不能删除$/)
    expect(await snapshot(t, 'bikeBike' as never)).toEqual(before)

    expect((await post(`/bike/bike/${taken.bikeId}/action/unbind`, { reason: 'returned' })).status).toBe(200)
    const done = await remove(`/bike/bike/${free.bikeId},${taken.bikeId}`)
    expect(done.status, done.msg).toBe(200)
    expect(done.data).toEqual({ deleted: 2 })
  })
})

describe('a bike’s colour and size', () => {
  it('must be of the bike’s model, on add and modify (400 naming the field)', async () => {
    const a = await spec()
    const b = await spec()
    const count = async () => Number((await db().selectFrom('bikeBike').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
    const rows = await count()

    const colour = await post<Refusal>('/bike/bike', { category: 'city', frameNumber: code('VL'), ...a, colourId: b.colourId })
    expect(colour.status).toBe(400)
    expect(fields(colour)).toEqual(['colourId'])
    const colourName = (await db().selectFrom('bikeModelColour').select('name').where('colourId', '=', b.colourId).executeTakeFirstOrThrow()).name
    const modelName = (await db().selectFrom('bikeModel').select('name').where('modelId', '=', a.modelId).executeTakeFirstOrThrow()).name
    expect(colour.msg).toBe(`Colour "${colourName}" is not one of model "${modelName}"`)
    const zh = await post<Refusal>('/bike/bike', { category: 'city', frameNumber: code('VL'), ...a, sizeId: b.sizeId }, 'zh_CN')
    expect(zh.status).toBe(400)
    expect(fields(zh)).toEqual(['sizeId'])
    expect(zh.msg).toMatch(/^尺寸“M”不属于车型“/)
    expect(await count()).toBe(rows)

    // A modify that changes the model alone leaves the colour of the old one.
    const bike = await addBike(a)
    const moved = await put<Refusal>('/bike/bike', { bikeId: bike.bikeId, modelId: b.modelId })
    expect(moved.status).toBe(400)
    expect(fields(moved)).toEqual(['colourId'])
    const whole = await put('/bike/bike', { bikeId: bike.bikeId, ...b })
    expect(whole.status, whole.msg).toBe(200)
    expect(whole.data).toMatchObject(b)
  })

  it('are offered from the chosen model only', async () => {
    const a = await spec()
    const b = await spec()
    const options = (url: string) => t.call<{ value: number }[]>({ url: `/api${url}`, token: t.admin })
    const of = await options(`/bike/modelSpec/colour/options?modelId=${a.modelId}`)
    expect(of.status).toBe(200)
    expect(of.data.map((o: { value: number }) => o.value)).toEqual([a.colourId])
    expect((await options(`/bike/modelSpec/size/options?modelId=${b.modelId}`)).data.map((o: { value: number }) => o.value)).toEqual([b.sizeId])
    // Without the model, every colour (a search form); a model that is no id is refused.
    const all = (await options('/bike/modelSpec/colour/options')).data.map((o: { value: number }) => o.value)
    expect(all).toEqual(expect.arrayContaining([a.colourId, b.colourId]))
    expect((await options('/bike/modelSpec/colour/options?modelId=x')).status).toBe(400)
    // One row by id, for the name of the one a form holds; within the owner still.
    expect((await options(`/bike/modelSpec/colour/options?id=${b.colourId}`)).data.map((o: { value: number }) => o.value)).toEqual([b.colourId])
    expect((await options(`/bike/modelSpec/colour/options?id=${b.colourId}&modelId=${a.modelId}`)).data).toEqual([])
    expect((await options('/bike/modelSpec/colour/options?id=0')).status).toBe(400)
  })

  it('a picture’s colour must be of its model', async () => {
    const a = await spec()
    const b = await spec()
    const image = await uploadPng()
    const res = await post<Refusal>('/bike/picture', { modelId: a.modelId, colourId: b.colourId, image })
    expect(res.status).toBe(400)
    expect(fields(res)).toEqual(['colourId'])
    const picture = await added('/bike/picture', { modelId: a.modelId, colourId: a.colourId, image })
    const moved = await put<Refusal>('/bike/picture', { pictureId: picture.pictureId, modelId: b.modelId })
    expect(moved.status).toBe(400)
    expect(fields(moved)).toEqual(['colourId'])
  })
})

describe('a replacement frame number', () => {
  it('needs its reason (400 naming the field) and is recorded with it', async () => {
    const s = await spec()
    const en = await post<Refusal>('/bike/bike', { category: 'city', frameNumber: code('VL'), ...s, frameType: 'replacement', replacementReason: '  ' })
    expect(en.status).toBe(400)
    expect(fields(en)).toEqual(['replacementReason'])
    expect(en.msg).toBe('Replacement reason is required for a replacement frame number')
    const zh = await post('/bike/bike', { category: 'city', frameNumber: code('VL'), ...s, frameType: 'replacement' }, 'zh_CN')
    expect(zh.msg).toBe('车架号类型为补换时，补换原因不能为空')

    const regular = await addBike(s)
    const edit = await put<Refusal>('/bike/bike', { bikeId: regular.bikeId, frameType: 'replacement' })
    expect(edit.status).toBe(400)
    expect(fields(edit)).toEqual(['replacementReason'])

    const bike = await addBike(s, { frameType: 'replacement', replacementReason: 'Frame cracked at the head tube' })
    expect((await records(bike.bikeId)).map((r) => [r.eventKind, r.frameNumber, r.detail])).toEqual([
      ['produced', bike.frameNumber, ''],
      ['frameReplaced', bike.frameNumber, 'Frame cracked at the head tube'],
    ])
  })
})

describe('colour and size codes', () => {
  it('are unique within a model (409 naming the field), free across models', async () => {
    const a = await addModel()
    const b = await addModel()
    const colour = await addColour(a.modelId, 'RED')
    const same = await post<Refusal>('/bike/modelSpec/colour', { modelId: a.modelId, name: 'Also red', code: 'RED' })
    expect(same.status).toBe(409)
    expect(fields(same)).toEqual(['code'])
    expect(same.msg).toBe(`Code "RED" already exists in model "${a.name}"`)
    const zh = await post('/bike/modelSpec/colour', { modelId: a.modelId, name: 'Also red', code: 'RED' }, 'zh_CN')
    expect(zh.msg).toBe(`车型“${a.name}”中已存在代码“RED”`)
    const other = await addColour(b.modelId, 'RED')
    // Moving a colour into a model that has its code, or renaming it to a code there.
    expect((await put('/bike/modelSpec/colour', { colourId: other.colourId, modelId: a.modelId })).status).toBe(409)
    const blue = await addColour(a.modelId, 'BLUE')
    expect((await put('/bike/modelSpec/colour', { colourId: blue.colourId, code: 'RED' })).status).toBe(409)
    // Saving a colour with its own code is no clash.
    expect((await put('/bike/modelSpec/colour', { colourId: colour.colourId, code: 'RED', name: 'Red' })).status).toBe(200)

    const size = await addSize(a.modelId, { code: 'L' })
    const sizeAgain = await post<Refusal>('/bike/modelSpec/size', { modelId: a.modelId, name: 'Large', code: 'L' })
    expect(sizeAgain.status).toBe(409)
    expect(fields(sizeAgain)).toEqual(['code'])
    expect((await addSize(b.modelId, { code: 'L' })).sizeId).not.toBe(size.sizeId)
  })
})

describe('size ranges', () => {
  it('refuse a maximum below its minimum, on add and modify (400 naming the maximum)', async () => {
    const model = await addModel()
    const frame = await post<Refusal>('/bike/modelSpec/size', { modelId: model.modelId, name: 'M', code: 'M', frameSizeMin: 54, frameSizeMax: 50 })
    expect(frame.status).toBe(400)
    expect(fields(frame)).toEqual(['frameSizeMax'])
    expect(frame.msg).toBe('Frame size to (cm) must not be less than Frame size from (cm)')
    const zh = await post<Refusal>('/bike/modelSpec/size', { modelId: model.modelId, name: 'M', code: 'M', riderHeightMin: 180, riderHeightMax: 170 }, 'zh_CN')
    expect(zh.status).toBe(400)
    expect(fields(zh)).toEqual(['riderHeightMax'])
    expect(zh.msg).toBe('适合身高上限(cm)不能小于适合身高下限(cm)')
    const size = await addSize(model.modelId, { frameSizeMin: 50, frameSizeMax: 50, riderHeightMin: 165, riderHeightMax: 180 })
    // A new minimum above the stored maximum.
    const edit = await put<Refusal>('/bike/modelSpec/size', { sizeId: size.sizeId, riderHeightMin: 185 })
    expect(edit.status).toBe(400)
    expect(fields(edit)).toEqual(['riderHeightMax'])
  })
})

describe('an IoT device', () => {
  it('is fitted to one bike at a time (409 naming the field)', async () => {
    const s = await spec()
    const device = await insertDevice(t)
    const first = await addBike(s, { iotDeviceId: device.deviceId })
    const en = await post<Refusal>('/bike/bike', { category: 'city', frameNumber: code('VL'), ...s, iotDeviceId: device.deviceId })
    expect(en.status).toBe(409)
    expect(fields(en)).toEqual(['iotDeviceId'])
    expect(en.msg).toBe(`IoT device ${device.sn} is already fitted to bike ${first.frameNumber}`)
    const second = await addBike(s)
    expect((await put('/bike/bike', { bikeId: second.bikeId, iotDeviceId: device.deviceId })).status).toBe(409)
    // The bike that has it may be saved with it; once it lets it go, another bike may take it.
    expect((await put('/bike/bike', { bikeId: first.bikeId, iotDeviceId: device.deviceId, remark: 'checked' })).status).toBe(200)
    expect((await put('/bike/bike', { bikeId: first.bikeId, iotDeviceId: null })).status).toBe(200)
    expect((await put('/bike/bike', { bikeId: second.bikeId, iotDeviceId: device.deviceId })).status).toBe(200)
  })

  it('shows in the bike list by SN with its state, as the device reports it', async () => {
    const s = await spec()
    const d = await insertDevice(t)
    const bike = await addBike(s, { iotDeviceId: d.deviceId })
    const row = async () => (await post<Paged<Row>>('/bike/bike/list', { frameNumber: bike.frameNumber })).data.rows[0]
    expect(await row()).toMatchObject({ iotDeviceId: d.deviceId, iotDeviceIdLabel: d.sn, iotDeviceIdState: 'inactive' })
    const device = simulated(t.app, d)
    await device.connect()
    try {
      await waitFor(async () => (await row())!.iotDeviceIdState === 'online', 'online in the bike list')
    } finally {
      device.kill()
      await clearRetained(t.app, [d.sn])
    }
    expect((await post<Paged<Row>>('/bike/bike/list', { frameNumber: (await addBike(s)).frameNumber })).data.rows[0]).toMatchObject({ iotDeviceId: null, iotDeviceIdLabel: null, iotDeviceIdState: null })
  })

  it('fitted to several bikes at once goes to one; the others are told 409, not 500', async () => {
    const s = await spec()
    const device = await insertDevice(t)
    const bikes = await Promise.all(Array.from({ length: 6 }, () => addBike(s)))
    const answers = await Promise.all(bikes.map((b) => put('/bike/bike', { bikeId: b.bikeId, iotDeviceId: device.deviceId })))
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409])
    const fitted = await db().selectFrom('bikeBike').select('bikeId').where('iotDeviceId', '=', device.deviceId).execute()
    expect(fitted).toHaveLength(1)
  })
})

describe('deleting a model, colour or size', () => {
  it('is refused while bikes or pictures use it (409), deleting nothing', async () => {
    const s = await spec()
    await addBike(s)
    const before = await snapshot(t, 'bikeModel' as never, 'bikeModelColour' as never, 'bikeModelSize' as never)
    const model = await remove(`/bike/modelSpec/${s.modelId}`)
    expect(model.status).toBe(409)
    expect(model.msg).toMatch(/^The bike model ".*" is used by 1 bike and cannot be deleted$/)
    const zh = await remove(`/bike/modelSpec/${s.modelId}`, 'zh_CN')
    expect(zh.msg).toMatch(/^车型“.*”已被 1 辆车使用，不能删除$/)
    expect((await remove(`/bike/modelSpec/colour/${s.colourId}`)).status).toBe(409)
    expect((await remove(`/bike/modelSpec/size/${s.sizeId}`)).status).toBe(409)
    expect(await snapshot(t, 'bikeModel' as never, 'bikeModelColour' as never, 'bikeModelSize' as never)).toEqual(before)

    // A colour that only a picture shows.
    const pictured = await addColour(s.modelId)
    await added('/bike/picture', { modelId: s.modelId, colourId: pictured.colourId, image: await uploadPng() })
    const colour = await remove(`/bike/modelSpec/colour/${pictured.colourId}`)
    expect(colour.status).toBe(409)
    expect(colour.msg).toBe(`The model colour "${pictured.name}" is used by 1 picture and cannot be deleted`)
    // A colour in use keeps its model.
    const other = await addModel()
    expect((await put('/bike/modelSpec/colour', { colourId: pictured.colourId, modelId: other.modelId })).status).toBe(409)
  })

  it('deletes a model no bike or picture uses, with its colours and sizes', async () => {
    const s = await spec()
    const res = await remove(`/bike/modelSpec/${s.modelId}`)
    expect(res.status, res.msg).toBe(200)
    expect(await db().selectFrom('bikeModelColour').select('colourId').where('modelId', '=', s.modelId).execute()).toEqual([])
    expect(await db().selectFrom('bikeModelSize').select('sizeId').where('modelId', '=', s.modelId).execute()).toEqual([])
  })
})

describe('vehicle records', () => {
  it('are written for a new bike and a service order for it, and listed by bike', async () => {
    const s = await spec()
    const bike = await addBike(s)
    const other = await addBike(s)
    const order = await added('/service/repairOrder', {
      serviceType: 'repair',
      contactEmail: 'rider@example.com',
      bikeId: bike.bikeId,
      firstName: 'Ada',
      lastName: 'Rider',
      issueDescription: 'The motor cuts out on hills',
    })
    // An order names a registered bike: a typed frame number is refused, and records nothing.
    expect((await post('/service/repairOrder', { serviceType: 'repair', contactEmail: 'rider@example.com', bikeId: 'NOSUCHBIKE1', firstName: 'A', lastName: 'B', issueDescription: 'x' })).status).toBe(400)
    const rows = await records(bike.bikeId)
    expect(rows.map((r) => [r.eventKind, r.frameNumber, r.detail, r.operBy])).toEqual([
      ['produced', bike.frameNumber, '', 'admin'],
      ['serviceOrder', bike.frameNumber, order.orderNo, 'admin'],
    ])
    expect(rows.every((r) => r.bikeId === bike.bikeId && r.bikeIdLabel === bike.frameNumber)).toBe(true)
    expect((await records(other.bikeId)).map((r) => r.eventKind)).toEqual(['produced'])
    // Read-only: no add, modify or delete route.
    expect((await post('/bike/record', { bikeId: bike.bikeId, frameNumber: bike.frameNumber, eventKind: 'bound', eventTime: new Date().toISOString() })).status).toBe(404)
  })
})
