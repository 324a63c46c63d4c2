import type { Paged } from '@velo/shared'
import type { Selectable } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OperLogTable } from '../src/db/schema'
import { addUser, createTestApp, readWorkbook, type TestApp } from './harness'

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'

type OperRow = Selectable<OperLogTable>

let t: TestApp
let admin: string
const started = new Date().toISOString()

beforeAll(async () => {
  t = await createTestApp()
  admin = await t.login()
})
afterAll(() => t.close())

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function operRows(afterId = 0): Promise<OperRow[]> {
  return (await t.app.services.db.selectFrom('sysOperLog').selectAll().where('operId', '>', afterId).orderBy('operId').execute()) as unknown as OperRow[]
}

async function lastOperId(): Promise<number> {
  const rows = await operRows()
  return rows.at(-1)?.operId ?? 0
}

/** The log is written once the answer is out, so a test waits for its row rather than racing it. */
async function waitForLog(match: (r: OperRow) => boolean, afterId = 0): Promise<OperRow> {
  const deadline = Date.now() + 5000
  for (;;) {
    const found = (await operRows(afterId)).filter(match)
    if (found.length) return found.at(-1)!
    if (Date.now() > deadline) throw new Error('no matching operation log row')
    await sleep(10)
  }
}

/**
 * Runs requests that must not be logged, then one that is (a harmless 404 delete), waits for that one
 * and answers every row written since: only the marker may be there.
 */
async function rowsWrittenBy(requests: () => Promise<void>): Promise<OperRow[]> {
  const before = await lastOperId()
  await requests()
  const marker = `/api/system/dict/${900000 + Math.floor(Math.random() * 99999)}`
  expect((await t.call({ method: 'DELETE', url: marker, token: admin })).status).toBe(404)
  await waitForLog((r) => r.operUrl === marker, before)
  await sleep(50)
  return (await operRows(before)).filter((r) => r.operUrl !== marker)
}

describe('operation log: every mutating request', () => {
  it('records a dictionary add: module, type, operator, method, URL, parameters, result, time and duration', async () => {
    const before = await lastOperId()
    const body = { dictName: 'Audit colours', dictType: 'audit_colours', remark: 'for the audit test' }
    const res = await t.call<{ dictId: number }>({ method: 'POST', url: '/api/system/dict', token: admin, body })
    expect(res.status).toBe(200)
    const row = await waitForLog((r) => r.operUrl === '/api/system/dict', before)
    expect(row).toMatchObject({
      title: 'Dictionary',
      businessType: '1',
      operName: 'admin',
      deptName: 'Velo HQ',
      requestMethod: 'POST',
      method: 'POST /api/system/dict',
      operUrl: '/api/system/dict',
      status: '0',
      errorMsg: '',
    })
    expect(JSON.parse(row.operParam)).toEqual({ body })
    // The outcome and the id of the row added, not the row itself.
    expect(JSON.parse(row.jsonResult)).toEqual({ status: 200, code: 200, msg: res.msg, data: { dictId: res.data.dictId } })
    expect(row.operIp).toMatch(/^127\.\d+\.\d+\.\d+$/)
    expect(Number.isInteger(row.costTime) && row.costTime >= 0).toBe(true)
    expect(row.operTime >= started && row.operTime <= new Date().toISOString()).toBe(true)
    expect(row.requestId).toMatch(/^[0-9a-f-]{36}$/)

    // The same row, read the way the log page reads it.
    const listed = await t.call<Paged<OperRow>>({ method: 'POST', url: '/api/monitor/operlog/list', token: admin, body: { title: 'Dictionary', businessType: '1' } })
    expect(listed.code).toBe(200)
    const fromApi = listed.data.rows.find((r: OperRow) => r.operId === row.operId)
    expect(fromApi).toMatchObject({ title: 'Dictionary', businessType: '1', operName: 'admin', requestMethod: 'POST', operUrl: '/api/system/dict', status: '0' })
    const one = await t.call<OperRow>({ url: `/api/monitor/operlog/${row.operId}`, token: admin })
    expect(JSON.parse(one.data.operParam)).toEqual({ body })
  })

  it('records edit as type 2, delete as 3 and export as 5, with the path parameters', async () => {
    const created = await t.call<{ dictId: number }>({ method: 'POST', url: '/api/system/dict', token: admin, body: { dictName: 'Audit temp', dictType: 'audit_temp' } })
    const id = created.data.dictId
    let before = await lastOperId()
    expect((await t.call({ method: 'PUT', url: '/api/system/dict', token: admin, body: { dictId: id, dictName: 'Audit temp 2' } })).status).toBe(200)
    const edit = await waitForLog((r) => r.requestMethod === 'PUT', before)
    expect(edit).toMatchObject({ title: 'Dictionary', businessType: '2', status: '0', operUrl: '/api/system/dict' })
    expect(JSON.parse(edit.operParam)).toEqual({ body: { dictId: id, dictName: 'Audit temp 2' } })

    before = await lastOperId()
    expect((await t.call({ method: 'DELETE', url: `/api/system/dict/${id}`, token: admin })).status).toBe(200)
    const del = await waitForLog((r) => r.requestMethod === 'DELETE', before)
    expect(del).toMatchObject({ title: 'Dictionary', businessType: '3', status: '0', operUrl: `/api/system/dict/${id}`, method: 'DELETE /api/system/dict/:ids' })
    expect(JSON.parse(del.operParam)).toEqual({ params: { ids: [id] } })
    expect(JSON.parse(del.jsonResult)).toMatchObject({ status: 200, code: 200, data: { deleted: 1 } })

    before = await lastOperId()
    const exported = await t.call({ method: 'POST', url: '/api/system/dict/export', token: admin, body: { dictType: 'audit' } })
    expect(exported.status).toBe(200)
    const exp = await waitForLog((r) => r.operUrl === '/api/system/dict/export', before)
    expect(exp).toMatchObject({ title: 'Dictionary', businessType: '5', status: '0', operName: 'admin' })
    expect(JSON.parse(exp.operParam)).toEqual({ body: { dictType: 'audit', pageNum: 1, pageSize: 20 } })
    // A file is its outcome only: none of the rows it holds.
    expect(JSON.parse(exp.jsonResult)).toEqual({ status: 200 })
  })

  it('records a refused mutation (duplicate dictionary type, 409) as failed with the message', async () => {
    const before = await lastOperId()
    const res = await t.call({ method: 'POST', url: '/api/system/dict', token: admin, body: { dictName: 'Again', dictType: 'audit_colours' } })
    expect(res.status).toBe(409)
    const row = await waitForLog((r) => r.operUrl === '/api/system/dict', before)
    expect(row.status).toBe('1')
    expect(row.errorMsg).toBe('Dictionary type "audit_colours" already exists')
    expect(JSON.parse(row.jsonResult)).toMatchObject({ status: 409, code: 409, msg: 'Dictionary type "audit_colours" already exists' })
  })

  it('records an invalid mutation (400) as failed, naming the field', async () => {
    const before = await lastOperId()
    const res = await t.call({ method: 'POST', url: '/api/system/dict', token: admin, body: { dictType: 'no_name_here' } })
    expect(res.status).toBe(400)
    const row = await waitForLog((r) => r.operUrl === '/api/system/dict', before)
    expect(row.status).toBe('1')
    expect(row.errorMsg).toContain('Dictionary name is required')
  })

  it('records a mutation without a token as failed, with no operator, and it changes nothing', async () => {
    const before = await lastOperId()
    const res = await t.call({ method: 'DELETE', url: '/api/system/dict/1' })
    expect(res.status).toBe(401)
    expect(res.code).toBe(50008)
    const row = await waitForLog((r) => r.operUrl === '/api/system/dict/1', before)
    expect(row).toMatchObject({ title: 'Dictionary', businessType: '3', requestMethod: 'DELETE', operName: '', status: '1', errorMsg: 'Please sign in first' })
    expect(await t.app.services.db.selectFrom('sysDictType').select('dictId').where('dictId', '=', 1).executeTakeFirst()).toBeTruthy()
  })

  it('records a forbidden mutation under the name of whoever tried it', async () => {
    await addUser(t, { userName: 'auditreader', roleKeys: ['common'] })
    const reader = await t.login('auditreader', 'secret12')
    const before = await lastOperId()
    const res = await t.call({ method: 'POST', url: '/api/system/dict', token: reader, body: { dictName: 'Nope', dictType: 'audit_nope' } })
    expect(res.status).toBe(403)
    const row = await waitForLog((r) => r.operUrl === '/api/system/dict', before)
    expect(row).toMatchObject({ operName: 'auditreader', status: '1', errorMsg: 'You have no permission to do this (system:dict:add)' })
  })

  it('masks passwords: a password change never writes the clear old or new password', async () => {
    await addUser(t, { userName: 'pwdchanger', password: 'OldSecret1' })
    const token = await t.login('pwdchanger', 'OldSecret1')
    let before = await lastOperId()
    const wrong = await t.call({ method: 'PUT', url: '/api/system/user/profile/updatePwd', token, body: { oldPassword: 'WrongOld9', newPassword: 'NewSecret2' } })
    expect(wrong.status).toBe(400)
    const failed = await waitForLog((r) => r.operUrl === '/api/system/user/profile/updatePwd', before)
    expect(failed.status).toBe('1')
    expect(JSON.parse(failed.operParam)).toEqual({ body: { oldPassword: '******', newPassword: '******' } })

    before = await lastOperId()
    const res = await t.call({ method: 'PUT', url: '/api/system/user/profile/updatePwd', token, body: { oldPassword: 'OldSecret1', newPassword: 'NewSecret2' } })
    expect(res.status).toBe(200)
    const row = await waitForLog((r) => r.operUrl === '/api/system/user/profile/updatePwd', before)
    expect(row).toMatchObject({ title: 'Profile', businessType: '2', operName: 'pwdchanger', status: '0' })
    expect(row.operParam).toContain('******')
    for (const r of [row, failed]) {
      const text = JSON.stringify(r)
      for (const secret of ['OldSecret1', 'NewSecret2', 'WrongOld9']) expect(text).not.toContain(secret)
    }
    // The change itself went through.
    await t.login('pwdchanger', 'NewSecret2')
  })

  it('records an upload as a file upload, never with its bytes', async () => {
    const boundary = 'auditboundary'
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
      png,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ])
    const before = await lastOperId()
    const res = await t.call({ method: 'POST', url: '/api/common/upload', token: admin, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } })
    expect(res.status).toBe(200)
    const row = await waitForLog((r) => r.operUrl === '/api/common/upload', before)
    expect(row).toMatchObject({ title: 'Files', businessType: '1', status: '0' })
    expect(JSON.parse(row.operParam)).toEqual({ body: '(file upload)' })
  })

  it('does not record queries: POST lists, GETs, sign-in and sign-out', async () => {
    await addUser(t, { userName: 'quietuser', password: 'Quiet1234' })
    const written = await rowsWrittenBy(async () => {
      for (const url of ['/api/system/dict/list', '/api/system/dict/data/list', '/api/system/config/list', '/api/monitor/operlog/list', '/api/monitor/logininfor/list']) {
        expect((await t.call({ method: 'POST', url, token: admin, body: {} })).status).toBe(200)
      }
      for (const url of ['/api/system/dict/1', '/api/getUserInfo', '/api/getRouters', '/api/system/dict/getDicts/sys_yes_no', '/api/system/config/configKey/sys.account.captchaType']) {
        expect((await t.call({ url, token: admin })).status).toBe(200)
      }
      // A refused query is still a query.
      expect((await t.call({ method: 'POST', url: '/api/system/dict/list', token: admin, body: { orderByColumn: 'password' } })).status).toBe(400)
      const quiet = await t.login('quietuser', 'Quiet1234')
      expect((await t.call({ method: 'POST', url: '/api/login', body: { username: 'quietuser', password: 'wrong-one' } })).status).toBe(400)
      expect((await t.call({ method: 'POST', url: '/api/logout', token: quiet })).status).toBe(200)
    })
    expect(written).toEqual([])
  })
})

describe('login log: every sign-in attempt, good or bad', () => {
  const loginLog = async (userName: string) =>
    (await t.call<Paged<Record<string, string>>>({ method: 'POST', url: '/api/monitor/logininfor/list', token: admin, body: { userName, pageSize: 50 } })).data.rows

  it('records a good sign-in with address, browser and system read from the request', async () => {
    await addUser(t, { userName: 'chromeuser', password: 'Chrome123' })
    const before = Date.now()
    const res = await t.call({ method: 'POST', url: '/api/login', body: { username: ' chromeuser ', password: 'Chrome123' }, headers: { 'user-agent': CHROME, 'x-forwarded-for': '203.0.113.9' } })
    expect(res.status).toBe(200)
    const rows = await loginLog('chromeuser')
    expect(rows).toHaveLength(1)
    const row = rows[0]!
    expect(row).toMatchObject({ userName: 'chromeuser', browser: 'Chrome 120', os: 'Windows 10', status: '0', msg: 'Signed in', loginLocation: 'Intranet' })
    // TRUST_PROXY is off: a forwarded-for header the client made up is not the address.
    expect(row.ipaddr).toMatch(/^127\.\d+\.\d+\.\d+$/)
    expect(Date.parse(row.loginTime!)).toBeGreaterThanOrEqual(before - 1000)
    expect(Date.parse(row.loginTime!)).toBeLessThanOrEqual(Date.now())
  })

  it('records wrong passwords and unknown users as failures with the reason', async () => {
    await addUser(t, { userName: 'failuser', password: 'Right1234' })
    expect((await t.call({ method: 'POST', url: '/api/login', body: { username: 'failuser', password: 'Wrong1234' }, headers: { 'user-agent': CHROME } })).status).toBe(400)
    expect((await t.call({ method: 'POST', url: '/api/login', body: { username: 'nosuchuser', password: 'Wrong1234' } })).status).toBe(400)
    expect((await t.call({ method: 'POST', url: '/api/login', body: { username: 'failuser', password: 'Right1234' } })).status).toBe(200)

    const rows = await loginLog('failuser')
    // Newest first.
    expect(rows.map((r) => r.status)).toEqual(['0', '1'])
    expect(rows[1]).toMatchObject({ userName: 'failuser', status: '1', browser: 'Chrome 120', os: 'Windows 10' })
    expect(rows[1]!.msg).toMatch(/^User name or password is incorrect/)
    const unknown = await loginLog('nosuchuser')
    expect(unknown).toHaveLength(1)
    expect(unknown[0]).toMatchObject({ userName: 'nosuchuser', status: '1' })
    expect(unknown[0]!.msg).toBe(rows[1]!.msg)
    expect(unknown[0]!.ipaddr).toMatch(/^127\./)

    const failures = await t.call<Paged<{ status: string }>>({ method: 'POST', url: '/api/monitor/logininfor/list', token: admin, body: { status: '1', pageSize: 100 } })
    expect(failures.data.rows.length).toBeGreaterThanOrEqual(2)
    expect(failures.data.rows.every((r: { status: string }) => r.status === '1')).toBe(true)
  })

  it('keeps sign-in out of the operation log', async () => {
    expect((await operRows()).filter((r) => r.operUrl === '/api/login' || r.operUrl === '/api/logout')).toEqual([])
  })
})

describe('operation log list and export', () => {
  it('filters by module (like, any case), status and time range', async () => {
    const all = await operRows()
    const list = (body: object) => t.call<Paged<OperRow>>({ method: 'POST', url: '/api/monitor/operlog/list', token: admin, body: { pageSize: 500, ...body } })

    const byTitle = await list({ title: 'DICTION' })
    expect(byTitle.data.total).toBe(all.filter((r) => r.title.toLowerCase().includes('diction')).length)
    expect(byTitle.data.total).toBeGreaterThan(0)
    expect(byTitle.data.rows.every((r: OperRow) => r.title === 'Dictionary')).toBe(true)

    const failed = await list({ status: '1' })
    expect(failed.data.total).toBe(all.filter((r) => r.status === '1').length)
    expect(failed.data.rows.every((r: OperRow) => r.status === '1')).toBe(true)
    const ok = await list({ status: '0' })
    expect(ok.data.total + failed.data.total).toBe(all.length)

    // Two rows moved into June 2020, one of them late on the last day.
    const [a, b] = all
    await t.app.services.db.updateTable('sysOperLog').set({ operTime: '2020-06-15T12:00:00.000Z' }).where('operId', '=', a!.operId).execute()
    await t.app.services.db.updateTable('sysOperLog').set({ operTime: '2020-06-30T23:30:00.000Z' }).where('operId', '=', b!.operId).execute()
    const june = await list({ operTime: ['2020-06-01', '2020-06-30'] })
    expect(june.data.rows.map((r: OperRow) => r.operId).sort()).toEqual([a!.operId, b!.operId].sort())
    const midJune = await list({ operTime: ['2020-06-10T00:00:00.000Z', '2020-06-20T00:00:00.000Z'] })
    expect(midJune.data.rows.map((r: OperRow) => r.operId)).toEqual([a!.operId])
    const openEnd = await list({ operTime: [null, '2020-12-31'] })
    expect(openEnd.data.total).toBe(2)
    const recent = await list({ operTime: ['2021-01-01', null] })
    expect(recent.data.total).toBe(all.length - 2)

    // Newest first by default.
    const times = (await list({})).data.rows.map((r: OperRow) => r.operTime)
    expect(times).toEqual([...times].sort().reverse())
  })

  it('refuses a filter it does not know, naming it', async () => {
    const res = await t.call({ method: 'POST', url: '/api/monitor/operlog/list', token: admin, body: { operParam: 'x' } })
    expect(res.status).toBe(400)
    expect(res.msg).toContain('operParam')
  })

  it('exports the filtered rows as .xlsx with readable labels', async () => {
    const failed = (await operRows()).filter((r) => r.status === '1')
    const res = await t.call({ method: 'POST', url: '/api/monitor/operlog/export', token: admin, body: { status: '1' } })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="operLog_\d{14}\.xlsx"/)
    const sheet = await readWorkbook(res.raw)
    expect(sheet.name).toBe('Operation log')
    expect(sheet.header.slice(0, 4)).toEqual(['ID', 'Module', 'Type', 'Operator'])
    expect(sheet.header).toContain('Status')
    const statusCol = sheet.header.indexOf('Status')
    const typeCol = sheet.header.indexOf('Type')
    // The log is written after each answer: a failure of an earlier test may land while this one reads.
    // The export holds every failure logged before it, and none that is not logged by now.
    const exported = sheet.rows.map((r) => r[0])
    const loggedNow = (await operRows()).filter((r) => r.status === '1')
    const logged = new Set(loggedNow.map((r) => r.operId))
    expect(exported.filter((id) => !logged.has(id as number))).toEqual([])
    expect(failed.map((r) => r.operId).filter((id) => !exported.includes(id))).toEqual([])
    expect(sheet.rows.every((r) => r[statusCol] === 'Failure')).toBe(true)
    const types = new Map(loggedNow.map((r) => [r.operId, r.businessType]))
    const label: Record<string, string> = { '1': 'Add', '2': 'Modify', '3': 'Delete', '5': 'Export' }
    for (const r of sheet.rows) expect(r[typeCol]).toBe(label[types.get(r[0] as number)!])
  })
})
