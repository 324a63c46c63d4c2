import { randomBytes } from 'node:crypto'
import type { DeviceOptions, SimulatedDevice } from '@velo/device-sim'
import { OTA_COMMIT_MARGIN_SECONDS, type OtaCampaignOverview } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { otaRolloutOf } from '../src/modules/ota/rollout'
import { clearRetained, insertDevice, simulated, waitFor } from './iot-helpers'
import { multipart, useTestApp } from './harness'

// Commit or roll back (issue 35 §3, docs/ota.md): after the reboot into the new image a device is on
// trial; the upgrade has succeeded only when the device commits, and a rollback (its self-test failed,
// no commit within the offer's deadline, its old version back) is a failure with its code, counted
// against the wave's error threshold.

const t = useTestApp()
const sims: SimulatedDevice[] = []
let serial = 0
/** The rollout's clock: null follows the real one; a test that needs time to pass sets it. */
let clock: number | null = null

type Method = 'GET' | 'POST'
const call = <T = unknown>(method: Method, url: string, body?: unknown, lang?: 'en_US' | 'zh_CN') =>
  t.call<T>({ method, url: `/api${url}`, token: t.admin, body: body ?? (method === 'POST' ? {} : undefined), lang })
const db = () => t.app.services.db

async function ok<T = unknown>(method: Method, url: string, body?: unknown) {
  const res = await call<T>(method, url, body)
  expect(res.status, res.msg).toBe(200)
  return res.data
}

beforeAll(async () => {
  otaRolloutOf(t.app.services).configure({ tickMs: 100, now: () => (clock === null ? new Date() : new Date(clock)) })
  await db().updateTable('sysConfig').set({ configValue: 'false' }).where('configKey', '=', 'ota.approvalRequired').execute()
})

afterAll(async () => {
  await Promise.all(sims.map((s) => s.disconnect().catch(() => {})))
  await clearRetained(t.app, sims.map((s) => s.sn)).catch(() => {})
})

async function firmware(version: string) {
  const supplier = await ok<{ supplierId: number }>('POST', '/ota/iotpart/supplier', { name: `Commit ${++serial}`, supplierCode: 'QT', iotCode: 'Q' })
  const product = await ok<{ productId: number }>('POST', '/ota/iotpart/product', { supplierId: supplier.supplierId, name: `EC commit ${serial}`, productCode: 'EC', hardwareRevision: 'HW-A1' })
  const file = await t.call<{ fileName: string }>({ method: 'POST', url: '/api/iot/firmware/file/file', token: t.admin, ...multipart([{ name: 'fw.bin', bytes: randomBytes(5000) }]) })
  expect(file.status, file.msg).toBe(200)
  const fw = await ok<{ firmwareId: number }>('POST', '/iot/firmware', { name: `EC ${version} ${serial}`, code: `ec-commit-${serial}-${Date.now()}`, supplierId: supplier.supplierId, productId: product.productId, customVersion: version, file: file.data.fileName })
  return Number(fw.firmwareId)
}

/** Simulated modules of the demo model on 1.0.0, online. */
async function fleet(n: number, behaviour: Partial<DeviceOptions> = {}) {
  const devices: { deviceId: number; sn: string; secret: string; sim: SimulatedDevice }[] = []
  for (let i = 0; i < n; i++) {
    const reg = await insertDevice(t)
    const sim = simulated(t.app, reg, { firmwareVersion: '1.0.0', otaInstallMs: 5, ...behaviour })
    sims.push(sim)
    devices.push({ ...reg, sim })
  }
  await Promise.all(devices.map((d) => d.sim.connect()))
  await waitFor(async () => {
    const rows = await db().selectFrom('iotDevice').select('deviceId').where('deviceId', 'in', devices.map((d) => d.deviceId)).where('online', '=', 1).where('firmwareVersion', '=', '1.0.0').execute()
    return rows.length === n
  }, 'the fleet online')
  return devices
}

/** A device the rollout sees online that nobody answers for yet: the test speaks for it later. */
async function silentDevice() {
  const reg = await insertDevice(t)
  await db().updateTable('iotDevice').set({ online: 1, firmwareVersion: '1.0.0', hardwareVersion: 'HW-A1' }).where('deviceId', '=', reg.deviceId).execute()
  return reg
}

const DEFAULTS = { randomOrder: false, canaryCount: 1, waveCount: 1, successPercent: 100, errorPercent: 50, errorMinFinished: 1, alarmRateFactor: 0, retries: 0, timeoutMinutes: 5, ratePerMinute: 0, minBattery: 0 }

async function running(firmwareId: number, devices: { deviceId: number }[], values: Record<string, unknown> = {}) {
  const c = await ok<{ campaignId: number }>('POST', '/iot/upgrade', { name: `Commit ${++serial}`, payload: 'firmware', firmwareId, deviceIds: devices.map((d) => d.deviceId), ...DEFAULTS, ...values })
  expect((await ok<{ status: string }>('POST', `/iot/upgrade/${c.campaignId}/submit`)).status).toBe('scheduled')
  expect((await ok<{ status: string }>('POST', `/iot/upgrade/${c.campaignId}/start`)).status).toBe('running')
  return Number(c.campaignId)
}

const campaign = async (id: number) => db().selectFrom('otaCampaign').selectAll().where('campaignId', '=', id).executeTakeFirstOrThrow()
const rows = async (id: number) => db().selectFrom('otaCampaignDevice').selectAll().where('campaignId', '=', id).orderBy('position').execute()
// As in ota-rollout.test.ts: a campaign's devices report through the broker, slower with the suite's other files beside it.
const untilStatus = (id: number, status: string, timeoutMs = 25_000) =>
  waitFor(async () => ((await campaign(id)).status === status ? campaign(id) : null), `campaign ${id} ${status}`, timeoutMs)
const untilState = (id: number, state: string, index = 0) => waitFor(async () => ((await rows(id))[index]?.state === state ? (await rows(id))[index] : null), `device ${index} ${state}`)
const history = async (upgradeId: number) => {
  await otaRolloutOf(t.app.services).flushHistory()
  return db().selectFrom('sysTransitionLog').selectAll().where('entity', '=', 'iotUpgradeDevice').where('rowId', '=', upgradeId).orderBy('logId').execute()
}
const pause = (ms = 400) => new Promise((r) => setTimeout(r, ms))

describe('commit or roll back', () => {
  it('counts success only at the commit: the new version in a status puts the device on trial', async () => {
    const device = await silentDevice()
    const id = await running(await firmware('1.3.5'), [device])
    const row = await untilState(id, 'notified')
    // The device speaks only now: the offer went out while nobody listened (and comes again as it
    // subscribes, which it ignores), the test reports for it.
    const sim = simulated(t.app, device, { firmwareVersion: '1.0.0', otaIgnoreOffers: true })
    sims.push(sim)
    await sim.connect()
    const upgrade = `c${row.upgradeId}a${row.attempt}`
    for (const stage of ['accepted', 'downloading', 'downloaded', 'verified', 'installing', 'rebooting']) await sim.publish('ota', { id: upgrade, stage })
    await untilState(id, 'rebooting')
    sim.behaviour.firmwareVersion = '1.3.5'
    await sim.reportStatus()
    const onTrial = await untilState(id, 'trial')
    expect(onTrial.trialAt).toBeTruthy()
    // The new version is evidence, not success: nothing finishes until the device commits.
    await pause()
    expect((await rows(id))[0]).toMatchObject({ state: 'trial', finishedAt: null })
    expect((await campaign(id)).status).toBe('running')
    const live = await ok<OtaCampaignOverview>('GET', `/iot/upgrade/${id}/overview`)
    expect(live.counts).toEqual({ trial: 1 })
    expect(live.waves[0]).toMatchObject({ active: 1, succeeded: 0 })

    await sim.publish('ota', { id: upgrade, stage: 'committed', version: '1.3.5' })
    await untilStatus(id, 'finished')
    expect((await rows(id))[0]).toMatchObject({ state: 'succeeded', percent: 100 })
    expect((await history(row.upgradeId)).map((h) => h.toState)).toEqual(['notified', 'downloading', 'downloaded', 'verified', 'installing', 'rebooting', 'trial', 'succeeded'])
  })

  it('rolls back a device whose status shows its old version again while on trial, and takes its own reason after', async () => {
    const device = await silentDevice()
    const id = await running(await firmware('1.3.6'), [device])
    const row = await untilState(id, 'notified')
    const sim = simulated(t.app, device, { firmwareVersion: '1.0.0', otaIgnoreOffers: true })
    sims.push(sim)
    await sim.connect()
    const upgrade = `c${row.upgradeId}a${row.attempt}`
    for (const stage of ['accepted', 'downloaded', 'verified', 'installing', 'rebooting']) await sim.publish('ota', { id: upgrade, stage })
    await sim.publish('ota', { id: upgrade, stage: 'trial', version: '1.3.6' })
    await untilState(id, 'trial')
    // Its bootloader went back to the old image: the old firmware's first status says so.
    await sim.reportStatus({ firmwareVersion: '1.0.0' })
    const rolledBack = await untilState(id, 'rolledBack')
    expect(rolledBack.code).toBe('E_ROLLED_BACK')
    expect(rolledBack.message).toContain('Reported 1.0.0 while on trial with 1.3.6')
    await untilStatus(id, 'finished')
    // Then the device says why: its reason replaces the inferred one.
    await sim.publish('ota', { id: upgrade, stage: 'rolledBack', code: 'E_BOOT', message: 'The new image did not boot', version: '1.0.0' })
    await waitFor(async () => ((await rows(id))[0]!.code === 'E_BOOT' ? true : null), 'the device’s own code')
    expect((await rows(id))[0]).toMatchObject({ state: 'rolledBack', message: 'The new image did not boot' })
    const overview = await ok<OtaCampaignOverview>('GET', `/iot/upgrade/${id}/overview`)
    expect(overview.failed).toEqual([expect.objectContaining({ state: 'rolledBack', code: 'E_BOOT' })])
    // A commit after the rollback changes nothing: a final state stays.
    await sim.publish('ota', { id: upgrade, stage: 'committed' })
    await pause(300)
    expect((await rows(id))[0]!.state).toBe('rolledBack')
  })

  it('starts a retry with no trial time of the attempt before: only an attempt that goes on trial has one', async () => {
    const device = await silentDevice()
    const id = await running(await firmware('1.3.9'), [device], { retries: 1, retryBackoffSeconds: 1 })
    const first = await untilState(id, 'notified')
    const sim = simulated(t.app, device, { firmwareVersion: '1.0.0', otaIgnoreOffers: true })
    sims.push(sim)
    await sim.connect()
    const upgrade = `c${first.upgradeId}a${first.attempt}`
    for (const stage of ['accepted', 'downloaded', 'verified', 'installing', 'rebooting']) await sim.publish('ota', { id: upgrade, stage })
    await sim.publish('ota', { id: upgrade, stage: 'trial', version: '1.3.9' })
    expect((await untilState(id, 'trial')).trialAt).toBeTruthy()
    await sim.publish('ota', { id: upgrade, stage: 'rolledBack', code: 'E_SELF_TEST', version: '1.0.0' })
    const second = await waitFor(async () => {
      const [r] = await rows(id)
      return r!.state === 'notified' && Number(r!.attempt) === 2 ? r : null
    }, 'the second attempt offered')
    expect(second.trialAt).toBeNull()
  })

  it('counts a failed self-test as rolled back with its code, and the wave’s rollbacks pause the campaign by the error rule', async () => {
    const devices = await fleet(5)
    for (const d of devices.slice(0, 2)) d.sim.behaviour.otaSelfTestFail = true
    const id = await running(await firmware('1.4.0'), devices, { canaryCount: 3, waveCount: 1, errorPercent: 50, errorMinFinished: 3 })
    const paused = await untilStatus(id, 'paused')
    expect(paused.pauseReason).toContain('2 of 3 finished devices failed')
    expect((await rows(id)).map((r) => [r.wave, r.state, r.code])).toEqual([
      [0, 'rolledBack', 'E_SELF_TEST'],
      [0, 'rolledBack', 'E_SELF_TEST'],
      [0, 'succeeded', ''],
      [1, 'queued', ''],
      [1, 'queued', ''],
    ])
    // The devices went back to their old image, and say so.
    for (const d of devices.slice(0, 2)) expect(d.sim.behaviour.firmwareVersion).toBe('1.0.0')
    await waitFor(async () => {
      const kept = await db().selectFrom('iotDevice').select('firmwareVersion').where('deviceId', 'in', devices.slice(0, 2).map((d) => d.deviceId)).execute()
      return kept.every((r) => r.firmwareVersion === '1.0.0') || null
    }, 'the old version reported')
    const first = (await rows(id))[0]!
    expect((await history(first.upgradeId)).map((h) => h.toState)).toEqual(['notified', 'downloading', 'downloaded', 'verified', 'installing', 'rebooting', 'trial', 'rolledBack'])

    const overview = await ok<OtaCampaignOverview>('GET', `/iot/upgrade/${id}/overview`)
    expect(overview.counts).toMatchObject({ rolledBack: 2, succeeded: 1, queued: 2 })
    expect(overview.waves[0]).toMatchObject({ failed: 2, succeeded: 1, status: 'stopped' })
    expect(overview.failed.map((f) => [f.state, f.code])).toEqual([
      ['rolledBack', 'E_SELF_TEST'],
      ['rolledBack', 'E_SELF_TEST'],
    ])

    // A rollback leaves the device on its old, working image: "retry the failed" offers it again.
    for (const d of devices.slice(0, 2)) d.sim.behaviour.otaSelfTestFail = false
    expect(await ok('POST', `/iot/upgrade/${id}/action/retryFailed`)).toEqual({ queued: 2 })
    await ok('POST', `/iot/upgrade/${id}/resume`)
    const done = await untilStatus(id, 'finished')
    expect(done).toMatchObject({ succeededCount: 5, failedCount: 0 })
  })

  it('rolls back a device that never commits once the offer’s deadline and the margin have passed, not at the upgrade’s timeout', async () => {
    clock = Date.parse('2026-06-03T08:00:00Z')
    try {
      const [device] = await fleet(1, { otaNeverCommit: true })
      const id = await running(await firmware('1.5.0'), [device!], { timeoutMinutes: 1, commitSeconds: 600 })
      const row = await untilState(id, 'trial')
      expect(new Date(row.trialAt!).toISOString()).toBe('2026-06-03T08:00:00.000Z')
      // The offer told the device its deadline.
      await t.app.iot.messageLog.flush()
      const offers = await db().selectFrom('iotMessage').select('payload').where('deviceId', '=', device!.deviceId).where('direction', '=', 'down').where('kind', '=', 'ota').execute()
      expect(JSON.parse(offers[0]!.payload)).toMatchObject({ op: 'offer', commitSeconds: 600, timeoutSeconds: 60 })

      // Past the whole upgrade's timeout: a device on trial is judged by its commit deadline instead.
      clock += 5 * 60_000
      await pause()
      expect((await rows(id))[0]!.state).toBe('trial')
      // The deadline passed, but not the margin the device has to roll back and say so.
      clock = Date.parse('2026-06-03T08:00:00Z') + (600 + OTA_COMMIT_MARGIN_SECONDS - 5) * 1000
      await pause()
      expect((await rows(id))[0]!.state).toBe('trial')
      clock += 10_000
      await untilStatus(id, 'finished')
      const ended = (await rows(id))[0]!
      expect(ended).toMatchObject({ state: 'rolledBack', code: 'E_COMMIT_TIMEOUT' })
      expect(ended.message).toContain('No commit within 600 s of going on trial with 1.5.0')
      expect(ended.message).toContain('600 秒内未确认')
      const zh = await call<OtaCampaignOverview>('GET', `/iot/upgrade/${id}/overview`, undefined, 'zh_CN')
      expect(zh.data.failed[0]).toMatchObject({ state: 'rolledBack', code: 'E_COMMIT_TIMEOUT' })
      expect(zh.data.failed[0]!.message).toMatch(/^以 1\.5\.0 试运行后 600 秒内未确认/)
      const steps = await history(ended.upgradeId)
      expect(steps.at(-1)).toMatchObject({ step: 'commitTimeout', fromState: 'trial', toState: 'rolledBack' })
    } finally {
      clock = null
    }
  })
})
