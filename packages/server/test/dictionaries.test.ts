import type { Paged } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addUser, createTestApp, readWorkbook, type Refusal, type TestApp } from './harness'

interface DictType {
  dictId: number
  dictName: string
  dictType: string
  status: string
  remark: string
  createTime: string
}

let t: TestApp
let admin: string
let reader: string

beforeAll(async () => {
  t = await createTestApp()
  admin = await t.login()
  await addUser(t, { userName: 'reader1', roleKeys: ['common'] })
  reader = await t.login('reader1', 'secret12')
})
afterAll(() => t.close())

const db = () => t.app.services.db

/** Both dictionary tables in full: what "nothing changed" is checked against. */
async function snapshot() {
  return {
    types: await db().selectFrom('sysDictType').selectAll().orderBy('dictId').execute(),
    data: await db().selectFrom('sysDictData').selectAll().orderBy('dictCode').execute(),
  }
}

const list = <T = Paged<DictType>>(body: object, opts: { token?: string; lang?: 'en_US' | 'zh_CN' } = {}) =>
  t.call<T>({ method: 'POST', url: '/api/system/dict/list', token: opts.token ?? admin, lang: opts.lang, body })

async function addType(dictName: string, dictType: string, extra: object = {}): Promise<DictType> {
  const res = await t.call<DictType>({ method: 'POST', url: '/api/system/dict', token: admin, body: { dictName, dictType, ...extra } })
  expect(res.status, res.msg).toBe(200)
  return res.data
}

async function addItem(dictType: string, dictValue: string, extra: object = {}) {
  const res = await t.call<{ dictCode: number; dictType: string; dictValue: string }>({ method: 'POST', url: '/api/system/dict/data', token: admin, body: { dictType, dictValue, dictLabel: `Label ${dictValue}`, ...extra } })
  expect(res.status, res.msg).toBe(200)
  return res.data
}

const SEEDED = [
  'sys_normal_disable', 'sys_user_sex', 'sys_yes_no', 'sys_show_hide', 'sys_common_status', 'sys_menu_type', 'sys_data_scope', 'sys_oper_type',
  'sys_i18n_type', 'sys_language',
]
/** Every seeded type: the system's (sys_…), then the other areas'. */
const ALL_SEEDED = [...SEEDED, 'bike_category']

describe('POST /system/dict/list', () => {
  it('starts with the eleven seeded types', async () => {
    const res = await list({})
    expect(res.code).toBe(200)
    expect(res.data.total).toBe(11)
    expect(res.data.rows.map((r: DictType) => r.dictType)).toEqual(ALL_SEEDED)
    expect(Object.keys(res.data.rows[0]!).sort()).toEqual(['createTime', 'dictId', 'dictName', 'dictType', 'remark', 'status'])
  })

  it('pages 20 rows by default, by id, and honours pageNum and pageSize', async () => {
    for (let i = 1; i <= 15; i++) await addType(`Paging ${String(i).padStart(2, '0')}`, `paging_${String(i).padStart(2, '0')}`)
    const all = (await db().selectFrom('sysDictType').select('dictId').orderBy('dictId').execute()).map((r) => r.dictId)
    const total = ALL_SEEDED.length + 15
    expect(all).toHaveLength(total)

    const first = await list({})
    expect(first.data.total).toBe(total)
    expect(first.data.rows.map((r: DictType) => r.dictId)).toEqual(all.slice(0, 20))
    const second = await list({ pageNum: 2 })
    expect(second.data.total).toBe(total)
    expect(second.data.rows.map((r: DictType) => r.dictId)).toEqual(all.slice(20))
    const tens = await list({ pageNum: 2, pageSize: 10 })
    expect(tens.data.rows.map((r: DictType) => r.dictId)).toEqual(all.slice(10, 20))
    expect((await list({ pageNum: 3, pageSize: 10 })).data.rows).toHaveLength(total - 20)
    expect((await list({ pageNum: 9 })).data).toEqual({ rows: [], total })
  })

  it('refuses paging outside 1..500, naming the field', async () => {
    for (const [body, field] of [
      [{ pageSize: 0 }, 'pageSize'],
      [{ pageSize: 501 }, 'pageSize'],
      [{ pageNum: 0 }, 'pageNum'],
      [{ pageNum: 'x' }, 'pageNum'],
    ] as const) {
      const res = await list<Refusal>(body)
      expect(res.status).toBe(400)
      expect(res.data.errors.map((e: { field: string }) => e.field)).toContain(field)
    }
  })

  it('filters dictName by a case-insensitive substring', async () => {
    const res = await list({ dictName: 'STATUS' })
    expect(res.data.rows.map((r: DictType) => r.dictName)).toEqual(['Status'])
    const paging = await list({ dictName: 'paging 1', pageSize: 50 })
    expect(paging.data.rows.map((r: DictType) => r.dictName)).toEqual(['Paging 10', 'Paging 11', 'Paging 12', 'Paging 13', 'Paging 14', 'Paging 15'])
  })

  it('filters dictType by substring, taking _ and % literally', async () => {
    await addType('Look-alike', 'sysxlook')
    await addType('100% cotton', 'cotton_full')
    const sys = await list({ dictType: 'sys_', pageSize: 50 })
    expect(sys.data.rows.map((r: DictType) => r.dictType)).toEqual(SEEDED)
    const sysAny = await list({ dictType: 'sys', pageSize: 50 })
    expect(sysAny.data.rows.map((r: DictType) => r.dictType)).toEqual([...SEEDED, 'sysxlook'])
    const percent = await list({ dictName: '%' })
    expect(percent.data.rows.map((r: DictType) => r.dictType)).toEqual(['cotton_full'])
  })

  it('filters status by equality and combines filters', async () => {
    await addType('Retired codes', 'retired_codes', { status: '1' })
    const disabled = await list({ status: '1' })
    expect(disabled.data.rows.map((r: DictType) => r.dictType)).toEqual(['retired_codes'])
    const enabled = await list({ status: '0', pageSize: 100 })
    expect(enabled.data.total).toBe((await db().selectFrom('sysDictType').select('dictId').where('status', '=', '0').execute()).length)
    expect(enabled.data.rows.some((r: DictType) => r.dictType === 'retired_codes')).toBe(false)
    expect((await list({ status: '1', dictName: 'status' })).data.total).toBe(0)
    expect((await list({ status: '0', dictName: 'status' })).data.rows.map((r: DictType) => r.dictType)).toEqual(['sys_normal_disable'])
    // An empty filter value means "any".
    expect((await list({ status: '', dictName: '' })).data.total).toBe((await list({})).data.total)
  })

  it('filters createTime by a [from, to] range, a date-only "to" covering that whole day', async () => {
    const [a, b] = (await db().selectFrom('sysDictType').select('dictId').where('dictType', 'in', ['paging_01', 'paging_02']).orderBy('dictId').execute()).map((r) => r.dictId)
    await db().updateTable('sysDictType').set({ createTime: '2020-03-10T08:00:00.000Z' }).where('dictId', '=', a!).execute()
    await db().updateTable('sysDictType').set({ createTime: '2020-03-31T23:30:00.000Z' }).where('dictId', '=', b!).execute()
    const march = await list({ createTime: ['2020-03-01', '2020-03-31'] })
    expect(march.data.rows.map((r: DictType) => r.dictId)).toEqual([a, b])
    expect(march.data.rows[1]!.createTime).toBe('2020-03-31T23:30:00.000Z')
    expect((await list({ createTime: ['2020-03-01', '2020-03-30'] })).data.rows.map((r: DictType) => r.dictId)).toEqual([a])
    expect((await list({ createTime: ['2020-03-11', null] })).data.rows.map((r: DictType) => r.dictId)).not.toContain(a)
    expect((await list({ createTime: [null, '2020-12-31'] })).data.total).toBe(2)
    expect((await list({ createTime: ['2019-01-01', '2019-12-31'] })).data.total).toBe(0)
  })

  it('refuses a filter key it does not know, naming it, in the caller language', async () => {
    const res = await list({ dictname: 'Status' })
    expect(res.status).toBe(400)
    expect(res.code).toBe(400)
    expect(res.msg).toContain('"dictname"')
    const zh = await list({ password: 'x' }, { lang: 'zh_CN' })
    expect(zh.status).toBe(400)
    expect(zh.msg).toMatch(/^请求参数有误：/)
    expect(zh.msg).toContain('"password"')
  })

  it('sorts by a whitelisted column, both ways', async () => {
    const desc = await list({ dictName: 'paging', orderByColumn: 'dictName', isAsc: 'desc', pageSize: 50 })
    const names = Array.from({ length: 15 }, (_, i) => `Paging ${String(i + 1).padStart(2, '0')}`)
    expect(desc.data.rows.map((r: DictType) => r.dictName)).toEqual([...names].reverse())
    const asc = await list({ dictName: 'paging', orderByColumn: 'dictType', isAsc: 'ascending', pageSize: 5 })
    expect(asc.data.rows.map((r: DictType) => r.dictName)).toEqual(names.slice(0, 5))
    const byId = await list({ orderByColumn: 'dictId', isAsc: 'descending', pageSize: 1 })
    const maxId = Math.max(...(await db().selectFrom('sysDictType').select('dictId').execute()).map((r) => r.dictId))
    expect(byId.data.rows[0]!.dictId).toBe(maxId)
  })

  it('refuses any other sort column or direction, and nothing happens', async () => {
    const before = await snapshot()
    const users = await db().selectFrom('sysUser').select('userId').execute()
    for (const body of [
      { orderByColumn: 'password' },
      { orderByColumn: 'dictName; drop table sys_user' },
      { orderByColumn: 'dict_name' },
      { orderByColumn: 'remark' },
    ]) {
      const res = await list(body)
      expect(res.status).toBe(400)
      expect(res.msg).toBe(`Sorting by "${body.orderByColumn}" is not allowed`)
    }
    const direction = await list<Refusal>({ orderByColumn: 'dictName', isAsc: 'sideways' })
    expect(direction.status).toBe(400)
    expect(direction.data.errors[0]!.field).toBe('isAsc')
    expect(await db().selectFrom('sysUser').select('userId').execute()).toEqual(users)
    expect(await snapshot()).toEqual(before)
  })
})

describe('GET /system/dict/{id}', () => {
  it('answers one type', async () => {
    const res = await t.call({ url: '/api/system/dict/3', token: admin })
    expect(res.code).toBe(200)
    expect(res.data).toMatchObject({ dictId: 3, dictName: 'Yes / no', dictType: 'sys_yes_no', status: '0' })
  })

  it('answers 404 for an unknown id and 400 for one that is not a number', async () => {
    const missing = await t.call({ url: '/api/system/dict/99999', token: admin })
    expect(missing.status).toBe(404)
    expect(missing.code).toBe(404)
    expect(missing.msg).toBe('The record does not exist')
    expect(missing.data).toBeNull()
    const bad = await t.call<Refusal>({ url: '/api/system/dict/abc', token: admin })
    expect(bad.status).toBe(400)
    expect(bad.data.errors[0]!.field).toBe('id')
  })
})

describe('GET /system/dict/getDicts/{type}', () => {
  it('answers the seeded sys_normal_disable items in order with labels in both languages', async () => {
    const res = await t.call<Record<string, unknown>[]>({ url: '/api/system/dict/getDicts/sys_normal_disable', token: reader })
    expect(res.code).toBe(200)
    expect(res.data).toHaveLength(2)
    expect(res.data[0]).toMatchObject({ dictLabel: 'Normal', dictLabelZh: '正常', dictValue: '0', listClass: 'primary', isDefault: 'Y', dictSort: 1 })
    expect(res.data[1]).toMatchObject({ dictLabel: 'Disabled', dictLabelZh: '停用', dictValue: '1', listClass: 'danger', isDefault: 'N', dictSort: 2 })
  })

  it('orders by dictSort, leaves out disabled items, and answers [] for an unknown type', async () => {
    await addType('Frame colours', 'frame_colour')
    await addItem('frame_colour', 'red', { dictSort: 3 })
    await addItem('frame_colour', 'blue', { dictSort: 1 })
    await addItem('frame_colour', 'green', { dictSort: 2 })
    await addItem('frame_colour', 'grey', { dictSort: 0, status: '1' })
    const res = await t.call<{ dictValue: string }[]>({ url: '/api/system/dict/getDicts/frame_colour', token: admin })
    expect(res.data.map((d: { dictValue: string }) => d.dictValue)).toEqual(['blue', 'green', 'red'])
    expect((await t.call({ url: '/api/system/dict/getDicts/no_such_type', token: admin })).data).toEqual([])
  })

  it('needs a signed-in caller', async () => {
    const res = await t.call({ url: '/api/system/dict/getDicts/sys_normal_disable' })
    expect(res.status).toBe(401)
    expect(res.code).toBe(50008)
  })
})

describe('POST /system/dict (add)', () => {
  it('adds a type with default status, stamped by its creator; ids in the body are ignored', async () => {
    const res = await t.call<DictType>({ method: 'POST', url: '/api/system/dict', token: admin, body: { dictName: 'Battery kinds', dictType: 'battery_kind', remark: 'cells', dictId: 1 } })
    expect(res.status).toBe(200)
    expect(res.msg).toBe('Operation successful')
    expect(res.data).toMatchObject({ dictName: 'Battery kinds', dictType: 'battery_kind', status: '0', remark: 'cells' })
    expect(res.data.dictId).not.toBe(1)
    const row = await db().selectFrom('sysDictType').selectAll().where('dictId', '=', res.data.dictId).executeTakeFirstOrThrow()
    expect(row.createBy).toBe('admin')
    expect(Date.now() - Date.parse(row.createTime)).toBeLessThan(60_000)
    expect((await db().selectFrom('sysDictType').select('dictName').where('dictId', '=', 1).executeTakeFirstOrThrow()).dictName).toBe('Status')
  })

  it('refuses a dictType that exists (409, naming it) and adds nothing', async () => {
    const before = await snapshot()
    const res = await t.call({ method: 'POST', url: '/api/system/dict', token: admin, body: { dictName: 'Copy', dictType: 'sys_yes_no' } })
    expect(res.status).toBe(409)
    expect(res.code).toBe(409)
    expect(res.msg).toBe('Dictionary type "sys_yes_no" already exists')
    const zh = await t.call({ method: 'POST', url: '/api/system/dict', token: admin, lang: 'zh_CN', body: { dictName: 'Copy', dictType: 'sys_yes_no' } })
    expect(zh.msg).toBe('字典类型“sys_yes_no”已存在')
    expect(await snapshot()).toEqual(before)
  })

  it.each(['Bad-Type', '1abc', 'has space', 'UPPER_CASE', '_lead'])('refuses dictType %j with a field error and adds nothing', async (dictType) => {
    const before = await snapshot()
    const res = await t.call<Refusal>({ method: 'POST', url: '/api/system/dict', token: admin, body: { dictName: 'Bad', dictType } })
    expect(res.status).toBe(400)
    expect(res.data.errors).toEqual([{ field: 'dictType', message: 'Dictionary type must start with a letter and use lower-case letters, digits and _' }])
    expect(res.msg).toBe('Invalid request: Dictionary type must start with a letter and use lower-case letters, digits and _')
    expect(await snapshot()).toEqual(before)
  })

  it('refuses a missing or blank dictName, naming it, in English or Chinese', async () => {
    const before = await snapshot()
    for (const body of [{ dictType: 'no_name' }, { dictType: 'no_name', dictName: '   ' }, { dictType: 'no_name', dictName: null }]) {
      const res = await t.call<Refusal>({ method: 'POST', url: '/api/system/dict', token: admin, body })
      expect(res.status).toBe(400)
      expect(res.msg).toBe('Invalid request: Dictionary name is required')
      expect(res.data.errors).toEqual([{ field: 'dictName', message: 'Dictionary name is required' }])
    }
    const zh = await t.call<Refusal>({ method: 'POST', url: '/api/system/dict', token: admin, lang: 'zh_CN', body: { dictType: 'no_name' } })
    expect(zh.status).toBe(400)
    expect(zh.msg).toBe('请求参数有误：字典名称不能为空')
    expect(zh.data.errors).toEqual([{ field: 'dictName', message: '字典名称不能为空' }])
    expect(await snapshot()).toEqual(before)
  })

  it('refuses a name over 100 characters and a status outside sys_normal_disable', async () => {
    const before = await snapshot()
    const long = await t.call<Refusal>({ method: 'POST', url: '/api/system/dict', token: admin, body: { dictName: 'x'.repeat(101), dictType: 'too_long' } })
    expect(long.status).toBe(400)
    expect(long.data.errors).toEqual([{ field: 'dictName', message: 'Dictionary name must be at most 100 characters' }])
    const status = await t.call<Refusal>({ method: 'POST', url: '/api/system/dict', token: admin, body: { dictName: 'Odd', dictType: 'odd_status', status: '7' } })
    expect(status.status).toBe(400)
    expect(status.msg).toBe('Status: "7" is not one of the allowed values')
    expect(status.data.errors[0]!.field).toBe('status')
    expect(await snapshot()).toEqual(before)
  })
})

describe('PUT /system/dict (update)', () => {
  it('changes the given fields only and stamps who changed it', async () => {
    const type = await addType('Saddle kinds', 'saddle_kind', { remark: 'keep me' })
    const res = await t.call({ method: 'PUT', url: '/api/system/dict', token: admin, body: { dictId: type.dictId, dictName: 'Saddles', status: '1' } })
    expect(res.status).toBe(200)
    expect(res.data).toMatchObject({ dictId: type.dictId, dictName: 'Saddles', dictType: 'saddle_kind', status: '1', remark: 'keep me' })
    const got = await t.call({ url: `/api/system/dict/${type.dictId}`, token: admin })
    expect(got.data).toMatchObject({ dictName: 'Saddles', status: '1', remark: 'keep me', createTime: type.createTime })
    const row = await db().selectFrom('sysDictType').select(['updateBy', 'updateTime']).where('dictId', '=', type.dictId).executeTakeFirstOrThrow()
    expect(row.updateBy).toBe('admin')
    expect(row.updateTime).toBeTruthy()
  })

  it('renaming dictType carries its items along, and only its items', async () => {
    const type = await addType('Shirt sizes', 'shirt_size')
    await addItem('shirt_size', 'S')
    await addItem('shirt_size', 'M')
    const othersBefore = await db().selectFrom('sysDictData').selectAll().where('dictType', '<>', 'shirt_size').orderBy('dictCode').execute()
    const res = await t.call<DictType>({ method: 'PUT', url: '/api/system/dict', token: admin, body: { dictId: type.dictId, dictType: 'garment_size' } })
    expect(res.status).toBe(200)
    expect(res.data.dictType).toBe('garment_size')
    const moved = await t.call<{ dictValue: string }[]>({ url: '/api/system/dict/getDicts/garment_size', token: admin })
    expect(moved.data.map((d: { dictValue: string }) => d.dictValue)).toEqual(['S', 'M'])
    expect((await t.call({ url: '/api/system/dict/getDicts/shirt_size', token: admin })).data).toEqual([])
    expect(await db().selectFrom('sysDictData').selectAll().where('dictType', 'not in', ['garment_size']).orderBy('dictCode').execute()).toEqual(othersBefore)
  })

  it('refuses renaming to a dictType that exists (409) and changes nothing', async () => {
    const type = await db().selectFrom('sysDictType').select('dictId').where('dictType', '=', 'garment_size').executeTakeFirstOrThrow()
    const before = await snapshot()
    const res = await t.call({ method: 'PUT', url: '/api/system/dict', token: admin, body: { dictId: type.dictId, dictType: 'sys_yes_no' } })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('Dictionary type "sys_yes_no" already exists')
    expect(await snapshot()).toEqual(before)
  })

  it('keeps its own dictType without calling it a duplicate', async () => {
    const type = await db().selectFrom('sysDictType').select('dictId').where('dictType', '=', 'garment_size').executeTakeFirstOrThrow()
    const res = await t.call({ method: 'PUT', url: '/api/system/dict', token: admin, body: { dictId: type.dictId, dictType: 'garment_size', dictName: 'Garment sizes' } })
    expect(res.status).toBe(200)
  })

  it('takes a form\'s blank optional fields (null, or "" for a status) as their defaults, never failing or storing ""', async () => {
    const type = await addType('Blank fields', 'blank_fields', { status: '', remark: null })
    expect(type).toMatchObject({ status: '0', remark: '' })
    await t.call({ method: 'PUT', url: '/api/system/dict', token: admin, body: { dictId: type.dictId, status: '1', remark: 'set' } })
    const res = await t.call({ method: 'PUT', url: '/api/system/dict', token: admin, body: { dictId: type.dictId, status: null, remark: null } })
    expect(res.status).toBe(200)
    expect(res.data).toMatchObject({ status: '0', remark: '' })
    const emptied = await t.call<DictType>({ method: 'PUT', url: '/api/system/dict', token: admin, body: { dictId: type.dictId, status: '' } })
    expect(emptied.status).toBe(200)
    expect(emptied.data.status).toBe('0')
    const item = await addItem('blank_fields', 'b', { isDefault: '', dictSort: null })
    expect(item).toMatchObject({ isDefault: 'N', dictSort: 0 })
    const cleared = await t.call({ method: 'PUT', url: '/api/system/dict/data', token: admin, body: { dictCode: item.dictCode, dictSort: null, listClass: null, isDefault: '' } })
    expect(cleared.status).toBe(200)
    expect(cleared.data).toMatchObject({ dictSort: 0, listClass: '', isDefault: 'N' })
    const stored = await db().selectFrom('sysDictType').select('status').where('dictId', '=', type.dictId).executeTakeFirstOrThrow()
    expect(stored.status).toBe('0')
  })

  it('answers 404 for an unknown id, 400 without an id or with a bad value, and changes nothing', async () => {
    const before = await snapshot()
    const missing = await t.call({ method: 'PUT', url: '/api/system/dict', token: admin, body: { dictId: 99999, dictName: 'Ghost' } })
    expect(missing.status).toBe(404)
    expect(missing.msg).toBe('The record does not exist')
    const noId = await t.call<Refusal>({ method: 'PUT', url: '/api/system/dict', token: admin, body: { dictName: 'Ghost' } })
    expect(noId.status).toBe(400)
    expect(noId.data.errors[0]!.field).toBe('dictId')
    const badType = await t.call<Refusal>({ method: 'PUT', url: '/api/system/dict', token: admin, body: { dictId: 1, dictType: 'Not Valid' } })
    expect(badType.status).toBe(400)
    expect(badType.data.errors[0]!.field).toBe('dictType')
    const blankName = await t.call<Refusal>({ method: 'PUT', url: '/api/system/dict', token: admin, body: { dictId: 1, dictName: '' } })
    expect(blankName.status).toBe(400)
    expect(blankName.data.errors).toEqual([{ field: 'dictName', message: 'Dictionary name is required' }])
    expect(await snapshot()).toEqual(before)
  })
})

describe('DELETE /system/dict/{ids}', () => {
  it('deletes several unused types at once', async () => {
    const a = await addType('Delete me A', 'delete_me_a')
    const b = await addType('Delete me B', 'delete_me_b')
    const res = await t.call({ method: 'DELETE', url: `/api/system/dict/${a.dictId},${b.dictId}`, token: admin })
    expect(res.status).toBe(200)
    expect(res.data).toEqual({ deleted: 2 })
    expect(await db().selectFrom('sysDictType').select('dictId').where('dictId', 'in', [a.dictId, b.dictId]).execute()).toEqual([])
    expect((await t.call({ url: `/api/system/dict/${a.dictId}`, token: admin })).status).toBe(404)
  })

  it('refuses a type that has items (409, naming it) and deletes nothing, even beside unused ones', async () => {
    const unused = await addType('Unused', 'unused_type')
    const before = await snapshot()
    const used = await t.call({ method: 'DELETE', url: '/api/system/dict/3', token: admin })
    expect(used.status).toBe(409)
    expect(used.msg).toBe('Dictionary type "sys_yes_no" is in use and cannot be deleted')
    const zh = await t.call({ method: 'DELETE', url: '/api/system/dict/3', token: admin, lang: 'zh_CN' })
    expect(zh.msg).toBe('字典类型“sys_yes_no”已被使用，不能删除')
    const mixed = await t.call({ method: 'DELETE', url: `/api/system/dict/${unused.dictId},3`, token: admin })
    expect(mixed.status).toBe(409)
    const mixedFirst = await t.call({ method: 'DELETE', url: `/api/system/dict/3,${unused.dictId}`, token: admin })
    expect(mixedFirst.status).toBe(409)
    expect(await snapshot()).toEqual(before)
  })

  it('answers 404 when any id is unknown and deletes nothing', async () => {
    const unused = await db().selectFrom('sysDictType').select('dictId').where('dictType', '=', 'unused_type').executeTakeFirstOrThrow()
    const before = await snapshot()
    const alone = await t.call({ method: 'DELETE', url: '/api/system/dict/99999', token: admin })
    expect(alone.status).toBe(404)
    expect(alone.msg).toBe('The record does not exist')
    const mixed = await t.call({ method: 'DELETE', url: `/api/system/dict/${unused.dictId},99999`, token: admin })
    expect(mixed.status).toBe(404)
    expect(await snapshot()).toEqual(before)
  })

  it('refuses ids that are not a comma-separated list of numbers', async () => {
    const before = await snapshot()
    for (const ids of ['abc', '1,,2', '1;2', '-1']) {
      const res = await t.call({ method: 'DELETE', url: `/api/system/dict/${encodeURIComponent(ids)}`, token: admin })
      expect(res.status, ids).toBe(400)
      expect(res.msg).toBe('Invalid request: ids must be numbers separated by commas')
    }
    expect(await snapshot()).toEqual(before)
  })

  it('a type whose items are all removed can then be deleted', async () => {
    const type = await addType('Short lived', 'short_lived')
    const item = await addItem('short_lived', 'x')
    expect((await t.call({ method: 'DELETE', url: `/api/system/dict/${type.dictId}`, token: admin })).status).toBe(409)
    expect((await t.call({ method: 'DELETE', url: `/api/system/dict/data/${item.dictCode}`, token: admin })).status).toBe(200)
    expect((await t.call({ method: 'DELETE', url: `/api/system/dict/${type.dictId}`, token: admin })).status).toBe(200)
  })
})

describe('POST /system/dict/export', () => {
  it('exports the filtered rows as .xlsx, headers and labels in English', async () => {
    await db().updateTable('sysDictType').set({ status: '1' }).where('dictType', '=', 'sys_show_hide').execute()
    const res = await t.call({ method: 'POST', url: '/api/system/dict/export', token: admin, body: { dictType: 'sys_' } })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="dictType_\d{14}\.xlsx"/)
    const sheet = await readWorkbook(res.raw)
    expect(sheet.name).toBe('Dictionary')
    expect(sheet.header).toEqual(['ID', 'Dictionary name', 'Dictionary type', 'Status', 'Remark', 'Created'])
    const expected = (await db().selectFrom('sysDictType').selectAll().orderBy('dictId').execute()).filter((r) => r.dictType.includes('sys_'))
    expect(sheet.rows.map((r) => r[2])).toEqual(expected.map((r) => r.dictType))
    expect(sheet.rows.map((r) => r[2])).toEqual(SEEDED)
    const byType = new Map(sheet.rows.map((r) => [r[2], r]))
    expect(byType.get('sys_normal_disable')![3]).toBe('Normal')
    expect(byType.get('sys_show_hide')![3]).toBe('Disabled')
    expect(byType.get('sys_yes_no')![0]).toBe(3)
    expect(byType.get('sys_yes_no')![1]).toBe('Yes / no')
    expect(byType.get('sys_yes_no')![5]).toBeInstanceOf(Date)
    await db().updateTable('sysDictType').set({ status: '0' }).where('dictType', '=', 'sys_show_hide').execute()
  })

  it('answers in Chinese for a zh_CN caller', async () => {
    const res = await t.call({ method: 'POST', url: '/api/system/dict/export', token: admin, lang: 'zh_CN', body: { dictName: 'status' } })
    const sheet = await readWorkbook(res.raw)
    expect(sheet.name).toBe('字典类型')
    expect(sheet.header).toEqual(['编号', '字典名称', '字典类型', '状态', '备注', '创建时间'])
    expect(sheet.rows).toHaveLength(1)
    expect(sheet.rows[0]!.slice(1, 4)).toEqual(['Status', 'sys_normal_disable', '正常'])
  })

  it('exports every matching row, not one page', async () => {
    const total = (await db().selectFrom('sysDictType').select('dictId').execute()).length
    expect(total).toBeGreaterThan(20)
    const sheet = await readWorkbook((await t.call({ method: 'POST', url: '/api/system/dict/export', token: admin, body: { pageSize: 5 } })).raw)
    expect(sheet.rows).toHaveLength(total)
  })

  it('refuses a bad sort column or unknown filter like the list does', async () => {
    const sort = await t.call({ method: 'POST', url: '/api/system/dict/export', token: admin, body: { orderByColumn: 'password' } })
    expect(sort.status).toBe(400)
    expect(sort.msg).toBe('Sorting by "password" is not allowed')
    const filter = await t.call({ method: 'POST', url: '/api/system/dict/export', token: admin, body: { nope: 1 } })
    expect(filter.status).toBe(400)
    expect(filter.msg).toContain('"nope"')
  })
})

describe('dictionary items: /system/dict/data', () => {
  it('lists the items of one type (exact match), by dictSort', async () => {
    const res = await t.call<Paged<{ dictLabel: string }>>({ method: 'POST', url: '/api/system/dict/data/list', token: admin, body: { dictType: 'sys_user_sex' } })
    expect(res.data.total).toBe(3)
    expect(res.data.rows.map((r: { dictLabel: string }) => r.dictLabel)).toEqual(['Male', 'Female', 'Unknown'])
    const partial = await t.call<Paged<unknown>>({ method: 'POST', url: '/api/system/dict/data/list', token: admin, body: { dictType: 'sys_user' } })
    expect(partial.data.total).toBe(0)
  })

  it('gets one item, 404 when unknown', async () => {
    const row = await db().selectFrom('sysDictData').select('dictCode').where('dictType', '=', 'sys_yes_no').where('dictValue', '=', 'Y').executeTakeFirstOrThrow()
    const res = await t.call({ url: `/api/system/dict/data/${row.dictCode}`, token: admin })
    expect(res.data).toMatchObject({ dictCode: row.dictCode, dictType: 'sys_yes_no', dictValue: 'Y', dictLabel: 'Yes', dictLabelZh: '是', isDefault: 'Y' })
    expect((await t.call({ url: '/api/system/dict/data/99999', token: admin })).status).toBe(404)
  })

  it('adds an item with defaults', async () => {
    await addType('Wheel sizes', 'wheel_size')
    const res = await t.call({ method: 'POST', url: '/api/system/dict/data', token: admin, body: { dictType: 'wheel_size', dictValue: '26', dictLabel: '26 inch' } })
    expect(res.status).toBe(200)
    expect(res.data).toMatchObject({ dictType: 'wheel_size', dictValue: '26', dictLabel: '26 inch', dictLabelZh: '', dictSort: 0, isDefault: 'N', status: '0', listClass: '', cssClass: '' })
  })

  it('refuses an item of a type that does not exist (400) and adds nothing', async () => {
    const before = await snapshot()
    const res = await t.call({ method: 'POST', url: '/api/system/dict/data', token: admin, body: { dictType: 'nope_type', dictValue: '1', dictLabel: 'One' } })
    expect(res.status).toBe(400)
    expect(res.msg).toBe('Dictionary type "nope_type" does not exist')
    expect(await snapshot()).toEqual(before)
  })

  it('refuses a value already in the type (409), while another type may use it', async () => {
    const before = await snapshot()
    const res = await t.call({ method: 'POST', url: '/api/system/dict/data', token: admin, body: { dictType: 'sys_yes_no', dictValue: 'Y', dictLabel: 'Yes again' } })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('Value "Y" already exists')
    expect(await snapshot()).toEqual(before)
    await addItem('wheel_size', 'Y')
  })

  it('refuses an isDefault outside sys_yes_no (400, naming the field) and missing fields', async () => {
    const before = await snapshot()
    const res = await t.call<Refusal>({ method: 'POST', url: '/api/system/dict/data', token: admin, body: { dictType: 'wheel_size', dictValue: '27', dictLabel: '27 inch', isDefault: 'M' } })
    expect(res.status).toBe(400)
    expect(res.msg).toBe('Default: "M" is not one of the allowed values')
    expect(res.data.errors[0]!.field).toBe('isDefault')
    const missing = await t.call<Refusal>({ method: 'POST', url: '/api/system/dict/data', token: admin, body: { dictType: 'wheel_size' } })
    expect(missing.status).toBe(400)
    expect(missing.data.errors.map((e: { field: string }) => e.field).sort()).toEqual(['dictLabel', 'dictValue'])
    expect(await snapshot()).toEqual(before)
  })

  it('edits an item, refusing a duplicate value, a missing type or an unknown id', async () => {
    const a = await addItem('wheel_size', '28', { dictLabel: '28 inch' })
    const ok = await t.call({ method: 'PUT', url: '/api/system/dict/data', token: admin, body: { dictCode: a.dictCode, dictLabel: '28 inch (700c)', dictSort: 5, isDefault: 'Y' } })
    expect(ok.status).toBe(200)
    expect(ok.data).toMatchObject({ dictCode: a.dictCode, dictValue: '28', dictLabel: '28 inch (700c)', dictSort: 5, isDefault: 'Y' })
    const before = await snapshot()
    const dup = await t.call({ method: 'PUT', url: '/api/system/dict/data', token: admin, body: { dictCode: a.dictCode, dictValue: '26' } })
    expect(dup.status).toBe(409)
    expect(dup.msg).toBe('Value "26" already exists')
    const noType = await t.call({ method: 'PUT', url: '/api/system/dict/data', token: admin, body: { dictCode: a.dictCode, dictType: 'nope_type' } })
    expect(noType.status).toBe(400)
    expect(noType.msg).toBe('Dictionary type "nope_type" does not exist')
    const unknown = await t.call({ method: 'PUT', url: '/api/system/dict/data', token: admin, body: { dictCode: 99999, dictLabel: 'x' } })
    expect(unknown.status).toBe(404)
    const badDefault = await t.call({ method: 'PUT', url: '/api/system/dict/data', token: admin, body: { dictCode: a.dictCode, isDefault: 'X' } })
    expect(badDefault.status).toBe(400)
    expect(await snapshot()).toEqual(before)
  })

  it('deletes items by ids; an unknown id deletes nothing', async () => {
    const a = await addItem('wheel_size', '20')
    const b = await addItem('wheel_size', '24')
    const before = await snapshot()
    expect((await t.call({ method: 'DELETE', url: `/api/system/dict/data/${a.dictCode},99999`, token: admin })).status).toBe(404)
    expect(await snapshot()).toEqual(before)
    const res = await t.call({ method: 'DELETE', url: `/api/system/dict/data/${a.dictCode},${b.dictCode}`, token: admin })
    expect(res.data).toEqual({ deleted: 2 })
    expect(await db().selectFrom('sysDictData').select('dictCode').where('dictCode', 'in', [a.dictCode, b.dictCode]).execute()).toEqual([])
  })
})

describe('the common role: read and export only', () => {
  it('may list, get, export and read items', async () => {
    expect((await list({}, { token: reader })).status).toBe(200)
    expect((await t.call<DictType>({ url: '/api/system/dict/1', token: reader })).data.dictType).toBe('sys_normal_disable')
    const exp = await t.call({ method: 'POST', url: '/api/system/dict/export', token: reader, body: { dictType: 'sys_yes_no' } })
    expect(exp.status).toBe(200)
    expect((await readWorkbook(exp.raw)).rows).toHaveLength(1)
    expect((await t.call<Paged<unknown>>({ method: 'POST', url: '/api/system/dict/data/list', token: reader, body: { dictType: 'sys_yes_no' } })).data.total).toBe(2)
  })

  it('gets 403 on add, edit and delete of types and items, and nothing changes', async () => {
    const item = await db().selectFrom('sysDictData').select('dictCode').where('dictType', '=', 'wheel_size').executeTakeFirstOrThrow()
    const unused = await db().selectFrom('sysDictType').select('dictId').where('dictType', '=', 'unused_type').executeTakeFirstOrThrow()
    const before = await snapshot()
    const attempts: [string, string, object | undefined, string][] = [
      ['POST', '/api/system/dict', { dictName: 'Mine', dictType: 'reader_type' }, 'system:dict:add'],
      ['PUT', '/api/system/dict', { dictId: unused.dictId, dictName: 'Renamed' }, 'system:dict:edit'],
      ['DELETE', `/api/system/dict/${unused.dictId}`, undefined, 'system:dict:remove'],
      ['POST', '/api/system/dict/data', { dictType: 'wheel_size', dictValue: '29', dictLabel: '29 inch' }, 'system:dict:add'],
      ['PUT', '/api/system/dict/data', { dictCode: item.dictCode, dictLabel: 'Changed' }, 'system:dict:edit'],
      ['DELETE', `/api/system/dict/data/${item.dictCode}`, undefined, 'system:dict:remove'],
    ]
    for (const [method, url, body, permission] of attempts) {
      const res = await t.call({ method: method as 'POST', url, token: reader, body })
      expect(res.status, `${method} ${url}`).toBe(403)
      expect(res.code).toBe(403)
      expect(res.msg).toBe(`You have no permission to do this (${permission})`)
    }
    // Refused before the body is even read: a bad body still gets 403, not 400.
    expect((await t.call({ method: 'POST', url: '/api/system/dict', token: reader, body: { nonsense: true } })).status).toBe(403)
    expect(await snapshot()).toEqual(before)
  })
})
