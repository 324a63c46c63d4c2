import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config'
import { createDatabase, type Db } from '../src/db/database'
import { freshDatabase } from './harness'
import { waitFor } from './iot-helpers'
import { freePort, serverEnv, signInAdmin, startServer } from './server-process'

// A job survives a kill -9 of the server: the real server (src/main.ts) in a child process runs two
// slow jobs, is killed without a chance to write anything, and is started again. The resumable job
// runs again to success; the other is failed with a clear message. Neither is left "running".


describe('jobs and a server killed with kill -9', () => {
  const dir = mkdtempSync(join(tmpdir(), 'velo-crash-'))
  const cleanups: (() => Promise<unknown> | unknown)[] = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c()
    rmSync(dir, { recursive: true, force: true })
  })

  it('resumes a resumable job to success after the restart and fails the other clearly; neither is left running', async () => {
    const database = await freshDatabase(dir)
    cleanups.push(database.drop)
    const port = await freePort()
    const env = serverEnv(dir, database.url, port, {
      MQTT_PORT: '0',
      // The slow test kinds (platform/jobs/test-kinds.ts), and heartbeats that go stale in 2 s.
      VELO_TEST_JOBS: '1',
      JOB_STALE_SECONDS: '2',
    })
    let server = await startServer(env)
    cleanups.push(() => server.child.kill('SIGKILL'))

    // The test queues the jobs straight into the server's database, as another instance would.
    let db: Db | undefined = createDatabase(loadConfig({ DATABASE_URL: database.url }).database).db
    cleanups.push(() => db?.destroy())
    const admin = await db.selectFrom('sysUser').select(['userId', 'userName', 'deptId']).where('userName', '=', 'admin').executeTakeFirstOrThrow()
    const queue = (kind: string) =>
      db!
        .insertInto('sysJob')
        .values({
          kind,
          state: 'queued',
          params: JSON.stringify({ steps: 40, stepMs: 100 }),
          progressDone: 0,
          createById: admin.userId,
          createBy: admin.userName,
          deptId: admin.deptId,
          createTime: new Date().toISOString(),
          attempts: 0,
        })
        .returning('jobId')
        .executeTakeFirstOrThrow()
    const resumable = await queue('test.slow')
    const once = await queue('test.slowOnce')
    const row = (jobId: number) => db!.selectFrom('sysJob').selectAll().where('jobId', '=', jobId).executeTakeFirstOrThrow()

    await waitFor(async () => (await row(resumable.jobId)).progressDone > 0 && (await row(once.jobId)).progressDone > 0, 'both jobs under way', 20_000)
    server.child.kill('SIGKILL')
    await server.exited
    // The dead server could write nothing: both still say running, held by it.
    const left = [await row(resumable.jobId), await row(once.jobId)]
    expect(left.map((r) => r.state)).toEqual(['running', 'running'])
    expect(left.every((r) => Number(r.progressDone) < 40)).toBe(true)

    server = await startServer(env)
    const resumed = await waitFor(
      async () => {
        const r = await row(resumable.jobId)
        return ['succeeded', 'failed', 'cancelled'].includes(r.state) ? r : undefined
      },
      'the resumable job to end',
      40_000,
    )
    expect(resumed).toMatchObject({ state: 'succeeded', attempts: 2, error: null })
    expect(JSON.parse(resumed.result!)).toEqual({ steps: 40, attempt: 2 })
    expect(resumed.instanceId).not.toBe(left[0]!.instanceId)

    const failed = await row(once.jobId)
    expect(failed).toMatchObject({ state: 'failed', attempts: 1 })
    expect(failed.finishTime).not.toBeNull()

    // What its owner reads, in their language.
    const base = `http://127.0.0.1:${port}/api`
    const token = await signInAdmin(base)
    for (const [lang, text] of [
      ['en_US', 'The server stopped while this job ran'],
      ['zh_CN', '任务运行期间服务器已停止'],
    ]) {
      const res = await fetch(`${base}/monitor/job/${once.jobId}`, { headers: { authorization: token, currentlanguage: lang! } })
      expect(((await res.json()) as { data: { error: string } }).data.error).toBe(text)
    }
    expect(await db.selectFrom('sysJob').select('jobId').where('state', '=', 'running').execute()).toEqual([])

    server.child.kill('SIGTERM')
    await server.exited
    await db.destroy()
    db = undefined
  }, 150_000)
})
