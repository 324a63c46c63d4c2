import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Services } from '../src/platform/services'
import { defineJobKind, JOBS_PER_USER } from '../src/platform/jobs'
import { loadAuthContext } from '../src/platform/rbac/auth-context'
import { addUser, createTestApp, idOf, type TestApp } from './harness'
import { type JobStreamEvent, openStream, waitFor } from './iot-helpers'

// Two instances on one PostgreSQL database, as a deployment behind a load balancer runs them: every
// queued job is claimed by exactly one worker (FOR UPDATE SKIP LOCKED), never by both. SQLite is one
// file on one machine: this runs where CI gives a PostgreSQL (TEST_DATABASE_URL).

const JOBS = 50
const CONCURRENCY = 8
const runs: { jobId: number; services: Services }[] = []
/** Jobs running now, and the most ever at once, per instance. */
const runningNow = new Map<Services, number>()
const mostAtOnce = new Map<Services, number>()
defineJobKind<{ ms: number }>({
  kind: 'test.counted',
  run: async (ctx) => {
    runs.push({ jobId: ctx.jobId, services: ctx.services })
    const n = (runningNow.get(ctx.services) ?? 0) + 1
    runningNow.set(ctx.services, n)
    mostAtOnce.set(ctx.services, Math.max(n, mostAtOnce.get(ctx.services) ?? 0))
    try {
      await sleep(ctx.params.ms, undefined, { signal: ctx.signal })
    } finally {
      runningNow.set(ctx.services, runningNow.get(ctx.services)! - 1)
    }
    return { ran: true }
  },
})

describe.skipIf(!process.env.TEST_DATABASE_URL)('jobs on two instances of one PostgreSQL database', () => {
  let a: TestApp
  let b: TestApp

  beforeAll(async () => {
    const env = { JOB_CONCURRENCY: String(CONCURRENCY), JOB_STALE_SECONDS: '2' }
    a = await createTestApp(env)
    b = await createTestApp(env, { databaseUrl: a.databaseUrl })
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it(`run each of ${JOBS} jobs exactly once, both instances taking part`, async () => {
    // Queued while no worker runs, then both start at the same moment and race for the same queue.
    await Promise.all([a.app.services.jobs.stop(), b.app.services.jobs.stop()])
    // Five users, ten jobs each: as many as one user may have queued at once.
    const starters = []
    for (let u = 0; u < JOBS / JOBS_PER_USER; u++) {
      const userId = await addUser(a, { userName: `clustered${u}` })
      starters.push((await loadAuthContext(a.app.services.db, userId))!)
    }
    const ids: number[] = []
    for (let i = 0; i < JOBS; i++) {
      const via = i % 2 ? a : b
      ids.push((await via.app.services.jobs.enqueue('test.counted', { ms: 200 + (i % 7) * 50 }, starters[Math.floor(i / JOBS_PER_USER)]!)).jobId)
    }
    await Promise.all([a.app.services.jobs.start(), b.app.services.jobs.start()])

    const db = a.app.services.db
    await waitFor(
      async () => (await db.selectFrom('sysJob').select('jobId').where('jobId', 'in', ids).where('state', '=', 'succeeded').execute()).length === JOBS,
      `all ${JOBS} jobs succeeded`,
      30_000,
    )
    const rows = await db.selectFrom('sysJob').select(['jobId', 'state', 'attempts', 'instanceId']).where('jobId', 'in', ids).execute()
    expect(rows.every((r) => r.state === 'succeeded' && r.attempts === 1)).toBe(true)

    const counted = new Map<number, number>()
    for (const r of runs) counted.set(r.jobId, (counted.get(r.jobId) ?? 0) + 1)
    expect([...counted.keys()].sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y))
    expect([...counted.values()].every((n) => n === 1)).toBe(true)

    // Both took part: eight at a time each, against jobs of 200–500 ms, which outlast a worker's poll.
    const byA = runs.filter((r) => r.services === a.app.services).length
    const byB = runs.filter((r) => r.services === b.app.services).length
    console.log({ byA, byB, rows: rows.map((r) => r.instanceId === a.app.services.jobs.instanceId ? "a" : "b").join("") })
    expect(byA + byB).toBe(JOBS)
    expect(byA).toBeGreaterThan(0)
    expect(byB).toBeGreaterThan(0)
    // Neither ran more at once than its JOB_CONCURRENCY: a claim takes no more than it has room for.
    expect(mostAtOnce.get(a.app.services)).toBeLessThanOrEqual(CONCURRENCY)
    expect(mostAtOnce.get(b.app.services)).toBeLessThanOrEqual(CONCURRENCY)
    // Each job names the instance that ran it: one of the two.
    const instances = new Set(rows.map((r) => r.instanceId))
    expect([...instances].every((id) => id === a.app.services.jobs.instanceId || id === b.app.services.jobs.instanceId)).toBe(true)
  })
  it('cancel on one instance stops the job the other runs (its heartbeat reads the request)', async () => {
    // Only b runs jobs now: the job queued through a is b's.
    await a.app.services.jobs.stop()
    const token = await a.login()
    const auth = (await loadAuthContext(a.app.services.db, await idOf(a, 'user', 'admin')))!
    const job = await a.app.services.jobs.enqueue('test.counted', { ms: 20_000 }, auth)
    const db = a.app.services.db
    await waitFor(async () => (await db.selectFrom('sysJob').select('state').where('jobId', '=', job.jobId).executeTakeFirstOrThrow()).state === 'running', 'b to run it')
    const asked = await a.call({ method: 'POST', url: `/api/monitor/job/${job.jobId}/cancel`, token })
    expect(asked.code, asked.msg).toBe(200)
    const ended = await waitFor(async () => {
      const row = await db.selectFrom('sysJob').selectAll().where('jobId', '=', job.jobId).executeTakeFirstOrThrow()
      return row.state !== 'running' ? row : undefined
    }, 'the cancel to reach b')
    expect(ended).toMatchObject({ state: 'cancelled', instanceId: b.app.services.jobs.instanceId })
    await a.app.services.jobs.start()
  })

  it.skipIf(!process.env.REDIS_URL)('a browser on one instance follows its job run by the other (REDIS_URL: events go through Redis)', async () => {
    await a.app.services.jobs.stop()
    const token = await a.login()
    const stream = await openStream<JobStreamEvent>(a.app, '/api/monitor/job/stream', token)
    const auth = (await loadAuthContext(a.app.services.db, await idOf(a, 'user', 'admin')))!
    const job = await a.app.services.jobs.enqueue('test.counted', { ms: 50 }, auth)
    const done = await stream.next((e) => e.data.jobId === job.jobId && e.data.state === 'succeeded', 'the success, from b')
    expect(done.data).toMatchObject({ result: { ran: true } })
    expect(stream.events.some((e) => e.data.jobId === job.jobId && e.data.state === 'running')).toBe(true)
    await stream.close()
    await a.app.services.jobs.start()
  })
})
