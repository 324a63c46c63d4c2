import { existsSync } from 'node:fs'
import { basename, join } from 'node:path'
import { Readable } from 'node:stream'
import type { JobInfo, Paged } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import { defineJobKind } from '../src/platform/jobs'
import { loadAuthContext } from '../src/platform/rbac/auth-context'
import { limitedUser, useTestApp, waitForJobEnd } from './harness'
import { type JobStreamEvent, openStream } from './iot-helpers'

// Job outputs are their owner's (issue 34, section 3; docs/jobs.md): a job's file downloads for the
// user who started it and for admins, whoever else sees the job (monitor:job:list, monitor:job:cancel);
// /common/download never serves the jobs folder, however the name is spelt; and the list, each job
// and the event streams say per job whether the caller may download its file (mayDownload).

defineJobKind({
  kind: 'test.outputOf',
  title: () => 'Rows of the starter',
  run: async (ctx) => {
    await ctx.writeFile('rows.csv', Readable.from([`private rows of ${ctx.auth.userName}`]))
    return { rows: 1 }
  },
})

const t = useTestApp()

interface User {
  userId: number
  token: string
}
let starter: User
/** Holds only Monitoring › Jobs (monitor:job:list): sees everyone's jobs. */
let watcher: User
/** Monitoring › Jobs with its Cancel job button. */
let keeper: User
/** Signed in, with no right to jobs: sees only their own. */
let stranger: User
/** The admin's export of every member, started through the API. */
let adminJob: { jobId: number; resultFile: string }
/** A job of the starter's that left a file. */
let starterJob: { jobId: number; resultFile: string }

const NOT_YOURS_EN = 'Only the user who started this job, or an administrator, can download its file'
const NOT_YOURS_ZH = '只有启动该任务的用户或管理员才能下载其文件'
const JOB_FILE_EN = "This is a job's file: the user who started the job downloads it from the jobs list"
const JOB_FILE_ZH = '这是后台任务的文件：由启动该任务的用户在任务列表中下载'

async function starterRun(): Promise<{ jobId: number; resultFile: string }> {
  const auth = (await loadAuthContext(t.app.services.db, starter.userId))!
  const queued = await t.app.services.jobs.enqueue('test.outputOf', {}, auth)
  const row = await waitForJobEnd(t.app.services.db, queued.jobId)
  expect(row.state).toBe('succeeded')
  return { jobId: queued.jobId, resultFile: row.resultFile! }
}

const fileOf = (jobId: number, token: string, o: { lang?: 'en_US' | 'zh_CN'; headers?: Record<string, string> } = {}) =>
  t.call({ url: `/api/monitor/job/${jobId}/file`, token, ...o })

beforeAll(async () => {
  starter = await limitedUser(t, { userName: 'outstarter', perms: [], dataScope: '5' })
  watcher = await limitedUser(t, { userName: 'outwatcher', perms: ['monitor:job:list'], dataScope: '5' })
  keeper = await limitedUser(t, { userName: 'outkeeper', perms: ['monitor:job:list', 'monitor:job:cancel'], dataScope: '5' })
  stranger = await limitedUser(t, { userName: 'outstranger', perms: [], dataScope: '5' })

  const started = await t.call<JobInfo>({ method: 'POST', url: '/api/member/member/export/job', token: t.admin, body: {} })
  expect(started.code, started.msg).toBe(200)
  const row = await waitForJobEnd(t.app.services.db, started.data.jobId)
  expect(row.state, row.error ?? '').toBe('succeeded')
  adminJob = { jobId: started.data.jobId, resultFile: row.resultFile! }
  starterJob = await starterRun()
})

describe("GET /monitor/job/:id/file: a job's file is its starter's and the admins'", () => {
  it("refuses a holder of Monitoring › Jobs another user's file (403, in the caller's language), whatever the request", async () => {
    const admins = await fileOf(adminJob.jobId, t.admin)
    expect(admins.status).toBe(200)
    for (const viewer of [watcher, keeper]) {
      for (const job of [adminJob, starterJob]) {
        const en = await fileOf(job.jobId, viewer.token)
        expect(en.status).toBe(403)
        expect(en.msg).toBe(NOT_YOURS_EN)
        expect(en.raw.includes(admins.raw.subarray(0, 64))).toBe(false)
        expect(en.raw.toString()).not.toContain('private rows')
        const zh = await fileOf(job.jobId, viewer.token, { lang: 'zh_CN' })
        expect(zh.status).toBe(403)
        expect(zh.msg).toBe(NOT_YOURS_ZH)
        // A resumed download or a HEAD asks the same rule.
        const range = await fileOf(job.jobId, viewer.token, { headers: { range: 'bytes=0-' } })
        expect(range.status).toBe(403)
        expect(range.raw.toString()).not.toContain('private rows')
        const head = await t.app.inject({ method: 'HEAD', url: `/api/monitor/job/${job.jobId}/file`, headers: { authorization: viewer.token } })
        expect(head.statusCode).toBe(403)
      }
    }
    // A user who does not even see the job is told it does not exist, as before.
    const hidden = await fileOf(adminJob.jobId, stranger.token)
    expect(hidden.status).toBe(404)
    expect(hidden.msg).toBe('The job does not exist')
  })

  it('serves the starter their own file, and an admin anyone’s', async () => {
    const own = await fileOf(starterJob.jobId, starter.token)
    expect(own.status).toBe(200)
    expect(own.raw.toString()).toBe('private rows of outstarter')
    expect(String(own.headers['content-disposition'])).toContain('rows.csv')
    const byAdmin = await fileOf(starterJob.jobId, t.admin)
    expect(byAdmin.status).toBe(200)
    expect(byAdmin.raw.toString()).toBe('private rows of outstarter')
    const export_ = await fileOf(adminJob.jobId, t.admin)
    expect(export_.status).toBe(200)
    expect(String(export_.headers['content-type'])).toContain('spreadsheetml')
    // The starter sees only their own jobs: the admin's is not theirs to know of.
    expect((await fileOf(adminJob.jobId, starter.token)).status).toBe(404)
  })
})

describe('/common/download never serves the jobs folder', () => {
  /** Spellings of a job file's stored name, as sent on the wire (encoded where they have to be). */
  const spellings = (name: string): [string, string][] => {
    const rest = name.slice('jobs/'.length)
    const storageFolder = basename(t.app.services.config.storageDir)
    return [
      ['the stored name, encoded', encodeURIComponent(name)],
      ['the stored name as it is', name],
      ['jobs%2F… with the slashes encoded', name.replace(/\//g, '%2F')],
      ['./jobs/…', encodeURIComponent(`./${name}`)],
      ['upload/../jobs/…', encodeURIComponent(`upload/../${name}`)],
      ['upload/..%2Fjobs/…', `upload%2F..%2F${name.replace(/\//g, '%2F')}`],
      ['jobs//…', encodeURIComponent(`jobs//${rest}`)],
      ['jobs/./…', encodeURIComponent(`jobs/./${rest}`)],
      ['out of STORAGE_DIR and back in', encodeURIComponent(`../${storageFolder}/${name}`)],
      ['JOBS/… (a file system that ignores case)', encodeURIComponent(`JOBS/${rest}`)],
      ['jobs./… (one that drops trailing dots)', encodeURIComponent(`jobs./${rest}`)],
      ['/jobs/… (absolute)', encodeURIComponent(`/${name}`)],
      ['../jobs/…', encodeURIComponent(`../${name}`)],
      ['..', '..'],
      ['the jobs folder itself', 'jobs'],
      ['the job’s folder', encodeURIComponent(name.slice(0, name.lastIndexOf('/')))],
      ['double-encoded', encodeURIComponent(encodeURIComponent(name))],
    ]
  }

  it("refuses every spelling of a job file's name, to its starter and to an admin, and removes nothing", async () => {
    for (const [job, content] of [
      [starterJob, 'private rows of outstarter'],
      [adminJob, null],
    ] as const) {
      const full = join(t.app.services.config.storageDir, job.resultFile)
      for (const [label, query] of spellings(job.resultFile)) {
        for (const token of [starter.token, t.admin, watcher.token]) {
          for (const extra of ['', '&delete=true']) {
            const res = await t.call({ url: `/api/common/download?fileName=${query}${extra}`, token })
            expect(res.status, `${label}${extra}`).not.toBe(200)
            expect([400, 403, 404], `${label}${extra}: ${res.status} ${res.msg}`).toContain(res.status)
            if (content) expect(res.raw.toString(), label).not.toContain(content)
            expect(String(res.headers['content-disposition'] ?? ''), label).toBe('')
          }
        }
        expect(existsSync(full), `${label} left the file`).toBe(true)
      }
    }
  })

  it("says why in the caller's language when the name is a job's", async () => {
    const en = await t.call({ url: `/api/common/download?fileName=${encodeURIComponent(`./${starterJob.resultFile}`)}`, token: starter.token })
    expect(en.status).toBe(403)
    expect(en.msg).toBe(JOB_FILE_EN)
    const zh = await t.call({ url: `/api/common/download?fileName=${encodeURIComponent(adminJob.resultFile)}`, token: t.admin, lang: 'zh_CN' })
    expect(zh.status).toBe(403)
    expect(zh.msg).toBe(JOB_FILE_ZH)
    // The job's own route still serves it to them.
    expect((await fileOf(starterJob.jobId, starter.token)).status).toBe(200)
  })
})

describe('the routes that serve stored files by name never serve a job\'s file, even one a row names', () => {
  it('refuses it on the entity file routes (download, link) and the app’s public files', async () => {
    const db = t.app.services.db
    const name = starterJob.resultFile
    const now = new Date().toISOString()
    // As if the name had got into the table of uploads and into a shown row (it cannot through the API).
    await db
      .insertInto('sysFile')
      .values({ fileName: name, originalName: 'manual.pdf', size: 1, contentType: 'application/pdf', sha256: 'x', md5: 'x', crc8: '00', crc8Variant: 'SMBUS', entity: 'userHelp', field: 'document', createBy: 'admin', createTime: now })
      .execute()
    await db.insertInto('cntUserHelp').values({ title: 'Manual', type: 'manual', document: name, language: 'en_US', status: '0', createBy: 'admin', createTime: now }).execute()

    const direct = await t.call({ url: `/api/content/userHelp/file/document/${name}`, token: t.admin })
    expect(direct.status).toBe(404)
    expect(direct.raw.toString()).not.toContain('private rows')
    // The link route checks the reader's rights and signs a name; the file it names is still refused.
    const link = await t.call<{ url: string }>({ url: `/api/content/userHelp/file/document/link/${name}`, token: t.admin })
    expect(link.status, link.msg).toBe(200)
    const signed = await t.call({ url: String(link.data.url) })
    expect(signed.status).toBe(404)
    expect(signed.raw.toString()).not.toContain('private rows')
    const app = await t.call({ url: `/api/app/v1/files/help/document/${name}` })
    expect(app.status).toBe(404)
    expect(app.raw.toString()).not.toContain('private rows')
  })
})

describe("the jobs list offers a file's download only where the caller may download it", () => {
  type Row = { jobId: number; fileName: string | null; mayDownload: boolean }
  const list = async (token: string, body: object = {}) => {
    const res = await t.call<Paged<Row>>({ method: 'POST', url: '/api/monitor/job/list', token, body: { pageSize: 100, ...body } })
    expect(res.code, res.msg).toBe(200)
    return res.data.rows
  }
  const rowOf = (rows: Row[], jobId: number) => rows.find((r) => r.jobId === jobId)

  it("shows a viewer of everyone's jobs every job, its file's name, and no download of others' files", async () => {
    for (const viewer of [watcher, keeper]) {
      const rows = await list(viewer.token)
      for (const job of [adminJob, starterJob]) {
        expect(rowOf(rows, job.jobId)).toMatchObject({ fileName: expect.any(String), mayDownload: false })
        const one = await t.call({ url: `/api/monitor/job/${job.jobId}`, token: viewer.token })
        expect(one.data).toMatchObject({ jobId: job.jobId, mayDownload: false })
      }
    }
  })

  it('offers the starter their own files, and an admin every file', async () => {
    expect(rowOf(await list(starter.token), starterJob.jobId)).toMatchObject({ fileName: 'rows.csv', mayDownload: true })
    expect(rowOf(await list(starter.token, { mine: true }), starterJob.jobId)).toMatchObject({ mayDownload: true })
    const admins = await list(t.admin)
    expect(rowOf(admins, adminJob.jobId)).toMatchObject({ mayDownload: true })
    expect(rowOf(admins, starterJob.jobId)).toMatchObject({ mayDownload: true })
    // A job with no file offers none to anyone.
    const jobs = t.app.services.jobs
    await jobs.stop()
    try {
      const queued = await jobs.enqueue('test.outputOf', {}, (await loadAuthContext(t.app.services.db, starter.userId))!)
      const cancelled = await t.call({ method: 'POST', url: `/api/monitor/job/${queued.jobId}/cancel`, token: starter.token })
      expect(cancelled.data).toMatchObject({ state: 'cancelled', fileName: null, mayDownload: false })
      expect(rowOf(await list(t.admin), queued.jobId)).toMatchObject({ fileName: null, mayDownload: false })
    } finally {
      await jobs.start()
    }
  })

  it("says so in the events too: everyone's stream offers a viewer nothing of others, the starter's own stream offers their file", async () => {
    const all = await openStream<JobStreamEvent>(t.app, '/api/monitor/job/stream/all', watcher.token)
    const allAdmin = await openStream<JobStreamEvent>(t.app, '/api/monitor/job/stream/all', t.admin)
    const own = await openStream<JobStreamEvent>(t.app, '/api/monitor/job/stream', starter.token)
    try {
      const job = await starterRun()
      const done = (s: typeof all) => s.next((e) => e.event === 'job' && e.data.jobId === job.jobId && e.data.state === 'succeeded', `job ${job.jobId} succeeding`)
      expect((await done(all)).data).toMatchObject({ fileName: 'rows.csv', mayDownload: false })
      expect((await done(allAdmin)).data).toMatchObject({ fileName: 'rows.csv', mayDownload: true })
      expect((await done(own)).data).toMatchObject({ fileName: 'rows.csv', mayDownload: true })
    } finally {
      await Promise.all([all.close(), allAdmin.close(), own.close()])
    }
  })
})
