import ExcelJS from 'exceljs'
import { type AccountFeatures, CONFIG_VALUE_TYPES, checkTypedValue, configValueType, type Paged } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigKey } from '../src/platform/config-keys'
import { addUser, createTestApp, type ImportRefusal, limitedUser, readWorkbook, type Refusal, type TestApp } from './harness'

interface ConfigRow {
  configId: number
  configName: string
  configKey: string
  configValue: string
  configType: string
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
const configs = () => db().selectFrom('sysConfig').selectAll().orderBy('configId').execute()
const list = (body: object, token = admin) => t.call<Paged<ConfigRow>>({ method: 'POST', url: '/api/system/config/list', token, body })
const idOf = async (configKey: string) => (await db().selectFrom('sysConfig').select('configId').where('configKey', '=', configKey).executeTakeFirstOrThrow()).configId

async function addConfig(configKey: string, configValue = 'v', extra: object = {}): Promise<ConfigRow> {
  const res = await t.call<ConfigRow>({ method: 'POST', url: '/api/system/config', token: admin, body: { configName: `Name of ${configKey}`, configKey, configValue, ...extra } })
  expect(res.status, res.msg).toBe(200)
  return res.data
}

const SEEDED_KEYS = [
  'sys.account.captchaEnabled',
  'sys.account.captchaType',
  'sys.account.registerUser',
  'sys.account.forgetPassword',
  'sys.account.maxRetryCount',
  'sys.account.lockTime',
  'sys.account.singleSignOn',
  'sys.account.secondFactorGraceDays',
  'sys.sso.newUserDeptId',
  'sys.sso.newUserRoleKey',
  'iot.heartbeat.seconds',
  'iot.command.timeoutSeconds',
  'iot.command.expireMinutes',
  'iot.flow.warningPercent',
  'iot.message.retentionDays',
  'iot.message.telemetrySeconds',
  'service.repairOrder.reviewDays',
  'service.repairOrder.repairDays',
  'service.repairOrder.collectionDays',
  'iot.sim.carrierSyncMinutes',
  'iot.sim.simulatedCarrierDelaySeconds',
  'iot.warning.lowBatteryPercent',
  'iot.warning.fallAngle',
  'iot.warning.offlineHours',
  'ota.approvalRequired',
  'ota.blockBytes',
  'iot.telemetry.retentionDays',
  'tool.sql.timeoutSeconds',
  'tool.sql.maxRows',
  'tool.sql.maxResultMb',
  'tool.sql.maxConcurrentPerUser',
  'tool.sql.maxConcurrent',
  'monitor.backup.intervalHours',
  'monitor.backup.keep',
  'monitor.retention.intervalHours',
  'monitor.operlog.retentionDays',
  'monitor.logininfor.retentionDays',
  'privacy.retention.positionDays',
  'privacy.retention.uploadedLogDays',
  'privacy.retention.inactiveMemberYears',
  'privacy.retention.erasureNoticeDays',
  'sys.seed.version',
]

describe('POST /system/config/list', () => {
  it('answers the built-in keys, paged', async () => {
    const res = await list({ pageSize: 50 })
    expect(res.code).toBe(200)
    expect(res.data.total).toBe(SEEDED_KEYS.length)
    expect(res.data.rows.map((r: ConfigRow) => r.configKey)).toEqual(SEEDED_KEYS)
    expect(res.data.rows.every((r: ConfigRow) => r.configType === 'Y')).toBe(true)
    expect(res.data.rows[1]).toMatchObject({ configName: 'Captcha type', configKey: 'sys.account.captchaType', configValue: 'math' })
    const page = await list({ pageNum: 2, pageSize: 3 })
    expect(page.data.rows.map((r: ConfigRow) => r.configKey)).toEqual(SEEDED_KEYS.slice(3, 6))
  })

  it('filters by name and key (substring, any case) and by built-in flag', async () => {
    await addConfig('fleet.max.size', '50', { configName: 'Fleet size limit' })
    expect((await list({ configName: 'CAPTCHA' })).data.rows.map((r: ConfigRow) => r.configKey)).toEqual(['sys.account.captchaEnabled', 'sys.account.captchaType'])
    expect((await list({ configKey: 'LOCKt' })).data.rows.map((r: ConfigRow) => r.configKey)).toEqual(['sys.account.lockTime'])
    expect((await list({ configType: 'N' })).data.rows.map((r: ConfigRow) => r.configKey)).toEqual(['fleet.max.size'])
    expect((await list({ configType: 'Y' })).data.total).toBe(SEEDED_KEYS.length)
    expect((await list({ configType: 'N', configName: 'captcha' })).data.total).toBe(0)
  })

  it('refuses an unknown filter key and a sort column that is not allowed', async () => {
    const filter = await list({ configValue: 'math' })
    expect(filter.status).toBe(400)
    expect(filter.msg).toContain('"configValue"')
    const sort = await list({ orderByColumn: 'configValue' })
    expect(sort.status).toBe(400)
    expect(sort.msg).toBe('Sorting by "configValue" is not allowed')
    const sorted = await list({ orderByColumn: 'configKey', isAsc: 'desc', configType: 'Y', pageSize: 50 })
    expect(sorted.data.rows.map((r: ConfigRow) => r.configKey)).toEqual([...SEEDED_KEYS].sort().reverse())
  })
})

describe('GET /system/config/{id} and /configKey/{key}', () => {
  it('answers one row by id, 404 when unknown', async () => {
    const id = await idOf('sys.account.lockTime')
    const res = await t.call({ url: `/api/system/config/${id}`, token: admin })
    expect(res.data).toMatchObject({ configId: id, configKey: 'sys.account.lockTime', configValue: '10', configType: 'Y' })
    const missing = await t.call({ url: '/api/system/config/99999', token: admin })
    expect(missing.status).toBe(404)
    expect(missing.msg).toBe('The record does not exist')
  })

  it('answers the value of a key in the envelope', async () => {
    const res = await t.call({ url: '/api/system/config/configKey/sys.account.captchaType', token: admin })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.code).toBe(200)
    expect(res.data).toBe('math')
  })

  it('answers 404 for an unknown key and 401 without a token', async () => {
    const missing = await t.call({ url: '/api/system/config/configKey/no.such.key', token: admin })
    expect(missing.status).toBe(404)
    expect(missing.code).toBe(404)
    expect(missing.data).toBeNull()
    const anonymous = await t.call({ url: '/api/system/config/configKey/sys.account.captchaType' })
    expect(anonymous.status).toBe(401)
    expect(anonymous.code).toBe(50008)
  })

  it('tells a value by key only to whoever may read the configuration: the initial password is one', async () => {
    const { token } = await limitedUser(t, { userName: 'noconfig', perms: ['system:user:list'], dataScope: '1' })
    const refused = await t.call({ url: '/api/system/config/configKey/sys.user.initPassword', token })
    expect(refused.status).toBe(403)
    expect(refused.data).toBeNull()
  })
})

describe('POST /system/config (add)', () => {
  it('adds a user parameter, not built-in by default, readable by key at once', async () => {
    const res = await t.call({ method: 'POST', url: '/api/system/config', token: admin, body: { configName: 'Service hotline', configKey: 'service.hotline', configValue: '+49 30 1234567', remark: 'shown in mails' } })
    expect(res.status).toBe(200)
    expect(res.data).toMatchObject({ configName: 'Service hotline', configKey: 'service.hotline', configValue: '+49 30 1234567', configType: 'N', remark: 'shown in mails' })
    expect((await t.call({ url: '/api/system/config/configKey/service.hotline', token: reader })).data).toBe('+49 30 1234567')
    const row = await db().selectFrom('sysConfig').select('createBy').where('configKey', '=', 'service.hotline').executeTakeFirstOrThrow()
    expect(row.createBy).toBe('admin')
  })

  it('refuses a key that exists (409, naming it) and changes nothing', async () => {
    const before = await configs()
    const res = await t.call({ method: 'POST', url: '/api/system/config', token: admin, body: { configName: 'Mine', configKey: 'sys.account.captchaType', configValue: 'char' } })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('Key "sys.account.captchaType" already exists')
    const zh = await t.call({ method: 'POST', url: '/api/system/config', token: admin, lang: 'zh_CN', body: { configName: 'Mine', configKey: 'sys.account.captchaType', configValue: 'char' } })
    expect(zh.msg).toBe('参数键名“sys.account.captchaType”已存在')
    expect(await configs()).toEqual(before)
  })

  it('refuses missing fields, a bad built-in flag and a too long value, naming the field', async () => {
    const before = await configs()
    const missing = await t.call<Refusal>({ method: 'POST', url: '/api/system/config', token: admin, body: { configName: 'No value', configKey: 'no.value' } })
    expect(missing.status).toBe(400)
    expect(missing.data.errors).toEqual([{ field: 'configValue', message: 'Value is required' }])
    const zh = await t.call<Refusal>({ method: 'POST', url: '/api/system/config', token: admin, lang: 'zh_CN', body: { configKey: 'no.name', configValue: '1' } })
    expect(zh.data.errors).toEqual([{ field: 'configName', message: '参数名称不能为空' }])
    const type = await t.call({ method: 'POST', url: '/api/system/config', token: admin, body: { configName: 'Odd', configKey: 'odd.type', configValue: '1', configType: 'X' } })
    expect(type.status).toBe(400)
    expect(type.msg).toBe('Built-in: "X" is not one of the allowed values')
    const long = await t.call<Refusal>({ method: 'POST', url: '/api/system/config', token: admin, body: { configName: 'Long', configKey: 'long.value', configValue: 'x'.repeat(501) } })
    expect(long.status).toBe(400)
    expect(long.data.errors[0]!.field).toBe('configValue')
    expect(await configs()).toEqual(before)
  })
})

describe('PUT /system/config (update)', () => {
  it('turning sys.account.registerUser on opens POST /api/register at once, and off closes it', async () => {
    const body = { username: 'newrider1', password: 'Rider123!', confirmPassword: 'Rider123!' }
    const closed = await t.call({ method: 'POST', url: '/api/register', body })
    expect(closed.status).toBe(403)
    expect(closed.msg).toBe('Registration is switched off')
    expect(await db().selectFrom('sysUser').select('userId').where('userName', '=', 'newrider1').executeTakeFirst()).toBeUndefined()

    const id = await idOf('sys.account.registerUser')
    const res = await t.call({ method: 'PUT', url: '/api/system/config', token: admin, body: { configId: id, configValue: 'true' } })
    expect(res.status).toBe(200)
    expect(res.data).toMatchObject({ configKey: 'sys.account.registerUser', configValue: 'true', configType: 'Y' })
    expect((await t.call<AccountFeatures>({ url: '/api/common/features' })).data.registerEnabled).toBe(true)
    const open = await t.call({ method: 'POST', url: '/api/register', body })
    expect(open.status).toBe(200)
    await t.login('newrider1', 'Rider123!')

    await t.call({ method: 'PUT', url: '/api/system/config', token: admin, body: { configId: id, configValue: 'false' } })
    const again = await t.call({ method: 'POST', url: '/api/register', body: { ...body, username: 'newrider2' } })
    expect(again.status).toBe(403)
  })

  it('changes only the fields given and is read by key at once', async () => {
    const id = await idOf('service.hotline')
    const res = await t.call({ method: 'PUT', url: '/api/system/config', token: admin, body: { configId: id, configValue: '+49 30 7654321' } })
    expect(res.data).toMatchObject({ configName: 'Service hotline', configValue: '+49 30 7654321', remark: 'shown in mails' })
    expect((await t.call({ url: '/api/system/config/configKey/service.hotline', token: admin })).data).toBe('+49 30 7654321')
  })

  it('refuses a key taken by another row, an unknown id and a blank value, changing nothing', async () => {
    const id = await idOf('service.hotline')
    const before = await configs()
    const dup = await t.call({ method: 'PUT', url: '/api/system/config', token: admin, body: { configId: id, configKey: 'sys.account.lockTime' } })
    expect(dup.status).toBe(409)
    expect(dup.msg).toBe('Key "sys.account.lockTime" already exists')
    const unknown = await t.call({ method: 'PUT', url: '/api/system/config', token: admin, body: { configId: 99999, configValue: 'x' } })
    expect(unknown.status).toBe(404)
    const blank = await t.call<Refusal>({ method: 'PUT', url: '/api/system/config', token: admin, body: { configId: id, configValue: '' } })
    expect(blank.status).toBe(400)
    expect(blank.data.errors[0]!.field).toBe('configValue')
    expect(await configs()).toEqual(before)
  })
})

describe('values of built-in keys are checked against their type', () => {
  const put = <T = unknown>(configKey: string, configValue: string, lang?: 'en_US' | 'zh_CN') =>
    idOf(configKey).then((configId) => t.call<T>({ method: 'PUT', url: '/api/system/config', token: admin, lang, body: { configId, configValue } }))

  it('refuses a value that is not of the type (400, naming the key and the field) and changes nothing', async () => {
    const before = await configs()
    const cases: [key: string, value: string, en: string, zh: string][] = [
      ['sys.account.captchaEnabled', 'maybe', 'Value of sys.account.captchaEnabled must be true or false', 'sys.account.captchaEnabled 的值必须是 true 或 false'],
      ['sys.account.singleSignOn', '1', 'Value of sys.account.singleSignOn must be true or false', 'sys.account.singleSignOn 的值必须是 true 或 false'],
      ['sys.account.lockTime', 'ten', 'Value of sys.account.lockTime must be a whole number from 1 to 1440', 'sys.account.lockTime 的值必须是 1 到 1440 之间的整数'],
      ['sys.account.lockTime', '0', 'Value of sys.account.lockTime must be a whole number from 1 to 1440', 'sys.account.lockTime 的值必须是 1 到 1440 之间的整数'],
      ['sys.account.lockTime', '2.5', 'Value of sys.account.lockTime must be a whole number from 1 to 1440', 'sys.account.lockTime 的值必须是 1 到 1440 之间的整数'],
      ['iot.flow.warningPercent', '101', 'Value of iot.flow.warningPercent must be a whole number from 0 to 100', 'iot.flow.warningPercent 的值必须是 0 到 100 之间的整数'],
      ['sys.account.captchaType', 'image', 'Value of sys.account.captchaType must be one of: math, char', 'sys.account.captchaType 的值必须是以下之一：math, char'],
    ]
    for (const [key, value, en, zh] of cases) {
      const res = await put<Refusal>(key, value)
      expect(res.status, `${key}=${value}`).toBe(400)
      expect(res.msg).toBe(en)
      expect(res.data.errors).toEqual([{ field: 'configValue' }])
      expect((await put(key, value, 'zh_CN')).msg).toBe(zh)
    }
    expect(await configs()).toEqual(before)
  })

  it('accepts values of the type, stored in their plain form, and takes effect', async () => {
    const cases: [key: string, value: string, stored: string][] = [
      ['sys.account.captchaType', 'char', 'char'],
      ['sys.account.captchaEnabled', ' TRUE ', 'true'],
      ['sys.account.lockTime', '1440', '1440'],
      ['sys.account.lockTime', '015', '15'],
      ['iot.flow.warningPercent', '0', '0'],
    ]
    try {
      for (const [key, value, stored] of cases) {
        const res = await put<ConfigRow>(key, value)
        expect(res.status, `${key}=${value}: ${res.msg}`).toBe(200)
        expect(res.data.configValue).toBe(stored)
      }
      expect((await t.call({ url: '/api/common/features' })).status).toBe(200)
    } finally {
      for (const [key, value] of [['sys.account.captchaType', 'math'], ['sys.account.captchaEnabled', 'true'], ['sys.account.lockTime', '10'], ['iot.flow.warningPercent', '10']]) {
        await db().updateTable('sysConfig').set({ configValue: value! }).where('configKey', '=', key!).execute()
      }
    }
  })

  it('checks a row of the admins own too once it takes a typed key, on add, on rename and on import', async () => {
    const before = await configs()
    const add = await t.call({ method: 'POST', url: '/api/system/config', token: admin, body: { configName: 'Initial password', configKey: 'sys.user.initPassword', configValue: 'a b' } })
    expect(add.status).toBe(400)
    expect(add.msg).toBe('Value of sys.user.initPassword must be 6 to 20 letters, digits and special characters')
    const mine = await addConfig('free.text', 'anything goes')
    const renamed = await t.call({ method: 'PUT', url: '/api/system/config', token: admin, body: { configId: mine.configId, configKey: 'sys.user.initPassword' } })
    expect(renamed.status).toBe(400)
    expect(renamed.msg).toBe('Value of sys.user.initPassword must be 6 to 20 letters, digits and special characters')

    const wb = new ExcelJS.Workbook()
    const ws = wb.addWorksheet('Sheet1')
    ws.addRow(['Name', 'Key', 'Value'])
    ws.addRow(['Lock', 'sys.account.lockTime', 'forever'])
    const form = new FormData()
    form.append('updateSupport', 'true')
    form.append('file', new Blob([Buffer.from(await wb.xlsx.writeBuffer())]), 'config.xlsx')
    const imported = await t.call<ImportRefusal>({ method: 'POST', url: '/api/system/config/import', token: admin, payload: form })
    expect(imported.status).toBe(400)
    expect(imported.data.errors).toEqual([{ row: 2, field: 'configValue', message: 'Value of sys.account.lockTime must be a whole number from 1 to 1440' }])
    await t.call({ method: 'DELETE', url: `/api/system/config/${mine.configId}`, token: admin })
    expect(await configs()).toEqual(before)

    const good = await t.call<ConfigRow>({ method: 'POST', url: '/api/system/config', token: admin, body: { configName: 'Initial password', configKey: 'sys.user.initPassword', configValue: 'Velo123!' } })
    expect(good.status, good.msg).toBe(200)
    await t.call({ method: 'DELETE', url: `/api/system/config/${good.data.configId}`, token: admin })
  })

  it('every seeded value fits the type its key declares, and every declared key but one is seeded', async () => {
    for (const row of await configs()) {
      const type = configValueType(row.configKey)
      if (type) expect(checkTypedValue(type, row.configValue), row.configKey).toMatchObject({ ok: true, value: row.configValue })
    }
    const seeded = new Set((await configs()).map((c) => c.configKey))
    expect(Object.keys(CONFIG_VALUE_TYPES).filter((k) => !seeded.has(k))).toEqual(['sys.user.initPassword'])
    // Every key the platform reads has its type declared.
    for (const key of Object.values(ConfigKey)) expect(configValueType(key), key).toBeDefined()
  })
})

describe('DELETE /system/config/{ids}', () => {
  it('refuses a built-in parameter (409, naming it) and deletes nothing, even beside a user one', async () => {
    const mine = await addConfig('temp.one')
    const builtIn = await idOf('sys.account.captchaType')
    const before = await configs()
    const res = await t.call({ method: 'DELETE', url: `/api/system/config/${builtIn}`, token: admin })
    expect(res.status).toBe(409)
    expect(res.code).toBe(409)
    expect(res.msg).toBe('Built-in parameter "sys.account.captchaType" cannot be deleted')
    const zh = await t.call({ method: 'DELETE', url: `/api/system/config/${builtIn}`, token: admin, lang: 'zh_CN' })
    expect(zh.msg).toBe('内置参数“sys.account.captchaType”不能删除')
    const mixed = await t.call({ method: 'DELETE', url: `/api/system/config/${mine.configId},${builtIn}`, token: admin })
    expect(mixed.status).toBe(409)
    expect(await configs()).toEqual(before)
    expect((await t.call({ url: '/api/system/config/configKey/sys.account.captchaType', token: admin })).data).toBe('math')
  })

  it('deletes user parameters; their key is then unknown', async () => {
    const a = await addConfig('temp.two')
    const b = await addConfig('temp.three')
    const res = await t.call({ method: 'DELETE', url: `/api/system/config/${a.configId},${b.configId}`, token: admin })
    expect(res.status).toBe(200)
    expect(res.data).toEqual({ deleted: 2 })
    expect((await t.call({ url: '/api/system/config/configKey/temp.two', token: admin })).status).toBe(404)
    expect((await t.call({ url: `/api/system/config/${b.configId}`, token: admin })).status).toBe(404)
  })

  it('a built-in parameter cannot be made deletable by changing its type or key', async () => {
    const id = await idOf('sys.seed.version')
    const before = await configs()
    const type = await t.call({ method: 'PUT', url: '/api/system/config', token: admin, body: { configId: id, configType: 'N' } })
    const key = await t.call({ method: 'PUT', url: '/api/system/config', token: admin, body: { configId: id, configKey: 'renamed.seed.version' } })
    try {
      expect(type.status).toBe(409)
      expect(type.msg).toBe('The key and type of built-in parameter "sys.seed.version" cannot be changed')
      expect(key.status).toBe(409)
      expect(await configs()).toEqual(before)
    } finally {
      await db().updateTable('sysConfig').set({ configType: 'Y', configKey: 'sys.seed.version' }).where('configId', '=', id).execute()
    }
  })

  it('answers 404 when any id is unknown and deletes nothing', async () => {
    const mine = await idOf('temp.one')
    const before = await configs()
    const res = await t.call({ method: 'DELETE', url: `/api/system/config/${mine},99999`, token: admin })
    expect(res.status).toBe(404)
    expect(await configs()).toEqual(before)
  })
})

describe('POST /system/config/export', () => {
  it('exports the filtered rows as .xlsx with the built-in flag as a label', async () => {
    const res = await t.call({ method: 'POST', url: '/api/system/config/export', token: admin, body: { configType: 'Y' } })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="config_\d{14}\.xlsx"/)
    const sheet = await readWorkbook(res.raw)
    expect(sheet.name).toBe('System configuration')
    expect(sheet.header).toEqual(['ID', 'Name', 'Key', 'Value', 'Built-in', 'Remark', 'Created'])
    expect(sheet.rows.map((r) => r[2])).toEqual(SEEDED_KEYS)
    expect(sheet.rows.every((r) => r[4] === 'Yes')).toBe(true)
    const captcha = sheet.rows.find((r) => r[2] === 'sys.account.captchaType')!
    expect(captcha.slice(1, 5)).toEqual(['Captcha type', 'sys.account.captchaType', 'math', 'Yes'])
    expect(captcha[6]).toBeInstanceOf(Date)
  })

  it('answers in Chinese for a zh_CN caller, and only the matching rows', async () => {
    const res = await t.call({ method: 'POST', url: '/api/system/config/export', token: admin, lang: 'zh_CN', body: { configType: 'N' } })
    const sheet = await readWorkbook(res.raw)
    expect(sheet.name).toBe('参数设置')
    expect(sheet.header).toEqual(['编号', '参数名称', '参数键名', '参数键值', '系统内置', '备注', '创建时间'])
    const expected = (await configs()).filter((c) => c.configType === 'N').map((c) => c.configKey)
    expect(expected.length).toBeGreaterThan(0)
    expect(sheet.rows.map((r) => r[2])).toEqual(expected)
    expect(sheet.rows.every((r) => r[4] === '否')).toBe(true)
  })
})

describe('the common role: read and export only', () => {
  it('may list, get, read keys and export', async () => {
    expect((await list({}, reader)).data.total).toBeGreaterThan(0)
    expect((await t.call({ url: `/api/system/config/${await idOf('sys.account.lockTime')}`, token: reader })).status).toBe(200)
    expect((await t.call({ url: '/api/system/config/configKey/sys.account.lockTime', token: reader })).data).toBe('10')
    expect((await t.call({ method: 'POST', url: '/api/system/config/export', token: reader, body: {} })).status).toBe(200)
  })

  it('gets 403 on add, edit and delete, and nothing changes', async () => {
    const mine = await idOf('temp.one')
    const before = await configs()
    const attempts: [string, string, object | undefined, string][] = [
      ['POST', '/api/system/config', { configName: 'R', configKey: 'reader.key', configValue: '1' }, 'system:config:add'],
      ['PUT', '/api/system/config', { configId: await idOf('sys.account.registerUser'), configValue: 'true' }, 'system:config:edit'],
      ['DELETE', `/api/system/config/${mine}`, undefined, 'system:config:remove'],
    ]
    for (const [method, url, body, permission] of attempts) {
      const res = await t.call({ method: method as 'POST', url, token: reader, body })
      expect(res.status).toBe(403)
      expect(res.msg).toBe(`You have no permission to do this (${permission})`)
    }
    expect(await configs()).toEqual(before)
    expect((await t.call({ method: 'POST', url: '/api/register', body: { username: 'sneaky1', password: 'Sneaky123', confirmPassword: 'Sneaky123' } })).status).toBe(403)
  })
})
