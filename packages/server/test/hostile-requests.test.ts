import type { CaptchaResult } from '@velo/shared'
import { sql, type Selectable } from 'kysely'
import { describe, expect, it, vi } from 'vitest'
import type { OperLogTable } from '../src/db/schema'
import { maskSecrets } from '../src/platform/audit/mask'
import { MemoryCaptchaStore } from '../src/platform/auth/captcha'
import { ADMIN_PASSWORD, addUser, createTestApp, type TestApp, useTestApp } from './harness'

type OperRow = Selectable<OperLogTable>

const t = useTestApp()

const JSON_TYPE = { 'content-type': 'application/json' }
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

async function operRows(app: TestApp, afterId = 0): Promise<OperRow[]> {
  return (await app.app.services.db.selectFrom('sysOperLog').selectAll().where('operId', '>', afterId).orderBy('operId').execute()) as OperRow[]
}
const lastOperId = async (app: TestApp) => (await operRows(app)).at(-1)?.operId ?? 0

async function addDict(dictType: string): Promise<number> {
  const res = await t.call<{ dictId: number }>({ method: 'POST', url: '/api/system/dict', token: t.admin, body: { dictName: dictType, dictType } })
  expect(res.status, res.msg).toBe(200)
  return res.data.dictId
}
const dictExists = async (dictId: number) => !!(await t.app.services.db.selectFrom('sysDictType').select('dictId').where('dictId', '=', dictId).executeTakeFirst())

describe('anonymous refusals are limited per address and counted, not logged row by row', () => {
  it('answers 429 past the limit, writes a handful of rows for 200 refused mutations, and sums up the rest', async () => {
    const own = await createTestApp()
    let reader: TestApp | undefined
    try {
      const adminToken = await own.login()
      await addUser(own, { userName: 'floodreader', roleKeys: ['common'] })
      const readerToken = await own.login('floodreader', 'secret12')
      const before = await lastOperId(own)

      const statuses: number[] = []
      let retryAfter: unknown
      for (let i = 0; i < 200; i++) {
        const call = [
          { method: 'DELETE' as const, url: `/api/system/dict/${i + 1}` },
          { method: 'PUT' as const, url: '/api/system/dict', body: { dictId: 1, dictName: 'x' } },
          { method: 'POST' as const, url: '/api/system/dict', body: { dictName: 'x', dictType: 'x' } },
        ][i % 3]!
        // A made-up token is no better than none.
        const res = await own.call({ ...call, ...(i % 2 ? { token: 'forged-token' } : {}) })
        statuses.push(res.status)
        if (res.status === 429) {
          retryAfter = res.headers['retry-after']
          expect(res.msg).toBe('Too many requests, please try again later')
        }
      }
      expect(statuses.slice(0, 60).every((s) => s === 401)).toBe(true)
      expect(statuses.slice(60).every((s) => s === 429)).toBe(true)
      expect(Number(retryAfter)).toBeGreaterThan(0)

      // Signed-in callers from the same address are not held back, and their refusals are still logged one by one.
      expect((await own.call({ method: 'POST', url: '/api/system/dict/list', token: adminToken, body: {} })).status).toBe(200)
      for (let i = 0; i < 3; i++) {
        expect((await own.call({ method: 'DELETE', url: '/api/system/dict/1', token: readerToken })).status).toBe(403)
      }

      const rows = await operRows(own, before)
      const anonymous = rows.filter((r) => r.operName === '')
      expect(anonymous.length).toBeLessThanOrEqual(5)
      expect(anonymous.every((r) => r.status === '1' && r.errorMsg.length > 0)).toBe(true)
      const forbidden = rows.filter((r) => r.operName === 'floodreader')
      expect(forbidden).toHaveLength(3)
      expect(forbidden[0]).toMatchObject({ status: '1', operUrl: '/api/system/dict/1', errorMsg: 'You have no permission to do this (system:dict:remove)' })

      // The rest are summed up in one row, written at the latest when the app closes.
      await own.app.close()
      reader = await createTestApp({}, { databaseUrl: own.databaseUrl })
      const after = await operRows(reader, before)
      const summaries = after.filter((r) => r.title === 'Refused before sign-in')
      expect(summaries).toHaveLength(1)
      expect(after.filter((r) => r.operName === '')).toHaveLength(anonymous.length + 1)
      const summary = summaries[0]!
      const counted = 200 - anonymous.length
      expect(summary).toMatchObject({ status: '1', businessType: '0', operName: '', operIp: anonymous[0]!.operIp })
      expect(summary.errorMsg).toMatch(new RegExp(`^${counted} more requests from callers not signed in were refused \\(${60 - anonymous.length} answered 401, 140 answered 429\\)`))
      const params = JSON.parse(summary.operParam)
      expect(params).toMatchObject({ refused: counted, answered: { 401: 60 - anonymous.length, 429: 140 }, addresses: { [anonymous[0]!.operIp]: counted } })
      expect(Object.keys(params.routes).sort()).toEqual(['DELETE /api/system/dict/:ids', 'POST /api/system/dict', 'PUT /api/system/dict'])
    } finally {
      await reader?.close()
      await own.close()
    }
  })
})

describe('JSON bodies', () => {
  it('refuses a 20,000-level body before parsing it, and still logs the refused delete', async () => {
    const dictId = await addDict('deep_body')
    const before = await lastOperId(t)
    const res = await t.call({ method: 'DELETE', url: `/api/system/dict/${dictId}`, token: t.admin, headers: JSON_TYPE, payload: nested(20_000) })
    expect(res.status).toBe(400)
    expect(res.msg).toBe('The request body nests too deeply (at most 32 levels)')
    const zh = await t.call({ method: 'DELETE', url: `/api/system/dict/${dictId}`, token: t.admin, lang: 'zh_CN', headers: JSON_TYPE, payload: `{"a":${nested(20_000)}}` })
    expect(zh.status).toBe(400)
    expect(zh.msg).toBe('请求内容嵌套层级过深（最多 32 层）')
    expect(await dictExists(dictId)).toBe(true)
    const rows = (await operRows(t, before)).filter((r) => r.operUrl === `/api/system/dict/${dictId}`)
    expect(rows).toHaveLength(2)
    expect(rows[0]).toMatchObject({ status: '1', businessType: '3', operName: 'admin', errorMsg: 'The request body nests too deeply (at most 32 levels)' })
  })

  it('counts brackets only outside strings, and takes 32 levels', async () => {
    const tricky = `[x] "\\" [[[ ${'['.repeat(100)}`
    const res = await t.call<{ remark: string }>({ method: 'POST', url: '/api/system/dict', token: t.admin, body: { dictName: 'Brackets', dictType: 'brackets_in_text', remark: tricky } })
    expect(res.status, res.msg).toBe(200)
    expect(res.data.remark).toBe(tricky)
    const dictId = await addDict('deep_enough')
    const ok = await t.call({ method: 'DELETE', url: `/api/system/dict/${dictId}`, token: t.admin, headers: JSON_TYPE, payload: nested(32) })
    expect(ok.status, ok.msg).toBe(200)
    expect(await dictExists(dictId)).toBe(false)
    expect((await t.call({ method: 'DELETE', url: '/api/system/dict/999999', token: t.admin, headers: JSON_TYPE, payload: nested(33) })).status).toBe(400)
  })

  it('still refuses prototype poisoning and malformed JSON, in the caller language', async () => {
    const poisoned = await t.call({ method: 'POST', url: '/api/system/dict', token: t.admin, headers: JSON_TYPE, payload: '{"dictName":"P","dictType":"poisoned","__proto__":{"isAdmin":true}}' })
    expect(poisoned.status).toBe(400)
    expect(poisoned.msg).toBe('The request body is not valid JSON')
    const broken = await t.call({ method: 'POST', url: '/api/system/dict', token: t.admin, lang: 'zh_CN', headers: JSON_TYPE, payload: '{"dictName":' })
    expect(broken.status).toBe(400)
    expect(broken.msg).toBe('请求内容不是有效的 JSON')
    expect(await t.app.services.db.selectFrom('sysDictType').select('dictId').where('dictType', '=', 'poisoned').executeTakeFirst()).toBeUndefined()
  })

  it('takes an empty body with a JSON content type as no body', async () => {
    const token = await t.login()
    const logout = await t.call({ method: 'POST', url: '/api/logout', token, headers: JSON_TYPE, payload: '' })
    expect(logout.status, logout.msg).toBe(200)
    expect((await t.call({ url: '/api/getUserInfo', token })).status).toBe(401)

    for (const payload of ['', ' \r\n\t']) {
      const dictId = await addDict(`empty_body_${payload.length}`)
      const res = await t.call({ method: 'DELETE', url: `/api/system/dict/${dictId}`, token: t.admin, headers: { 'content-type': 'application/json; charset=utf-8' }, payload })
      expect(res.status, res.msg).toBe(200)
      expect(await dictExists(dictId)).toBe(false)
    }

    // A route that needs a body still says so as it always did.
    const add = await t.call({ method: 'POST', url: '/api/system/dict', token: t.admin, headers: JSON_TYPE, payload: '' })
    expect(add.status).toBe(400)
    expect(add.msg).toMatch(/^Invalid request: /)
  })
})

describe('the operation log row is written before the handler runs', () => {
  it('logs a mutation once, complete with its outcome by the time the answer arrives', async () => {
    const before = await lastOperId(t)
    const res = await t.call<{ dictId: number }>({ method: 'POST', url: '/api/system/dict', token: t.admin, body: { dictName: 'Logged once', dictType: 'logged_once' } })
    expect(res.status).toBe(200)
    // No waiting: the row is final before the answer is sent.
    const rows = (await operRows(t, before)).filter((r) => r.operUrl === '/api/system/dict')
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ status: '0', errorMsg: '', businessType: '1', operName: 'admin' })
    expect(JSON.parse(rows[0]!.jsonResult)).toEqual({ status: 200, code: 200, msg: res.msg, data: { dictId: res.data.dictId } })

    const again = await t.call({ method: 'POST', url: '/api/system/dict', token: t.admin, body: { dictName: 'Logged once', dictType: 'logged_once' } })
    expect(again.status).toBe(409)
    const failed = (await operRows(t, rows[0]!.operId)).filter((r) => r.operUrl === '/api/system/dict')
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ status: '1', errorMsg: again.msg })
  })

  it('refuses a mutation whose row cannot be written, and the mutation changes nothing', async () => {
    const db = t.app.services.db
    const dictId = await addDict('unaudited_delete')
    await sql`alter table sys_oper_log rename to sys_oper_log_away`.execute(db)
    try {
      const removed = await t.call({ method: 'DELETE', url: `/api/system/dict/${dictId}`, token: t.admin })
      expect(removed.status).toBe(500)
      expect(removed.msg).toMatch(/^The operation could not be written to the operation log, so it was not carried out \(request id [0-9a-f-]{36}\)$/)
      const added = await t.call({ method: 'POST', url: '/api/system/dict', token: t.admin, lang: 'zh_CN', body: { dictName: 'Unaudited', dictType: 'unaudited_add' } })
      expect(added.status).toBe(500)
      expect(added.msg).toMatch(/^无法写入操作日志，操作未执行/)
      expect(await dictExists(dictId)).toBe(true)
      expect(await db.selectFrom('sysDictType').select('dictId').where('dictType', '=', 'unaudited_add').executeTakeFirst()).toBeUndefined()
      // Queries do not need the log.
      expect((await t.call({ url: `/api/system/dict/${dictId}`, token: t.admin })).status).toBe(200)
    } finally {
      await sql`alter table sys_oper_log_away rename to sys_oper_log`.execute(db)
    }
    const before = await lastOperId(t)
    expect((await t.call({ method: 'DELETE', url: `/api/system/dict/${dictId}`, token: t.admin })).status).toBe(200)
    expect((await operRows(t, before)).filter((r) => r.operUrl === `/api/system/dict/${dictId}`)).toMatchObject([{ status: '0' }])
  })

  it('masks any value without throwing, cutting what is too deep or too long', () => {
    let deep: unknown = { password: 'hunter2' }
    for (let i = 0; i < 20_000; i++) deep = { next: deep }
    const cyclic: Record<string, unknown> = { token: 'abc' }
    cyclic.self = cyclic
    const masked = maskSecrets({ deep, cyclic, big: 10n ** 30n, many: Array.from({ length: 5000 }, (_, i) => i) })
    const text = JSON.stringify(masked)
    expect(text.length).toBeLessThan(5000)
    expect(text).not.toContain('hunter2')
    expect(text).not.toContain('"abc"')
    expect(text).toContain('"1000000000000000000000000000000"')
    expect(text).toContain('… 4900 more')
    expect(maskSecrets({ oldPassword: 'x', nested: { newPassword: 1, list: [{ secret: 's' }] } })).toEqual({ oldPassword: '******', nested: { newPassword: '******', list: [{ secret: '******' }] } })
  })
})

describe('multipart requests the parser cannot read', () => {
  const routes = ['/api/system/user/profile/avatar', '/api/system/dict/import', '/api/common/upload']
  const BAD = 'The upload could not be read: it must be multipart/form-data with a boundary'

  it('answers 400 with a clear message for a missing boundary, on every kind of upload route', async () => {
    for (const url of routes) {
      const res = await t.call({ method: 'POST', url, token: t.admin, headers: { 'content-type': 'multipart/form-data' }, payload: 'whatever' })
      expect(res.status, url).toBe(400)
      expect(res.msg, url).toBe(BAD)
    }
    const zh = await t.call({ method: 'POST', url: routes[1]!, token: t.admin, lang: 'zh_CN', headers: { 'content-type': 'multipart/form-data' }, payload: 'x' })
    expect(zh.msg).toBe('无法读取上传内容：必须是带 boundary 的 multipart/form-data 请求')
  })

  it('answers 4xx, never 500, for broken boundaries and garbage bodies', async () => {
    const cases: [string, string][] = [
      ['multipart/form-data; boundary=""', 'x'],
      ['multipart/form-data; boundary=zz', 'garbage\r\n--zz'],
      ['multipart/form-data; boundary=zz', '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.xlsx"\r\n\r\nabc'],
      ['multipart/form-data; boundary=zz', '--zz\r\nnot a header at all\r\n\r\n--zz--'],
      [`multipart/form-data; boundary=${'b'.repeat(300)}`, 'x'],
    ]
    for (const url of routes) {
      for (const [type, payload] of cases) {
        const res = await t.call({ method: 'POST', url, token: t.admin, headers: { 'content-type': type }, payload })
        expect(res.status, `${url} ${type} ${JSON.stringify(payload)}`).toBeGreaterThanOrEqual(400)
        expect(res.status, `${url} ${type} ${JSON.stringify(payload)}`).toBeLessThan(500)
        expect(res.code).toBe(res.status)
      }
    }
  })
})

describe('captchas', () => {
  it('keeps no captcha in the database, still signs in with one, and limits how fast they are handed out', async () => {
    const own = await createTestApp({ CAPTCHA_ENABLED: 'true' })
    try {
      const first = await own.call<CaptchaResult>({ url: '/api/common/captcha' })
      expect(first.status).toBe(200)
      const code = await own.app.services.captchas.store.get(`captcha:${first.data.uuid}`)
      const signIn = await own.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD, uuid: first.data.uuid, code } })
      expect(signIn.status, signIn.msg).toBe(200)

      const statuses: number[] = [first.status]
      for (let i = 0; i < 39; i++) statuses.push((await own.call({ url: '/api/common/captcha' })).status)
      expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true)
      expect(statuses.slice(30).every((s) => s === 429)).toBe(true)
      const limited = await own.call({ url: '/api/common/captcha', lang: 'zh_CN' })
      expect(limited.msg).toBe('请求过于频繁，请稍后再试')
      expect(await own.app.services.db.selectFrom('sysCache').select('cacheKey').where('cacheKey', 'like', 'captcha:%').execute()).toEqual([])
    } finally {
      await own.close()
    }
  })

  it.runIf(!!process.env.REDIS_URL)('shares captchas between instances through Redis', async () => {
    const a = await createTestApp({ CAPTCHA_ENABLED: 'true' })
    const b = await createTestApp({ CAPTCHA_ENABLED: 'true' }, { databaseUrl: a.databaseUrl })
    try {
      const issued = await a.call<CaptchaResult>({ url: '/api/common/captcha' })
      const code = await a.app.services.captchas.store.get(`captcha:${issued.data.uuid}`)
      const res = await b.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password: ADMIN_PASSWORD, uuid: issued.data.uuid, code } })
      expect(res.status, res.msg).toBe(200)
    } finally {
      await b.close()
      await a.close()
    }
  })

  it('keeps at most so many in memory, the oldest giving way, each for its TTL and one use', async () => {
    const store = new MemoryCaptchaStore(3)
    for (const k of ['a', 'b', 'c', 'd']) await store.set(k, k.toUpperCase(), 120)
    expect(await store.get('a')).toBeNull()
    expect(await store.get('b')).toBe('B')
    expect(await store.take('d')).toBe('D')
    expect(await store.take('d')).toBeNull()
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(Date.now() + 121_000)
      expect(await store.take('b')).toBeNull()
      await store.set('e', 'E', 120)
      expect(await store.get('c')).toBeNull()
      expect(await store.get('e')).toBe('E')
    } finally {
      vi.useRealTimers()
    }
  })
})
