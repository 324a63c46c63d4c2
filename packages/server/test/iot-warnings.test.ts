import { randomBytes } from 'node:crypto'
import type { DeviceOptions, SimulatedDevice } from '@velo/device-sim'
import type { AlarmEventData, Paged } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deviceTemplates } from '../src/modules/iot/config/templates'
import { alarmsOf } from '../src/modules/iot/warnings/alarms'
import { warningsOf } from '../src/modules/iot/warnings'
import { limitedUser, snapshot, useTestApp } from './harness'
import { clearRetained, demoModelId, type IotStreamEvent, openStream, randomSn, simulated, waitFor } from './iot-helpers'

// IoT › Warnings: the rules on device data, over a real broker (embedded, or Mosquitto with
// TEST_MQTT_URL) with the reference device; the repeat count, acknowledge and clear in bulk, the
// live events, and the notifications the message configuration asks for.

const t = useTestApp()
const db = () => t.app.services.db
type Row = Record<string, unknown>
const devices: SimulatedDevice[] = []
const alarmEvents: AlarmEventData[] = []
const code = () => randomBytes(3).toString('hex').toUpperCase()

async function registerDevice(): Promise<{ deviceId: number; sn: string; secret: string }> {
  const sn = randomSn()
  const res = await t.call<{ deviceId: number; secret: string }>({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn, modelId: await demoModelId(t) } })
  expect(res.code, res.msg).toBe(200)
  return { deviceId: Number(res.data.deviceId), sn, secret: res.data.secret }
}

/** A registered device, connected and seen online. */
async function device(behaviour: Partial<DeviceOptions> = {}) {
  const reg = await registerDevice()
  const sim = simulated(t.app, reg, behaviour)
  devices.push(sim)
  await sim.connect()
  await waitFor(async () => (await db().selectFrom('iotDevice').select('online').where('deviceId', '=', reg.deviceId).executeTakeFirst())?.online, `${reg.sn} online`)
  return { ...reg, sim }
}

const alarmsOfDevice = (deviceId: number) => db().selectFrom('iotAlarm').selectAll().where('deviceId', '=', deviceId).orderBy('alarmId').execute()

/** Waits until the device has an alarm of the type in one of the states. */
function alarmIn(deviceId: number, type: string, states: string[], what = `${type} ${states.join('/')}`) {
  return waitFor(async () => (await alarmsOfDevice(deviceId)).find((a) => a.type === type && states.includes(a.state)), what)
}

const action = (name: string, body: Row, token = t.admin, lang?: 'en_US' | 'zh_CN') =>
  t.call({ method: 'POST', url: `/api/iot/warning/action/${name}`, token, body, lang })

/** Sets a message configuration (the seed may have written the event's row already). */
async function configure(eventType: string, values: Row) {
  const list = await t.call<Paged<Row>>({ method: 'POST', url: '/api/iot/messageConfig/list', token: t.admin, body: { eventType } })
  const existing = list.data.rows[0]
  const texts = { titleEn: 'Fall of {sn}', textEn: 'Bike {sn}: {detail}', titleZh: '{sn} 倾倒', textZh: '车辆 {sn}：{detail}', titleDe: 'Sturz von {sn}', textDe: 'Rad {sn}: {detail}' }
  const res = existing
    ? await t.call({ method: 'PUT', url: '/api/iot/messageConfig', token: t.admin, body: { messageConfigId: existing.messageConfigId, ...texts, ...values } })
    : await t.call({ method: 'POST', url: '/api/iot/messageConfig', token: t.admin, body: { eventType, ...texts, ...values } })
  expect(res.code, res.msg).toBe(200)
}

beforeAll(() => {
  t.app.iot.events.subscribe((e) => {
    if (e.type === 'alarm') alarmEvents.push(e.data)
  })
})

afterAll(async () => {
  await Promise.all(devices.map((d) => d.disconnect().catch(() => {})))
  await clearRetained(
    t.app,
    devices.map((d) => d.sn),
  )
})

describe('rules on device data', () => {
  it('raises a critical fall when the tilt passes the angle, once for repeated reports, and clears it when the bike stands up', async () => {
    const d = await device()
    await d.sim.fall(75)
    const fall = await alarmIn(d.deviceId, 'fall', ['activeUnack'])
    expect(fall).toMatchObject({ severity: 'critical', count: 1, modelId: await demoModelId(t), activeKey: `${d.deviceId}:fall:` })
    expect(fall.detail).toContain('75')
    await waitFor(() => alarmEvents.find((e) => e.alarmId === Number(fall.alarmId) && e.raised), 'the raised event')
    // Still lying down: judged in memory, nothing written.
    await d.sim.fall(80)
    await d.sim.reportTelemetry()
    await d.sim.fault('E-MARK-1')
    await alarmIn(d.deviceId, 'fault', ['activeUnack'], 'a marker after the reports')
    expect((await alarmsOfDevice(d.deviceId)).filter((a) => a.type === 'fall')).toMatchObject([{ count: 1, state: 'activeUnack' }])
    await d.sim.standUp()
    const cleared = await alarmIn(d.deviceId, 'fall', ['clearedUnack'])
    expect(cleared.activeKey).toBeNull()
    expect(cleared.endTime).toBeTruthy()
    expect(cleared.clearBy).toBe('')
  })

  it('a tilt at the angle is no fall', async () => {
    const d = await device()
    await d.sim.fall(60)
    await d.sim.fault('E-MARK-2')
    await alarmIn(d.deviceId, 'fault', ['activeUnack'], 'the marker')
    expect((await alarmsOfDevice(d.deviceId)).map((a) => a.type)).toEqual(['fault'])
  })

  it('raises low battery below the threshold and clears it only above threshold + hysteresis', async () => {
    const d = await device()
    await d.sim.reportTelemetry({ battery: 10 })
    const low = await alarmIn(d.deviceId, 'lowBattery', ['activeUnack'])
    expect(low.severity).toBe('minor')
    await d.sim.reportTelemetry({ battery: 17 })
    await d.sim.fault('E-MARK-3')
    await alarmIn(d.deviceId, 'fault', ['activeUnack'], 'the marker')
    expect((await alarmsOfDevice(d.deviceId)).find((a) => a.type === 'lowBattery')?.state).toBe('activeUnack')
    await d.sim.reportTelemetry({ battery: 21 })
    await alarmIn(d.deviceId, 'lowBattery', ['clearedUnack'])
  })

  it('takes the fall angle from the configuration key when the device has no template', async () => {
    await db().updateTable('sysConfig').set({ configValue: '80' }).where('configKey', '=', 'iot.warning.fallAngle').execute()
    const exists = await db().selectFrom('sysConfig').select('configId').where('configKey', '=', 'iot.warning.fallAngle').executeTakeFirst()
    if (!exists) {
      await db()
        .insertInto('sysConfig')
        .values({ configName: 'Fall warning angle', configKey: 'iot.warning.fallAngle', configValue: '80', configType: 'Y', createBy: 'test', createTime: new Date().toISOString(), remark: '' })
        .execute()
    }
    warningsOf(t.app.services).rules.forget()
    try {
      const d = await device()
      await d.sim.fall(75)
      await d.sim.fault('E-MARK-4')
      await alarmIn(d.deviceId, 'fault', ['activeUnack'], 'the marker')
      expect((await alarmsOfDevice(d.deviceId)).some((a) => a.type === 'fall')).toBe(false)
      await d.sim.fall(85)
      await alarmIn(d.deviceId, 'fall', ['activeUnack'])
    } finally {
      await db().updateTable('sysConfig').set({ configValue: '60' }).where('configKey', '=', 'iot.warning.fallAngle').execute()
      warningsOf(t.app.services).rules.forget()
    }
  })

  it("judges by the device's configuration template when it has one: angle, battery threshold and vibration sensitivity", async () => {
    const tpl = await t.call<{ configId: number }>({ method: 'POST', url: '/api/iot/config', token: t.admin, body: { name: `Strict ${code()}`, fallAngle: 30, lowBatteryPercent: 40, vibrationSensitivity: 5 } })
    expect(tpl.code, tpl.msg).toBe(200)
    const reg = await registerDevice()
    // The template the device was last pushed is the one it should run (config/templates.ts).
    await db()
      .insertInto('iotConfigPush')
      .values({ configId: tpl.data.configId, deviceId: reg.deviceId, version: 'test', status: 'sent', createBy: 'test', createTime: new Date().toISOString() })
      .execute()
    warningsOf(t.app.services).rules.forget(reg.deviceId)
    const sim = simulated(t.app, reg, { locked: true, battery: 87 })
    devices.push(sim)
    await sim.connect()
    await sim.reportTelemetry({ tilt: 35, battery: 35, vibration: 1 })
    await alarmIn(reg.deviceId, 'fall', ['activeUnack'])
    await alarmIn(reg.deviceId, 'lowBattery', ['activeUnack'])
    await alarmIn(reg.deviceId, 'theft', ['activeUnack'])
  })

  it("reads many devices' templates in one go, each the one it was last pushed (a tracking push without a template does not count)", async () => {
    const make = async (fallAngle: number) => {
      const res = await t.call<{ configId: number }>({ method: 'POST', url: '/api/iot/config', token: t.admin, body: { name: `Batch ${code()}`, fallAngle, lowBatteryPercent: 20, vibrationSensitivity: 2 } })
      expect(res.code, res.msg).toBe(200)
      return res.data.configId
    }
    const [first, second] = [await make(41), await make(42)]
    const [twice, tracked, never] = [await registerDevice(), await registerDevice(), await registerDevice()]
    const push = (deviceId: number, configId: number | null) =>
      db().insertInto('iotConfigPush').values({ configId, deviceId, version: 'test', status: 'sent', createBy: 'test', createTime: new Date().toISOString() }).execute()
    await push(twice.deviceId, first)
    await push(tracked.deviceId, first)
    await push(twice.deviceId, second)
    // Report stolen pushes its tracking configuration with no template (modules/iot/stolen.ts).
    await push(tracked.deviceId, null)
    const found = await deviceTemplates(db(), [twice.deviceId, tracked.deviceId, never.deviceId])
    expect(found.get(twice.deviceId)?.configId).toBe(second)
    expect(found.get(tracked.deviceId)?.configId).toBe(first)
    expect(found.has(never.deviceId)).toBe(false)
    // The rules ask for them at once (one statement) and each device still gets its own.
    const rules = warningsOf(t.app.services).rules
    for (const d of [twice, tracked, never]) rules.forget(d.deviceId)
    const thresholds = await Promise.all([twice, tracked, never].map((d) => rules.thresholdsOf(d.deviceId)))
    expect(thresholds.map((x) => x.fallAngle)).toEqual([42, 41, 60])
  })

  it('raises theft for vibration at the sensitivity level while locked (major), not while unlocked, and clears it on unlock', async () => {
    const loose = await device({ locked: false })
    await loose.sim.shake(5)
    await loose.sim.fault('E-MARK-5')
    await alarmIn(loose.deviceId, 'fault', ['activeUnack'], 'the marker')
    expect((await alarmsOfDevice(loose.deviceId)).some((a) => a.type === 'theft')).toBe(false)

    const d = await device({ locked: true })
    // Default sensitivity 3: level 3 and up.
    await d.sim.shake(2)
    await d.sim.fault('E-MARK-6')
    await alarmIn(d.deviceId, 'fault', ['activeUnack'], 'the marker')
    expect((await alarmsOfDevice(d.deviceId)).some((a) => a.type === 'theft')).toBe(false)
    await d.sim.shake(3)
    const theft = await alarmIn(d.deviceId, 'theft', ['activeUnack'])
    expect(theft.severity).toBe('major')
    await d.sim.reportTelemetry({ locked: false, vibration: 0 })
    await alarmIn(d.deviceId, 'theft', ['clearedUnack'])
  })

  it('counts a repeated fault of the same code on one row, keeps other codes apart, and clears by code', async () => {
    const d = await device()
    await d.sim.fault('E-BMS-07', 'cell imbalance')
    const first = await alarmIn(d.deviceId, 'fault', ['activeUnack'])
    expect(first).toMatchObject({ code: 'E-BMS-07', detail: 'E-BMS-07: cell imbalance', severity: 'major' })
    await d.sim.fault('E-BMS-07', 'cell imbalance again')
    await waitFor(async () => (await alarmsOfDevice(d.deviceId)).find((a) => a.code === 'E-BMS-07' && Number(a.count) === 2), 'the repeat counted')
    await d.sim.fault('E-MOT-01')
    await waitFor(async () => (await alarmsOfDevice(d.deviceId)).length === 2, 'a second code, a second row')
    const repeated = (await alarmsOfDevice(d.deviceId)).find((a) => a.code === 'E-BMS-07')!
    expect(repeated.startTime).toEqual(first.startTime)
    expect(repeated.detail).toBe('E-BMS-07: cell imbalance again')
    await d.sim.fault('E-BMS-07', undefined, true)
    await waitFor(async () => (await alarmsOfDevice(d.deviceId)).find((a) => a.code === 'E-BMS-07' && a.state === 'clearedUnack'), 'cleared by code')
    expect((await alarmsOfDevice(d.deviceId)).find((a) => a.code === 'E-MOT-01')?.state).toBe('activeUnack')
    // After the clear, the same code is a new alarm.
    await d.sim.fault('E-BMS-07')
    await waitFor(async () => (await alarmsOfDevice(d.deviceId)).filter((a) => a.code === 'E-BMS-07').length === 2, 'a new row after the clear')
  })

  it('counts raises of the same alarm at once on one row (the unique active key)', async () => {
    const d = await registerDevice()
    const alarms = alarmsOf(t.app.services)
    await Promise.all(Array.from({ length: 12 }, () => alarms.raise({ deviceId: d.deviceId, type: 'simDataLow', detail: '95 % used' })))
    const rows = await alarmsOfDevice(d.deviceId)
    expect(rows).toHaveLength(1)
    expect(Number(rows[0]!.count)).toBe(12)
    expect(rows[0]!.severity).toBe('warning')
  })

  it('raises offline for a device silent longer than the configured hours, once across sweeps, and clears it when the device is back', async () => {
    const d = await registerDevice()
    const twoDaysAgo = new Date(Date.now() - 48 * 3_600_000).toISOString()
    await db().updateTable('iotDevice').set({ online: 0, state: 'offline', lastSeenAt: twoDaysAgo }).where('deviceId', '=', d.deviceId).execute()
    // Seen an hour ago: not yet.
    const recent = await registerDevice()
    await db()
      .updateTable('iotDevice')
      .set({ online: 0, state: 'offline', lastSeenAt: new Date(Date.now() - 3_600_000).toISOString() })
      .where('deviceId', '=', recent.deviceId)
      .execute()
    const rules = warningsOf(t.app.services).rules
    await Promise.all([rules.sweepOffline(), rules.sweepOffline()])
    await rules.sweepOffline()
    expect(await alarmsOfDevice(d.deviceId)).toMatchObject([{ type: 'offline', state: 'activeUnack', count: 1 }])
    expect(await alarmsOfDevice(recent.deviceId)).toEqual([])

    const sim = simulated(t.app, d)
    devices.push(sim)
    await sim.connect()
    await alarmIn(d.deviceId, 'offline', ['clearedUnack'])
  })
})

describe('acknowledge and clear', () => {
  /** Three alarms of a fresh device: active, active acknowledged, cleared. */
  async function threeAlarms() {
    const d = await registerDevice()
    const alarms = alarmsOf(t.app.services)
    await alarms.raise({ deviceId: d.deviceId, type: 'fault', code: 'A1' })
    await alarms.raise({ deviceId: d.deviceId, type: 'fault', code: 'A2' })
    await alarms.raise({ deviceId: d.deviceId, type: 'fault', code: 'A3' })
    const [a1, a2, a3] = (await alarmsOfDevice(d.deviceId)).map((a) => Number(a.alarmId)) as [number, number, number]
    expect((await action('acknowledge', { ids: [a2], reason: 'seen' })).code).toBe(200)
    await alarms.clear(d.deviceId, 'fault', 'A3')
    return { d, a1, a2, a3 }
  }

  it('acknowledges in bulk with a reason, skipping rows acknowledged already, and keeps who and why', async () => {
    const { d, a1, a2, a3 } = await threeAlarms()
    const res = await action('acknowledge', { ids: [a1, a2, a3], reason: 'Rider called, bike is fine' })
    expect(res.code, res.msg).toBe(200)
    expect(res.data).toEqual({ changed: 2, skipped: 1 })
    const rows = await alarmsOfDevice(d.deviceId)
    expect(rows.map((r) => r.state)).toEqual(['activeAck', 'activeAck', 'clearedAck'])
    expect(rows[0]).toMatchObject({ ackBy: 'admin', ackReason: 'Rider called, bike is fine' })
    expect(rows[1]).toMatchObject({ ackReason: 'seen' })
    expect(rows[0]!.ackTime).toBeTruthy()
    // Still active: a repeat counts on the acknowledged row.
    await alarmsOf(t.app.services).raise({ deviceId: d.deviceId, type: 'fault', code: 'A1' })
    expect((await alarmsOfDevice(d.deviceId))[0]).toMatchObject({ state: 'activeAck', count: 2 })
  })

  it('clears in bulk: active rows end, an acknowledged and cleared alarm is final, and a new raise is a new row', async () => {
    const { d, a1, a2, a3 } = await threeAlarms()
    const res = await action('clear', { ids: [a1, a2, a3], reason: 'Replaced the battery' })
    expect(res.data).toEqual({ changed: 2, skipped: 1 })
    const rows = await alarmsOfDevice(d.deviceId)
    expect(rows.map((r) => r.state)).toEqual(['clearedUnack', 'clearedAck', 'clearedUnack'])
    expect(rows[0]).toMatchObject({ clearBy: 'admin', clearReason: 'Replaced the battery', activeKey: null })
    expect(rows[0]!.endTime).toBeTruthy()
    const ack = await action('acknowledge', { ids: [a1, a2, a3], reason: 'ok' })
    expect(ack.data).toEqual({ changed: 2, skipped: 1 })
    const before = await snapshot(t, 'iotAlarm' as never)
    for (const name of ['acknowledge', 'clear']) {
      const refused = await action(name, { ids: [a1, a2, a3], reason: 'again' }, t.admin, 'zh_CN')
      expect(refused.status).toBe(409)
      expect(refused.msg).toContain(name === 'clear' ? '已清除' : '已确认')
    }
    expect(await snapshot(t, 'iotAlarm' as never)).toEqual(before)
    await alarmsOf(t.app.services).raise({ deviceId: d.deviceId, type: 'fault', code: 'A1' })
    expect(await alarmsOfDevice(d.deviceId)).toHaveLength(4)
  })

  it('refuses bad input with 4xx and changes nothing', async () => {
    const { a1 } = await threeAlarms()
    const before = await snapshot(t, 'iotAlarm' as never)
    expect((await action('acknowledge', { ids: [a1] })).status).toBe(400)
    expect((await action('acknowledge', { ids: [a1], reason: '   ' })).status).toBe(400)
    expect((await action('acknowledge', { ids: [a1], reason: 'x'.repeat(201) })).status).toBe(400)
    expect((await action('acknowledge', { ids: [], reason: 'ok' })).status).toBe(400)
    expect((await action('clear', { ids: ['1; drop table iot_alarm'], reason: 'ok' })).status).toBe(400)
    expect((await action('clear', { ids: [a1, 99_999_999], reason: 'ok' })).status).toBe(404)
    // Alarms are written by the server only.
    expect((await t.call({ method: 'POST', url: '/api/iot/warning', token: t.admin, body: { deviceId: 1, type: 'fall', severity: 'critical' } })).status).toBe(404)
    expect((await t.call({ method: 'DELETE', url: `/api/iot/warning/${a1}`, token: t.admin })).status).toBe(404)
    expect(await snapshot(t, 'iotAlarm' as never)).toEqual(before)
  })

  it('needs the action rights: a viewer lists but neither acknowledges nor clears', async () => {
    const { a1 } = await threeAlarms()
    const viewer = await limitedUser(t, { userName: `view${code()}`, perms: ['iot:warning:list', 'iot:warning:query'], dataScope: '1' })
    expect((await t.call({ method: 'POST', url: '/api/iot/warning/list', token: viewer.token, body: {} })).status).toBe(200)
    expect((await action('acknowledge', { ids: [a1], reason: 'ok' }, viewer.token)).status).toBe(403)
    expect((await action('clear', { ids: [a1], reason: 'ok' }, viewer.token)).status).toBe(403)
    const acker = await limitedUser(t, { userName: `ack${code()}`, perms: ['iot:warning:list', 'iot:warning:acknowledge'], dataScope: '1' })
    expect((await action('acknowledge', { ids: [a1], reason: 'ok' }, acker.token)).status).toBe(200)
    expect((await action('clear', { ids: [a1], reason: 'ok' }, acker.token)).status).toBe(403)
  })

  it('filters by severity, state, type and model, and counts rows per state', async () => {
    const { d } = await threeAlarms()
    await alarmsOf(t.app.services).raise({ deviceId: d.deviceId, type: 'fall', severity: 'critical' })
    const list = async (filters: Row) => (await t.call<Paged<Row>>({ method: 'POST', url: '/api/iot/warning/list', token: t.admin, body: { deviceId: d.deviceId, pageSize: 50, ...filters } })).data
    expect((await list({})).total).toBe(4)
    expect((await list({ type: 'fall' })).rows).toMatchObject([{ severity: 'critical', deviceIdLabel: d.sn, deviceIdState: 'inactive' }])
    expect((await list({ severity: 'major' })).total).toBe(3)
    // The state is searched with 'in': the home page's cards open both open states at once.
    expect((await list({ state: ['activeAck'] })).total).toBe(1)
    expect((await list({ state: ['activeUnack', 'activeAck'] })).total).toBe(3)
    expect((await list({ modelId: await demoModelId(t) })).total).toBe(4)
    expect((await list({ modelId: 99_999_999 })).total).toBe(0)
    const counts = await t.call({ method: 'POST', url: '/api/iot/warning/counts', token: t.admin, body: { deviceId: d.deviceId } })
    expect(counts.data).toEqual({ activeUnack: 2, activeAck: 1, clearedUnack: 1, clearedAck: 0 })
    // An unknown value is only a filter that matches nothing; a value of the wrong shape is refused.
    expect((await list({ severity: 'fatal' })).total).toBe(0)
    expect((await t.call({ method: 'POST', url: '/api/iot/warning/list', token: t.admin, body: { deviceId: 'one' } })).status).toBe(400)
  })
})

describe('live events', () => {
  it("sends 'alarm' events on the IoT stream only to who may also list warnings, and stops when that right goes", async () => {
    const watcher = await limitedUser(t, { userName: `watch${code()}`, perms: ['iot:device:list', 'iot:warning:list'], dataScope: '1' })
    const fleet = await limitedUser(t, { userName: `fleet${code()}`, perms: ['iot:device:list'], dataScope: '1' })
    const nobody = await limitedUser(t, { userName: `none${code()}`, perms: ['iot:warning:list'], dataScope: '1' })
    const refused = await openStream(t.app, '/api/iot/stream', nobody.token)
    expect(refused.status).toBe(403)
    await refused.close()
    const warnings = await openStream<IotStreamEvent>(t.app, '/api/iot/stream', watcher.token)
    const devicesOnly = await openStream<IotStreamEvent>(t.app, '/api/iot/stream', fleet.token)
    try {
      const d = await device()
      await d.sim.fault('E-LIVE-1')
      const seen = await warnings.next((e) => e.event === 'alarm' && e.data.deviceId === d.deviceId, 'the alarm event')
      expect(seen.data).toMatchObject({ type: 'fault', state: 'activeUnack', raised: true, count: 1 })
      const [row] = await alarmsOfDevice(d.deviceId)
      await action('acknowledge', { ids: [Number(row!.alarmId)], reason: 'seen live' })
      await warnings.next((e) => e.event === 'alarm' && e.data.alarmId === Number(row!.alarmId) && e.data.state === 'activeAck', 'the acknowledged event')
      // A device event after them: the device-only stream has had its chance to get the alarm events.
      await t.app.iot.events.publish({ type: 'device', data: { deviceId: d.deviceId, sn: 'MARK0', state: 'online', flowState: 'normal', lastSeenAt: null } })
      await devicesOnly.next((e) => e.event === 'device' && e.data.sn === 'MARK0', 'the marker')
      expect(devicesOnly.events.some((e) => e.event === 'alarm')).toBe(false)

      // The role loses the warnings' right: the stream stays (devices), the alarm events stop.
      await db()
        .deleteFrom('sysRoleMenu')
        .where('roleId', '=', watcher.roleId)
        .where('menuId', 'in', db().selectFrom('sysMenu').select('menuId').where('perms', '=', 'iot:warning:list'))
        .execute()
      await t.app.services.authCache.changed({ all: true })
      let round = 0
      await waitFor(async () => {
        const from = warnings.events.length
        round++
        await alarmsOf(t.app.services).raise({ deviceId: d.deviceId, type: 'fault', code: `E-GONE-${round}` })
        await t.app.iot.events.publish({ type: 'device', data: { deviceId: d.deviceId, sn: `MARK${round}`, state: 'online', flowState: 'normal', lastSeenAt: null } })
        await warnings.next((e) => e.event === 'device' && e.data.sn === `MARK${round}`, 'the marker')
        return !warnings.events.slice(from).some((e) => e.event === 'alarm')
      }, 'alarm events to stop')
    } finally {
      await warnings.close()
      await devicesOnly.close()
    }
  })
})

describe('notifications', () => {
  async function riderWithBike(deviceId: number, country = 'DE') {
    const countryId = Number((await db().selectFrom('sysCountry').select('countryId').where('code', '=', country).executeTakeFirstOrThrow()).countryId)
    const member = await db()
      .insertInto('memMember')
      .values({ email: `rider${code()}@example.com`, firstName: 'Ada', lastName: 'Rider', countryId, status: '0', createBy: 'app', createTime: new Date().toISOString() })
      .returning('memberId')
      .executeTakeFirstOrThrow()
    const post = async <T = Row>(url: string, body: Row) => {
      const res = await t.call<T>({ method: 'POST', url: `/api${url}`, token: t.admin, body })
      expect(res.status, `${url}: ${res.msg} ${JSON.stringify(res.data)}`).toBe(200)
      return res.data
    }
    const model = await post('/bike/modelSpec', { category: 'city', name: `Model ${code()}`, code: `M${code()}` })
    const colour = await post('/bike/modelSpec/colour', { modelId: model.modelId, name: `Colour ${code()}`, code: `C${code()}` })
    const size = await post('/bike/modelSpec/size', { modelId: model.modelId, name: 'M', code: `S${code()}` })
    const bike = await post<{ bikeId: number }>('/bike/bike', { category: 'city', frameNumber: `VL${code()}`, modelId: model.modelId, colourId: colour.colourId, sizeId: size.sizeId, iotDeviceId: deviceId })
    await db().updateTable('bikeBike').set({ memberId: member.memberId, bindStatus: 'bound' }).where('bikeId', '=', bike.bikeId).execute()
    return Number(member.memberId)
  }

  const inbox = (memberId: number) =>
    db()
      .selectFrom('cntMessageRecipient as r')
      .innerJoin('cntMessage as m', 'm.messageId', 'r.messageId')
      .select(['m.title', 'm.content'])
      .where('r.memberId', '=', memberId)
      .execute()
  const outbox = (to: string) => db().selectFrom('sysMailOutbox').selectAll().where('mailTo', '=', to).execute()

  it("tells the bike's member in their language and staff by e-mail when an alarm is raised, not on its repeats", async () => {
    const staff = `duty${code().toLowerCase()}@velo.example`
    await configure('fall', { enabled: true, notifyMember: true, notifyStaff: true, staffEmails: staff, severity: 'critical' })
    warningsOf(t.app.services).notifier.forget()
    const d = await device()
    const memberId = await riderWithBike(d.deviceId, 'DE')
    await d.sim.fall(88)
    await alarmIn(d.deviceId, 'fall', ['activeUnack'])
    const messages = await waitFor(async () => ((await inbox(memberId)).length ? inbox(memberId) : null), 'the inbox message')
    expect(messages).toHaveLength(1)
    expect(messages[0]!.title).toBe(`Sturz von ${d.sn}`)
    expect(messages[0]!.content).toContain('88')
    const mails = await waitFor(async () => ((await outbox(staff)).length ? outbox(staff) : null), 'the staff mail')
    expect(mails[0]!.subject).toBe(`Fall of ${d.sn} / ${d.sn} 倾倒`)
    expect(mails[0]!.body).toContain(`车辆 ${d.sn}`)
    // A repeat (another instance's raise of the same fall) counts, and tells no one again.
    await alarmsOf(t.app.services).raise({ deviceId: d.deviceId, type: 'fall' })
    await waitFor(async () => Number((await alarmsOfDevice(d.deviceId))[0]!.count) === 2, 'the repeat')
    expect(await inbox(memberId)).toHaveLength(1)
    expect(await outbox(staff)).toHaveLength(1)
  })

  it('falls back to English for a member elsewhere, and tells no one while the event is switched off', async () => {
    await configure('fault', { enabled: true, notifyMember: true, notifyStaff: false, titleEn: 'Fault on {sn}', textEn: '{detail}' })
    warningsOf(t.app.services).notifier.forget()
    const d = await registerDevice()
    const memberId = await riderWithBike(d.deviceId, 'US')
    await alarmsOf(t.app.services).raise({ deviceId: d.deviceId, type: 'fault', code: 'E-1', detail: 'E-1: <b>bold</b>' })
    const messages = await waitFor(async () => ((await inbox(memberId)).length ? inbox(memberId) : null), 'the inbox message')
    expect(messages[0]!.title).toBe(`Fault on ${d.sn}`)
    expect(messages[0]!.content).toBe('<p>E-1: &lt;b&gt;bold&lt;/b&gt;</p>')

    await configure('fault', { enabled: false })
    warningsOf(t.app.services).notifier.forget()
    // What a raise starts after its insert, awaited here.
    await warningsOf(t.app.services).notifier.alarmRaised(d.deviceId, 'fault', 'major', 'E-2', new Date().toISOString())
    expect(await inbox(memberId)).toHaveLength(1)
    await configure('fault', { enabled: true })
    warningsOf(t.app.services).notifier.forget()
  })

  it('mails staff when a device comes online, once per presence message, while that event is switched on', async () => {
    const staff = `fleet${code().toLowerCase()}@velo.example`
    await configure('deviceOnline', { enabled: true, notifyMember: false, notifyStaff: true, staffEmails: staff, titleEn: '{sn} online', titleZh: '{sn} 上线' })
    warningsOf(t.app.services).notifier.forget()
    try {
      const d = await device()
      const mails = await waitFor(async () => ((await outbox(staff)).length ? outbox(staff) : null), 'the online mail')
      expect(mails).toHaveLength(1)
      expect(mails[0]!.subject).toBe(`${d.sn} online / ${d.sn} 上线`)
    } finally {
      await configure('deviceOnline', { enabled: false })
      warningsOf(t.app.services).notifier.forget()
    }
  })

  it('refuses a staff address that is no e-mail address (400, nothing changed), and a second row for an event (409)', async () => {
    await configure('lowBattery', { enabled: true })
    const before = await snapshot(t, 'iotMessageConfig' as never)
    const [row] = (await t.call<Paged<{ messageConfigId: number }>>({ method: 'POST', url: '/api/iot/messageConfig/list', token: t.admin, body: { eventType: 'lowBattery' } })).data.rows
    const bad = await t.call({ method: 'PUT', url: '/api/iot/messageConfig', token: t.admin, body: { messageConfigId: row!.messageConfigId, staffEmails: 'ops@velo.example, not-an-address' } })
    expect(bad.status).toBe(400)
    expect(bad.msg).toContain('not-an-address')
    const twice = await t.call({ method: 'POST', url: '/api/iot/messageConfig', token: t.admin, body: { eventType: 'lowBattery', titleEn: 'a', textEn: 'b', titleZh: 'c', textZh: 'd' } })
    expect(twice.status).toBe(409)
    const unknown = await t.call({ method: 'POST', url: '/api/iot/messageConfig', token: t.admin, body: { eventType: 'earthquake', titleEn: 'a', textEn: 'b', titleZh: 'c', textZh: 'd' } })
    expect(unknown.status).toBe(400)
    expect(await snapshot(t, 'iotMessageConfig' as never)).toEqual(before)
  })
})
