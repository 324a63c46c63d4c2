import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BackupJobResult, RetentionJobResult } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { restoreBackup, verifyBackup } from '../src/ops/backup'
import { SCHEDULED_FOLDER } from '../src/ops/maintenance'
import { defineJobKind, SYSTEM_USER_ID, type JobRow } from '../src/platform/jobs'
import { loadAuthContext } from '../src/platform/rbac/auth-context'
import { resolveRowScope } from '../src/platform/rbac/data-scope'
import { addUser, createTestApp, type TestApp, waitForJobEnd } from './harness'

// The maintenance schedules (platform/jobs/schedule.ts) and their jobs (ops/maintenance): two apps on one
// database, as two instances of a deployment, each with a worker. Their schedulers are driven tick by
// tick here (schedules: off, so no timer ticks meanwhile) with the time a tick believes it is.

const HOUR = 3_600_000
const DAY = 24 * HOUR

defineJobKind({
  kind: 'test.whoAmI',
  run: async (ctx) => ({ userId: ctx.auth.userId, userName: ctx.auth.userName, isAdmin: ctx.auth.isAdmin, scope: await resolveRowScope(ctx.services.db, ctx.auth) }),
})

let a: TestApp
let b: TestApp

beforeAll(async () => {
  a = await createTestApp({ JOB_STALE_SECONDS: '2' })
  b = await createTestApp({ JOB_STALE_SECONDS: '2' }, { databaseUrl: a.databaseUrl })
})
afterAll(async () => {
  await b?.close()
  await a?.close()
})

const db = () => a.app.services.db
const setConfig = (key: string, value: string) => db().updateTable('sysConfig').set({ configValue: value }).where('configKey', '=', key).execute()
const jobsOf = (kind: string) => db().selectFrom('sysJob').selectAll().where('kind', '=', kind).orderBy('jobId').execute()
const scheduleRow = (key: string) => db().selectFrom('sysJobSchedule').selectAll().where('scheduleKey', '=', key).executeTakeFirst()
/** Both instances look at their schedules at the same moment, believing it is `at`. */
const tickBoth = (at: Date) => Promise.all([a.app.services.jobs.scheduler.tick(at), b.app.services.jobs.scheduler.tick(at)])
const finished = (jobId: number) => waitForJobEnd(db(), jobId)
const resultOf = <T>(row: JobRow) => JSON.parse(row.result ?? 'null') as T

describe('schedules', () => {
  it('queue a due job exactly once across two instances, none before it is due, none when turned off', async () => {
    await setConfig('monitor.backup.intervalHours', '0')
    const start = new Date()
    // Retention runs at the first tick (first run: now); both instances tick, one job is queued.
    await tickBoth(start)
    const first = await jobsOf('ops.retention')
    expect(first).toHaveLength(1)
    expect(first[0]).toMatchObject({ createById: SYSTEM_USER_ID, createBy: 'system' })
    const row = await scheduleRow('retention')
    expect(row).toMatchObject({ lastJobId: first[0]!.jobId, nextRunTime: new Date(start.getTime() + HOUR).toISOString() })
    // Not due yet: nothing more, however often they look.
    await tickBoth(new Date(start.getTime() + 30 * 60_000))
    await tickBoth(new Date(start.getTime() + HOUR - 1000))
    expect(await jobsOf('ops.retention')).toHaveLength(1)
    // Due: one more, from one instance only.
    await tickBoth(new Date(start.getTime() + HOUR + 1000))
    expect(await jobsOf('ops.retention')).toHaveLength(2)
    // Backups are off (0 hours): no row, no job, however late it is.
    expect(await scheduleRow('backup')).toBeUndefined()
    await tickBoth(new Date(start.getTime() + 30 * DAY))
    expect(await jobsOf('ops.backup')).toHaveLength(0)
    await Promise.all((await jobsOf('ops.retention')).map((j) => finished(j.jobId)))
  })

  it('run a backup one interval after the schedule starts, and take a changed interval at the next tick', async () => {
    await setConfig('monitor.retention.intervalHours', '0')
    await setConfig('monitor.backup.intervalHours', '24')
    const start = new Date()
    await tickBoth(start)
    expect(await scheduleRow('backup')).toMatchObject({ nextRunTime: new Date(start.getTime() + DAY).toISOString(), lastJobId: null })
    await tickBoth(new Date(start.getTime() + DAY - 1000))
    expect(await jobsOf('ops.backup')).toHaveLength(0)
    // Down to 2 hours: the next run is the schedule's start (no run yet) plus 2 hours.
    await setConfig('monitor.backup.intervalHours', '2')
    await tickBoth(new Date(start.getTime() + HOUR))
    expect((await scheduleRow('backup'))?.nextRunTime).toBe(new Date(start.getTime() + 2 * HOUR).toISOString())
    expect(await jobsOf('ops.backup')).toHaveLength(0)
    await tickBoth(new Date(start.getTime() + 2 * HOUR + 1000))
    const backups = await jobsOf('ops.backup')
    expect(backups).toHaveLength(1)
    const done = await finished(backups[0]!.jobId)
    expect(done.state).toBe('succeeded')
    await setConfig('monitor.backup.intervalHours', '0')
  })
})

describe('system jobs', () => {
  // From here on one worker runs the jobs: the backups must land in this app's BACKUP_DIR.
  beforeAll(() => b.app.services.jobs.stop())

  it('run with every permission and all data; no user job can be queued as the system user', async () => {
    const queued = await a.app.services.jobs.enqueueSystem('test.whoAmI')
    const done = await finished(queued.jobId)
    expect(done.state).toBe('succeeded')
    expect(resultOf(done)).toEqual({ userId: 0, userName: 'system', isAdmin: true, scope: { all: true } })

    const userId = await addUser(a, { userName: 'notsystem' })
    const auth = (await loadAuthContext(db(), userId))!
    await expect(a.app.services.jobs.enqueue('test.whoAmI', {}, { ...auth, userId: SYSTEM_USER_ID })).rejects.toThrow(/real user/)
    expect((await jobsOf('test.whoAmI')).filter((j) => j.createById === SYSTEM_USER_ID)).toHaveLength(1)
    // A user's own job runs with the user's rights, not the system's.
    const own = await finished((await a.app.services.jobs.enqueue('test.whoAmI', {}, auth)).jobId)
    expect(resultOf(own)).toMatchObject({ userId, isAdmin: false })
  })
})

describe('the backup job', () => {
  it('writes a backup that verifies, and keeps only monitor.backup.keep scheduled ones, never a manual one', async () => {
    const { backupDir, database } = a.app.services.config
    const manual = join(backupDir, 'velo-20200101T000000Z')
    mkdirSync(manual, { recursive: true })
    await setConfig('monitor.backup.keep', '2')
    // A stored file travels with the backup.
    const stored = join(a.app.services.config.storageDir, 'avatar', 'kept.txt')
    mkdirSync(join(stored, '..'), { recursive: true })
    writeFileSync(stored, 'kept')
    const results: BackupJobResult[] = []
    const before = existsSync(join(backupDir, SCHEDULED_FOLDER)) ? readdirSync(join(backupDir, SCHEDULED_FOLDER)).length : 0
    for (let i = 0; i < 3; i++) {
      const done = await finished((await a.app.services.jobs.enqueueSystem('ops.backup')).jobId)
      expect(done.error).toBeNull()
      results.push(resultOf<BackupJobResult>(done))
    }
    const kept = readdirSync(join(backupDir, SCHEDULED_FOLDER)).sort()
    expect(kept).toHaveLength(2)
    expect(kept.map((n) => `${SCHEDULED_FOLDER}/${n}`)).toEqual(results.slice(1).map((r) => r.name))
    // The third backup removed what was past the two newest (the earlier test's and the first of these).
    expect(results[2]!.removed).toContain(results[0]!.name)
    expect(before + 3 - results.flatMap((r) => r.removed).length).toBe(2)
    expect(existsSync(manual)).toBe(true)

    const newest = join(backupDir, results[2]!.name)
    const manifest = await verifyBackup(newest)
    expect(manifest.database.dialect).toBe(database.dialect)
    expect(manifest.files.map((f) => f.path)).toContain('avatar/kept.txt')
    expect(results[2]!).toMatchObject({ files: manifest.files.length })
    expect(results[2]!.sizeBytes).toBeGreaterThan(manifest.database.size)
    if (database.dialect === 'postgres') {
      // The dump is pg_restore's: its table of contents names the product's tables.
      const list = execFileSync('pg_restore', ['--list', join(newest, 'velo.dump')], { encoding: 'utf8' })
      expect(list).toMatch(/TABLE public sys_oper_log/)
      expect(list).toMatch(/TABLE DATA public sys_user/)
      // npm run restore is SQLite's: it points to pg_restore rather than half-restoring.
      await expect(restoreBackup(newest, join(tmpdir(), `velo-restore-${process.pid}`))).rejects.toThrow(/pg_restore/)
    }
  })
})

describe('the retention job', () => {
  it('removes only what is older than each target keeps, and answers the counts', async () => {
    await setConfig('monitor.operlog.retentionDays', '30')
    await setConfig('monitor.logininfor.retentionDays', '10')
    // The message log keeps 7 days and telemetry 30 (their seeded settings); finished jobs JOB_RETENTION_DAYS (7).
    const now = Date.now()
    const ago = (days: number) => new Date(now - days * DAY).toISOString()
    const oper = (days: number) => ({ title: `retention ${days}`, status: '0', operTime: ago(days) })
    await db().insertInto('sysOperLog').values([oper(31), oper(45), oper(29)]).execute()
    const login = (days: number) => ({ userName: `retention${days}`, status: '0', loginTime: ago(days) })
    await db().insertInto('sysLoginLog').values([login(11), login(12), login(13), login(9)]).execute()
    const message = (days: number) => ({ deviceId: null, direction: 'up', kind: 'status', topic: `retention/${days}`, payload: '{}', createTime: ago(days) })
    await db().insertInto('iotMessage').values([message(8), message(20), message(6)]).execute()
    await db()
      .insertInto('iotTelemetry')
      .values([31, 29].map((days) => ({ deviceId: 987654, receivedAt: ago(days) })))
      .execute()
    const job = (days: number) => ({ kind: 'test.whoAmI', state: 'succeeded', progressDone: 0, params: '{}', createById: 1, createBy: 'admin', createTime: ago(days), finishTime: ago(days), attempts: 1 })
    const [oldJob] = await db().insertInto('sysJob').values([job(8), job(6)]).returning('jobId').execute()
    const oldFolder = a.app.services.storage.resolve(`jobs/${oldJob!.jobId}`)!
    mkdirSync(oldFolder, { recursive: true })
    writeFileSync(join(oldFolder, 'result.xlsx'), 'old')

    const done = await finished((await a.app.services.jobs.enqueueSystem('ops.retention')).jobId)
    expect(done.state).toBe('succeeded')
    expect(resultOf<RetentionJobResult>(done).removed).toEqual({ operLog: 2, loginLog: 3, messageLog: 2, telemetry: 1, jobs: 1, positions: 0, uploadedLogs: 0, inactiveMembers: 0 })

    const titles = (await db().selectFrom('sysOperLog').select('title').where('title', 'like', 'retention %').execute()).map((r) => r.title)
    expect(titles).toEqual(['retention 29'])
    expect((await db().selectFrom('sysLoginLog').select('userName').where('userName', 'like', 'retention%').execute()).map((r) => r.userName)).toEqual(['retention9'])
    expect((await db().selectFrom('iotMessage').select('topic').where('topic', 'like', 'retention/%').execute()).map((r) => r.topic)).toEqual(['retention/6'])
    expect(await db().selectFrom('iotTelemetry').select('receivedAt').where('deviceId', '=', 987654).execute()).toHaveLength(1)
    expect(await db().selectFrom('sysJob').select('jobId').where('jobId', '=', oldJob!.jobId).executeTakeFirst()).toBeUndefined()
    expect(existsSync(oldFolder)).toBe(false)
    // Run again: nothing left to remove.
    const again = await finished((await a.app.services.jobs.enqueueSystem('ops.retention')).jobId)
    expect(resultOf<RetentionJobResult>(again).removed).toEqual({ operLog: 0, loginLog: 0, messageLog: 0, telemetry: 0, jobs: 0, positions: 0, uploadedLogs: 0, inactiveMembers: 0 })
  })
})
