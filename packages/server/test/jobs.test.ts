import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import type { JobInfo, Paged } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppError } from '../src/platform/errors'
import { defineJobKind, JOBS_PER_USER } from '../src/platform/jobs'
import { type AuthContext, loadAuthContext } from '../src/platform/rbac/auth-context'
import { addUser, deptId, idOf, limitedUser, readWorkbook, useTestApp, waitForOperLog } from './harness'
import { type JobStreamEvent, openStream, waitFor } from './iot-helpers'

// The job system in one app: queue, progress, outcome, cancel, who sees what, exports as jobs, and
// what happens to running jobs when the worker stops or their instance died. The kinds below are this
// file's own (every app of the process knows them, as every instance of a deployment knows its kinds).

interface Steps {
  steps: number
  stepMs: number
}
const runSteps = async (ctx: { params: Steps; signal: AbortSignal; progress(done: number, total?: number): void }) => {
  ctx.progress(0, ctx.params.steps)
  for (let i = 1; i <= ctx.params.steps; i++) {
    await sleep(ctx.params.stepMs, undefined, { signal: ctx.signal })
    ctx.progress(i)
  }
  return { steps: ctx.params.steps }
}
defineJobKind<Steps>({ kind: 'test.steps', resumable: true, run: runSteps, title: (p, lang) => (lang === 'zh_CN' ? `${p.steps} 步` : `${p.steps} steps`) })
defineJobKind<Steps>({ kind: 'test.once', run: runSteps })
defineJobKind({ kind: 'test.refused', run: async () => Promise.reject(new AppError(404, 'job.export.gone', { entity: 'gadgets' })) })
defineJobKind({ kind: 'test.broken', run: async () => Promise.reject(new Error('a bug, with internals the user must not read')) })
defineJobKind({
  kind: 'test.file',
  run: async (ctx) => {
    await ctx.writeFile('greeting.txt', Readable.from(['hello ', String(ctx.auth.userName)]))
    return { written: true }
  },
})

// Short heartbeats, so a dead instance's job is noticed within a second or two.
const t = useTestApp({ JOB_STALE_SECONDS: '2' })
let adminAuth: AuthContext

const jobs = () => t.app.services.jobs
const db = () => t.app.services.db
const get = (id: number, token = t.admin, lang?: 'en_US' | 'zh_CN') => t.call<JobInfo>({ url: `/api/monitor/job/${id}`, token, lang })
const until = async (id: number, states: string[], what = states.join('/')) =>
  waitFor(async () => {
    const res = await get(id)
    return states.includes(res.data?.state) ? res.data : undefined
  }, `job ${id} ${what}`)

/** The permission rows the seed will give Monitoring › Jobs (tests add them until it does). */
async function jobButtons() {
  for (const perms of ['monitor:job:list', 'monitor:job:cancel']) {
    if (await db().selectFrom('sysMenu').select('menuId').where('perms', '=', perms).executeTakeFirst()) continue
    await db()
      .insertInto('sysMenu')
      .values({ menuName: perms, parentId: 0, orderNum: 99, path: '', component: null, query: null, isFrame: '1', isCache: '0', menuType: 'F', visible: '0', status: '0', perms, icon: '#', noClose: '0', createBy: 'test', createTime: new Date().toISOString(), updateBy: '', updateTime: null, remark: '' })
      .execute()
  }
}

beforeAll(async () => {
  adminAuth = (await loadAuthContext(db(), await idOf(t, 'user', 'admin')))!
  await jobButtons()
})

describe('jobs', () => {
  it('run to success with progress, and tell the owner over the event stream as they go', async () => {
    const stream = await openStream<JobStreamEvent>(t.app, '/api/monitor/job/stream', t.admin)
    expect(stream.contentType).toContain('text/event-stream')
    const row = await jobs().enqueue('test.steps', { steps: 6, stepMs: 120 }, adminAuth)
    expect(row.state).toBe('queued')
    const running = await stream.next((e) => e.data.jobId === row.jobId && e.data.state === 'running' && e.data.done > 0, 'progress')
    expect(running.data).toMatchObject({ kind: 'test.steps', title: '6 steps', total: 6, createBy: 'admin', attempts: 1 })
    const done = await stream.next((e) => e.data.jobId === row.jobId && e.data.state === 'succeeded', 'success')
    expect(done.data).toMatchObject({ done: 6, total: 6, result: { steps: 6 }, error: null })
    // The events came in order: queued, running, then progress never going back.
    const mine = stream.events.filter((e) => e.data.jobId === row.jobId).map((e) => e.data)
    expect(mine[0]!.state).toBe('queued')
    const dones = mine.filter((j) => j.state === 'running').map((j) => j.done)
    expect(dones).toEqual([...dones].sort((a, b) => a - b))
    expect(mine.at(-1)!.state).toBe('succeeded')
    await stream.close()

    const answer = await get(row.jobId, t.admin, 'zh_CN')
    expect(answer.data).toMatchObject({ state: 'succeeded', title: '6 步', startTime: expect.any(String), finishTime: expect.any(String), cancelRequested: false })
  })

  it('fail with a message the user reads in their language; a bug fails without showing its internals', async () => {
    const refused = await jobs().enqueue('test.refused', {}, adminAuth)
    await until(refused.jobId, ['failed'])
    expect((await get(refused.jobId, t.admin, 'en_US')).data.error).toBe('"gadgets" can no longer be exported')
    expect((await get(refused.jobId, t.admin, 'zh_CN')).data.error).toBe('“gadgets”已无法导出')

    const broken = await jobs().enqueue('test.broken', {}, adminAuth)
    const failed = await until(broken.jobId, ['failed'])
    expect(failed.error).toBe(`The job failed unexpectedly (job ${broken.jobId}); the server log has the details`)
    expect(JSON.stringify(failed)).not.toContain('internals')
  })

  it('cancel: a queued job at once (it never runs), a running one at its next step', async () => {
    await jobs().stop()
    const queued = await jobs().enqueue('test.steps', { steps: 2, stepMs: 10 }, adminAuth)
    const cancelled = await t.call({ method: 'POST', url: `/api/monitor/job/${queued.jobId}/cancel`, token: t.admin })
    expect(cancelled.code, cancelled.msg).toBe(200)
    expect(cancelled.msg).toBe('Job cancelled')
    expect(cancelled.data).toMatchObject({ state: 'cancelled', finishTime: expect.any(String) })
    await jobs().start()

    const running = await jobs().enqueue('test.steps', { steps: 200, stepMs: 50 }, adminAuth)
    await waitFor(async () => (await get(running.jobId)).data.done > 0, 'the job under way')
    const asked = await t.call({ method: 'POST', url: `/api/monitor/job/${running.jobId}/cancel`, token: t.admin, lang: 'zh_CN' })
    expect(asked.code, asked.msg).toBe(200)
    expect(asked.msg).toBe('正在取消：任务将在下一步停止')
    expect(asked.data).toMatchObject({ state: 'running', cancelRequested: true })
    const ended = await until(running.jobId, ['cancelled', 'succeeded', 'failed'])
    expect(ended.state).toBe('cancelled')
    expect(ended.done).toBeLessThan(200)

    // The queued one never ran, even after the worker started again.
    expect((await get(queued.jobId)).data).toMatchObject({ state: 'cancelled', startTime: null, attempts: 0 })
    // Cancelling a finished job says so.
    const again = await t.call({ method: 'POST', url: `/api/monitor/job/${running.jobId}/cancel`, token: t.admin })
    expect(again.status).toBe(409)
    expect(again.msg).toBe('The job has already finished')
    const log = await waitForOperLog(t, (r) => r.operUrl === `/api/monitor/job/${running.jobId}/cancel`)
    expect(log.title).toBe('Jobs')
  })

  it('are private: another user neither sees nor cancels nor downloads my job; monitor:job:list sees it (not its file), monitor:job:cancel cancels it', async () => {
    const file = await jobs().enqueue('test.file', {}, adminAuth)
    await until(file.jobId, ['succeeded'])
    await jobs().stop()
    const mine = await jobs().enqueue('test.steps', { steps: 1, stepMs: 1 }, adminAuth)

    const other = await limitedUser(t, { userName: 'jobstranger', perms: [], dataScope: '5' })
    for (const url of [`/api/monitor/job/${mine.jobId}`, `/api/monitor/job/${file.jobId}/file`]) {
      const res = await t.call({ url, token: other.token })
      expect(res.status, url).toBe(404)
      expect(res.msg).toBe('The job does not exist')
    }
    const cancel = await t.call({ method: 'POST', url: `/api/monitor/job/${mine.jobId}/cancel`, token: other.token })
    expect(cancel.status).toBe(404)
    const theirList = await t.call({ method: 'POST', url: '/api/monitor/job/list', token: other.token, body: {} })
    expect(theirList.data).toEqual({ rows: [], total: 0 })
    // Their stream hears nothing of my jobs.
    const theirStream = await openStream(t.app, '/api/monitor/job/stream', other.token)

    const watcher = await limitedUser(t, { userName: 'jobwatcher', perms: ['monitor:job:list'], dataScope: '5' })
    const seen = await t.call<Paged<JobInfo>>({ method: 'POST', url: '/api/monitor/job/list', token: watcher.token, body: { pageSize: 100 } })
    expect(seen.data.rows.map((r: { jobId: number }) => r.jobId)).toEqual(expect.arrayContaining([mine.jobId, file.jobId]))
    const onlyOwn = await t.call<Paged<JobInfo>>({ method: 'POST', url: '/api/monitor/job/list', token: watcher.token, body: { mine: true } })
    expect(onlyOwn.data.total).toBe(0)
    // Seeing is not downloading: the file is its starter's (and the admins'), test/job-outputs.test.ts.
    const download = await t.call({ url: `/api/monitor/job/${file.jobId}/file`, token: watcher.token })
    expect(download.status).toBe(403)
    expect(download.raw.toString()).not.toContain('hello admin')
    expect((await t.call({ url: `/api/monitor/job/${file.jobId}/file`, token: t.admin })).raw.toString()).toBe('hello admin')
    // Seeing is not cancelling.
    const refused = await t.call({ method: 'POST', url: `/api/monitor/job/${mine.jobId}/cancel`, token: watcher.token })
    expect(refused.status).toBe(403)
    expect(refused.msg).toBe('Only the user who started this job can cancel it')

    const canceller = await limitedUser(t, { userName: 'jobcanceller', perms: ['monitor:job:list', 'monitor:job:cancel'], dataScope: '5' })
    const done = await t.call<JobInfo>({ method: 'POST', url: `/api/monitor/job/${mine.jobId}/cancel`, token: canceller.token })
    expect(done.code, done.msg).toBe(200)
    expect(done.data.state).toBe('cancelled')
    await sleep(100)
    expect(theirStream.events.filter((e) => e.event === 'job')).toEqual([])
    await theirStream.close()
    await jobs().start()
  })

  it(`queue at most ${JOBS_PER_USER} per user at once`, async () => {
    await jobs().stop()
    const user = await limitedUser(t, { userName: 'jobhoarder', perms: [], dataScope: '5' })
    const auth = (await loadAuthContext(db(), user.userId))!
    const queued = []
    for (let i = 0; i < JOBS_PER_USER; i++) queued.push(await jobs().enqueue('test.steps', { steps: 1, stepMs: 1 }, auth))
    await expect(jobs().enqueue('test.steps', { steps: 1, stepMs: 1 }, auth)).rejects.toMatchObject({ status: 429, messageKey: 'job.tooMany' })
    for (const q of queued) await jobs().cancel(q.jobId)
    await jobs().enqueue('test.steps', { steps: 1, stepMs: 1 }, auth)
    await jobs().start()
  })

  it('when the worker stops: a resumable job goes back to the queue and runs again; any other fails clearly', async () => {
    const resumable = await jobs().enqueue('test.steps', { steps: 400, stepMs: 25 }, adminAuth)
    const once = await jobs().enqueue('test.once', { steps: 400, stepMs: 25 }, adminAuth)
    await waitFor(async () => (await get(resumable.jobId)).data.done > 0 && (await get(once.jobId)).data.done > 0, 'both under way')
    await jobs().stop()
    expect((await get(resumable.jobId)).data).toMatchObject({ state: 'queued', attempts: 0 })
    expect((await get(once.jobId)).data).toMatchObject({ state: 'failed', error: 'The server stopped while this job ran' })
    expect((await get(once.jobId, t.admin, 'zh_CN')).data.error).toBe('任务运行期间服务器已停止')
    await jobs().cancel(resumable.jobId)
    await jobs().start()
  })

  it('take over a dead instance’s jobs: a resumable one runs again to success, any other is failed, a cancelled one ends cancelled', async () => {
    const long = new Date(Date.now() - 3600_000).toISOString()
    const dead = { state: 'running', instanceId: 'gone:1:dead', heartbeatTime: long, startTime: long, createTime: long, attempts: 1, createById: adminAuth.userId, createBy: 'admin', deptId: adminAuth.deptId }
    const insert = (kind: string, extra: object = {}) =>
      db()
        .insertInto('sysJob')
        .values({ kind, params: JSON.stringify({ steps: 2, stepMs: 10 }), progressDone: 1, progressTotal: 2, ...dead, ...extra })
        .returning('jobId')
        .executeTakeFirstOrThrow()
    const resumable = await insert('test.steps')
    const once = await insert('test.once')
    const cancelled = await insert('test.steps', { cancelRequestedAt: long })
    const spent = await insert('test.steps', { attempts: 3 })
    expect((await until(resumable.jobId, ['succeeded'])).attempts).toBe(2)
    expect(await until(once.jobId, ['failed'])).toMatchObject({ error: 'The server stopped while this job ran' })
    expect((await until(cancelled.jobId, ['cancelled'])).finishTime).not.toBeNull()
    // Resumable, but its runs are spent: failed, not retried for ever.
    expect((await until(spent.jobId, ['failed'])).attempts).toBe(3)
    // Never left running.
    const still = await db().selectFrom('sysJob').select('jobId').where('instanceId', '=', 'gone:1:dead').where('state', '=', 'running').execute()
    expect(still).toEqual([])
  })
})

describe('exports as jobs', () => {
  const LOGIN_ROWS = 4500

  beforeAll(async () => {
    // More than two of the repository's batches of 2,000, so the job's progress moves.
    const now = Date.now()
    const rows = Array.from({ length: LOGIN_ROWS }, (_, i) => ({
      userName: `user${i % 37}`,
      ipaddr: `10.0.${i % 250}.${i % 200}`,
      loginLocation: '',
      browser: 'Chrome',
      os: 'Linux',
      status: i % 3 === 0 ? '1' : '0',
      msg: `attempt ${i}`,
      loginTime: new Date(now - i * 60_000).toISOString(),
    }))
    for (let i = 0; i < rows.length; i += 500) await db().insertInto('sysLoginLog').values(rows.slice(i, i + 500)).execute()
  })

  afterAll(async () => {
    await jobs().start()
  })

  it('write the same rows as the direct export, keep the file for download, and are in the operation log', async () => {
    const body = { status: '1', orderByColumn: 'loginTime', isAsc: 'descending' }
    const direct = await t.call({ method: 'POST', url: '/api/monitor/logininfor/export', token: t.admin, body })
    expect(direct.status).toBe(200)
    const started = await t.call<JobInfo>({ method: 'POST', url: '/api/monitor/logininfor/export/job', token: t.admin, body })
    expect(started.code, started.msg).toBe(200)
    expect(started.msg).toBe('The job is queued: follow it with the jobs button in the top bar')
    expect(started.data).toMatchObject({ kind: 'export', state: 'queued', title: 'Export Login log' })
    const job = await until(started.data.jobId, ['succeeded', 'failed'])
    expect(job.error).toBeNull()
    const expected = (await db().selectFrom('sysLoginLog').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', '1').executeTakeFirstOrThrow()).n
    expect(job).toMatchObject({ state: 'succeeded', done: Number(expected), total: Number(expected), result: { rows: Number(expected) }, fileName: expect.stringMatching(/^loginLog_\d{14}\.xlsx$/) })

    const file = await t.call({ url: `/api/monitor/job/${job.jobId}/file`, token: t.admin })
    expect(file.status).toBe(200)
    expect(String(file.headers['content-type'])).toContain('spreadsheetml')
    expect(String(file.headers['content-disposition'])).toContain(job.fileName)
    const [a, b] = [await readWorkbook(direct.raw), await readWorkbook(file.raw)]
    expect(b.name).toBe(a.name)
    expect(b.header).toEqual(a.header)
    expect(b.rows.length).toBe(Number(expected))
    expect(b.rows).toEqual(a.rows)
    // Kept: it downloads again, and a broken-off download resumes from where it stopped.
    expect((await t.call({ url: `/api/monitor/job/${job.jobId}/file`, token: t.admin })).raw.equals(file.raw)).toBe(true)
    const rest = await t.call({ url: `/api/monitor/job/${job.jobId}/file`, token: t.admin, headers: { range: 'bytes=100-' } })
    expect(rest.status).toBe(206)
    expect(rest.headers['content-range']).toBe(`bytes 100-${file.raw.length - 1}/${file.raw.length}`)
    expect(rest.raw.equals(file.raw.subarray(100))).toBe(true)

    await waitForOperLog(t, (r) => r.operUrl === '/api/monitor/logininfor/export/job' && r.status === '0')
  })

  it('export within the starter’s data scope, and check their right again when the job runs', async () => {
    // Users are scoped by department: a department-only exporter gets their department's users.
    const dept = await deptId(t, 'Sales Europe')
    for (const userName of ['jobseu1', 'jobseu2']) await addUser(t, { userName, deptId: dept })
    await addUser(t, { userName: 'jobsoutside', deptId: await deptId(t, 'Sales China') })
    const exporter = await limitedUser(t, { userName: 'jobexporter', perms: ['system:user:export'], dataScope: '3', dept: 'Sales Europe' })
    const direct = await t.call({ method: 'POST', url: '/api/system/user/export', token: exporter.token, body: {} })
    expect(direct.status).toBe(200)
    const started = await t.call<JobInfo>({ method: 'POST', url: '/api/system/user/export/job', token: exporter.token, body: {} })
    expect(started.code, started.msg).toBe(200)
    const job = await until(started.data.jobId, ['succeeded', 'failed'])
    expect(job.state).toBe('succeeded')
    const inDept = await db().selectFrom('sysUser').select('userId').where('deptId', '=', dept).where('delFlag', '=', '0').execute()
    expect(inDept.length).toBe(3)
    expect(job.done).toBe(inDept.length)
    const file = await t.call({ url: `/api/monitor/job/${job.jobId}/file`, token: exporter.token })
    expect((await readWorkbook(file.raw)).rows).toEqual((await readWorkbook(direct.raw)).rows)

    // Without the right when the job starts: the job fails, it does not export on an old grant.
    await jobs().stop()
    const queued = await t.call<JobInfo>({ method: 'POST', url: '/api/system/user/export/job', token: exporter.token, body: {} })
    expect(queued.code, queued.msg).toBe(200)
    await db().deleteFrom('sysRoleMenu').where('roleId', '=', exporter.roleId).execute()
    await jobs().start()
    const refused = await until(queued.data.jobId, ['succeeded', 'failed'])
    expect(refused).toMatchObject({ state: 'failed', fileName: null, error: 'You have no permission to do this (system:user:export)' })
    // And no route answers a file for it.
    expect((await t.call({ url: `/api/monitor/job/${queued.data.jobId}/file`, token: exporter.token })).status).toBe(404)
  })

  it('is refused without the export permission, like the direct export', async () => {
    const viewer = await limitedUser(t, { userName: 'jobviewer', perms: ['monitor:logininfor:list'], dataScope: '5' })
    const res = await t.call({ method: 'POST', url: '/api/monitor/logininfor/export/job', token: viewer.token, body: {} })
    expect(res.status).toBe(403)
  })
})
