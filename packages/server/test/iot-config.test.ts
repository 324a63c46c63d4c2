import type { DeviceOptions, SimulatedDevice } from '@velo/device-sim'
import { defineEntity, type JobInfo, type Paged } from '@velo/shared'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { forgetDeletedDevices } from '../src/modules/iot/config/drift'
import { deviceTemplate } from '../src/modules/iot/config/templates'
import { outcomeOf, reconcilePushes } from '../src/modules/iot/config/push'
import { limitedUser, useTestApp } from './harness'
import { clearRetained, insertDevice, simulated, waitFor } from './iot-helpers'

// Configuration templates end to end: the API, the push job, the command layer, a real MQTT broker
// (embedded, or TEST_MQTT_URL) and the reference device. Nothing is mocked.

const t = useTestApp()
const sims: SimulatedDevice[] = []
let serial = 0

const db = () => t.app.services.db
const call = <T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, token = t.admin) => t.call<T>({ method, url: `/api${url}`, token, body })

/** A template as GET /iot/config/:id answers it: its values, id and version. */
type Template = Record<string, unknown> & { configId: number; version: string }

async function template(values: Record<string, unknown> = {}) {
  const res = await call<Template>('POST', '/iot/config', { name: `Template ${++serial} ${Date.now()}`, ...values })
  expect(res.status, res.msg).toBe(200)
  return (await call<Template>('GET', `/iot/config/${res.data.configId}`)).data
}

async function device(behaviour: Partial<DeviceOptions> = {}, o: { offline?: boolean } = {}) {
  const reg = await insertDevice(t)
  const sim = simulated(t.app, reg, behaviour)
  sims.push(sim)
  if (!o.offline) await online(sim, reg.deviceId)
  return { ...reg, sim }
}

async function online(sim: SimulatedDevice, deviceId: number) {
  await sim.connect()
  await waitFor(async () => Boolean((await db().selectFrom('iotDevice').select('online').where('deviceId', '=', deviceId).executeTakeFirst())?.online), `${sim.sn} online`)
  // Its connect-time report is kept before anything is compared with it.
  await waitFor(() => db().selectFrom('iotConfigReport').select('reportId').where('deviceId', '=', deviceId).executeTakeFirst(), `${sim.sn} config report`)
}

async function finished(jobId: number) {
  return waitFor(
    async () => {
      const job = (await call<JobInfo>('GET', `/monitor/job/${jobId}`)).data
      return ['succeeded', 'failed', 'cancelled'].includes(job.state) ? job : null
    },
    `job ${jobId}`,
    20_000,
  )
}

const pushRows = (configId: number) => db().selectFrom('iotConfigPush').selectAll().where('configId', '=', configId).orderBy('pushId').execute()
const pushOf = async (configId: number, deviceId: number) =>
  db().selectFrom('iotConfigPush').selectAll().where('configId', '=', configId).where('deviceId', '=', deviceId).orderBy('pushId', 'desc').executeTakeFirst()
const statusOf = (configId: number, deviceId: number, status: string) =>
  waitFor(async () => {
    const row = await pushOf(configId, deviceId)
    return row?.status === status ? row : null
  }, `push of ${configId} to ${deviceId} ${status}`)
const driftOf = (deviceId: number) => db().selectFrom('iotConfigDrift').selectAll().where('deviceId', '=', deviceId).orderBy('field').execute()
const facts = (res: { data: { facts: { label: string; value: string }[] } }) => Object.fromEntries(res.data.facts.map((f: { label: string; value: string }) => [f.label, f.value]))

async function push(configId: number, body: Record<string, unknown>, token = t.admin) {
  const res = await call<{ jobId: number }>('POST', `/iot/config/${configId}/action/push`, body, token)
  expect(res.status, res.msg).toBe(200)
  const job = await finished(res.data.jobId)
  expect(job.state, job.error ?? undefined).toBe('succeeded')
  return job
}

afterAll(async () => {
  await Promise.all(sims.map((d) => d.disconnect().catch(() => {})))
  await clearRetained(
    t.app,
    sims.map((s) => s.sn),
  )
})

describe('templates', () => {
  it('carries a version that changes with its values only', async () => {
    const a = await template({ fallAngle: 55 })
    expect(a.version).toMatch(/^[0-9a-f]{12}$/)
    expect(a.vibrationSensitivity).toBe(3)
    expect((await call('PUT', '/iot/config', { configId: a.configId, remark: 'renamed' })).status).toBe(200)
    expect((await call<Template>('GET', `/iot/config/${a.configId}`)).data.version).toBe(a.version)
    expect((await call('PUT', '/iot/config', { configId: a.configId, fallAngle: 50 })).status).toBe(200)
    const b = (await call<Template>('GET', `/iot/config/${a.configId}`)).data
    expect(b.version).not.toBe(a.version)
    // The same values are the same version, whichever template holds them.
    const c = await template({ fallAngle: 50 })
    expect(c.version).toBe(b.version)
  })

  it('gives imported templates their version', async () => {
    const workbook = new ExcelJS.Workbook()
    const sheet = workbook.addWorksheet('Templates')
    const name = `Imported ${Date.now()}`
    sheet.addRow(['Template name', 'Fall detection angle (°)'])
    sheet.addRow([name, 42])
    const form = new FormData()
    form.append('file', new Blob([Buffer.from(await workbook.xlsx.writeBuffer())]), 'templates.xlsx')
    const res = await t.call({ method: 'POST', url: '/api/iot/config/import', token: t.admin, payload: form })
    expect(res.status, JSON.stringify(res.data)).toBe(200)
    const row = await db().selectFrom('iotConfig').selectAll().where('name', '=', name).executeTakeFirstOrThrow()
    expect(row.fallAngle).toBe(42)
    const same = await template({ fallAngle: 42 })
    expect(row.version).toBe(same.version)
  })

  it('refuses values out of range, naming the field, and changes nothing', async () => {
    const a = await template()
    for (const [field, value] of [
      ['vibrationSensitivity', 6],
      ['fallAngle', 5],
      ['lowBatteryPercent', 'many'],
    ] as const) {
      const res = await call('PUT', '/iot/config', { configId: a.configId, [field]: value })
      expect(res.status, field).toBe(400)
      expect(JSON.stringify(res.data)).toContain(field)
    }
    expect((await call('GET', `/iot/config/${a.configId}`)).data).toEqual(a)
  })
})

describe('push', () => {
  let configId = 0
  const d: Record<string, Awaited<ReturnType<typeof device>>> = {}

  beforeAll(async () => {
    configId = Number((await template({ lowBatteryPercent: 15, vibrationSensitivity: 4 })).configId)
    d.ok = await device()
    d.offline = await device({}, { offline: true })
    d.refusing = await device({ refuseConfig: 'Riding: try again when parked' })
  })

  it('previews the count, how many get it now and how many are queued', async () => {
    const res = await call<{ facts: { label: string; value: string }[]; warning: string }>('POST', `/iot/config/${configId}/action/push/preview`, { deviceIds: [d.ok!.deviceId, d.offline!.deviceId, d.refusing!.deviceId] })
    expect(res.status, res.msg).toBe(200)
    const f = facts(res)
    expect(f).toMatchObject({ Devices: '3', 'Online now (sent at once)': '2', 'Offline (queued until they connect)': '1' })
    expect(res.data.warning).toContain('3 devices')
  })

  it('refuses unknown devices and an empty filter with 400, and sends nothing', async () => {
    const commands = async () => Number((await db().selectFrom('iotCommand').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
    const before = await commands()
    const missing = await call('POST', `/iot/config/${configId}/action/push`, { deviceIds: [d.ok!.deviceId, 99_999_999] })
    expect(missing.status).toBe(400)
    expect(missing.msg).toContain('99999999')
    const none = await call('POST', `/iot/config/${configId}/action/push`, { firmwareVersion: '9.9.9' })
    expect(none.status).toBe(400)
    const bad = await call('POST', `/iot/config/${configId}/action/push`, { deviceIds: 'all' })
    expect(bad.status).toBe(400)
    expect(await commands()).toBe(before)
    expect(await pushRows(configId)).toEqual([])
  })

  it('needs iot:config:push', async () => {
    const reader = await limitedUser(t, { userName: 'configreader', perms: ['iot:config:list', 'iot:config:query'], dataScope: '1' })
    const res = await call('POST', `/iot/config/${configId}/action/push`, { deviceIds: [d.ok!.deviceId] }, reader.token)
    expect(res.status).toBe(403)
    expect(await pushRows(configId)).toEqual([])
  })

  it('records per device: acknowledged with the applied values, queued then acknowledged, refused with the reason', async () => {
    const job = await push(configId, { deviceIds: [d.ok!.deviceId, d.offline!.deviceId, d.refusing!.deviceId] })
    expect(job.result).toMatchObject({ devices: 3, sent: 2, queued: 1 })
    const acked = await statusOf(configId, d.ok!.deviceId, 'acknowledged')
    expect(JSON.parse(String(acked.applied))).toMatchObject({ lowBatteryPercent: 15, vibrationSensitivity: 4 })
    const refused = await statusOf(configId, d.refusing!.deviceId, 'refused')
    expect(refused).toMatchObject({ code: 409, message: 'Riding: try again when parked' })
    expect((await pushOf(configId, d.offline!.deviceId))!.status).toBe('queued')
    expect(d.ok!.sim.config).toMatchObject({ lowBatteryPercent: 15, vibrationSensitivity: 4 })

    await online(d.offline!.sim, d.offline!.deviceId)
    await statusOf(configId, d.offline!.deviceId, 'acknowledged')

    // The list filters by status and counts per status.
    const counts = await call('POST', '/iot/configPush/counts', { configId })
    expect(counts.data).toMatchObject({ acknowledged: 2, refused: 1, queued: 0 })
    const list = await call<Paged<{ deviceId: number }>>('POST', '/iot/configPush/list', { configId, status: 'refused', pageNum: 1, pageSize: 10 })
    expect(list.data.rows.map((r) => r.deviceId)).toEqual([d.refusing!.deviceId])
  })

  it('counts the devices’ answers while the push is still going out', async () => {
    const fleet = [await device(), await device()]
    const commands = t.app.iot.commands
    const send = commands.send.bind(commands)
    // The publish round of 2,000 devices takes seconds: here it is held open until the counts were read.
    let release!: () => void
    const released = new Promise<void>((r) => (release = r))
    commands.send = async (input) => {
      const result = await send(input)
      await Promise.race([released, new Promise((r) => setTimeout(r, 15_000))])
      return result
    }
    try {
      const before = Number((await call<Record<string, number>>('POST', '/iot/configPush/counts', { configId })).data.acknowledged ?? 0)
      const res = await call<{ jobId: number }>('POST', `/iot/config/${configId}/action/push`, { deviceIds: fleet.map((f) => f.deviceId) })
      expect(res.status, res.msg).toBe(200)
      const counts = await waitFor(async () => {
        const c = (await call<Record<string, number>>('POST', '/iot/configPush/counts', { configId })).data
        return c.acknowledged! >= before + 2 ? c : null
      }, 'the answers counted before the job ends')
      expect(counts.acknowledged).toBe(before + 2)
      expect((await call<JobInfo>('GET', `/monitor/job/${res.data.jobId}`)).data.state).toBe('running')
      release()
      expect((await finished(res.data.jobId)).state).toBe('succeeded')
    } finally {
      commands.send = send
      release()
    }
  })

  it('records a device that never answers as timed out', async () => {
    const key = 'iot.command.timeoutSeconds'
    const sysConfig = t.app.services.db
    const before = await sysConfig.selectFrom('sysConfig').select('configValue').where('configKey', '=', key).executeTakeFirstOrThrow()
    await sysConfig.updateTable('sysConfig').set({ configValue: '1' }).where('configKey', '=', key).execute()
    try {
      const silent = await device({ silentCommands: ['setConfig'] })
      await push(configId, { deviceIds: [silent.deviceId] })
      const row = await statusOf(configId, silent.deviceId, 'timedOut')
      expect(row.applied).toBeNull()
    } finally {
      await sysConfig.updateTable('sysConfig').set({ configValue: before.configValue }).where('configKey', '=', key).execute()
    }
  })

  it('names the template a device should run (the warnings seam)', async () => {
    const seam = await deviceTemplate(t.app.services.db, d.ok!.deviceId)
    expect(seam).toMatchObject({ configId, lowBatteryPercent: 15, vibrationSensitivity: 4, fallAngle: 60 })
    const other = await insertDevice(t)
    expect(await deviceTemplate(t.app.services.db, other.deviceId)).toBeNull()
  })

  it('keeps the values a device says it applied, else the values it was sent', () => {
    const sent = () => ({ fallAngle: 60 })
    expect(outcomeOf('succeeded', JSON.stringify({ status: 'succeeded', code: 0, result: { values: { fallAngle: 61 } } }), sent).applied).toBe('{"fallAngle":61}')
    expect(outcomeOf('succeeded', JSON.stringify({ status: 'succeeded', code: 0 }), sent).applied).toBe('{"fallAngle":60}')
    expect(outcomeOf('failed', JSON.stringify({ status: 'failed', code: 422, message: 'Unsupported setting: fallAngle' }), sent)).toEqual({
      status: 'refused',
      applied: null,
      code: 422,
      message: 'Unsupported setting: fallAngle',
    })
  })

  it('catches a push row up with its command when the event was missed', async () => {
    // As if this instance had been down while the acknowledgement came.
    await db().updateTable('iotConfigPush').set({ status: 'sent', applied: null }).where('configId', '=', configId).where('deviceId', '=', d.ok!.deviceId).execute()
    expect(await reconcilePushes(t.app.services.db)).toBeGreaterThanOrEqual(1)
    const row = await pushOf(configId, d.ok!.deviceId)
    expect(row!.status).toBe('acknowledged')
    expect(JSON.parse(String(row!.applied))).toMatchObject({ lowBatteryPercent: 15 })
    // Idempotent: nothing more to move.
    expect(await reconcilePushes(t.app.services.db, { commandIds: [Number(row!.commandId)] })).toBe(0)
  })

  it('keeps a template that devices were pushed', async () => {
    const res = await call('DELETE', `/iot/config/${configId}`)
    expect(res.status).toBe(409)
    expect((await call('GET', `/iot/config/${configId}`)).status).toBe(200)
  })

  it('pushes to every device the filter matches', async () => {
    const fw = `7.${Date.now() % 1000}.${++serial}`
    const a = await device({ firmwareVersion: fw })
    const b = await device({ firmwareVersion: fw })
    await waitFor(async () => (await db().selectFrom('iotDevice').select('deviceId').where('firmwareVersion', '=', fw).execute()).length === 2, 'firmware reported')
    const other = Number((await template({ fallAngle: 45 })).configId)
    const job = await push(other, { firmwareVersion: fw })
    expect(job.result).toMatchObject({ devices: 2, sent: 2, queued: 0 })
    await statusOf(other, a.deviceId, 'acknowledged')
    await statusOf(other, b.deviceId, 'acknowledged')
  })
})

describe('drift', () => {
  it('lists the fields a device runs differently, follows template changes, and pushes again', async () => {
    const tpl = await template({ fallAngle: 70, wakeUpMinutes: 30 })
    const configId = Number(tpl.configId)
    const d = await device()
    await push(configId, { deviceIds: [d.deviceId] })
    await statusOf(configId, d.deviceId, 'acknowledged')
    await waitFor(async () => (await driftOf(d.deviceId)).length === 0, 'no drift once applied')

    await d.sim.changeConfigLocally({ fallAngle: 80, vibrationSensitivity: '3' }, 'local-1')
    const drift = await waitFor(async () => {
      const rows = await driftOf(d.deviceId)
      return rows.length ? rows : null
    }, 'drift after a local change')
    // "3" is 3: only the angle differs.
    expect(drift.map((r) => ({ configId: r.configId, field: r.field, expected: r.expected, reported: r.reported }))).toEqual([{ configId, field: 'fallAngle', expected: '70', reported: '80' }])

    // The template now says what the device runs: no drift on that field; the changed one drifts.
    expect((await call('PUT', '/iot/config', { configId, fallAngle: 80, wakeUpMinutes: 31 })).status).toBe(200)
    await waitFor(async () => {
      const rows = await driftOf(d.deviceId)
      return rows.length === 1 && rows[0]!.field === 'wakeUpMinutes' && rows[0]!.expected === '31' && rows[0]!.reported === '30'
    }, 'drift follows the template')

    const list = await call<Paged<{ driftId: number }>>('POST', '/iot/configDrift/list', { configId, pageNum: 1, pageSize: 10 })
    expect(list.data.rows).toHaveLength(1)
    const res = await call<{ jobId: number }>('POST', '/iot/configDrift/action/pushAgain', { ids: [list.data.rows[0]!.driftId] })
    expect(res.status, res.msg).toBe(200)
    expect((await finished(res.data.jobId)).state).toBe('succeeded')
    await waitFor(async () => (await driftOf(d.deviceId)).length === 0, 'no drift after pushing again')
    expect(d.sim.config).toMatchObject({ wakeUpMinutes: 31, fallAngle: 80 })
    // The drift goes with the device's report; the push's acknowledgement is its own message.
    const pushes = () => db().selectFrom('iotConfigPush').select('status').where('deviceId', '=', d.deviceId).execute()
    await waitFor(async () => (await pushes()).every((p: { status: string }) => p.status === 'acknowledged'), 'both pushes acknowledged').catch(() => undefined)
    expect((await pushes()).map((p: { status: string }) => p.status)).toEqual(['acknowledged', 'acknowledged'])
  })

  it('forgets the reports and drift of a deleted device', async () => {
    const d = await insertDevice(t)
    const kept = await insertDevice(t)
    const configId = Number((await template()).configId)
    const at = new Date().toISOString()
    for (const deviceId of [d.deviceId, kept.deviceId]) {
      await db().insertInto('iotConfigReport').values({ deviceId, version: 'x', values: '{}', reportedAt: at }).execute()
      await db().insertInto('iotConfigDrift').values({ configId, deviceId, field: 'fallAngle', expected: '60', reported: '', detectedAt: at }).execute()
    }
    expect((await call('DELETE', `/iot/device/${d.deviceId}`)).status).toBe(200)
    await forgetDeletedDevices(t.app.services.db)
    expect(await driftOf(d.deviceId)).toEqual([])
    expect(await db().selectFrom('iotConfigReport').select('reportId').where('deviceId', '=', d.deviceId).execute()).toEqual([])
    expect(await driftOf(kept.deviceId)).toHaveLength(1)
  })

  it('pushing again needs iot:config:push', async () => {
    const user = await limitedUser(t, { userName: 'driftreader', perms: ['iot:config:list'], dataScope: '1' })
    const res = await call('POST', '/iot/configDrift/action/pushAgain', { ids: [1] }, user.token)
    expect(res.status).toBe(403)
  })

})

describe('a list of ids as input (the engine change the push needs)', () => {
  const base = {
    key: 'thing',
    table: 'thing',
    path: '/x/thing',
    permission: 'x:thing',
    label: { en_US: 'Thing', zh_CN: '东西' },
    idField: 'thingId',
    defaultSort: { field: 'thingId', order: 'asc' as const },
    fields: [
      { name: 'thingId', kind: 'number' as const, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
      { name: 'state', kind: 'enum' as const, options: [{ value: 'a', label: { en_US: 'A', zh_CN: 'A' } }], label: { en_US: 'State', zh_CN: '状态' } },
    ],
  }
  const ids = { name: 'deviceIds', kind: 'referenceMany' as const, entity: 'iotDevice', through: { table: 'x', from: 'thingId', to: 'deviceId' }, label: { en_US: 'Devices', zh_CN: '设备' } }

  it('is allowed in an action and refused in a step, whose input its history keeps', () => {
    expect(() => defineEntity({ ...base, actions: [{ name: 'send', label: { en_US: 'Send', zh_CN: '发送' }, on: 'row', input: [ids] }] })).not.toThrow()
    const step = { name: 'go', label: { en_US: 'Go', zh_CN: '去' }, from: ['a'], to: 'a', input: [ids] }
    expect(() => defineEntity({ ...base, transitions: { field: 'state', steps: [step] } })).toThrow(/step go input deviceIds cannot be referenceMany/)
  })
})
