import { randomBytes } from 'node:crypto'
import type { DeviceOptions, SimulatedDevice } from '@velo/device-sim'
import type { OtaCampaignOverview, OtaDeviceStateEvent } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { otaRolloutOf } from '../src/modules/ota/rollout'
import { MAX_ACTIVE_DEVICES } from '../src/modules/ota/rollout/engine'
import { waveSizes } from '../src/modules/ota/rollout/targets'
import { inDailyWindow } from '../src/modules/ota/rollout/window'
import { clearRetained, insertDevice, openStream, type OtaStreamEvent, simulated, waitFor } from './iot-helpers'
import { createTestApp, limitedUser, multipart, type TestApp, useTestApp } from './harness'

// The OTA rollout (issue 18): campaigns that stage themselves in waves, respect their rate and
// window, retry, and stop themselves when a wave fails or the upgraded bikes raise alarms, driven
// by simulated devices that perform every step of the transfer.

const t = useTestApp()
const sims: SimulatedDevice[] = []
let serial = 0
/** The rollout's clock: null follows the real one; a test that needs time to pass sets it. */
let clock: number | null = null

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
const call = <T = unknown>(method: Method, url: string, body?: unknown, o: { token?: string; lang?: 'en_US' | 'zh_CN' } = {}) =>
  t.call<T>({ method, url: `/api${url}`, token: o.token ?? t.admin, body: body ?? (method === 'POST' ? {} : undefined), lang: o.lang })
const db = () => t.app.services.db
/** A campaign as its routes answer it, as far as these tests read it. */
type Campaign = { campaignId: number; status: string; totalDevices: number; pauseReason: string }
/** One step of a row's history (GET …/history). */
type Step = { step: string; fromState: string; toState: string; input: Record<string, unknown> }

async function ok<T = unknown>(method: Method, url: string, body?: unknown, token?: string) {
  const res = await call<T>(method, url, body, { token })
  expect(res.status, res.msg).toBe(200)
  return res.data
}

async function setApproval(required: boolean) {
  await db().updateTable('sysConfig').set({ configValue: String(required) }).where('configKey', '=', 'ota.approvalRequired').execute()
}

beforeAll(async () => {
  otaRolloutOf(t.app.services).configure({ tickMs: 100, now: () => (clock === null ? new Date() : new Date(clock)) })
  await setApproval(false)
})

afterAll(async () => {
  await Promise.all(sims.map((s) => s.disconnect().catch(() => {})))
  await clearRetained(t.app, sims.map((s) => s.sn)).catch(() => {})
})

/** An IoT module firmware of this version, uploaded as a file (its digests are the server's). */
async function firmware(version: string, hardware = 'HW-A1') {
  const supplier = await ok<{ supplierId: number }>('POST', '/ota/iotpart/supplier', { name: `Quectel ${++serial}`, supplierCode: 'QT', iotCode: 'Q' })
  const product = await ok<{ productId: number }>('POST', '/ota/iotpart/product', { supplierId: supplier.supplierId, name: `EC200 ${serial}`, productCode: 'EC', hardwareRevision: hardware })
  const res = await t.call<{ fileName: string }>({ method: 'POST', url: '/api/iot/firmware/file/file', token: t.admin, ...multipart([{ name: 'fw.bin', bytes: randomBytes(6000) }]) })
  expect(res.status, res.msg).toBe(200)
  const fw = await ok<{ firmwareId: number }>('POST', '/iot/firmware', {
    name: `EC200 ${version} ${serial}`,
    code: `ec200-${serial}-${Date.now()}`,
    supplierId: supplier.supplierId,
    productId: product.productId,
    customVersion: version,
    file: res.data.fileName,
  })
  return Number(fw.firmwareId)
}

interface Device {
  deviceId: number
  sn: string
  secret: string
  sim: SimulatedDevice
}

/** Simulated modules of the demo model, online, their versions reported and kept. */
async function fleet(n: number, behaviour: Partial<DeviceOptions> = {}, app: TestApp = t): Promise<Device[]> {
  const devices: Device[] = []
  for (let i = 0; i < n; i++) {
    const reg = await insertDevice(app)
    const sim = simulated(app.app, reg, { firmwareVersion: '1.0.0', otaInstallMs: 5, ...behaviour })
    sims.push(sim)
    devices.push({ ...reg, sim })
  }
  await Promise.all(devices.map((d) => d.sim.connect()))
  await waitFor(async () => {
    const rows = await app.app.services.db
      .selectFrom('iotDevice')
      .select(['deviceId'])
      .where(
        'deviceId',
        'in',
        devices.map((d) => d.deviceId),
      )
      .where('online', '=', 1)
      .where('firmwareVersion', '=', behaviour.firmwareVersion ?? '1.0.0')
      .execute()
    return rows.length === n
  }, 'the fleet online with its versions')
  return devices
}

const ROLLOUT_DEFAULTS = {
  randomOrder: false,
  canaryCount: 1,
  waveCount: 1,
  successPercent: 100,
  errorPercent: 50,
  errorMinFinished: 1,
  alarmRateFactor: 0,
  retries: 0,
  retryBackoffSeconds: 60,
  timeoutMinutes: 5,
  ratePerMinute: 0,
  minBattery: 0,
}

/** A campaign for these devices, added (a draft). */
async function draft(firmwareId: number, devices: { deviceId: number }[], values: Record<string, unknown> = {}) {
  const c = await ok<Campaign>('POST', '/iot/upgrade', { name: `Rollout ${++serial}`, payload: 'firmware', firmwareId, deviceIds: devices.map((d) => d.deviceId), ...ROLLOUT_DEFAULTS, ...values })
  return Number(c.campaignId)
}

/** Added, submitted (approval off) and started. */
async function running(firmwareId: number, devices: { deviceId: number }[], values: Record<string, unknown> = {}) {
  const id = await draft(firmwareId, devices, values)
  expect((await ok<Campaign>('POST', `/iot/upgrade/${id}/submit`)).status).toBe('scheduled')
  expect((await ok<Campaign>('POST', `/iot/upgrade/${id}/start`)).status).toBe('running')
  return id
}

const campaign = async (id: number) => db().selectFrom('otaCampaign').selectAll().where('campaignId', '=', id).executeTakeFirstOrThrow()
const rows = async (id: number) => db().selectFrom('otaCampaignDevice').selectAll().where('campaignId', '=', id).orderBy('position').execute()
// A campaign ends when its devices have downloaded, flashed, rebooted and reported, each through the
// broker: seconds alone, longer on PostgreSQL and Mosquitto with the suite's other files beside it
// (a one-device campaign once took past 15 s in CI). The wait ends as soon as the status is reached.
const untilStatus = (id: number, status: string, timeoutMs = 25_000) =>
  waitFor(async () => ((await campaign(id)).status === status ? campaign(id) : null), `campaign ${id} ${status}`, timeoutMs)
const history = async (upgradeId: number) =>
  db().selectFrom('sysTransitionLog').selectAll().where('entity', '=', 'iotUpgradeDevice').where('rowId', '=', upgradeId).orderBy('logId').execute()
const offersTo = async (deviceId: number) =>
  Number(
    (await db().selectFrom('iotMessage').select(db().fn.countAll().as('n')).where('deviceId', '=', deviceId).where('direction', '=', 'down').where('kind', '=', 'ota').executeTakeFirst())!.n,
  )

describe('plans', () => {
  it('splits the targets into a canary (count or share, at least one) and waves', () => {
    expect(waveSizes(50, null, 10, 3)).toEqual([5, 15, 15, 15])
    expect(waveSizes(10, 3, 10, 3)).toEqual([3, 3, 2, 2])
    expect(waveSizes(3, null, 10, 5)).toEqual([1, 1, 1])
    expect(waveSizes(1, null, 10, 3)).toEqual([1])
  })

  it('judges the daily window in the device’s time zone, across midnight too', () => {
    const at = new Date('2026-06-01T23:30:00Z')
    expect(inDailyWindow(at, 'UTC', '22:00', '04:00')).toBe(true)
    expect(inDailyWindow(at, 'UTC', '02:00', '04:00')).toBe(false)
    // 01:30 the next day in Shanghai (UTC+8 is 07:30): outside 22:00–04:00 there, inside 07:00–08:00.
    expect(inDailyWindow(at, 'Asia/Shanghai', '22:00', '04:00')).toBe(false)
    expect(inDailyWindow(at, 'Asia/Shanghai', '07:00', '08:00')).toBe(true)
    expect(inDailyWindow(at, 'UTC', '', '')).toBe(true)
  })
})

describe('a rollout', () => {
  it('upgrades the canary, then each wave once the one before succeeded, and finishes', async () => {
    const devices = await fleet(5)
    const fw = await firmware('1.1.0')
    const id = await running(fw, devices, { canaryCount: 1, waveCount: 2 })
    const done = await untilStatus(id, 'finished')
    expect(done).toMatchObject({ totalDevices: 5, succeededCount: 5, failedCount: 0, currentWave: 2 })
    const all = await rows(id)
    expect(all.map((r) => [r.wave, r.state])).toEqual([
      [0, 'succeeded'],
      [1, 'succeeded'],
      [1, 'succeeded'],
      [2, 'succeeded'],
      [2, 'succeeded'],
    ])
    // A wave is notified only after the one before it has all succeeded: the claim reads its clock
    // after the query that saw the last report committed (under load a tick's passes take 100 ms+).
    const lastOf = (wave: number) => Math.max(...all.filter((r) => r.wave === wave).map((r) => Date.parse(r.finishedAt!)))
    const firstOf = (wave: number) => Math.min(...all.filter((r) => r.wave === wave).map((r) => Date.parse(r.notifiedAt!)))
    expect(firstOf(1)).toBeGreaterThanOrEqual(lastOf(0))
    expect(firstOf(2)).toBeGreaterThanOrEqual(lastOf(1))
    for (const d of devices) expect(d.sim.behaviour.firmwareVersion).toBe('1.1.0')

    // Each device's history holds every step, for the engine's history endpoint and the timeline.
    await otaRolloutOf(t.app.services).flushHistory()
    const steps = await ok<Step[]>('GET', `/iot/upgradeDevice/${all[0]!.upgradeId}/history`)
    // Succeeded only at the device's commit, after its trial (docs/ota.md › Commit or roll back).
    expect(steps.map((s) => s.toState)).toEqual(['notified', 'downloading', 'downloaded', 'verified', 'installing', 'rebooting', 'trial', 'succeeded'])

    const overview = await ok<OtaCampaignOverview>('GET', `/iot/upgrade/${id}/overview`)
    expect(overview).toMatchObject({ campaignId: id, status: 'finished', totalDevices: 5, counts: { succeeded: 5 }, failed: [] })
    expect(overview.waves).toEqual([
      expect.objectContaining({ wave: 0, total: 1, succeeded: 1, status: 'passed' }),
      expect.objectContaining({ wave: 1, total: 2, succeeded: 2, status: 'passed' }),
      expect.objectContaining({ wave: 2, total: 2, succeeded: 2, status: 'passed' }),
    ])
    expect(overview.timeline.at(-1)!.counts).toEqual({ succeeded: 5 })
  })

  it('pauses itself when the canary fails past the error threshold, with the reason, and goes on once resumed', async () => {
    const devices = await fleet(10)
    // 3 of the 4 canary devices fail to flash (a 30 % failure rate of the canary's share of the fleet).
    for (const d of devices.slice(0, 3)) d.sim.behaviour.otaInstallFailCode = 'E_FLASH_WRITE'
    const fw = await firmware('1.2.0')
    const id = await running(fw, devices, { canaryCount: 4, waveCount: 1, errorPercent: 20, errorMinFinished: 4 })
    const paused = await untilStatus(id, 'paused')
    expect(paused.pauseReason).toContain('the canary')
    expect(paused.pauseReason).toContain('3 of 4 finished devices failed')
    expect(paused.pauseReason).toContain('灰度批')
    const overview = await ok<OtaCampaignOverview>('GET', `/iot/upgrade/${id}/overview`)
    expect(overview.pauseReason).toMatch(/^Paused itself: in the canary, 3 of 4/)
    expect(overview.waves[0]).toMatchObject({ wave: 0, failed: 3, succeeded: 1, status: 'stopped' })
    expect(overview.failed.map((f) => f.code)).toEqual(['E_FLASH_WRITE', 'E_FLASH_WRITE', 'E_FLASH_WRITE'])
    const zh = await call<OtaCampaignOverview>('GET', `/iot/upgrade/${id}/overview`, undefined, { lang: 'zh_CN' })
    expect(zh.data.pauseReason).toMatch(/^已自动暂停：灰度批/)
    // The next wave was never started.
    expect((await rows(id)).filter((r) => r.wave === 1).every((r) => r.state === 'queued')).toBe(true)

    // Fixed: the failed devices are queued again and the campaign resumed: the wave goes on to the end.
    for (const d of devices.slice(0, 3)) d.sim.behaviour.otaInstallFailCode = ''
    expect(await ok('POST', `/iot/upgrade/${id}/action/retryFailed`)).toEqual({ queued: 3 })
    const resumed = await ok<Campaign>('POST', `/iot/upgrade/${id}/resume`)
    expect(resumed.pauseReason).toBe('')
    const done = await untilStatus(id, 'finished')
    expect(done).toMatchObject({ succeededCount: 10, failedCount: 0 })
    // The failure stays in the history of a device that succeeded on its second attempt.
    const first = (await rows(id))[0]!
    expect(first.attempt).toBe(2)
    await otaRolloutOf(t.app.services).flushHistory()
    expect((await history(first.upgradeId)).map((h) => h.toState)).toEqual(expect.arrayContaining(['failed', 'queued', 'succeeded']))
  })

  it('stops when a wave ends short of its success threshold, and goes on to the next once resumed', async () => {
    const devices = await fleet(4)
    // One of the canary's two fails: below the error threshold (100 %), but the wave cannot reach 100 %.
    devices[0]!.sim.behaviour.otaInstallFailCode = 'E_FLASH_WRITE'
    const fw = await firmware('1.2.5')
    // Judged once both finished: the failure comes first (the success waits for its commit), and alone it is 100 %.
    const id = await running(fw, devices, { canaryCount: 2, successPercent: 100, errorPercent: 100, errorMinFinished: 2 })
    const paused = await untilStatus(id, 'paused')
    expect(paused.pauseReason).toContain('the canary ended with 1 of 2 devices upgraded (50 %), short of the success threshold (100 %)')
    expect((await rows(id)).map((r) => [r.state, r.code])).toEqual([
      ['failed', 'E_FLASH_WRITE'],
      ['succeeded', ''],
      ['queued', ''],
      ['queued', ''],
    ])
    await ok('POST', `/iot/upgrade/${id}/resume`)
    await untilStatus(id, 'finished')
    expect((await rows(id)).map((r) => r.state)).toEqual(['failed', 'succeeded', 'succeeded', 'succeeded'])
  })

  it('refuses a downgrade unless the campaign allows it, saying why in the reader’s language', async () => {
    const devices = await fleet(2, { firmwareVersion: '2.0.0' })
    const fw = await firmware('1.5.0')
    const id = await draft(fw, devices)
    const refused = await call('POST', `/iot/upgrade/${id}/submit`)
    expect(refused.status).toBe(409)
    expect(refused.msg).toContain('2 already run 1.5.0 or newer')
    expect((await call('POST', `/iot/upgrade/${id}/submit`, undefined, { lang: 'zh_CN' })).msg).toContain('2 台已运行 1.5.0 或更新版本')
    expect((await campaign(id)).status).toBe('draft')
    expect(await rows(id)).toEqual([])

    const allowed = await draft(fw, devices, { allowDowngrade: true })
    expect((await ok<Campaign>('POST', `/iot/upgrade/${allowed}/submit`)).totalDevices).toBe(2)
    // The submit's history says how many it took and left out.
    const steps = await ok<Step[]>('GET', `/iot/upgrade/${allowed}/history`)
    expect(steps[0]).toMatchObject({ step: 'submit', input: { targets: 2, leftOut: { notOlder: 0 } } })
    await ok('POST', `/iot/upgrade/${allowed}/cancel`, {})
  })

  it('counts a device that reports the old version after its reboot as failed', async () => {
    const [device] = await fleet(1, { otaKeepOldVersion: true })
    const fw = await firmware('1.3.0')
    const id = await running(fw, [device!])
    await untilStatus(id, 'finished')
    const [row] = await rows(id)
    expect(row).toMatchObject({ state: 'failed', code: 'E_VERSION_UNCHANGED' })
  })

  it('retries a failed device after its backoff, doubling', async () => {
    clock = Date.parse('2026-06-01T10:00:00Z')
    try {
      const [device] = await fleet(1, { otaInstallFailCode: 'E_FLASH_WRITE' })
      const fw = await firmware('1.4.0')
      const id = await running(fw, [device!], { retries: 2, retryBackoffSeconds: 60 })
      const queued = await waitFor(async () => {
        const [r] = await rows(id)
        return r!.state === 'queued' && r!.attempt === 1 ? r : null
        // A whole download, install and failure first: on a loaded PostgreSQL (the CI pass, two files
        // at once) that took longer than the 10 s default once.
      }, 'queued for its retry', 20_000)
      expect(queued.nextAttemptAt).toBe('2026-06-01T10:01:00.000Z')
      await new Promise((r) => setTimeout(r, 400))
      expect((await rows(id))[0]).toMatchObject({ state: 'queued', attempt: 1 })
      clock += 61_000
      const second = await waitFor(async () => {
        const [r] = await rows(id)
        return r!.state === 'queued' && r!.attempt === 2 ? r : null
      }, 'the second attempt failed and queued again')
      // Twice the backoff after the second failure.
      expect(second.nextAttemptAt).toBe(new Date(clock + 120_000).toISOString())
      device!.sim.behaviour.otaInstallFailCode = ''
      clock += 121_000
      await untilStatus(id, 'finished')
      expect((await rows(id))[0]).toMatchObject({ state: 'succeeded', attempt: 3 })
      await waitFor(async () => (await offersTo(device!.deviceId)) >= 3, 'three offers logged')
      expect(await offersTo(device!.deviceId)).toBe(3)
    } finally {
      clock = null
    }
  })

  it('does not offer again to a device that refused for good (incompatible), retries left or not', async () => {
    const [device] = await fleet(1)
    // Flashed to that version on the bike meanwhile (a service tool): the server still has the old one.
    device!.sim.behaviour.firmwareVersion = '1.4.1'
    const fw = await firmware('1.4.1')
    const id = await running(fw, [device!], { retries: 2, retryBackoffSeconds: 1 })
    await untilStatus(id, 'finished')
    expect((await rows(id))[0]).toMatchObject({ state: 'rejected', code: 'incompatible', attempt: 1 })
    await t.app.iot.messageLog.flush()
    expect(await offersTo(device!.deviceId)).toBe(1)
  })

  it('moves a row forward only, and takes no report of a stale attempt or of another device', async () => {
    const devices = await fleet(2)
    const id = await running(await firmware('1.0.5'), devices, { canaryCount: 2 })
    await untilStatus(id, 'finished')
    const first = (await rows(id))[0]!
    const current = `c${first.upgradeId}a${first.attempt}`
    await devices[0]!.sim.publish('ota', { v: 1, id: current, stage: 'failed', code: 'E_LATE' })
    await devices[0]!.sim.publish('ota', { v: 1, id: `c${first.upgradeId}a0`, stage: 'rebooting' })
    await devices[1]!.sim.publish('ota', { v: 1, id: current, stage: 'downloading', progress: 5 })
    // Nothing may change, so there is no change to wait for: the reports get time to land.
    await new Promise((r) => setTimeout(r, 500))
    expect((await rows(id)).map((r) => [r.state, r.code])).toEqual([
      ['succeeded', ''],
      ['succeeded', ''],
    ])
  })

  it('times out a device that goes silent after its offer', async () => {
    clock = Date.parse('2026-06-02T08:00:00Z')
    try {
      // Registered and marked online, but nobody answers on its topics.
      const silent = await insertDevice(t)
      await db().updateTable('iotDevice').set({ online: 1, firmwareVersion: '1.0.0', hardwareVersion: 'HW-A1' }).where('deviceId', '=', silent.deviceId).execute()
      const fw = await firmware('1.4.5')
      const id = await running(fw, [silent], { timeoutMinutes: 5 })
      await waitFor(async () => (await rows(id))[0]!.state === 'notified', 'notified')
      clock += 4 * 60_000
      await new Promise((r) => setTimeout(r, 300))
      expect((await rows(id))[0]!.state).toBe('notified')
      clock += 2 * 60_000
      await untilStatus(id, 'finished')
      expect((await rows(id))[0]).toMatchObject({ state: 'timedOut', attempt: 1 })
      await otaRolloutOf(t.app.services).flushHistory()
      expect((await history((await rows(id))[0]!.upgradeId)).map((h) => [h.step, h.fromState, h.toState])).toEqual([
        ['notify', 'queued', 'notified'],
        ['timeout', 'notified', 'timedOut'],
      ])
    } finally {
      clock = null
    }
  })

  it('notifies no more devices a minute than its rate, spread over the minute', async () => {
    clock = Date.parse('2026-06-01T12:00:00Z')
    try {
      const devices = await fleet(5, { otaBytesPerSecond: 0 })
      const fw = await firmware('1.6.0')
      const id = await running(fw, devices, { canaryCount: 5, ratePerMinute: 2 })
      const notified = async () => (await rows(id)).filter((r) => r.notifiedAt).length
      // Two a minute is one every 30 s: the minute's second device is not released with its first.
      await waitFor(async () => (await notified()) === 1, 'one notified')
      await new Promise((r) => setTimeout(r, 400))
      expect(await notified()).toBe(1)
      clock += 29_000
      await new Promise((r) => setTimeout(r, 400))
      expect(await notified()).toBe(1)
      clock += 1_000
      await waitFor(async () => (await notified()) === 2, 'the second 30 s later')
      await new Promise((r) => setTimeout(r, 400))
      expect(await notified()).toBe(2)
      for (let i = 0; i < 3; i++) {
        clock += 30_000
        await waitFor(async () => (await notified()) === 3 + i, `device ${3 + i} another 30 s later`)
      }
      await untilStatus(id, 'finished')
      const times = (await rows(id)).map((r) => Date.parse(r.notifiedAt!)).sort((a: number, b: number) => a - b)
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(30_000)
      // In any minute, at most two.
      for (let i = 2; i < times.length; i++) expect(times[i]! - times[i - 2]!).toBeGreaterThanOrEqual(60_000)
    } finally {
      clock = null
    }
  })

  it('keeps no more devices at work on it at once than its cap, however large the wave', async () => {
    otaRolloutOf(t.app.services).configure({ maxActiveDevices: 2 })
    try {
      // A byte a second: they stay downloading.
      const devices = await fleet(4, { otaBytesPerSecond: 1 })
      const fw = await firmware('1.6.5')
      const id = await running(fw, devices, { canaryCount: 4 })
      const atWork = async () => (await rows(id)).filter((r) => r.state !== 'queued').length
      await waitFor(async () => (await atWork()) === 2, 'two at work')
      await new Promise((r) => setTimeout(r, 400))
      expect(await atWork()).toBe(2)
      await ok('POST', `/iot/upgrade/${id}/cancel`, { forced: true })
    } finally {
      otaRolloutOf(t.app.services).configure({ maxActiveDevices: MAX_ACTIVE_DEVICES })
    }
  })

  it('notifies only inside the daily window of the device’s local time', async () => {
    clock = Date.parse('2026-06-01T12:00:00Z')
    try {
      const [device] = await fleet(1)
      const fw = await firmware('1.7.0')
      const id = await running(fw, [device!], { windowStart: '22:00', windowEnd: '04:00' })
      await new Promise((r) => setTimeout(r, 500))
      expect((await rows(id))[0]).toMatchObject({ state: 'queued', attempt: 0 })
      clock = Date.parse('2026-06-01T23:00:00Z')
      await untilStatus(id, 'finished')
      expect((await rows(id))[0]!.notifiedAt).toBe('2026-06-01T23:00:00.000Z')
    } finally {
      clock = null
    }
  })

  it('holds a device that refuses while riding, skips it past the hold limit without stalling its wave, and finishes saying how it ended', async () => {
    clock = Date.parse('2026-06-03T08:00:00Z')
    try {
      const devices = await fleet(3)
      devices[0]!.sim.behaviour.riding = true
      const fw = await firmware('1.8.5')
      // The canary's first device is ridden: the canary is judged on its other one, and the next wave opens.
      const id = await running(fw, devices, { canaryCount: 2, waveCount: 1, successPercent: 100, retries: 0, holdLimitHours: 2 })
      await waitFor(async () => (await rows(id)).map((r) => r.state).join() === 'held,succeeded,succeeded', 'one held, the others upgraded')
      const [held] = await rows(id)
      expect(held).toMatchObject({ code: 'riding', heldSince: '2026-06-03T08:00:00.000Z' })
      expect((await campaign(id)).status).toBe('running')
      // Offered again after its backoff: still riding, still the same hold.
      clock += 61_000
      await waitFor(async () => (await rows(id))[0]!.attempt === 2 && (await rows(id))[0]!.state === 'held', 'offered again and held again')
      expect((await rows(id))[0]!.heldSince).toBe('2026-06-03T08:00:00.000Z')
      // Past the hold limit: skipped, with why, and the campaign finishes.
      clock = Date.parse('2026-06-03T10:00:00Z')
      const done = await untilStatus(id, 'finished')
      expect(done).toMatchObject({ totalDevices: 3, succeededCount: 2, failedCount: 0, skippedCount: 1, rolledBackCount: 0 })
      const skipped = (await rows(id))[0]!
      expect(skipped).toMatchObject({ state: 'skipped', code: 'riding' })
      expect(skipped.message).toContain('Skipped: held 2 h without taking the upgrade (riding)')
      expect(skipped.message).toContain('骑行中')
      const overview = await ok<OtaCampaignOverview>('GET', `/iot/upgrade/${id}/overview`)
      expect(overview.counts).toEqual({ succeeded: 2, skipped: 1 })
      const steps = await ok<Step[]>('GET', `/iot/upgrade/${id}/history`)
      expect(steps.find((s) => s.step === 'finish')!.input.summary).toEqual({ succeeded: 2, failed: 0, rolledBack: 0, skipped: 1, cancelled: 0 })
    } finally {
      clock = null
    }
  })

  it('offers a held device refused for a passing reason use no retry: a real failure after them is still retried', async () => {
    clock = Date.parse('2026-06-04T08:00:00Z')
    try {
      const [device] = await fleet(1)
      device!.sim.behaviour.riding = true
      const fw = await firmware('1.8.6')
      const id = await running(fw, [device!], { canaryCount: 1, retries: 1, holdLimitHours: 0 })
      await waitFor(async () => (await rows(id))[0]!.state === 'held', 'held while riding')
      clock += 61_000
      await waitFor(async () => (await rows(id))[0]!.attempt === 2 && (await rows(id))[0]!.state === 'held', 'held a second time')
      // The ride is over, but the new image fails its self-test: the one retry the campaign allows is still there.
      device!.sim.behaviour.riding = false
      device!.sim.behaviour.otaSelfTestFail = true
      clock += 121_000
      // Rolled back on its third offer, and queued again for the retry (without the held offers counted, none is left).
      await waitFor(async () => {
        const [row] = await rows(id)
        return row!.attempt === 3 && row!.code === 'E_SELF_TEST' && row!.state === 'queued'
      }, 'the rolled-back attempt queued for its retry')
      expect((await rows(id))[0]).toMatchObject({ heldOffers: 2 })
    } finally {
      clock = null
    }
  })

  it('skips the held devices on request, and the campaign finishes', async () => {
    const devices = await fleet(2)
    await db().updateTable('iotDevice').set({ flowState: 'warning' }).where('deviceId', '=', devices[1]!.deviceId).execute()
    const fw = await firmware('1.8.7')
    const id = await running(fw, devices, { canaryCount: 2, holdLimitHours: 0 })
    await waitFor(async () => (await rows(id)).map((r) => r.state).join() === 'succeeded,held', 'one upgraded, one held')
    await new Promise((r) => setTimeout(r, 300))
    expect((await campaign(id)).status).toBe('running')
    expect(await ok('POST', `/iot/upgrade/${id}/action/skipHeld`)).toEqual({ skipped: 1 })
    const done = await untilStatus(id, 'finished')
    expect(done).toMatchObject({ succeededCount: 1, skippedCount: 1 })
    const skipped = (await rows(id))[1]!
    expect(skipped).toMatchObject({ state: 'skipped', code: 'simDataLow' })
    expect(skipped.message).toMatch(/^Skipped by admin while held \(SIM data low\)\n由 admin 在暂缓期间跳过（SIM 流量不足）$/)
    await otaRolloutOf(t.app.services).flushHistory()
    expect((await history(skipped.upgradeId)).map((h) => [h.step, h.toState]).at(-1)).toEqual(['skipHeld', 'skipped'])
  })

  it('holds devices whose SIM data is low and releases them when it recovers', async () => {
    const devices = await fleet(2)
    await db().updateTable('iotDevice').set({ flowState: 'warning' }).where('deviceId', '=', devices[1]!.deviceId).execute()
    const fw = await firmware('1.8.0')
    const id = await running(fw, devices, { canaryCount: 2 })
    await waitFor(async () => (await rows(id)).map((r) => r.state).join() === 'succeeded,held', 'one upgraded, one held')
    await db().updateTable('iotDevice').set({ flowState: 'normal' }).where('deviceId', '=', devices[1]!.deviceId).execute()
    await untilStatus(id, 'finished')
    expect((await rows(id)).map((r) => r.state)).toEqual(['succeeded', 'succeeded'])
  })

  it('pauses itself when the upgraded bikes raise alarms faster than before', async () => {
    const devices = await fleet(4)
    const fw = await firmware('1.9.0')
    const id = await running(fw, devices, { canaryCount: 2, waveCount: 1, successPercent: 100, alarmRateFactor: 2, alarmMinCount: 2, errorMinFinished: 2, windowStart: '', windowEnd: '' })
    // The canary upgraded; keep the next wave from finishing before the alarms are judged.
    for (const d of devices.slice(2)) d.sim.behaviour.otaBytesPerSecond = 200
    await waitFor(async () => (await rows(id)).filter((r) => r.state === 'succeeded').length >= 2, 'the canary upgraded')
    const stamp = new Date().toISOString()
    const modelId = (await db().selectFrom('iotDevice').select('modelId').where('deviceId', '=', devices[0]!.deviceId).executeTakeFirst())!.modelId
    // Both in one statement: the rollout judges between two inserts otherwise, and one alarm already passes the rate.
    await db()
      .insertInto('iotAlarm')
      .values(
        devices
          .slice(0, 2)
          .map((d) => ({ deviceId: d.deviceId, modelId, type: 'fault', code: 'E12', severity: 'major', state: 'activeUnack', detail: '', count: 1, startTime: stamp, lastTime: stamp, activeKey: `${d.deviceId}:fault:E12` })),
      )
      .execute()
    const paused = await untilStatus(id, 'paused')
    expect(paused.pauseReason).toMatch(/^Paused itself: 2 alarms on \d upgraded bikes/)
    await ok('POST', `/iot/upgrade/${id}/cancel`, { forced: true })
  })

  it('pauses for alarms only past the minimum count, counting only the alarm types the campaign chose, and says its numbers', async () => {
    const devices = await fleet(4)
    const fw = await firmware('1.9.5')
    const id = await running(fw, devices, { canaryCount: 2, waveCount: 1, successPercent: 100, alarmRateFactor: 2, alarmMinCount: 3, alarmTypes: 'fault,offline', errorMinFinished: 2 })
    for (const d of devices.slice(2)) d.sim.behaviour.otaBytesPerSecond = 200
    await waitFor(async () => (await rows(id)).filter((r) => r.state === 'succeeded').length >= 2, 'the canary upgraded')
    const modelId = (await db().selectFrom('iotDevice').select('modelId').where('deviceId', '=', devices[0]!.deviceId).executeTakeFirst())!.modelId
    const alarm = (d: { deviceId: number }, type: string, code: string) => {
      const stamp = new Date().toISOString()
      return { deviceId: d.deviceId, modelId, type, code, severity: 'major', state: 'activeUnack', detail: '', count: 1, startTime: stamp, lastTime: stamp, activeKey: `${d.deviceId}:${type}:${code}` }
    }
    const settle = () => new Promise((r) => setTimeout(r, 600))
    // One alarm on two bikes is a rate far over any baseline, and says nothing: below the minimum count.
    await db().insertInto('iotAlarm').values([alarm(devices[0]!, 'fault', 'E1')]).execute()
    await settle()
    expect((await campaign(id)).status).toBe('running')
    // Low battery is no type this campaign counts: three of them change nothing.
    await db()
      .insertInto('iotAlarm')
      .values([alarm(devices[0]!, 'lowBattery', 'B1'), alarm(devices[1]!, 'lowBattery', 'B2'), alarm(devices[1]!, 'lowBattery', 'B3')])
      .execute()
    await settle()
    expect((await campaign(id)).status).toBe('running')
    await db()
      .insertInto('iotAlarm')
      .values([alarm(devices[1]!, 'fault', 'E2'), alarm(devices[1]!, 'offline', 'O1')])
      .execute()
    const paused = await untilStatus(id, 'paused')
    const [en, zh] = String(paused.pauseReason).split('\n')
    expect(en).toMatch(/^Paused itself: 3 alarms on 2 upgraded bikes \(Device fault, Offline too long\) over 0\.1 bike-days, 36000 per 1,000 bikes a day; before the upgrade the same 4 bikes had 1 a day over 7 days: more than 2 × that \(2\)$/)
    expect(zh).toContain('3 条告警（设备故障, 长时间离线）')
    await ok('POST', `/iot/upgrade/${id}/cancel`, { forced: true })
  })
})

describe('the other parts and the live view', () => {
  it('upgrades a display through its IoT module, targeting the hardware revision the module reports', async () => {
    const parts = (hardware: string) => ({ display: { version: '1.0.0', hardware }, bms: { version: '1.0.0' }, ecu: { version: '1.0.0' } })
    const devices = [...(await fleet(2, { parts: parts('DP-H2') })), ...(await fleet(1, { parts: parts('DP-H1') }))]
    await waitFor(async () => {
      const kept = await db().selectFrom('iotDevice').select(['displayVersion', 'displayHardware']).where('deviceId', 'in', devices.map((d) => d.deviceId)).execute()
      return kept.every((r) => r.displayVersion === '1.0.0' && r.displayHardware)
    }, 'the display versions kept')
    const supplier = await ok<{ supplierId: number }>('POST', '/ota/displaypart/supplier', { name: `Bafang ${++serial}`, supplierCode: 'BF', iotCode: 'B' })
    const product = await ok<{ productId: number }>('POST', '/ota/displaypart/product', { supplierId: supplier.supplierId, name: `DP C18 ${serial}`, productCode: 'DC', hardwareRevision: 'DP-H2' })
    const file = await t.call<{ fileName: string }>({ method: 'POST', url: '/api/ota/displaypart/firmware/file/file', token: t.admin, ...multipart([{ name: 'dp.bin', bytes: randomBytes(3000) }]) })
    const fw = await ok<{ firmwareId: number }>('POST', '/ota/displaypart/firmware', { name: `DP ${serial}`, code: `dp-${serial}-${Date.now()}`, supplierId: supplier.supplierId, productId: product.productId, customVersion: '1.1.0', file: file.data.fileName })
    const c = await ok<Campaign>('POST', '/ota/displaypart/upgrade', { name: `Display ${serial}`, firmwareId: fw.firmwareId, deviceIds: devices.map((d) => d.deviceId), ...ROLLOUT_DEFAULTS, canaryCount: 1 })
    const submitted = await ok<Campaign>('POST', `/ota/displaypart/upgrade/${c.campaignId}/submit`)
    // The module with another display revision is left out.
    expect(submitted.totalDevices).toBe(2)
    expect((await ok<Step[]>('GET', `/ota/displaypart/upgrade/${c.campaignId}/history`))[0]!.input.leftOut).toMatchObject({ hardware: 1 })
    await ok('POST', `/ota/displaypart/upgrade/${c.campaignId}/start`)
    await untilStatus(Number(c.campaignId), 'finished')
    expect((await rows(Number(c.campaignId))).map((r) => r.state)).toEqual(['succeeded', 'succeeded'])
    expect(devices[0]!.sim.behaviour.parts.display?.version).toBe('1.1.0')
    expect(devices[2]!.sim.behaviour.parts.display?.version).toBe('1.0.0')
    // The IoT module's own firmware did not change.
    expect(devices[0]!.sim.behaviour.firmwareVersion).toBe('1.0.0')
  })

  it('deploys an audio file, its deploy status following the campaign', async () => {
    const devices = await fleet(2, { otaBytesPerSecond: 4000 })
    const file = await t.call<{ fileName: string }>({ method: 'POST', url: '/api/iot/audio/file/file', token: t.admin, ...multipart([{ name: 'bell.mp3', bytes: Buffer.concat([Buffer.from('ID3'), randomBytes(4000)]) }]) })
    expect(file.status, file.msg).toBe(200)
    const iotName = `bell_${++serial}`
    const audio = await ok<{ audioId: number }>('POST', '/iot/audio', { appName: 'Bell', iotName, version: '1.0.1', file: file.data.fileName })
    const c = await ok<Campaign>('POST', '/iot/upgrade', { name: `Sounds ${serial}`, payload: 'audio', audioId: audio.audioId, deviceIds: devices.map((d) => d.deviceId), ...ROLLOUT_DEFAULTS, canaryCount: 2 })
    await ok('POST', `/iot/upgrade/${c.campaignId}/submit`)
    await ok('POST', `/iot/upgrade/${c.campaignId}/start`)
    expect((await ok<{ deployStatus: string }>('GET', `/iot/audio/${audio.audioId}`)).deployStatus).toBe('deploying')
    await untilStatus(Number(c.campaignId), 'finished')
    expect((await rows(Number(c.campaignId))).map((r) => [r.state, r.toVersion])).toEqual([
      ['succeeded', '1.0.1'],
      ['succeeded', '1.0.1'],
    ])
    expect(devices[0]!.sim.behaviour.audio[iotName]).toBe('1.0.1')
    expect((await ok<{ deployStatus: string }>('GET', `/iot/audio/${audio.audioId}`)).deployStatus).toBe('deployed')
  })

  it('streams the campaign’s counts and its devices’ states', async () => {
    const stream = await openStream<OtaStreamEvent>(t.app, '/api/iot/upgrade/stream', t.admin)
    try {
      expect(stream.contentType).toContain('text/event-stream')
      const devices = await fleet(2)
      const fw = await firmware('5.0.0')
      const id = await running(fw, devices, { canaryCount: 2 })
      await untilStatus(id, 'finished')
      await stream.next((e) => e.event === 'ota' && e.data.type === 'campaign' && e.data.campaignId === id && e.data.status === 'finished', 'the finished campaign event')
      const finished = stream.events.filter((e) => e.data.type === 'campaign' && e.data.campaignId === id).at(-1)!
      expect(finished.data).toMatchObject({ part: 'iot', counts: { succeeded: 2 } })
      const device = stream.events.find((e): e is { event: 'ota'; data: OtaDeviceStateEvent } => e.data.type === 'device' && e.data.campaignId === id && e.data.state === 'succeeded')
      expect(device?.data.sn).toMatch(/^VL/)
    } finally {
      await stream.close()
    }
  })
})

describe('approval and cancel', () => {
  it('is approved by a second person only', async () => {
    await setApproval(true)
    try {
      const devices = await fleet(1)
      const fw = await firmware('2.1.0')
      const id = await draft(fw, devices)
      expect((await ok<Campaign>('POST', `/iot/upgrade/${id}/submit`)).status).toBe('awaitingApproval')
      const self = await call('POST', `/iot/upgrade/${id}/approve`)
      expect(self.status).toBe(403)
      expect(self.msg).toContain('second person')
      const approver = await limitedUser(t, { userName: `approver${++serial}`, perms: ['iot:upgrade:approve', 'iot:upgrade:query'], dataScope: '1' })
      const approved = await ok('POST', `/iot/upgrade/${id}/approve`, {}, approver.token)
      expect(approved).toMatchObject({ status: 'scheduled', approvedBy: `approver${serial}` })
      await ok('POST', `/iot/upgrade/${id}/cancel`, {})
    } finally {
      await setApproval(false)
    }
  })

  it('cancels softly (devices already upgrading go on) or by force (they are told to abort)', async () => {
    const slow = { otaBytesPerSecond: 1500 }
    const soft = await fleet(2, slow)
    const fw = await firmware('2.2.0')
    const softId = await running(fw, soft, { canaryCount: 1, successPercent: 100 })
    await waitFor(async () => (await rows(softId))[0]!.state === 'downloading', 'the canary downloading')
    await ok('POST', `/iot/upgrade/${softId}/cancel`, { forced: false })
    expect((await rows(softId)).map((r) => r.state)).toEqual(['downloading', 'cancelled'])
    await waitFor(async () => (await rows(softId))[0]!.state === 'succeeded', 'the started device finished')

    const forced = await fleet(2, slow)
    const forcedId = await running(fw, forced, { canaryCount: 1 })
    await waitFor(async () => (await rows(forcedId))[0]!.state === 'downloading', 'the canary downloading')
    await ok('POST', `/iot/upgrade/${forcedId}/cancel`, { forced: true })
    expect((await rows(forcedId)).map((r) => r.state)).toEqual(['cancelled', 'cancelled'])
    // The device was told to stop, and stopped: it still runs its old version.
    await waitFor(() => forced[0]!.sim.ota.state?.stage === 'aborted' || null, 'the device aborted')
    expect(forced[0]!.sim.behaviour.firmwareVersion).toBe('1.0.0')
    expect((await rows(forcedId))[0]!.state).toBe('cancelled')
  })
})

describe('across restarts and instances', () => {
  it('resumes after a restart without offering finished devices again', async () => {
    const first = await createTestApp()
    let second: TestApp | undefined
    try {
      otaRolloutOf(first.app.services).configure({ tickMs: 100 })
      const token = await first.login()
      await first.app.services.db.updateTable('sysConfig').set({ configValue: 'false' }).where('configKey', '=', 'ota.approvalRequired').execute()
      const devices = await fleet(3, {}, first)
      const api = (app: TestApp, tk: string) => async <T = unknown>(method: Method, url: string, body?: unknown) => {
        const res = await app.call<T>({ method, url: `/api${url}`, token: tk, body: body ?? {} })
        expect(res.status, res.msg).toBe(200)
        return res.data
      }
      const a = api(first, token)
      const supplier = await a<{ supplierId: number }>('POST', '/ota/iotpart/supplier', { name: 'Quectel restart', supplierCode: 'QT', iotCode: 'Q' })
      const product = await a<{ productId: number }>('POST', '/ota/iotpart/product', { supplierId: supplier.supplierId, name: 'EC200 restart', productCode: 'EC', hardwareRevision: 'HW-A1' })
      const file = await first.call<{ fileName: string }>({ method: 'POST', url: '/api/iot/firmware/file/file', token, ...multipart([{ name: 'fw.bin', bytes: randomBytes(6000) }]) })
      const fw = await a<{ firmwareId: number }>('POST', '/iot/firmware', { name: 'EC200 restart', code: `ec200-restart-${Date.now()}`, supplierId: supplier.supplierId, productId: product.productId, customVersion: '3.0.0', file: file.data.fileName })
      // The second wave's devices are offline when the server stops.
      await Promise.all(devices.slice(1).map((d) => d.sim.disconnect()))
      const firstDb = first.app.services.db
      await waitFor(
        async () =>
          (
            await firstDb
              .selectFrom('iotDevice')
              .select('deviceId')
              .where(
                'deviceId',
                'in',
                devices.slice(1).map((d) => d.deviceId),
              )
              .where('online', '=', 0)
              .execute()
          ).length === 2,
        'the second wave offline',
      )
      const c = await a<Campaign>('POST', '/iot/upgrade', { name: 'Restart', payload: 'firmware', firmwareId: fw.firmwareId, deviceIds: devices.map((d) => d.deviceId), ...ROLLOUT_DEFAULTS, canaryCount: 1, timeoutMinutes: 1, retries: 1, retryBackoffSeconds: 1 })
      await a('POST', `/iot/upgrade/${c.campaignId}/submit`)
      await a('POST', `/iot/upgrade/${c.campaignId}/start`)
      await waitFor(
        async () => (await firstDb.selectFrom('otaCampaignDevice').select('state').where('deviceId', '=', devices[0]!.deviceId).executeTakeFirst())?.state === 'succeeded',
        'the canary upgraded',
      )
      await devices[0]!.sim.disconnect()
      await first.app.close()

      // The same database and the same stored files, as a restarted server has.
      second = await createTestApp({ STORAGE_DIR: first.app.services.config.storageDir }, { databaseUrl: first.databaseUrl })
      let skew = 0
      otaRolloutOf(second.app.services).configure({ tickMs: 100, now: () => new Date(Date.now() + skew) })
      const again = await Promise.all(
        devices.map(async (d) => {
          const sim = simulated(second!.app, d, { firmwareVersion: d === devices[0] ? '3.0.0' : '1.0.0', otaInstallMs: 5 })
          sims.push(sim)
          await sim.connect()
          return sim
        }),
      )
      const secondDb = second.app.services.db
      const finished = async () => (await secondDb.selectFrom('otaCampaign').select('status').where('campaignId', '=', c.campaignId).executeTakeFirst())?.status === 'finished'
      // A simulated device listens only once its announcement is acknowledged, so an offer sent the
      // moment it said online can be lost: the rollout then times it out and retries (time hurried here).
      await waitFor(finished, 'finished after the restart', 4000).catch(async () => {
        skew = 2 * 60_000
        await waitFor(finished, 'finished after the retry')
      })
      const states = await secondDb.selectFrom('otaCampaignDevice').select(['deviceId', 'state', 'attempt']).where('campaignId', '=', c.campaignId).orderBy('position').execute()
      expect(states.map((s) => s.state)).toEqual(['succeeded', 'succeeded', 'succeeded'])
      // The canary, upgraded before the restart, was never offered it again.
      expect(states[0]!.attempt).toBe(1)
      const offers = await secondDb.selectFrom('iotMessage').select(secondDb.fn.countAll().as('n')).where('deviceId', '=', devices[0]!.deviceId).where('direction', '=', 'down').where('kind', '=', 'ota').executeTakeFirst()
      expect(Number(offers!.n)).toBe(1)
      expect(again[0]!.ota.state).toBeFalsy()
      await Promise.all(again.map((s) => s.disconnect()))
    } finally {
      await second?.close()
      await first.close().catch(() => {})
    }
  })

  it('never notifies a device twice with two instances on one database', async () => {
    // A second instance as deployed: the same database and the same stored files (the image it serves).
    const second = await createTestApp({ STORAGE_DIR: t.app.services.storage.root }, { databaseUrl: t.databaseUrl })
    try {
      otaRolloutOf(second.app.services).configure({ tickMs: 20 })
      otaRolloutOf(t.app.services).configure({ tickMs: 20 })
      const devices = await fleet(12)
      const fw = await firmware('4.0.0')
      const id = await running(fw, devices, { canaryCount: 12, timeoutMinutes: 60 })
      // Each instance publishes through its own broker here (embedded ones): what counts is who claimed what.
      await waitFor(async () => (await rows(id)).every((r) => r.state !== 'queued'), 'every device notified')
      await new Promise((r) => setTimeout(r, 300))
      const notified = await db()
        .selectFrom('sysTransitionLog')
        .select(['rowId', db().fn.countAll().as('n')])
        .where('entity', '=', 'iotUpgradeDevice')
        .where('toState', '=', 'notified')
        .where(
          'rowId',
          'in',
          (await rows(id)).map((r) => r.upgradeId),
        )
        .groupBy('rowId')
        .execute()
      expect(notified.map((r) => Number(r.n))).toEqual(Array(12).fill(1))
      expect((await rows(id)).every((r) => r.attempt === 1)).toBe(true)
      const offers = () => Promise.all(devices.map((d) => offersTo(d.deviceId)))
      await waitFor(async () => (await offers()).every((n) => n >= 1), 'the offers logged')
      expect(await offers()).toEqual(Array(12).fill(1))
      // With embedded brokers, offers the other instance sent never arrive: the campaign stops here, unless it finished meanwhile.
      await call('POST', `/iot/upgrade/${id}/cancel`, { forced: true })
      expect(['cancelled', 'finished']).toContain((await campaign(id)).status)
    } finally {
      otaRolloutOf(t.app.services).configure({ tickMs: 100 })
      await second.close()
    }
  })
})
