import type { SimulatedDevice } from '@velo/device-sim'
import type { Paged } from '@velo/shared'
import { afterAll, describe, expect, it } from 'vitest'
import { openToolSession } from '../src/modules/tool/sessions'
import { verifyPassword } from '../src/platform/auth/passwords'
import { type Refusal, snapshot, useTestApp, waitForOperLog } from './harness'
import { clearRetained, randomSn, simulated, waitFor } from './iot-helpers'
import type { Db } from '../src/db/database'

// The production-line tool: its accounts in the console, its own API and tokens, and the
// end-of-line test against the reference device over a real MQTT broker (embedded, or TEST_MQTT_URL).

const t = useTestApp()
const db = () => t.app.services.db as unknown as Db
const devices: SimulatedDevice[] = []
const PASSWORD = 'line-pass1'
/** A signed-in operator's token for later tests: sign-in is limited per address, as this file's last test shows. */
let lineToken = ''

afterAll(async () => {
  await Promise.all(devices.map((d) => d.disconnect().catch(() => {})))
  if (devices.length) await clearRetained(t.app, devices.map((d) => d.sn))
})

const tool = <T = unknown>(method: 'GET' | 'POST', url: string, token?: string, body?: unknown, lang?: 'en_US' | 'zh_CN') =>
  t.call<T>({ method, url: `/api/tool-api/v1${url}`, token, body, lang })
/** What a device's end-of-line test answers (POST /devices/:sn/test). */
type ToolTest = { testResult: string; failureReason: string; pingMs: number | null }

async function addToolUser(email: string, userType: 'production' | 'test' = 'production') {
  const res = await t.call<{ toolUserId: number }>({ method: 'POST', url: '/api/tool/user', token: t.admin, body: { companyName: 'Line Works', email, password: PASSWORD, userType } })
  expect(res.code, res.msg).toBe(200)
  return Number(res.data.toolUserId)
}

async function signIn(email: string) {
  const res = await tool<{ token: string }>('POST', '/auth/login', undefined, { email, password: PASSWORD })
  expect(res.code, res.msg).toBe(200)
  return res.data.token
}

async function register(token: string, sn = randomSn()) {
  const res = await tool<{ deviceId: number; secret: string }>('POST', '/devices', token, { sn, productId: 'VELO-4G' })
  expect(res.code, res.msg).toBe(200)
  return { sn, deviceId: Number(res.data.deviceId), secret: res.data.secret as string }
}

async function online(d: { sn: string; secret: string; deviceId: number }, options = {}) {
  const sim = simulated(t.app, d, options)
  devices.push(sim)
  await sim.connect()
  await waitFor(async () => (await t.app.services.db.selectFrom('iotDevice').select('online').where('deviceId', '=', d.deviceId).executeTakeFirstOrThrow()).online, `${d.sn} online`)
  return sim
}

const toolRow = (deviceId: number) => db().selectFrom('toolDevice').selectAll().where('deviceId', '=', deviceId).executeTakeFirstOrThrow()

describe('tool users in the console', () => {
  it('requires the company name and a valid e-mail, and changes nothing on a refusal', async () => {
    const before = await snapshot(t, 'toolUser' as never)
    const missing = await t.call<Refusal>({ method: 'POST', url: '/api/tool/user', token: t.admin, body: { password: PASSWORD } })
    expect(missing.status).toBe(400)
    const fields = (missing.data.errors as { field: string }[]).map((e) => e.field)
    expect(fields).toEqual(expect.arrayContaining(['companyName', 'email']))
    const badEmail = await t.call<Refusal>({ method: 'POST', url: '/api/tool/user', token: t.admin, body: { companyName: 'X', email: 'not-an-email', password: PASSWORD } })
    expect(badEmail.status).toBe(400)
    expect((badEmail.data.errors as { field: string }[]).map((e) => e.field)).toContain('email')
    const badType = await t.call({ method: 'POST', url: '/api/tool/user', token: t.admin, body: { companyName: 'X', email: 'x@line.test', password: PASSWORD, userType: 'boss' } })
    expect(badType.status).toBe(400)
    expect(await snapshot(t, 'toolUser' as never)).toEqual(before)
  })

  it('keeps the password hashed, never answers it, and one e-mail is one account whatever its case', async () => {
    const id = await addToolUser('Hash.Check@Line.test')
    const stored = await db().selectFrom('toolUser').select(['email', 'password']).where('toolUserId', '=', id).executeTakeFirstOrThrow()
    expect(stored.email).toBe('hash.check@line.test')
    expect(stored.password).not.toContain(PASSWORD)
    expect(stored.password.startsWith('$argon2')).toBe(true)
    const got = await t.call({ url: `/api/tool/user/${id}`, token: t.admin })
    expect(got.data).not.toHaveProperty('password')
    const list = await t.call({ method: 'POST', url: '/api/tool/user/list', token: t.admin, body: { pageNum: 1, pageSize: 50 } })
    expect(JSON.stringify(list.data)).not.toContain(stored.password)
    const twice = await t.call({ method: 'POST', url: '/api/tool/user', token: t.admin, body: { companyName: 'Other', email: 'hash.check@line.test', password: PASSWORD } })
    expect(twice.status).toBeGreaterThanOrEqual(400)
    expect(twice.status).toBeLessThan(500)
  })
})

describe('resetting a tool user\'s password in the console', () => {
  it('sets a new hash, ends the tokens opened with the old one, refuses a weak one and never logs it', async () => {
    const id = await addToolUser('reset@line.test')
    // Opened as a sign-in opens them (sign-ins are limited per address: the API's own are tested below).
    const old = await openToolSession(t.app.services, id, 0)
    expect((await tool('GET', '/devices', old.token)).code).toBe(200)
    const weak = await t.call({ method: 'POST', url: `/api/tool/user/${id}/action/resetPassword`, token: t.admin, body: { password: '123' } })
    expect(weak.status).toBe(400)
    expect((await tool('GET', '/devices', old.token)).code).toBe(200)
    const res = await t.call({ method: 'POST', url: `/api/tool/user/${id}/action/resetPassword`, token: t.admin, body: { password: 'new-line-pass2' } })
    expect(res.code, res.msg).toBe(200)
    expect(JSON.stringify(res.data)).not.toContain('new-line-pass2')
    const stored = await db().selectFrom('toolUser').select(['password', 'sessionGeneration']).where('toolUserId', '=', id).executeTakeFirstOrThrow()
    expect(await verifyPassword(stored.password, 'new-line-pass2')).toBe(true)
    expect(await verifyPassword(stored.password, PASSWORD)).toBe(false)
    expect((await tool('GET', '/devices', old.token)).status).toBe(401)
    const fresh = await openToolSession(t.app.services, id, Number(stored.sessionGeneration))
    expect((await tool('GET', '/devices', fresh.token)).code).toBe(200)
    const log = await waitForOperLog(t, (r) => String(r.operUrl).includes(`/tool/user/${id}/action/resetPassword`) && Number(r.status) === 0)
    expect(String(log.operParam)).not.toContain('new-line-pass2')
  })
})

describe('the tool API', () => {
  it('signs in with its own tokens: a staff token is refused there and a tool token in the console', async () => {
    await addToolUser('sessions@line.test')
    const wrong = await tool('POST', '/auth/login', undefined, { email: 'sessions@line.test', password: 'wrong-pass' })
    expect(wrong.status).toBe(400)
    const unknown = await tool('POST', '/auth/login', undefined, { email: 'nobody@line.test', password: PASSWORD })
    expect(unknown.status).toBe(400)
    expect(unknown.msg).toBe(wrong.msg)
    const token = await signIn('SESSIONS@line.test')
    const row = await db().selectFrom('toolUser').select(['loginTime', 'loginIp']).where('email', '=', 'sessions@line.test').executeTakeFirstOrThrow()
    expect(row.loginTime).toBeTruthy()
    expect(row.loginIp).toBeTruthy()

    expect((await tool('GET', '/devices', t.admin)).status).toBe(401)
    expect((await tool('GET', '/devices')).status).toBe(401)
    expect((await t.call({ url: '/api/getRouters', token })).status).toBe(401)
    expect((await t.call({ method: 'POST', url: '/api/tool/iot/list', token, body: { pageNum: 1, pageSize: 10 } })).status).toBe(401)
    expect((await tool('GET', '/devices', token)).code).toBe(200)

    expect((await tool('POST', '/auth/logout', token)).code).toBe(200)
    expect((await tool('GET', '/devices', token)).status).toBe(401)
  })

  it('refuses a disabled account at sign-in and its open sessions at the next call', async () => {
    const id = await addToolUser('disabled@line.test')
    const token = await signIn('disabled@line.test')
    const off = await t.call({ method: 'PUT', url: '/api/tool/user', token: t.admin, body: { toolUserId: id, status: '1' } })
    expect(off.code, off.msg).toBe(200)
    expect((await tool('GET', '/devices', token)).status).toBe(403)
    expect((await tool('POST', '/auth/login', undefined, { email: 'disabled@line.test', password: PASSWORD })).status).toBe(403)
  })

  it('registers a device on the line like the console adds one, refusing bad input with nothing changed', async () => {
    await addToolUser('register@line.test')
    const token = await signIn('register@line.test')
    const before = await snapshot(t, 'iotDevice', 'toolDevice' as never)
    for (const body of [
      { sn: 'lower-case', productId: 'VELO-4G' },
      { sn: randomSn(), productId: 'NO-SUCH-MODEL' },
      { sn: randomSn('XX'), productId: 'VELO-4G' },
      { sn: randomSn() },
      { sn: randomSn(), productId: 'VELO-4G', operatorId: 1 },
    ]) {
      const res = await tool('POST', '/devices', token, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
    }
    expect(await snapshot(t, 'iotDevice', 'toolDevice' as never)).toEqual(before)

    const d = await register(token)
    expect(d.secret).toMatch(/\S{20,}/)
    const device = await t.app.services.db.selectFrom('iotDevice').selectAll().where('deviceId', '=', d.deviceId).executeTakeFirstOrThrow()
    expect(device.state).toBe('inactive')
    expect(device.createBy).toBe('tool:register@line.test')
    const row = await toolRow(d.deviceId)
    expect(row.testResult).toBe('pending')
    expect(row.userType).toBe('production')
    const again = await tool('POST', '/devices', token, { sn: d.sn, productId: 'VELO-4G' })
    expect(again.status).toBe(409)
    // The secret answered is the one the broker takes.
    await online(d)

    const log = await waitForOperLog(t, (r) => r.operUrl === '/api/tool-api/v1/devices' && r.status === '0')
    expect(log.operName).toBe('tool:register@line.test')
    expect(log.deptName).toBe('Line Works')
    expect(log.jsonResult).not.toContain(d.secret)
  })

  it('tests a device end to end: ping round trip, GNSS fix and SIM attach, recorded and answered', async () => {
    await addToolUser('tester@line.test')
    const token = await signIn('tester@line.test')
    lineToken = token
    const d = await register(token)
    await online(d, { iccid: '8931000000000012345' })
    const res = await tool<ToolTest>('POST', `/devices/${d.sn}/test`, token)
    expect(res.code, res.msg).toBe(200)
    expect(res.data).toMatchObject({ sn: d.sn, testResult: 'passed', gnssSatellites: 9, simIccid: '8931000000000012345', failureReason: '' })
    expect(res.data.pingMs).toBeGreaterThanOrEqual(0)
    const row = await toolRow(d.deviceId)
    expect(row.testResult).toBe('passed')
    expect(row.testedAt).toBeTruthy()
    // A passed device has left the line.
    expect((await tool('POST', `/devices/${d.sn}/test`, token)).status).toBe(409)

    // Its operator stays named: the account can be disabled, not deleted.
    const operatorId = Number((await toolRow(d.deviceId)).operatorId)
    const removal = await t.call({ method: 'DELETE', url: `/api/tool/user/${operatorId}`, token: t.admin })
    expect(removal.status).toBe(409)
    expect(removal.msg).toContain('tester@line.test')

    const mine = await tool<Paged<{ sn: string; testResult: string }>>('GET', '/devices', token)
    expect(mine.data.rows.map((r: { sn: string }) => r.sn)).toEqual([d.sn])
    expect(mine.data.rows[0]!.testResult).toBe('passed')
  })

  it('fails a device without a GNSS fix or not answering, says why, and tests it again once it is right', async () => {
    await addToolUser('failing@line.test')
    const token = await signIn('failing@line.test')
    const weak = await register(token)
    const sim = await online(weak)
    await sim.reportTelemetry({ gps: { lat: 52.37, lng: 4.89, satellites: 2 } })
    await waitFor(async () => (await toolRow(weak.deviceId)).gnssSatellites === 2, 'the weak fix recorded')
    const res = await tool<ToolTest>('POST', `/devices/${weak.sn}/test`, token)
    expect(res.code, res.msg).toBe(200)
    expect(res.data.testResult).toBe('failed')
    expect(res.data.failureReason).toContain('GNSS')
    expect(res.msg).toContain('failed')
    await sim.reportTelemetry()
    await waitFor(async () => (await toolRow(weak.deviceId)).gnssSatellites === 9, 'the good fix recorded')
    expect((await tool<ToolTest>('POST', `/devices/${weak.sn}/test`, token)).data.testResult).toBe('passed')

    const offline = await register(token)
    const zh = await tool<ToolTest>('POST', `/devices/${offline.sn}/test`, token, undefined, 'zh_CN')
    expect(zh.data.testResult).toBe('failed')
    expect(zh.data.failureReason).toContain('ping')
    expect(zh.data.pingMs).toBeNull()
    expect((await toolRow(offline.deviceId)).failureReason).toBe(zh.data.failureReason)
  })

  it('keeps test accounts apart from production, and devices the tool did not register out of reach', async () => {
    await addToolUser('prod@line.test')
    await addToolUser('trial@line.test', 'test')
    const prod = await signIn('prod@line.test')
    const trial = await signIn('trial@line.test')
    const production = await register(prod)
    const testDevice = await register(trial)
    expect((await toolRow(testDevice.deviceId)).userType).toBe('test')

    const before = await snapshot(t, 'toolDevice' as never)
    expect((await tool('POST', `/devices/${production.sn}/test`, trial)).status).toBe(404)
    expect((await tool('POST', `/devices/${testDevice.sn}/test`, prod)).status).toBe(404)
    const consoleAdded = await t.call<{ sn: string }>({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn: randomSn(), modelId: Number((await t.app.services.db.selectFrom('iotModel').select('modelId').where('productId', '=', 'VELO-4G').executeTakeFirstOrThrow()).modelId) } })
    expect(consoleAdded.code, consoleAdded.msg).toBe(200)
    expect((await tool('POST', `/devices/${consoleAdded.data.sn}/test`, prod)).status).toBe(404)
    expect((await tool('POST', '/devices/bad sn/test', prod)).status).toBe(400)
    expect(await snapshot(t, 'toolDevice' as never)).toEqual(before)

    expect((await tool<Paged<{ sn: string }>>('GET', '/devices', trial)).data.rows.map((r: { sn: string }) => r.sn)).toEqual([testDevice.sn])
    expect((await tool('GET', '/devices?pageSize=0', trial)).status).toBe(400)

    const consoleList = await t.call<Paged<{ sn: string }>>({ method: 'POST', url: '/api/tool/iot/list', token: t.admin, body: { pageNum: 1, pageSize: 100, userType: 'test' } })
    expect(consoleList.code, consoleList.msg).toBe(200)
    const sns = consoleList.data.rows.map((r: { sn: string }) => r.sn)
    expect(sns).toContain(testDevice.sn)
    expect(sns).not.toContain(production.sn)
    const one = consoleList.data.rows.find((r: { sn: string }) => r.sn === testDevice.sn)
    expect(one).toMatchObject({ operatorIdLabel: 'trial@line.test', deviceIdState: 'inactive', testResult: 'pending' })
  })

  it('asks a device without a recent fix to report, and tests it with what it reports', async () => {
    const d = await register(lineToken)
    const sim = await online(d)
    await waitFor(async () => (await toolRow(d.deviceId)).gnssAt, 'the fix on connect recorded')
    // As if the fix were older than the test accepts.
    await db().updateTable('toolDevice').set({ gnssAt: new Date(Date.now() - 3600_000).toISOString() }).where('deviceId', '=', d.deviceId).execute()
    const res = await tool<ToolTest>('POST', `/devices/${d.sn}/test`, lineToken)
    expect(res.data.testResult, res.data.failureReason).toBe('passed')
    expect(sim.received.map((r) => r.command.name)).toEqual(['ping', 'report'])
  })

  it('runs one test of a device at a time', async () => {
    const token = lineToken
    const d = await register(token)
    await t.app.services.kv.set(`tool:test:${d.deviceId}`, '0', 30)
    const res = await tool('POST', `/devices/${d.sn}/test`, token)
    expect(res.status).toBe(409)
    expect((await toolRow(d.deviceId)).testResult).toBe('pending')
    await t.app.services.kv.delete(`tool:test:${d.deviceId}`)
  })

  it('limits sign-in attempts per address as the staff sign-in does', async () => {
    const answers: number[] = []
    for (let i = 0; i < 11 && !answers.includes(429); i++) answers.push((await tool('POST', '/auth/login', undefined, { email: 'limit@line.test', password: 'wrong-pass' })).status)
    expect(answers).toContain(429)
  })
})
