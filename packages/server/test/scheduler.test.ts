import type { ScheduledWorkInfo } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { everyMs } from '../src/platform/jobs'
import { createTestApp, limitedUser, type TestApp } from './harness'
import { waitFor } from './iot-helpers'

// The one scheduler (platform/jobs/schedule.ts): sweeps every so often, once per tick across the
// instances on one database, never two runs at once, their last run kept for the jobs page.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

let a: TestApp
let b: TestApp

beforeAll(async () => {
  a = await createTestApp()
  b = await createTestApp({}, { databaseUrl: a.databaseUrl })
})
afterAll(async () => {
  await b?.close()
  await a?.close()
})

describe('the scheduler', () => {
  it('reads intervals as definitions write them', () => {
    expect([everyMs('500ms'), everyMs('5s'), everyMs('1m'), everyMs('48h'), everyMs(250)]).toEqual([500, 5000, 60_000, 172_800_000, 250])
    expect(() => everyMs('5 minutes' as never)).toThrow(/not an interval/)
  })

  it('runs a sweep once per tick across two instances on one database', async () => {
    const runs: { app: string; at: number }[] = []
    for (const [name, t] of [['a', a], ['b', b]] as const) {
      t.app.services.jobs.every({ key: 'test.shared', every: 100, run: async () => void runs.push({ app: name, at: Date.now() }) })
    }
    await waitFor(() => runs.length >= 8, 'eight runs')
    // Whichever instance claimed a tick, the next one came no sooner than the interval less its
    // slack (a tenth): two instances each ticking every 100 ms would otherwise run it twice as often.
    const gaps = runs.slice(1).map((r, i) => r.at - runs[i]!.at)
    expect(Math.min(...gaps), JSON.stringify(runs)).toBeGreaterThanOrEqual(85)
  })

  it("runs a sweep that says runs: 'everywhere' on each instance", async () => {
    const seen = new Set<string>()
    a.app.services.jobs.every({ key: 'test.everywhere', every: 50, runs: 'everywhere', run: async () => void seen.add('a') })
    b.app.services.jobs.every({ key: 'test.everywhere', every: 50, runs: 'everywhere', run: async () => void seen.add('b') })
    await waitFor(() => seen.size === 2, 'a run on each instance')
    expect([...seen].sort()).toEqual(['a', 'b'])
  })

  it('never starts a run while the last is still going, and keeps how long it took', async () => {
    let running = 0
    let most = 0
    let runs = 0
    a.app.services.jobs.every({
      key: 'test.slow',
      every: 5,
      run: async () => {
        most = Math.max(most, ++running)
        await sleep(60)
        running--
        runs++
      },
    })
    await waitFor(() => runs >= 3, 'three runs')
    expect(most).toBe(1)
    const listed = async () => (await a.app.services.jobs.scheduler.list()).find((w) => w.key === 'test.slow')
    await waitFor(async () => (await listed())?.lastDurationMs != null, 'a run on record')
    expect(await listed()).toMatchObject({ runs: 'once', everyMs: 5, lastError: null })
    expect((await listed())!.lastDurationMs).toBeGreaterThanOrEqual(55)
  })

  it('keeps a failed run’s error, and runs again at the next tick', async () => {
    let calls = 0
    let release = () => {}
    const held = new Promise<void>((r) => (release = r))
    a.app.services.jobs.every({
      key: 'test.failing',
      every: 30,
      run: async () => {
        calls++
        if (calls === 1) throw new Error('the carrier did not answer')
        // The second run waits here: the first one's outcome is on record by the time it starts.
        await held
      },
    })
    const lastError = async () => (await a.app.services.jobs.scheduler.list()).find((w) => w.key === 'test.failing')?.lastError
    await waitFor(() => calls >= 2, 'a second run')
    expect(await lastError()).toBe('the carrier did not answer')
    release()
    await waitFor(async () => (await lastError()) === null, 'the error cleared by a good run')
  })

  it('refuses a key used twice, and an interval it cannot read', () => {
    expect(() => a.app.services.jobs.every({ key: 'devicePresence', every: '1s', run: async () => {} })).toThrow(/defined twice/)
    expect(() => a.app.services.jobs.every({ key: 'backup', every: '1s', run: async () => {} })).toThrow(/defined twice/)
  })

  it('stops every sweep when the server closes, aborting the one under way', async () => {
    const c = await createTestApp()
    let runs = 0
    let aborted = false
    c.app.services.jobs.every({
      key: 'test.closing',
      every: 10,
      run: async (signal) => {
        runs++
        await new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true
            resolve()
          })
          setTimeout(resolve, 30)
        })
      },
    })
    await waitFor(() => runs >= 2, 'two runs')
    await c.close()
    const after = runs
    await sleep(100)
    expect(runs).toBe(after)
    expect(aborted).toBe(true)
  })
})

describe('GET /monitor/job/schedules', () => {
  it("lists every scheduled work of the server, each named in the caller's language", async () => {
    const admin = await a.login()
    const en = await a.call<ScheduledWorkInfo[]>({ url: '/api/monitor/job/schedules', token: admin })
    const zh = await a.call<ScheduledWorkInfo[]>({ url: '/api/monitor/job/schedules', token: admin, lang: 'zh_CN' })
    expect(en.code).toBe(200)
    const keys = en.data.map((w: { key: string }) => w.key)
    // The product's own work, whatever tests added: the maintenance schedules first, then every module's sweeps.
    const product = ['backup', 'retention', 'uploadSweep', 'devicePresence', 'commandDeadlines', 'otaRollout', 'dashboardRollups', 'iotConfig.pushes', 'iotConfig.reports', 'message.delivery', 'iotSim.carrierSync', 'iotAlarm.offline', 'repairOrder.closeUncollected', ...(a.app.services.dialect === 'postgres' ? ['iotTelemetry.partitions'] : [])]
    expect(keys.slice(0, 2)).toEqual(['backup', 'retention'])
    expect([...keys].filter((k: string) => !k.startsWith('test.')).sort()).toEqual([...product].sort())
    for (const [i, work] of en.data.entries()) {
      if (work.key.startsWith('test.')) continue
      // A title of its own in each language (not the key shown as it is).
      expect(work.title, work.key).not.toBe(work.key)
      expect(zh.data[i]!.title, work.key).not.toBe(work.title)
      if (work.runs === 'job') expect(work.intervalHours, work.key).toBeGreaterThanOrEqual(0)
      else expect(work.everyMs, work.key).toBeGreaterThan(0)
    }
    const presence = (await a.call<ScheduledWorkInfo[]>({ url: '/api/monitor/job/schedules', token: admin })).data.find((w: { key: string }) => w.key === 'devicePresence')
    expect(presence).toMatchObject({ runs: 'once', everyMs: 10_000 })
  })

  it('needs monitor:job:list', async () => {
    const { token } = await limitedUser(a, { userName: 'schedviewer', perms: ['monitor:online:list'], dataScope: '1' })
    expect((await a.call({ url: '/api/monitor/job/schedules', token })).status).toBe(403)
  })
})
