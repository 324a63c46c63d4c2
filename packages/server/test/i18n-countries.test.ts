import type { Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { limitedUser, type Refusal, snapshot, useTestApp } from './harness'

const t = useTestApp()
const db = () => t.app.services.db

type Country = { countryId: number; code: string; name: string; nameEn: string; timeZone: string }
const post = <T = unknown>(url: string, body: object, token = t.admin) => t.call<T>({ method: 'POST', url: `/api/system${url}`, token, body })

describe('countries', () => {
  it('are seeded with ISO codes, both names and valid IANA time zones', async () => {
    const res = await post<Paged<Country>>('/country/list', { pageSize: 500 })
    expect(res.status).toBe(200)
    expect(res.data.total).toBeGreaterThanOrEqual(30)
    // The runtime knows every zone (DateTimeFormat accepts current IANA names that its own list spells the old way).
    const known = (zone: string) => {
      try {
        return !!new Intl.DateTimeFormat('en', { timeZone: zone })
      } catch {
        return false
      }
    }
    for (const c of res.data.rows) {
      expect(c.code).toMatch(/^[A-Z]{2}$/)
      expect(known(c.timeZone), `${c.code} ${c.timeZone}`).toBe(true)
      expect(c.name).not.toBe(c.nameEn)
    }
    const byCode = new Map(res.data.rows.map((c: { code: string }) => [c.code, c]))
    expect(byCode.get('NL')).toMatchObject({ name: '荷兰', nameEn: 'Netherlands', timeZone: 'Europe/Amsterdam', status: '0' })
    expect(byCode.get('CN')).toMatchObject({ name: '中国', nameEn: 'China', timeZone: 'Asia/Shanghai' })
    expect(byCode.get('US')).toMatchObject({ timeZone: 'America/New_York' })
    // Current IANA names, not the legacy aliases (Asia/Calcutta, Asia/Saigon).
    expect(byCode.get('IN')).toMatchObject({ timeZone: 'Asia/Kolkata' })
    expect(byCode.get('VN')).toMatchObject({ timeZone: 'Asia/Ho_Chi_Minh' })
    // Sorted by English name by default.
    const names = res.data.rows.map((c: { nameEn: string }) => c.nameEn)
    expect(names).toEqual([...names].sort((a: string, b: string) => (a < b ? -1 : 1)))
  })

  it('filter by time zone and name', async () => {
    expect((await post<Paged<Country>>('/country/list', { timeZone: 'Europe/Berlin' })).data.rows.map((c: { code: string }) => c.code)).toEqual(['DE'])
    expect((await post<Paged<Country>>('/country/list', { nameEn: 'united' })).data.rows.map((c: { code: string }) => c.code).sort()).toEqual(['AE', 'GB', 'US'])
  })

  it('adds one, refusing an unknown time zone and a taken code, changing nothing', async () => {
    const before = await snapshot(t, 'sysCountry')
    const bad = await post<Refusal>('/country', { code: 'IS', name: '冰岛', nameEn: 'Iceland', timeZone: 'Mars/Olympus' })
    expect(bad.status).toBe(400)
    expect(bad.data.errors[0]!.field).toBe('timeZone')
    const taken = await post('/country', { code: 'NL', name: '荷兰', nameEn: 'Holland', timeZone: 'Europe/Amsterdam' })
    expect(taken.status).toBe(409)
    expect((await post('/country', { code: 'I1', name: '冰岛', nameEn: 'Iceland', timeZone: 'Atlantic/Reykjavik' })).status).toBe(400)
    expect(await snapshot(t, 'sysCountry')).toEqual(before)
    const added = await post('/country', { code: 'IS', name: '冰岛', nameEn: 'Iceland', timeZone: 'Atlantic/Reykjavik' })
    expect(added.status, added.msg).toBe(200)
    expect(added.data).toMatchObject({ code: 'IS', timeZone: 'Atlantic/Reykjavik' })
  })

  it('accepts current IANA names that the runtime lists under an older alias', async () => {
    const india = (await post<Paged<Country>>('/country/list', { code: 'IN' })).data.rows[0]!
    for (const timeZone of ['Asia/Kolkata', 'Asia/Calcutta', 'UTC']) {
      const res = await t.call({ method: 'PUT', url: '/api/system/country', token: t.admin, body: { countryId: india.countryId, timeZone } })
      expect(res.status, `${timeZone}: ${res.msg}`).toBe(200)
    }
  })

  it('the table itself refuses a second row with the same code', async () => {
    const row = { code: 'NL', name: 'x', nameEn: 'x', timeZone: 'UTC', status: '0', createBy: 't', createTime: new Date().toISOString(), updateBy: '', updateTime: null, remark: '' }
    await expect(db().insertInto('sysCountry').values(row).execute()).rejects.toThrow()
  })
})

describe('internationalisation data', () => {
  const entry = (sourceKey: string, extra: object = {}) => ({ name: 'Test text', type: 'app', sourceKey, valueEnUs: 'Hello', valueZhCn: '你好', ...extra })

  it('is seeded with texts in every language', async () => {
    const res = await post<Paged<{ i18nId: number }>>('/i18n/list', { sourceKey: 'app.login.title' })
    expect(res.data.rows).toHaveLength(1)
    const got = await t.call({ url: `/api/system/i18n/${res.data.rows[0]!.i18nId}`, token: t.admin })
    expect(got.data).toMatchObject({ type: 'app', language: 'en_US', valueEnUs: 'Sign in', valueZhCn: '登录', valueDeDe: 'Anmelden', valueNlNl: 'Inloggen', valueFrFr: 'Se connecter' })
    expect((await post<Paged<{ sourceKey: string }>>('/i18n/list', { type: 'iot' })).data.rows.map((r: { sourceKey: string }) => r.sourceKey)).toEqual(['iot.alarm.fall'])
  })

  it('adds and modifies entries, refusing bad input and a taken key, changing nothing', async () => {
    const before = await snapshot(t, 'sysI18n')
    for (const [body, field] of [
      [entry('app.test.one', { valueZhCn: '' }), 'valueZhCn'],
      [entry('app test one'), 'sourceKey'],
      [entry('app.test.one', { type: 'fax' }), 'type'],
      [entry('app.test.one', { language: 'xx_XX' }), 'language'],
      [entry('app.test.one', { valueEnUs: 'x'.repeat(2001) }), 'valueEnUs'],
    ] as const) {
      const res = await post<Refusal>('/i18n', body)
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(res.data.errors.map((e: { field: string }) => e.field)).toContain(field)
    }
    const taken = await post('/i18n', entry('app.login.title'))
    expect(taken.status).toBe(409)
    expect(taken.msg).toBe('Source key "app.login.title" already exists')
    expect(await snapshot(t, 'sysI18n')).toEqual(before)

    const added = await post<{ i18nId: number }>('/i18n', entry('web.test.greeting', { type: 'web', language: 'de_DE', valueDeDe: 'Hallo' }))
    expect(added.status, added.msg).toBe(200)
    const changed = await t.call({ method: 'PUT', url: '/api/system/i18n', token: t.admin, body: { i18nId: added.data.i18nId, valueFrFr: 'Bonjour' } })
    expect(changed.data).toMatchObject({ valueDeDe: 'Hallo', valueFrFr: 'Bonjour', language: 'de_DE' })
  })

  it('the table itself refuses a second row with the same key', async () => {
    const row = { name: 'x', type: 'app', sourceKey: 'app.login.title', language: 'en_US', valueEnUs: 'x', valueZhCn: 'x', valueDeDe: '', valueNlNl: '', valueFrFr: '', createBy: 't', createTime: new Date().toISOString(), updateBy: '', updateTime: null, remark: '' }
    await expect(db().insertInto('sysI18n').values(row).execute()).rejects.toThrow()
  })
})

describe('their dictionaries', () => {
  it('sys_i18n_type and sys_language come in both languages', async () => {
    const types = await t.call<{ dictValue: string }[]>({ url: '/api/system/dict/getDicts/sys_i18n_type', token: t.admin })
    expect(types.data.map((d: { dictValue: string }) => d.dictValue)).toEqual(['app', 'web', 'server', 'iot', 'email', 'push'])
    const languages = await t.call<{ dictValue: string; dictLabel: string; dictLabelZh: string }[]>({ url: '/api/system/dict/getDicts/sys_language', token: t.admin })
    expect(languages.data.map((d: { dictValue: string; dictLabel: string; dictLabelZh: string }) => [d.dictValue, d.dictLabel, d.dictLabelZh])).toEqual([
      ['en_US', 'English', '英文'],
      ['zh_CN', 'Chinese', '中文'],
      ['de_DE', 'German', '德文'],
      ['nl_NL', 'Dutch', '荷兰文'],
      ['fr_FR', 'French', '法文'],
    ])
  })
})

describe('a limited role', () => {
  it('reads countries with the list permission and gets 403 on adding', async () => {
    const reader = await limitedUser(t, { userName: 'geo1', dataScope: '4', dept: 'Sales', perms: ['system:country:list', 'system:i18n:list'] })
    expect((await post<Paged<Country>>('/country/list', {}, reader.token)).status).toBe(200)
    expect((await post<Paged<{ sourceKey: string }>>('/i18n/list', {}, reader.token)).status).toBe(200)
    const before = await snapshot(t, 'sysCountry', 'sysI18n')
    const res = await post('/country', { code: 'IE', name: '爱尔兰', nameEn: 'Ireland', timeZone: 'Europe/Dublin' }, reader.token)
    expect(res.status).toBe(403)
    expect(res.msg).toBe('You have no permission to do this (system:country:add)')
    expect((await post('/i18n', entry2(), reader.token)).status).toBe(403)
    expect(await snapshot(t, 'sysCountry', 'sysI18n')).toEqual(before)
  })
})

const entry2 = () => ({ name: 'x', type: 'app', sourceKey: 'app.x', valueEnUs: 'x', valueZhCn: 'x' })
