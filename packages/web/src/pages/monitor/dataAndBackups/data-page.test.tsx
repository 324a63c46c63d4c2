import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import type { BackupEntry, DatabaseUsage, JobInfo, MaintenanceSchedule, RetentionSetting, SessionUser } from '@velo/shared'
import i18n from '../../../i18n'
import { sessionStore } from '../../../session/sessionStore'
import { jobInfo } from '../../../test/jobs'
import { jsonResponse, renderWithProviders } from '../../../test/render'
import { sseResponse, type SseHandle } from '../../../test/sse'
import MonitorDataPage from '../data'

const fetchMock = vi.fn<typeof fetch>()
const signIn = (permissions: string[]) => sessionStore.setState({ token: 'signed-in', user: { userId: 1, username: 'admin' } as SessionUser, roles: ['admin'], permissions })
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)

const DATABASE: DatabaseUsage = {
  dialect: 'postgres',
  sizeBytes: 200 * 1024 * 1024,
  measuredAt: '2026-11-25T03:00:00Z',
  tableCount: 57,
  tables: [
    { table: 'sys_oper_log', rows: 1234567, dataBytes: 80 * 1024 * 1024, indexBytes: 20 * 1024 * 1024, totalBytes: 100 * 1024 * 1024 },
    { table: 'iot_telemetry', rows: 4200, dataBytes: 1536, indexBytes: 512, totalBytes: 2048 },
  ],
}

const SCHEDULES: MaintenanceSchedule[] = [
  {
    key: 'backup',
    kind: 'ops.backup',
    intervalHours: 24,
    configKey: 'monitor.backup.intervalHours',
    nextRunTime: '2026-11-26T03:00:00Z',
    lastRun: {
      jobId: 40,
      state: 'succeeded',
      createBy: 'system',
      createTime: '2026-11-25T03:00:00Z',
      finishTime: '2026-11-25T03:00:09Z',
      result: { name: 'scheduled/velo-20261125T030000Z', sizeBytes: 3 * 1024 * 1024, files: 12, removed: ['scheduled/velo-20261118T030000Z'] },
      error: null,
    },
  },
  { key: 'retention', kind: 'ops.retention', intervalHours: 0, configKey: 'monitor.retention.intervalHours', nextRunTime: null, lastRun: null },
]

const RETENTION: RetentionSetting[] = [
  { target: 'operLog', days: 180, configKey: 'monitor.operLog.retentionDays', fromEnvironment: false },
  { target: 'jobs', days: 1, configKey: 'JOB_RETENTION_DAYS', fromEnvironment: true },
  { target: 'positions', days: 90, configKey: 'privacy.retention.positionDays', fromEnvironment: false },
  { target: 'uploadedLogs', days: 30, configKey: 'privacy.retention.uploadedLogDays', fromEnvironment: false },
  {
    target: 'inactiveMembers',
    days: 1096,
    years: 3,
    configKey: 'privacy.retention.inactiveMemberYears',
    fromEnvironment: false,
    notice: { days: 30, configKey: 'privacy.retention.erasureNoticeDays' },
  },
]

/** A retention run that emptied positions, deleted uploads and erased a member, and told others. */
const RETENTION_RUN: MaintenanceSchedule['lastRun'] = {
  jobId: 39,
  state: 'succeeded',
  createBy: 'system',
  createTime: '2026-11-25T02:00:00Z',
  finishTime: '2026-11-25T02:00:04Z',
  result: {
    removed: { operLog: 0, loginLog: 2, messageLog: 0, telemetry: 0, jobs: 0, positions: 1500, uploadedLogs: 3, inactiveMembers: 1 },
    notices: { sent: 2, voided: 1, held: 1 },
  },
  error: null,
}

const BACKUP: BackupEntry = {
  name: 'scheduled/velo-20261125T030000Z',
  scheduled: true,
  createdAt: '2026-11-25T03:00:09Z',
  dialect: 'postgres',
  sizeBytes: 3 * 1024 * 1024,
  files: 12,
  serverVersion: '1.4.0',
  manifestOk: true,
}
const MANUAL: BackupEntry = { ...BACKUP, name: 'velo-20261125T051500Z', scheduled: false, createdAt: '2026-11-25T05:15:00Z' }

/** What the server answers now: Run now and a finished run change it. */
let backups: BackupEntry[] = []
let schedules: MaintenanceSchedule[] = SCHEDULES
let runAnswer: () => Response = () => jsonResponse(null, 404)
let stream: SseHandle | null = null

const queued = jobInfo({ jobId: 41, kind: 'ops.backup', title: 'Backup', state: 'queued', createBy: 'admin', createTime: '2026-11-25T05:15:00Z' })

/** The server's backup job is now `job`: the schedules answer it as the last run, and its stream tells it. */
function serverJob(job: JobInfo) {
  const { jobId, state, createBy, createTime, finishTime, result, error } = job
  schedules = SCHEDULES.map((s) => (s.key === 'backup' ? { ...s, lastRun: { jobId, state, createBy, createTime, finishTime, result, error } } : s))
  stream?.send('job', job)
}

async function confirm(ok: string) {
  const dialogs = await screen.findAllByRole('dialog')
  fireEvent.click(within(dialogs.at(-1)!).getByRole('button', { name: ok }))
}

const renderPage = () =>
  renderWithProviders(
    <MemoryRouter initialEntries={['/monitor/data']}>
      <MonitorDataPage />
    </MemoryRouter>,
  )

describe('Monitoring › Data and backups', () => {
  beforeEach(() => {
    backups = [BACKUP]
    schedules = SCHEDULES
    runAnswer = () => {
      serverJob(queued)
      return jsonResponse(queued)
    }
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url, init) => {
      const path = String(url).replace(/^\/api/, '')
      if (path === '/monitor/data/database') return jsonResponse(DATABASE)
      if (path === '/monitor/data/schedules') return jsonResponse(schedules)
      if (path === '/monitor/data/retention') return jsonResponse(RETENTION)
      if (path === '/monitor/data/backups') return jsonResponse(backups)
      if (path === '/monitor/data/schedules/backup/run' && init?.method === 'POST') return runAnswer()
      if (path === '/monitor/job/stream') {
        stream = sseResponse(init?.signal)
        return stream.response
      }
      return jsonResponse(null, 404)
    })
  })
  afterEach(async () => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    stream = null
    sessionStore.setState({ token: undefined, user: null, roles: [], permissions: [] })
    await i18n.changeLanguage('en_US')
  })

  it('shows the database, the schedules with their last run, what is kept, and the backups', async () => {
    signIn(['monitor:data:list', 'system:config:list'])
    renderPage()
    expect((await screen.findByTestId('database-size')).textContent).toBe('200 MB')
    expect(screen.getByText('PostgreSQL', { selector: '.ant-descriptions-item-content' })).toBeTruthy()
    expect(screen.getByText('57')).toBeTruthy()
    const operLog = screen.getByTestId('table-usage-sys_oper_log')
    expect(within(operLog).getByText('1,234,567')).toBeTruthy()
    expect(within(operLog).getByText('80 MB')).toBeTruthy()
    expect(within(operLog).getByText('20 MB')).toBeTruthy()
    expect(within(operLog).getByText('100 MB')).toBeTruthy()
    expect(within(operLog).getByText('50%')).toBeTruthy()

    const backup = await screen.findByTestId('schedule-backup')
    expect(within(backup).getByText('Backup')).toBeTruthy()
    expect(within(backup).getByText('Every 24 h')).toBeTruthy()
    // The key links to System configuration filtered by it.
    expect(within(backup).getByTestId('config-key-monitor.backup.intervalHours').getAttribute('href')).toBe('/system/config?configKey=monitor.backup.intervalHours')
    expect(within(backup).getByText('Finished')).toBeTruthy()
    expect(within(backup).getByText('Schedule')).toBeTruthy()
    expect(within(backup).getByTestId('schedule-result-backup').textContent).toBe('scheduled/velo-20261125T030000Z · 3 MB · 12 files · 1 older backup removed')
    const retention = screen.getByTestId('schedule-retention')
    expect(within(retention).getByText('Data retention')).toBeTruthy()
    expect(within(retention).getByText('Off')).toBeTruthy()
    expect(within(retention).getByText('Not run yet')).toBeTruthy()

    const kept = await screen.findByTestId('retention-table')
    expect(await within(kept).findByText('Operation log')).toBeTruthy()
    expect(within(kept).getByText('180 days')).toBeTruthy()
    expect(within(kept).getByText('1 day')).toBeTruthy()
    expect(within(kept).getByText('Environment variable')).toBeTruthy()
    expect(within(kept).getByText('JOB_RETENTION_DAYS')).toBeTruthy()

    const row = await screen.findByTestId(`backup-${BACKUP.name}`)
    // Made by the server (the schedule or Run now), so kept to monitor.backup.keep.
    expect(within(row).getByText('Server job')).toBeTruthy()
    expect(within(row).getByText('3 MB')).toBeTruthy()
    expect(within(row).getByText('OK')).toBeTruthy()
    expect(within(row).getByText('1.4.0')).toBeTruthy()
    expect(screen.getByTestId('backups-restore').textContent).toContain('npm run restore')
    // Backups stay on the server: nothing to download.
    expect(screen.queryByRole('button', { name: /download/i })).toBeNull()
  })

  it("shows the riders' personal data kept per category, and what the last retention run did to it", async () => {
    schedules = SCHEDULES.map((s) => (s.key === 'retention' ? { ...s, intervalHours: 1, lastRun: RETENTION_RUN } : s))
    signIn(['monitor:data:list', 'system:config:list'])
    renderPage()
    const kept = await screen.findByTestId('retention-table')
    const row = async (label: string) => (await within(kept).findByText(label)).closest('tr')!
    expect(within(await row('Riders’ positions')).getByText('90 days')).toBeTruthy()
    expect(within(await row('Riders’ positions')).getByTestId('config-key-privacy.retention.positionDays')).toBeTruthy()
    expect(within(await row('Uploaded app logs')).getByText('30 days')).toBeTruthy()
    const inactive = await row('Inactive members')
    // In years, with the notice period and both keys.
    expect(within(inactive).getByText('3 years without activity')).toBeTruthy()
    expect(within(inactive).getByText('then erased 30 days after a notice in the app')).toBeTruthy()
    expect(within(inactive).getByTestId('config-key-privacy.retention.inactiveMemberYears').getAttribute('href')).toBe('/system/config?configKey=privacy.retention.inactiveMemberYears')
    expect(within(inactive).getByTestId('config-key-privacy.retention.erasureNoticeDays')).toBeTruthy()
    expect(within(inactive).queryByText(/1,096/)).toBeNull()

    const summary = (await screen.findByTestId('schedule-result-retention')).textContent
    expect(summary).toContain('Riders’ positions 1,500')
    expect(summary).toContain('Uploaded app logs 3')
    expect(summary).toContain('Inactive members 1')
    expect(summary).toContain('2 erasure notices sent')
    expect(summary).toContain('1 member held')
  })

  it("shows the riders' data kept per category in Chinese", async () => {
    await i18n.changeLanguage('zh_CN')
    schedules = SCHEDULES.map((s) => (s.key === 'retention' ? { ...s, intervalHours: 1, lastRun: RETENTION_RUN } : s))
    signIn(['monitor:data:list'])
    renderPage()
    const kept = await screen.findByTestId('retention-table')
    const inactive = (await within(kept).findByText('长期未活跃会员')).closest('tr')!
    expect(within(inactive).getByText('3 年无活动')).toBeTruthy()
    expect(within(inactive).getByText('在 App 中通知 30 天后删除')).toBeTruthy()
    expect(within(kept).getByText('骑行者位置')).toBeTruthy()
    expect(within(kept).getByText('App 上传日志')).toBeTruthy()
    expect((await screen.findByTestId('schedule-result-retention')).textContent).toContain('已发送 2 条删除通知')
  })

  it('says how backups are made when there are none, and shows bare keys to those who may not open the configuration', async () => {
    backups = []
    signIn(['monitor:data:list'])
    renderPage()
    expect((await screen.findByTestId('backups-empty')).textContent).toContain('npm run backup')
    const backup = await screen.findByTestId('schedule-backup')
    expect(within(backup).getByText('monitor.backup.intervalHours')).toBeTruthy()
    expect(within(backup).queryByRole('link')).toBeNull()
  })

  it('offers Run now only with monitor:data:run', async () => {
    signIn(['monitor:data:list'])
    renderPage()
    await screen.findByTestId('schedule-backup')
    expect(screen.queryByTestId('schedule-run-backup')).toBeNull()
    expect(screen.queryByText('Run now')).toBeNull()
  })

  it('runs a schedule now after a confirmation, follows the job, and lists the new backup when it ends', async () => {
    signIn(['monitor:data:list', 'monitor:data:run'])
    renderPage()
    fireEvent.click(await screen.findByTestId('schedule-run-backup'))
    expect((await screen.findAllByText('Run "Backup" now?')).length).toBeGreaterThan(0)
    await confirm('Run now')
    await waitFor(() => expect(calls('POST', '/monitor/data/schedules/backup/run')).toHaveLength(1))
    await waitFor(() => expect(screen.getByTestId('schedule-state-backup').dataset.state).toBe('queued'))
    const backup = screen.getByTestId('schedule-backup')
    expect(within(backup).getByText('admin')).toBeTruthy()
    // Unfinished: not started twice.
    expect((screen.getByTestId('schedule-run-backup') as HTMLButtonElement).disabled).toBe(true)

    // Followed on the caller's job stream.
    await waitFor(() => expect(stream).not.toBeNull())
    const running: JobInfo = { ...queued, state: 'running', startTime: '2026-11-25T05:15:01Z' }
    serverJob(running)
    await waitFor(() => expect(screen.getByTestId('schedule-state-backup').dataset.state).toBe('running'))
    expect(within(backup).getByText('Running')).toBeTruthy()

    const backupLoads = calls('GET', '/monitor/data/backups').length
    backups = [MANUAL, BACKUP]
    const result = { name: MANUAL.name, sizeBytes: MANUAL.sizeBytes, files: 12, removed: [] }
    serverJob({ ...running, state: 'succeeded', finishTime: '2026-11-25T05:15:09Z', result })
    // The backups are read again and list the new one.
    expect(await screen.findByTestId(`backup-${MANUAL.name}`)).toBeTruthy()
    expect(calls('GET', '/monitor/data/backups').length).toBeGreaterThan(backupLoads)
  })

  it("shows the server's message when a run is already queued or running", async () => {
    runAnswer = () =>
      new Response(JSON.stringify({ code: 409, msg: 'A backup is already running', data: null }), { status: 409, headers: { 'Content-Type': 'application/json' } })
    signIn(['monitor:data:list', 'monitor:data:run'])
    renderPage()
    fireEvent.click(await screen.findByTestId('schedule-run-backup'))
    await confirm('Run now')
    expect(await screen.findByText('A backup is already running')).toBeTruthy()
    // The last run stays as the server reported it.
    expect(screen.getByTestId('schedule-state-backup').dataset.state).toBe('succeeded')
  })

  it('shows in Chinese', async () => {
    await i18n.changeLanguage('zh_CN')
    signIn(['monitor:data:list', 'monitor:data:run'])
    renderPage()
    expect(await screen.findByText('定时维护')).toBeTruthy()
    const backup = await screen.findByTestId('schedule-backup')
    expect(within(backup).getByText('备份')).toBeTruthy()
    expect(within(backup).getByText('每 24 小时')).toBeTruthy()
    expect(within(backup).getByText('计划任务')).toBeTruthy()
    expect(within(backup).getByText('立即执行')).toBeTruthy()
    expect(within(screen.getByTestId('schedule-retention')).getByText('已关闭')).toBeTruthy()
    expect(await screen.findByText('180 天')).toBeTruthy()
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toContain('占数据库比例')
    expect(within(await screen.findByTestId(`backup-${BACKUP.name}`)).getByText('正常')).toBeTruthy()
  })
})
