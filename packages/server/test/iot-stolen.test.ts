import type { SimulatedDevice } from '@velo/device-sim'
import type { JobInfo, MapDevices } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashPassword } from '../src/platform/auth/passwords'
import { warningsOf } from '../src/modules/iot/warnings'
import { limitedUser, useTestApp } from './harness'
import { clearRetained, insertDevice, randomSn, simulated, waitFor } from './iot-helpers'

// Stolen mode (issue 42 §4): the IoT device's Report stolen and Recovered actions, end to end through
// the configuration push, the command layer, a real MQTT broker (embedded, or TEST_MQTT_URL) and the
// reference device; the 'stolen' warning, the map, the rider's app and the operation log. Nothing is mocked.

const t = useTestApp()
const db = () => t.app.services.db
const now = () => new Date().toISOString()
const sims: SimulatedDevice[] = []
const call = <T = unknown>(method: 'GET' | 'POST', url: string, body?: unknown, token = t.admin) => t.call<T>({ method, url: `/api${url}`, token, body })
const report = (deviceId: number, reason: unknown, token = t.admin) => call('POST', `/iot/device/${deviceId}/action/reportStolen`, reason === undefined ? {} : { reason }, token)
const recover = (deviceId: number, reason: unknown, token = t.admin) => call('POST', `/iot/device/${deviceId}/action/recovered`, reason === undefined ? {} : { reason }, token)

const MEMBER_PASSWORD = 'Rider2026!'
let serial = 0

async function countryId(code: string) {
  return Number((await db().selectFrom('sysCountry').select('countryId').where('code', '=', code).executeTakeFirstOrThrow()).countryId)
}

/** A member of the country who can sign in to the app, with a bike fitted with the device. */
async function owner(deviceId: number | null, country: string) {
  const n = ++serial
  const email = `stolen${n}-${randomSn().toLowerCase()}@example.com`
  const member = await db()
    .insertInto('memMember')
    .values({ email, firstName: 'Stolen', lastName: `S${n}`, countryId: await countryId(country), passwordHash: await hashPassword(MEMBER_PASSWORD), status: '0', createBy: 'app', createTime: now() })
    .returning('memberId')
    .executeTakeFirstOrThrow()
  const bike = await db()
    .insertInto('bikeBike')
    .values({ frameNumber: `STOLEN${n}${randomSn('X')}`, category: 'city', modelId: 1, colourId: 1, sizeId: 1, bindStatus: 'bound', memberId: member.memberId, iotDeviceId: deviceId, createBy: 'test', createTime: now() })
    .returning('bikeId')
    .executeTakeFirstOrThrow()
  const login = await t.app.inject({ method: 'POST', url: '/api/app/v1/auth/login', payload: { email, password: MEMBER_PASSWORD }, remoteAddress: `10.42.4.${n}` })
  expect(login.statusCode, login.body).toBe(200)
  return { memberId: Number(member.memberId), bikeId: Number(bike.bikeId), token: login.json<{ data: { token: string } }>().data.token }
}

async function online(sim: SimulatedDevice, deviceId: number) {
  await sim.connect()
  await waitFor(async () => Boolean((await db().selectFrom('iotDevice').select('online').where('deviceId', '=', deviceId).executeTakeFirst())?.online), `${sim.sn} online`)
  await waitFor(() => db().selectFrom('iotConfigReport').select('reportId').where('deviceId', '=', deviceId).executeTakeFirst(), `${sim.sn} config report`)
}

/** A simulated device at a position in Amsterdam, fitted to a Dutch rider's bike; connected unless said. */
async function device(o: { offline?: boolean; country?: string } = {}) {
  const reg = await insertDevice(t)
  await db().updateTable('iotDevice').set({ latitude: 52.37, longitude: 4.89 }).where('deviceId', '=', reg.deviceId).execute()
  const sim = simulated(t.app, reg)
  sims.push(sim)
  if (!o.offline) await online(sim, reg.deviceId)
  const rider = await owner(reg.deviceId, o.country ?? 'NL')
  return { ...reg, sim, rider }
}

/** Pushes a template with these reporting values to the device and waits for its acknowledgement. */
async function runTemplate(deviceId: number, values: Record<string, number>) {
  const created = await call<{ configId: number }>('POST', '/iot/config', { name: `Stolen test ${++serial} ${Date.now()}`, ...values })
  expect(created.status, created.msg).toBe(200)
  const configId = created.data.configId
  const job = await call<JobInfo>('POST', `/iot/config/${configId}/action/push`, { deviceIds: [deviceId] })
  expect(job.status, job.msg).toBe(200)
  await waitFor(
    () => db().selectFrom('iotConfigPush').select('pushId').where('configId', '=', configId).where('deviceId', '=', deviceId).where('status', '=', 'acknowledged').executeTakeFirst(),
    'template acknowledged',
    20_000,
  )
  return configId
}

const theftOf = async (deviceId: number) => (await db().selectFrom('iotDevice').select('theft').where('deviceId', '=', deviceId).executeTakeFirstOrThrow()).theft
const stolenAlarms = (deviceId: number) => db().selectFrom('iotAlarm').selectAll().where('deviceId', '=', deviceId).where('type', '=', 'stolen').orderBy('alarmId').execute()
const theftRows = (deviceId: number) => db().selectFrom('iotTheft').selectAll().where('deviceId', '=', deviceId).orderBy('theftId').execute()
const mapStatus = async (deviceId: number, token = t.admin) => {
  const res = await call<MapDevices>('GET', '/iot/map/devices', undefined, token)
  expect(res.status, res.msg).toBe(200)
  return res.data.status[res.data.ids.indexOf(deviceId)]
}
type AppBike = { bikeId: number; deviceSn: string | null; stolen: boolean; stolenSince: string | null }
const appBikes = async (token: string) => {
  const res = await t.call<{ rows: AppBike[] }>({ url: '/api/app/v1/me/bikes', token })
  expect(res.status, res.msg).toBe(200)
  return res.data.rows
}
const logRows = (action: string) => db().selectFrom('sysOperLog').selectAll().where('operUrl', 'like', `%/action/${action}`).orderBy('operId').execute()

afterAll(async () => {
  await Promise.all(sims.map((s) => s.disconnect().catch(() => {})))
  await clearRetained(t.app, sims.map((s) => s.sn))
})

describe('Report stolen and Recovered', () => {
  let d: Awaited<ReturnType<typeof device>>
  let configId = 0
  let other: Awaited<ReturnType<typeof owner>>

  beforeAll(async () => {
    d = await device()
    configId = await runTemplate(d.deviceId, { gpsReportSeconds: 60, traceReportSeconds: 30, traceReportMeters: 50, lowBatteryPercent: 15 })
    await waitFor(() => d.sim.config.gpsReportSeconds === 60, 'template applied')
    other = await owner(null, 'NL')
  })

  it('pushes the tracking configuration through the configuration push, over what the device ran', async () => {
    const res = await report(d.deviceId, 'Taken from the station at Centraal')
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toMatchObject({ sent: 1, queued: 0, values: { gpsReportSeconds: 5, traceReportSeconds: 5, traceReportMeters: 10, lowBatteryPercent: 15 } })
    await waitFor(() => d.sim.config.gpsReportSeconds === 5, 'tracking configuration applied')
    expect(d.sim.config).toMatchObject({ gpsReportSeconds: 5, traceReportSeconds: 5, traceReportMeters: 10, lowBatteryPercent: 15 })
    // A push row of no template, followed to the device's answer like any push, by who reported it.
    const push = await waitFor(() =>
      db().selectFrom('iotConfigPush').selectAll().where('deviceId', '=', d.deviceId).where('configId', 'is', null).where('status', '=', 'acknowledged').executeTakeFirst(),
    )
    expect(push.createBy).toBe('admin')
    const command = await db().selectFrom('iotCommand').selectAll().where('commandId', '=', Number(push.commandId)).executeTakeFirstOrThrow()
    expect(command.command).toBe('setConfig')
    expect(command.createBy).toBe('admin')
    expect(await theftOf(d.deviceId)).toBe('stolen')
    const [theft] = await theftRows(d.deviceId)
    expect(theft).toMatchObject({ status: 'stolen', reason: 'Taken from the station at Centraal', reportedBy: 'admin', previousConfigId: configId })
    expect(JSON.parse(theft!.previousValues)).toMatchObject({ gpsReportSeconds: 60, traceReportSeconds: 30, traceReportMeters: 50, lowBatteryPercent: 15 })
    // No drift while the tracking configuration runs: it is no template.
    expect(await db().selectFrom('iotConfigDrift').select('driftId').where('deviceId', '=', d.deviceId).execute()).toEqual([])
  })

  it("raises the 'stolen' warning with the reason, which no sweep nor Clear ends, and acknowledging keeps the mode", async () => {
    const [alarm] = await stolenAlarms(d.deviceId)
    expect(alarm).toMatchObject({ state: 'activeUnack', detail: 'Taken from the station at Centraal', severity: 'critical' })
    // Online again and the offline sweep: neither touches it.
    await warningsOf(t.app.services).rules.sweepOffline()
    await warningsOf(t.app.services).rules.deviceBack(d.deviceId)
    expect((await stolenAlarms(d.deviceId))[0]!.state).toBe('activeUnack')
    const cleared = await call('POST', '/iot/warning/action/clear', { ids: [alarm!.alarmId], reason: 'found it' })
    expect(cleared.status).toBe(409)
    expect(cleared.msg).toMatch(/Recovered/)
    const acked = await call('POST', '/iot/warning/action/acknowledge', { ids: [alarm!.alarmId], reason: 'on it' })
    expect(acked.status, acked.msg).toBe(200)
    expect((await stolenAlarms(d.deviceId))[0]!.state).toBe('activeAck')
    expect(await theftOf(d.deviceId)).toBe('stolen')
  })

  it('marks the device on the map, in the device list (filterable) and on the bike list', async () => {
    expect(await mapStatus(d.deviceId)).toBe(3)
    const list = await call<{ rows: { deviceId: number; theft: string }[] }>('POST', '/iot/device/list', { pageNum: 1, pageSize: 100, theft: 'stolen' })
    expect(list.status, list.msg).toBe(200)
    expect(list.data.rows.map((r) => r.deviceId)).toContain(d.deviceId)
    expect(list.data.rows.every((r) => r.theft === 'stolen')).toBe(true)
    const bikes = await call<{ rows: Record<string, unknown>[] }>('POST', '/bike/bike/list', { pageNum: 1, pageSize: 10, iotDeviceId: d.deviceId })
    expect(bikes.status, bikes.msg).toBe(200)
    expect(bikes.data.rows[0]).toMatchObject({ iotDeviceIdTheft: 'stolen' })
  })

  it('tells the owner in the app (and their inbox), and no other member', async () => {
    const [bike] = await appBikes(d.rider.token)
    expect(bike).toMatchObject({ bikeId: d.rider.bikeId, deviceSn: d.sn, stolen: true })
    const [theft] = await theftRows(d.deviceId)
    expect(new Date(bike!.stolenSince!).getTime()).toBe(new Date(String(theft!.reportedAt)).getTime())
    expect((await appBikes(other.token)).map((b) => b.bikeId)).not.toContain(d.rider.bikeId)
    expect((await appBikes(other.token)).every((b) => !b.stolen)).toBe(true)
    const inbox = await waitFor(async () => {
      const res = await t.call<{ rows: { title: string; content: string }[] }>({ url: '/api/app/v1/inbox', token: d.rider.token })
      // In the rider's language: a Dutch member reads Dutch (the message configuration's texts).
      return res.data.rows.find((m) => m.title === 'Uw fiets is als gestolen gemeld')
    }, 'the stolen message in the inbox')
    expect(inbox.content).toContain(d.sn)
    const elsewhere = await t.call<{ rows: { title: string }[] }>({ url: '/api/app/v1/inbox', token: other.token })
    expect(elsewhere.data.rows.some((m) => m.title === 'Uw fiets is als gestolen gemeld')).toBe(false)
  })

  it('refuses a second report (409), Recovered without a reason (400), and changes nothing', async () => {
    const twice = await report(d.deviceId, 'again')
    expect(twice.status).toBe(409)
    expect(twice.msg).toMatch(/Report stolen/)
    const bare = await recover(d.deviceId, undefined)
    expect(bare.status).toBe(400)
    expect(await theftRows(d.deviceId)).toHaveLength(1)
    expect(await stolenAlarms(d.deviceId)).toHaveLength(1)
    expect(await theftOf(d.deviceId)).toBe('stolen')
  })

  it('refuses to delete the device while it is reported stolen (409 saying why), the device and its record kept', async () => {
    const removed = await t.call({ method: 'DELETE', url: `/api/iot/device/${d.deviceId}`, token: t.admin })
    expect(removed.status).toBe(409)
    expect(removed.msg).toMatch(/reported stolen/)
    expect(await theftOf(d.deviceId)).toBe('stolen')
    expect(await theftRows(d.deviceId)).toHaveLength(1)
  })

  it('Recovered puts the configuration before back, clears the warning and unmarks', async () => {
    const res = await recover(d.deviceId, 'Found by the police')
    expect(res.status, res.msg).toBe(200)
    await waitFor(() => d.sim.config.gpsReportSeconds === 60, 'configuration before applied')
    expect(d.sim.config).toMatchObject({ gpsReportSeconds: 60, traceReportSeconds: 30, traceReportMeters: 50, lowBatteryPercent: 15 })
    // The template's push again, after the tracking one: the device runs its template, and drift compares with it.
    const pushes = await waitFor(async () => {
      const rows = await db().selectFrom('iotConfigPush').selectAll().where('deviceId', '=', d.deviceId).orderBy('pushId').execute()
      return rows.length === 3 && rows[2]!.status === 'acknowledged' ? rows : null
    }, 'the configuration before acknowledged')
    expect(pushes.map((p) => p.configId === null ? null : Number(p.configId))).toEqual([configId, null, configId])
    expect(pushes[2]!.version).toBe(pushes[0]!.version)
    expect(await theftOf(d.deviceId)).toBe('normal')
    expect((await stolenAlarms(d.deviceId)).map((a) => a.state)).toEqual(['clearedAck'])
    expect((await theftRows(d.deviceId))[0]).toMatchObject({ status: 'recovered', recoveryReason: 'Found by the police', recoveredBy: 'admin' })
    expect(await mapStatus(d.deviceId)).not.toBe(3)
    expect((await appBikes(d.rider.token))[0]).toMatchObject({ stolen: false, stolenSince: null })
    const again = await recover(d.deviceId, 'twice')
    expect(again.status).toBe(409)
  })

  it('keeps both actions, refused ones too, in the operation log', async () => {
    const reported = await waitFor(async () => ((await logRows('reportStolen')).length >= 2 ? logRows('reportStolen') : null))
    expect(reported.map((r) => Number(r.status))).toEqual([0, 1])
    expect(reported[0]!.operName).toBe('admin')
    expect(reported[0]!.operParam).toContain('Taken from the station at Centraal')
    const recovered = await waitFor(async () => ((await logRows('recovered')).length >= 3 ? logRows('recovered') : null))
    expect(recovered.map((r) => Number(r.status))).toEqual([1, 0, 1])
    expect(recovered[1]!.operParam).toContain('Found by the police')
  })
})

describe('an offline device', () => {
  it('gets the tracking configuration queued and applies it when it connects; Recovered puts its defaults back', async () => {
    const d = await device({ offline: true })
    const res = await report(d.deviceId, 'Not seen since Monday')
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toMatchObject({ sent: 0, queued: 1 })
    const push = await db().selectFrom('iotConfigPush').selectAll().where('deviceId', '=', d.deviceId).executeTakeFirstOrThrow()
    expect(push.status).toBe('queued')
    // Raised whether or not the device hears of it.
    expect((await stolenAlarms(d.deviceId))[0]?.state).toBe('activeUnack')
    await online(d.sim, d.deviceId)
    await waitFor(() => d.sim.config.gpsReportSeconds === 5, 'queued tracking configuration applied on connect')
    expect((await recover(d.deviceId, 'Back home')).status).toBe(200)
    // Nothing was pushed to it before: the defaults of the tracking values come back.
    await waitFor(() => d.sim.config.gpsReportSeconds === 30, 'defaults back')
    expect(d.sim.config).toMatchObject({ gpsReportSeconds: 30, traceReportSeconds: 5, traceReportMeters: 20 })
  })
})

describe('rights', () => {
  it('needs iot:device:stolen: 403 without it, nothing changed', async () => {
    const d = await device({ offline: true })
    const lister = await limitedUser(t, { userName: 'stolennoright', perms: ['iot:device:list', 'iot:device:query'], dataScope: '1' })
    expect((await report(d.deviceId, 'mine', lister.token)).status).toBe(403)
    expect(await theftOf(d.deviceId)).toBe('normal')
    expect(await stolenAlarms(d.deviceId)).toEqual([])
  })

  it("keeps to the device list's data scope: a Benelux desk reports a Dutch bike's device, not a German one (404)", async () => {
    const dutch = await device({ offline: true, country: 'NL' })
    const german = await device({ offline: true, country: 'DE' })
    const dept = await call('POST', '/system/dept', { deptName: 'Stolen Benelux desk', parentId: 0, orderNum: 5, countryIds: [await countryId('NL'), await countryId('BE')] })
    expect(dept.status, dept.msg).toBe(200)
    const desk = await limitedUser(t, { userName: 'stolenregional', perms: ['iot:device:list', 'iot:device:query', 'iot:device:stolen'], dataScope: '4', dept: 'Stolen Benelux desk' })
    expect((await report(german.deviceId, 'not theirs', desk.token)).status).toBe(404)
    expect(await theftOf(german.deviceId)).toBe('normal')
    const res = await report(dutch.deviceId, 'theirs', desk.token)
    expect(res.status, res.msg).toBe(200)
    expect((await theftRows(dutch.deviceId))[0]?.reportedBy).toBe('stolenregional')
    expect((await recover(dutch.deviceId, 'back', desk.token)).status).toBe(200)
  })
})
