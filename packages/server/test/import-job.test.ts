import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import ExcelJS from 'exceljs'
import { type JobInfo, systemEntities } from '@velo/shared'
import { afterAll, describe, expect, it } from 'vitest'
import { importWorkbook } from '../src/platform/crud/import'
import { EntityRepository } from '../src/platform/crud/repository'
import { INCOMING_FOLDER } from '../src/platform/jobs'
import { loadAuthContext } from '../src/platform/rbac/auth-context'
import { resolveRowScope } from '../src/platform/rbac/data-scope'
import { idOf, type ImportRefusal, limitedUser, multipart, snapshot, useTestApp, waitForOperLog } from './harness'
import { waitFor } from './iot-helpers'

// POST {path}/import/job: the direct import's form, run as a job. The file is checked before a job is
// queued, the job imports all rows or none with the direct import's messages, its problems by row
// reach the browser in the job's result, and it is cancelled or resumed without importing twice.

// Short heartbeats, so a dead instance's job is taken over within a second or two.
const t = useTestApp({ JOB_STALE_SECONDS: '2' })
const db = () => t.app.services.db
const jobs = () => t.app.services.jobs
const HEADER = ['Dictionary name', 'Dictionary type']
const FAILED_ONE = 'Import failed: 1 row has errors, nothing was imported'

afterAll(async () => {
  await jobs().start()
})

async function workbook(rows: string[][], header = HEADER): Promise<Buffer> {
  const wb = new ExcelJS.Workbook()
  const ws = wb.addWorksheet('Dictionaries')
  ws.addRow(header)
  for (const row of rows) ws.addRow(row)
  return Buffer.from(await wb.xlsx.writeBuffer())
}

const dicts = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => [`${prefix} ${i}`, `${prefix}_${i}`])

function send<T = unknown>(url: string, file: Buffer, o: { name?: string; updateSupport?: boolean; token?: string; lang?: 'en_US' | 'zh_CN' } = {}) {
  const form = multipart([...(o.updateSupport ? [{ field: 'updateSupport', value: 'true' }] : []), { name: o.name ?? 'dictionaries.xlsx', bytes: file }])
  return t.call<T>({ method: 'POST', url, token: o.token ?? t.admin, lang: o.lang, ...form })
}
const importNow = (file: Buffer, o: Parameters<typeof send>[2] = {}) => send<ImportRefusal>('/api/system/dict/import', file, o)
const importJob = (file: Buffer, o: Parameters<typeof send>[2] = {}) => send<JobInfo>('/api/system/dict/import/job', file, o)

/** A job as GET /monitor/job/:id answers it, its result read as `R`. */
const getJob = <R = unknown>(id: number, lang?: 'en_US' | 'zh_CN') => t.call<JobInfo & { result: R }>({ url: `/api/monitor/job/${id}`, token: t.admin, lang })
const until = async <R = unknown>(id: number, states = ['succeeded', 'failed', 'cancelled']) =>
  waitFor(async () => {
    const res = await getJob<R>(id)
    return states.includes(res.data?.state) ? res.data : undefined
  }, `job ${id} ${states.join('/')}`)

const jobCount = async () => Number((await db().selectFrom('sysJob').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
const storedTypes = async (prefix: string) =>
  (await db().selectFrom('sysDictType').select('dictType').where('dictType', 'like', `${prefix}_%`).orderBy('dictType').execute()).map((r) => r.dictType)
const incoming = () => {
  const folder = t.app.services.storage.resolve(INCOMING_FOLDER)!
  return existsSync(folder) ? readdirSync(folder) : []
}

describe('imports as jobs', () => {
  it('import every row of a valid file, with the direct import’s result, progress and operation-log row; the file is kept', async () => {
    // The same file imported directly and as a job, with update, answers the same; new rows too.
    const direct = await importNow(await workbook(dicts('direct', 30)))
    expect(direct.data).toEqual({ inserted: 30, updated: 0 })
    const file = await workbook(dicts('asjob', 30))
    const started = await importJob(file)
    expect(started.code, started.msg).toBe(200)
    expect(started.msg).toBe('The job is queued: follow it with the jobs button in the top bar')
    expect(started.data).toMatchObject({ kind: 'import', state: 'queued', title: 'Import Dictionary' })
    const job = await until(started.data.jobId)
    expect(job).toMatchObject({ state: 'succeeded', error: null, done: 30, total: 30, fileName: 'dictionaries.xlsx' })
    expect(job.result).toEqual(direct.data)
    expect(await storedTypes('asjob')).toHaveLength(30)
    expect((await getJob(job.jobId, 'zh_CN')).data.title).toBe('导入字典类型')

    const again = await workbook(dicts('direct', 30))
    const updatedNow = await importNow(again, { updateSupport: true })
    const updatedJob = await until((await importJob(again, { updateSupport: true })).data.jobId)
    expect(updatedNow.data).toEqual({ inserted: 0, updated: 30 })
    expect(updatedJob.result).toEqual(updatedNow.data)

    // The uploaded file is the job's file; nothing is left waiting in the incoming folder.
    const kept = await t.call({ url: `/api/monitor/job/${job.jobId}/file`, token: t.admin })
    expect(kept.status).toBe(200)
    expect(kept.raw.equals(file)).toBe(true)
    expect(incoming()).toEqual([])

    // The request that queued it, and the import itself, each have their row.
    await waitForOperLog(t, (r) => r.operUrl === '/api/system/dict/import/job' && r.requestMethod === 'POST' && r.status === '0')
    const log = await waitForOperLog(t, (r) => r.requestMethod === 'JOB' && r.operParam.includes(`"jobId":${job.jobId},`))
    expect(log).toMatchObject({ title: 'Dictionary', businessType: '6', status: '0', operName: 'admin', operUrl: '/api/system/dict/import/job' })
    expect(JSON.parse(log.jsonResult)).toMatchObject({ msg: 'Imported: 30 added, 0 updated', data: { inserted: 30, updated: 0 } })
  })

  it('fail on a bad row with the direct import’s message and problems, and import nothing', async () => {
    const file = await workbook([...dicts('badfile', 3), ['Bad one', 'Not A Type']])
    const direct = await importNow(file, { lang: 'zh_CN' })
    expect(direct.status).toBe(400)
    const before = await snapshot(t, 'sysDictType')
    const started = await importJob(file, { lang: 'zh_CN' })
    expect(started.code, started.msg).toBe(200)
    const job = await until<ImportRefusal>(started.data.jobId)
    expect(job).toMatchObject({ state: 'failed', fileName: null, total: 4 })
    // The problems as the direct import answers them (in the starter's language), the message in the reader's.
    expect(job.result).toEqual({ errors: direct.data.errors })
    expect(job.result.errors).toEqual([{ row: 5, field: 'dictType', message: expect.stringContaining('字典类型必须以字母开头') }])
    expect(job.error).toBe(FAILED_ONE)
    expect((await getJob(job.jobId, 'zh_CN')).data.error).toBe(direct.msg)
    expect(await snapshot(t, 'sysDictType')).toEqual(before)
    expect((await t.call({ url: `/api/monitor/job/${job.jobId}/file`, token: t.admin })).status).toBe(404)

    const log = await waitForOperLog(t, (r) => r.requestMethod === 'JOB' && r.operParam.includes(`"jobId":${job.jobId},`))
    expect(log).toMatchObject({ status: '1', errorMsg: direct.msg })
  })

  it('is refused without the import permission: 403, and no job', async () => {
    const viewer = await limitedUser(t, { userName: 'importviewer', perms: ['system:dict:list', 'system:dict:export'], dataScope: '1' })
    const jobsBefore = await jobCount()
    const res = await importJob(await workbook(dicts('refused', 2)), { token: viewer.token })
    expect(res.status).toBe(403)
    expect(res.msg).toBe('You have no permission to do this (system:dict:import)')
    expect(await jobCount()).toBe(jobsBefore)
    expect(await storedTypes('refused')).toEqual([])
  })

  it('refuses what is not a workbook, or too large, with the direct import’s messages before any job is queued', async () => {
    const jobsBefore = await jobCount()
    const xlsx = await workbook(dicts('notqueued', 2))
    const cases: [string, Buffer, number, string][] = [
      ['dictionaries.csv', Buffer.from('Dictionary name,Dictionary type\nA,a\n'), 400, 'Only .xls and .xlsx files can be imported'],
      ['dictionaries.xlsx', Buffer.from('Dictionary name,Dictionary type\nA,a\n'), 400, 'The file could not be read as an Excel workbook'],
      ['dictionaries.xls', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), 400, 'This is an old Excel 97-2003 (.xls) workbook: please save it as .xlsx and import again'],
      ['dictionaries.xlsx', Buffer.alloc(0), 400, 'The file could not be read as an Excel workbook'],
      ['dictionaries.txt', xlsx, 400, 'Only .xls and .xlsx files can be imported'],
    ]
    for (const [name, bytes, status, msg] of cases) {
      const direct = await importNow(bytes, { name })
      const res = await importJob(bytes, { name })
      expect([res.status, res.msg], name).toEqual([status, msg])
      expect([direct.status, direct.msg], name).toEqual([status, msg])
    }
    // No file at all, and two files.
    const none = multipart([{ field: 'updateSupport', value: 'true' }])
    expect((await t.call({ method: 'POST', url: '/api/system/dict/import/job', token: t.admin, ...none })).msg).toBe('Please choose a file')
    const two = multipart([
      { name: 'a.xlsx', bytes: xlsx },
      { name: 'b.xlsx', bytes: xlsx },
    ])
    expect((await t.call({ method: 'POST', url: '/api/system/dict/import/job', token: t.admin, ...two })).msg).toBe('Only one file can be uploaded at a time')

    // Past IMPORT_MAX_MB: 413, as the direct import.
    const config = t.app.services.config as { importMaxBytes: number }
    const max = config.importMaxBytes
    config.importMaxBytes = 1000
    try {
      const big = await workbook(dicts('toolarge', 200))
      expect(big.length).toBeGreaterThan(1000)
      const res = await importJob(big)
      expect(res.status).toBe(413)
      expect(res.msg).toMatch(/^The file is larger than [\d.]+ MB$/)
      const direct = await importNow(big)
      expect([direct.status, direct.msg]).toEqual([res.status, res.msg])
    } finally {
      config.importMaxBytes = max
    }

    expect(await jobCount()).toBe(jobsBefore)
    // The refused uploads' partial files go as their streams close, which may be just after the answer.
    await waitFor(() => incoming().length === 0, 'the refused uploads removed', 5000).catch(() => undefined)
    expect(incoming()).toEqual([])
    expect(await storedTypes('notqueued')).toEqual([])

    // A zip that is no workbook passes the signature check: the job reads it, and fails as the direct import does.
    const zipOnly = Buffer.from('PK\u0003\u0004 not a workbook')
    const direct = await importNow(zipOnly)
    expect([direct.status, direct.msg]).toEqual([400, 'The file could not be read as an Excel workbook'])
    const queued = await importJob(zipOnly)
    expect(queued.code, queued.msg).toBe(200)
    expect(await until(queued.data.jobId)).toMatchObject({ state: 'failed', error: direct.msg, result: null })
  })

  it('cancelled before it runs, imports nothing and keeps nothing', async () => {
    await jobs().stop()
    const started = await importJob(await workbook(dicts('cancelled', 5)))
    expect(started.code, started.msg).toBe(200)
    const cancelled = await t.call<JobInfo>({ method: 'POST', url: `/api/monitor/job/${started.data.jobId}/cancel`, token: t.admin })
    expect(cancelled.data).toMatchObject({ state: 'cancelled' })
    await jobs().start()
    await new Promise((r) => setTimeout(r, 300))
    expect((await getJob(started.data.jobId)).data).toMatchObject({ state: 'cancelled', startTime: null, fileName: null })
    expect(await storedTypes('cancelled')).toEqual([])
  })

  // On SQLite the import's transaction holds the one writer, so a cancel (a write) waits for its commit.
  it.runIf(!!process.env.TEST_DATABASE_URL)('cancelled while it writes its rows (PostgreSQL), rolls back: nothing imported, nothing kept', async () => {
    // Enough rows that the cancel comes before the end: new rows go in batches (ADD_MANY_ROWS to an INSERT), quickly.
    const started = await importJob(await workbook(dicts('midway', 40_000)))
    expect(started.code, started.msg).toBe(200)
    const jobId = started.data.jobId
    await waitFor(async () => (await getJob(jobId)).data.done > 0, 'rows being written')
    const asked = await t.call({ method: 'POST', url: `/api/monitor/job/${jobId}/cancel`, token: t.admin })
    expect(asked.code, asked.msg).toBe(200)
    const ended = await until(jobId)
    expect(ended).toMatchObject({ state: 'cancelled', fileName: null })
    expect(ended.done).toBeLessThan(40_000)
    expect(await storedTypes('midway')).toEqual([])
    const log = await waitForOperLog(t, (r) => r.requestMethod === 'JOB' && r.operParam.includes(`"jobId":${jobId},`))
    expect(log).toMatchObject({ status: '1', errorMsg: 'Job cancelled' })
  })

  it('stops at its next row when aborted, inside the transaction: nothing of the rows written so far is kept', async () => {
    const admin = (await loadAuthContext(db(), await idOf(t, 'user', 'admin')))!
    const repo = new EntityRepository(db(), systemEntities.dictType)
    const controller = new AbortController()
    const seen: number[] = []
    const run = importWorkbook({
      repo,
      db: db(),
      bytes: await workbook(dicts('aborted', 50)),
      updateSupport: false,
      auth: admin,
      scope: await resolveRowScope(db(), admin),
      lang: 'en_US',
      progress: (done, total) => {
        seen.push(done)
        expect(total).toBe(50)
        if (done === 20) controller.abort(new Error('cancelled by the test'))
      },
      signal: controller.signal,
    })
    await expect(run).rejects.toThrow('cancelled by the test')
    expect(seen.at(-1)).toBe(20)
    expect(await storedTypes('aborted')).toEqual([])
  })

  it('resume after its server died: a run that had not committed imports again; one that had answers its result and imports nothing twice', async () => {
    const admin = (await loadAuthContext(db(), await idOf(t, 'user', 'admin')))!
    const long = new Date(Date.now() - 3600_000).toISOString()
    const storage = t.app.services.storage
    const deadJob = async (prefix: string, result: unknown) => {
      const upload = `${INCOMING_FOLDER}/${prefix}.xlsx`
      const full = storage.resolve(upload)!
      mkdirSync(dirname(full), { recursive: true })
      writeFileSync(full, await workbook(dicts(prefix, 4)))
      const params = { entity: 'dictType', upload, fileName: `${prefix}.xlsx`, updateSupport: false, lang: 'en_US', request: { url: '/api/system/dict/import/job', route: 'POST /api/system/dict/import/job', ip: '127.0.0.1', id: 'req-1' } }
      return db()
        .insertInto('sysJob')
        .values({
          kind: 'import',
          state: 'running',
          params: JSON.stringify(params),
          result: result === null ? null : JSON.stringify(result),
          progressDone: 2,
          progressTotal: 4,
          instanceId: 'gone:1:dead',
          heartbeatTime: long,
          startTime: long,
          createTime: long,
          attempts: 1,
          createById: admin.userId,
          createBy: 'admin',
          deptId: admin.deptId,
        })
        .returning('jobId')
        .executeTakeFirstOrThrow()
    }
    const uncommitted = await deadJob('resumed', null)
    // Committed with its rows before the server died: the rows are there, and so is the mark.
    const committed = await deadJob('committed', { inserted: 4, updated: 0 })
    const again = await until(uncommitted.jobId)
    expect(again).toMatchObject({ state: 'succeeded', attempts: 2, result: { inserted: 4, updated: 0 }, fileName: 'resumed.xlsx' })
    expect(await storedTypes('resumed')).toHaveLength(4)
    const answered = await until(committed.jobId)
    expect(answered).toMatchObject({ state: 'succeeded', attempts: 2, result: { inserted: 4, updated: 0 }, fileName: 'committed.xlsx' })
    expect(await storedTypes('committed')).toEqual([])
  })
})
