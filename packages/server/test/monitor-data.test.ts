import { randomBytes } from 'node:crypto'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MAINTENANCE_SCHEDULES, RETENTION_TARGETS, type BackupEntry, type DatabaseUsage, type MaintenanceSchedule, type RetentionSetting } from '@velo/shared'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app'
import { loadConfig } from '../src/config'
import type { Db } from '../src/db/database'
import { SEED_VERSION } from '../src/seed'
import { ADMIN_PASSWORD, addRole, addUser, freshDatabase, snapshot, useTestApp, waitForJobEnd, waitForOperLog } from './harness'

// Monitoring › Data and backups (modules/monitor/data.ts): what the page reads, who may read it, and Run now.

const t = useTestApp({ JOB_STALE_SECONDS: '2' })
const db = () => t.app.services.db
let reader = ''
let runner = ''
let nobody = ''

const get = <T = unknown>(url: string, token = t.admin, lang?: 'en_US' | 'zh_CN') => t.call<T>({ url: `/api/monitor/data/${url}`, token, lang })
const runNow = (key: string, token = t.admin, lang?: 'en_US' | 'zh_CN') => t.call<{ jobId: number }>({ method: 'POST', url: `/api/monitor/data/schedules/${key}/run`, token, lang })
const finished = (jobId: number) => waitForJobEnd(db(), jobId)

beforeAll(async () => {
  // A big operation log (random text: PostgreSQL compresses a repeated one to nothing), among the 20 largest tables of a fresh database for sure; before the first
  // look at the database, whose figures are then kept for a minute.
  const rows = Array.from({ length: 500 }, (_, i) => ({ title: `usage ${i}`, status: '0', operParam: randomBytes(1500).toString('base64'), operTime: new Date().toISOString() }))
  for (let i = 0; i < rows.length; i += 100) await db().insertInto('sysOperLog').values(rows.slice(i, i + 100)).execute()
  // PostgreSQL's row counts are its statistics': analyze brings them up to date, as autovacuum would.
  if (t.app.services.dialect === 'postgres') await sql`analyze sys_oper_log`.execute(db())
  await addRole(t, { roleKey: 'dataReader', dataScope: '1', perms: ['monitor:data:list'] })
  await addRole(t, { roleKey: 'dataRunner', dataScope: '1', perms: ['monitor:data:list', 'monitor:data:run'] })
  await addUser(t, { userName: 'dataReader', roleKeys: ['dataReader'] })
  await addUser(t, { userName: 'dataRunner', roleKeys: ['dataRunner'] })
  await addUser(t, { userName: 'dataNobody', roleKeys: ['common'] })
  reader = await t.login('dataReader', 'secret12')
  runner = await t.login('dataRunner', 'secret12')
  nobody = await t.login('dataNobody', 'secret12')
})

describe('permissions', () => {
  it('every route needs monitor:data:list, Run now monitor:data:run', async () => {
    for (const url of ['database', 'schedules', 'retention', 'backups']) {
      expect((await get(url, nobody)).status).toBe(403)
      expect((await get(url, reader)).status).toBe(200)
    }
    const before = await snapshot(t, 'sysJob')
    expect((await runNow('retention', reader)).status).toBe(403)
    expect((await runNow('retention', nobody)).status).toBe(403)
    expect(await snapshot(t, 'sysJob')).toEqual(before)
  })
})

describe('GET /monitor/data/database', () => {
  it('answers the size and the largest tables, the operation log among them', async () => {
    const res = await get('database')
    expect(res.status).toBe(200)
    const usage = res.data as DatabaseUsage
    expect(usage.dialect).toBe(t.app.services.dialect)
    expect(usage.sizeBytes).toBeGreaterThan(0)
    expect(usage.tables.length).toBeLessThanOrEqual(20)
    expect(usage.tableCount).toBeGreaterThan(usage.tables.length)
    const sizes = usage.tables.map((x) => x.totalBytes)
    expect(sizes).toEqual([...sizes].sort((x, y) => y - x))
    const operLog = usage.tables.find((x) => x.table === 'sys_oper_log')
    expect(operLog).toBeDefined()
    expect(operLog!.dataBytes).toBeGreaterThan(500 * 1500)
    expect(operLog!.indexBytes).toBeGreaterThan(0)
    expect(operLog!.totalBytes).toBe(operLog!.dataBytes + operLog!.indexBytes)
    expect(operLog!.rows).toBeGreaterThanOrEqual(500)
    // Measured once a minute: the second answer is the first.
    expect((await get<DatabaseUsage>('database')).data.measuredAt).toBe(usage.measuredAt)
  })
})

describe('GET /monitor/data/retention', () => {
  it('answers every target with its days and where they are set', async () => {
    await db().updateTable('sysConfig').set({ configValue: '90' }).where('configKey', '=', 'monitor.operlog.retentionDays').execute()
    const res = await get('retention')
    expect(res.status).toBe(200)
    const settings = res.data as RetentionSetting[]
    expect(settings.map((s) => s.target)).toEqual([...RETENTION_TARGETS])
    expect(settings).toEqual([
      { target: 'operLog', days: 90, configKey: 'monitor.operlog.retentionDays', fromEnvironment: false },
      { target: 'loginLog', days: 365, configKey: 'monitor.logininfor.retentionDays', fromEnvironment: false },
      { target: 'messageLog', days: 7, configKey: 'iot.message.retentionDays', fromEnvironment: false },
      { target: 'telemetry', days: 30, configKey: 'iot.telemetry.retentionDays', fromEnvironment: false },
      { target: 'jobs', days: 7, configKey: 'JOB_RETENTION_DAYS', fromEnvironment: true },
      { target: 'positions', days: 90, configKey: 'privacy.retention.positionDays', fromEnvironment: false },
      { target: 'uploadedLogs', days: 30, configKey: 'privacy.retention.uploadedLogDays', fromEnvironment: false },
      {
        target: 'inactiveMembers',
        days: expect.any(Number),
        years: 3,
        configKey: 'privacy.retention.inactiveMemberYears',
        fromEnvironment: false,
        notice: { days: 30, configKey: 'privacy.retention.erasureNoticeDays' },
      },
    ])
    // Three calendar years, one of them maybe a leap year's.
    expect([1095, 1096]).toContain(settings.at(-1)!.days)
  })

  it('follows the privacy retention settings as they are changed in the configuration', async () => {
    const set = (key: string, value: string) => db().updateTable('sysConfig').set({ configValue: value }).where('configKey', '=', key).execute()
    await set('privacy.retention.positionDays', '45')
    await set('privacy.retention.uploadedLogDays', '14')
    await set('privacy.retention.inactiveMemberYears', '1')
    await set('privacy.retention.erasureNoticeDays', '60')
    try {
      const settings = (await get<RetentionSetting[]>('retention', reader)).data
      const of = (target: string) => settings.find((s) => s.target === target)
      expect(of('positions')).toMatchObject({ days: 45 })
      expect(of('uploadedLogs')).toMatchObject({ days: 14 })
      expect(of('inactiveMembers')).toMatchObject({ years: 1, notice: { days: 60 } })
      expect([365, 366]).toContain(of('inactiveMembers')!.days)
    } finally {
      await set('privacy.retention.positionDays', '90')
      await set('privacy.retention.uploadedLogDays', '30')
      await set('privacy.retention.inactiveMemberYears', '3')
      await set('privacy.retention.erasureNoticeDays', '30')
    }
  })
})

describe('Run now and the schedules', () => {
  it('queues the job as the caller, audited; a second one is refused while the first waits; the schedule shows it', async () => {
    const empty = (await get('schedules')).data as MaintenanceSchedule[]
    expect(empty.map((s) => s.key)).toEqual([...MAINTENANCE_SCHEDULES])
    expect(empty[0]).toMatchObject({ key: 'backup', kind: 'ops.backup', intervalHours: 24, configKey: 'monitor.backup.intervalHours', lastRun: null })
    expect(empty[1]).toMatchObject({ key: 'retention', kind: 'ops.retention', intervalHours: 1, configKey: 'monitor.retention.intervalHours', lastRun: null })

    // No worker: the first job stays queued.
    await t.app.services.jobs.stop()
    const first = await runNow('retention', runner)
    expect(first.status).toBe(200)
    expect(first.data).toMatchObject({ kind: 'ops.retention', state: 'queued', createBy: 'dataRunner', title: 'Data retention' })
    await waitForOperLog(t, (r) => r.operUrl === '/api/monitor/data/schedules/retention/run' && r.operName === 'dataRunner' && r.status === '0')
    const second = await runNow('retention', t.admin, 'zh_CN')
    expect(second.status).toBe(409)
    expect(second.msg).toContain('数据保留')
    expect((await runNow('retention')).msg).toMatch(/already queued or running/)
    expect(await db().selectFrom('sysJob').select('jobId').where('kind', '=', 'ops.retention').execute()).toHaveLength(1)

    await t.app.services.jobs.start()
    const done = await finished(first.data.jobId)
    expect(done.state).toBe('succeeded')
    const schedules = (await get('schedules', reader, 'zh_CN')).data as MaintenanceSchedule[]
    expect(schedules[1]!.lastRun).toMatchObject({ jobId: first.data.jobId, state: 'succeeded', createBy: 'dataRunner', error: null })
    expect(schedules[1]!.lastRun!.result).toMatchObject({ removed: { operLog: 0, loginLog: 0, messageLog: 0, telemetry: 0, jobs: 0, positions: 0, uploadedLogs: 0, inactiveMembers: 0 }, notices: { sent: 0, voided: 0, held: 0 } })
    // Turned off: no next run.
    await db().updateTable('sysConfig').set({ configValue: '0' }).where('configKey', '=', 'monitor.backup.intervalHours').execute()
    expect(((await get('schedules')).data as MaintenanceSchedule[])[0]).toMatchObject({ intervalHours: 0, nextRunTime: null })
  })

  it('refuses an unknown schedule and changes nothing', async () => {
    const before = await snapshot(t, 'sysJob', 'sysJobSchedule')
    for (const key of ['nope', 'Backup', '..%2Fbackup']) expect((await runNow(key)).status).toBe(400)
    expect(await snapshot(t, 'sysJob', 'sysJobSchedule')).toEqual(before)
  })

  it('fails the job when its starter lost monitor:data:run before it ran', async () => {
    await t.app.services.jobs.stop()
    const queued = await runNow('retention', runner)
    expect(queued.status).toBe(200)
    const role = await db().selectFrom('sysRole').select('roleId').where('roleKey', '=', 'dataRunner').executeTakeFirstOrThrow()
    const run = await db().selectFrom('sysMenu').select('menuId').where('perms', '=', 'monitor:data:run').executeTakeFirstOrThrow()
    await db().deleteFrom('sysRoleMenu').where('roleId', '=', role.roleId).where('menuId', '=', run.menuId).execute()
    await t.app.services.jobs.start()
    const done = await finished(queued.data.jobId)
    expect(done.state).toBe('failed')
    expect(done.error).toContain('monitor:data:run')
  })
})

describe('GET /monitor/data/backups', () => {
  it('lists the manual and scheduled backups with their manifests checked, never a partial one or a link out', async () => {
    const queued = await runNow('backup')
    expect(queued.status).toBe(200)
    const done = await finished(queued.data.jobId)
    expect(done.state).toBe('succeeded')
    const made = JSON.parse(done.result!) as { name: string }
    const { backupDir } = t.app.services.config

    // A copy at the top (as `npm run backup` leaves one), a damaged one, one still being written, and a link out.
    cpSync(join(backupDir, made.name), join(backupDir, 'velo-20200101T000000Z'), { recursive: true })
    cpSync(join(backupDir, made.name), join(backupDir, 'velo-20200102T000000Z'), { recursive: true })
    const damaged = join(backupDir, 'velo-20200102T000000Z', 'manifest.json')
    writeFileSync(damaged, readFileSync(damaged, 'utf8').replace('"serverVersion"', '"serverVersion" '))
    mkdirSync(join(backupDir, 'velo-20200103T000000Z.partial'))
    const elsewhere = join(tmpdir(), `velo-elsewhere-${process.pid}`)
    cpSync(join(backupDir, made.name), elsewhere, { recursive: true })
    symlinkSync(elsewhere, join(backupDir, 'velo-20200104T000000Z'))

    const res = await get('backups', reader)
    expect(res.status).toBe(200)
    const entries = res.data as BackupEntry[]
    expect(entries.map((e) => e.name).sort()).toEqual([made.name, 'velo-20200101T000000Z', 'velo-20200102T000000Z'].sort())
    const scheduled = entries.find((e) => e.name === made.name)!
    expect(scheduled).toMatchObject({ scheduled: true, dialect: t.app.services.dialect, manifestOk: true, serverVersion: '0.1.0' })
    expect(scheduled.sizeBytes).toBeGreaterThan(0)
    expect(entries.find((e) => e.name === 'velo-20200101T000000Z')).toMatchObject({ scheduled: false, manifestOk: true })
    expect(entries.find((e) => e.name === 'velo-20200102T000000Z')).toMatchObject({ manifestOk: false })
    // Names only: no path of the server's disk.
    expect(JSON.stringify(entries)).not.toContain(backupDir)
    rmSync(elsewhere, { recursive: true, force: true })
  })
})

const dataMenu = async (db: Db) => {
  const page = await db.selectFrom('sysMenu').selectAll().where('menuName', '=', 'menu.monitor.data').where('menuType', '=', 'C').execute()
  const buttons = page.length ? await db.selectFrom('sysMenu').select(['perms']).where('parentId', '=', page[0]!.menuId).execute() : []
  return { page, buttons }
}

describe('the seeded menu', () => {
  it('gives the page to administrators only, and to a database seeded before it at its next start (seed version 12)', async () => {
    const fresh = await dataMenu(db())
    expect(fresh.page).toHaveLength(1)
    expect(fresh.page[0]).toMatchObject({ path: 'data', perms: 'monitor:data:list', component: 'monitor/data/index' })
    expect(fresh.buttons).toEqual([{ perms: 'monitor:data:run' }])
    // The common role (dashboards and read-only settings) does not get it.
    const common = await db()
      .selectFrom('sysRoleMenu as rm')
      .innerJoin('sysRole as r', 'r.roleId', 'rm.roleId')
      .innerJoin('sysMenu as m', 'm.menuId', 'rm.menuId')
      .select('m.perms')
      .where('r.roleKey', '=', 'common')
      .where('m.perms', 'like', 'monitor:data:%')
      .execute()
    expect(common).toEqual([])

    const dir = mkdtempSync(join(tmpdir(), 'velo-seed-data-'))
    const database = await freshDatabase(dir)
    const env = { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), BACKUP_DIR: join(dir, 'backups'), LOG_LEVEL: 'silent', ADMIN_PASSWORD, CAPTCHA_ENABLED: 'false' }
    const options = { logger: false, schedules: { enabled: false } }
    try {
      const first = await buildApp(loadConfig(env), options)
      const menus = (await first.services.db.selectFrom('sysMenu').select('menuId').execute()).length
      // Back to what seed version 11 left: no page, no button, no configuration keys of its own.
      const { page } = await dataMenu(first.services.db)
      await first.services.db.deleteFrom('sysMenu').where('parentId', '=', page[0]!.menuId).execute()
      await first.services.db.deleteFrom('sysMenu').where('menuId', '=', page[0]!.menuId).execute()
      await first.services.db.deleteFrom('sysConfig').where('configKey', 'like', 'monitor.%').execute()
      await first.services.db.updateTable('sysConfig').set({ configValue: '11' }).where('configKey', '=', 'sys.seed.version').execute()
      await first.close()

      const second = await buildApp(loadConfig(env), options)
      const db2 = second.services.db
      expect((await db2.selectFrom('sysConfig').select('configValue').where('configKey', '=', 'sys.seed.version').executeTakeFirstOrThrow()).configValue).toBe(String(SEED_VERSION))
      const again = await dataMenu(db2)
      expect(again.page).toHaveLength(1)
      expect(again.buttons).toEqual([{ perms: 'monitor:data:run' }])
      expect((await db2.selectFrom('sysMenu').select('menuId').execute()).length).toBe(menus)
      expect((await db2.selectFrom('sysConfig').select('configKey').where('configKey', 'like', 'monitor.%').execute()).length).toBe(5)
      await second.close()
    } finally {
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
