import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import type { JobInfo, ScheduledWorkInfo, SessionUser } from '@velo/shared'
import i18n from '../../../i18n'
import { sessionStore } from '../../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../../test/render'
import { sseResponse, type SseHandle } from '../../../test/sse'
import JobsPage from './index'
import { formatDuration, jobEventEffect } from './jobList'
import { formatEvery } from './ScheduledWork'

const ME = 7
const fetchMock = vi.fn<typeof fetch>()
const signIn = (permissions: string[]) => sessionStore.setState({ user: { userId: ME, username: 'tester' } as SessionUser, roles: ['ops'], permissions })
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)
const bodies = (path: string) => calls('POST', path).map(([, init]) => JSON.parse(String(init?.body)) as Record<string, unknown>)

const job = (over: Partial<JobInfo>): JobInfo => ({
  jobId: 1,
  kind: 'export',
  title: 'Export Login log',
  state: 'queued',
  done: 0,
  total: null,
  result: null,
  error: null,
  fileName: null,
  mayDownload: false,
  createById: 3,
  createBy: 'alice',
  createTime: '2026-01-01T08:00:00Z',
  startTime: null,
  finishTime: null,
  attempts: 0,
  cancelRequested: false,
  ...over,
})

const JOBS: JobInfo[] = [
  job({ jobId: 4, title: 'Export Operation log', state: 'running', done: 250, total: 1000, startTime: '2026-01-01T08:00:01Z', attempts: 1 }),
  job({ jobId: 3, title: 'Export Login log', state: 'queued', createById: ME, createBy: 'tester' }),
  job({ jobId: 2, title: 'Export Online users', state: 'succeeded', done: 40, total: 40, fileName: 'online.xlsx', startTime: '2026-01-01T08:00:00Z', finishTime: '2026-01-01T08:02:05Z' }),
  job({ jobId: 1, kind: 'action', title: 'Push · IoT configuration', state: 'failed', error: 'The server stopped while this job ran', startTime: '2026-01-01T08:00:00Z', finishTime: '2026-01-01T08:00:03Z' }),
]

const SCHEDULED: ScheduledWorkInfo[] = [
  { key: 'backup', title: 'Back up the database', runs: 'job', everyMs: null, intervalHours: 24, lastRunTime: '2026-01-01T02:00:00Z', nextRunTime: '2026-01-02T02:00:00Z', lastDurationMs: null, lastError: null, lastJobId: 12 },
  { key: 'devicePresence', title: 'Mark silent devices offline', runs: 'once', everyMs: 10_000, intervalHours: null, lastRunTime: '2026-01-01T08:00:00Z', nextRunTime: '2026-01-01T08:00:09Z', lastDurationMs: 12, lastError: null, lastJobId: null },
  { key: 'iotSim.carrierSync', title: 'Sync SIM cards with their carriers', runs: 'once', everyMs: 5000, intervalHours: null, lastRunTime: '2026-01-01T08:00:00Z', nextRunTime: null, lastDurationMs: 2500, lastError: 'the carrier did not answer', lastJobId: null },
  { key: 'dashboardRollups', title: 'Refresh the dashboard rollups', runs: 'once', everyMs: 30_000, intervalHours: null, lastRunTime: null, nextRunTime: null, lastDurationMs: null, lastError: null, lastJobId: null },
]

/** What the server lists now: a cancel changes it. */
let listed = JOBS
let stream: SseHandle | null = null
let streamUrl = ''

/** OK on the newest confirmation. */
async function confirm(ok: string) {
  const dialogs = await screen.findAllByRole('dialog')
  fireEvent.click(within(dialogs.at(-1)!).getByRole('button', { name: ok }))
}

const row = (id: number) => screen.getByTestId(`job-row-${id}`)

/** Picks an option of an antd Select opened from its labelled input. */
async function pick(scope: HTMLElement, label: string, option: string) {
  const input = within(scope).getByLabelText(label)
  fireEvent.mouseDown(input)
  const dropdown = await waitFor(() => {
    const list = document.getElementById(input.getAttribute('aria-controls') ?? `${input.id}_list`)
    expect(list).toBeTruthy()
    return list!.closest('.ant-select-dropdown') as HTMLElement
  })
  fireEvent.click(await within(dropdown).findByText(option, { selector: '.ant-select-item-option-content, .ant-select-item-option-content *' }))
}

describe('Monitoring › Jobs', () => {
  beforeEach(() => {
    listed = JOBS
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url, init) => {
      const path = String(url).replace(/^\/api/, '')
      if (path === '/monitor/job/list') return jsonResponse({ rows: listed, total: listed.length })
      if (path === '/monitor/job/schedules') return jsonResponse(SCHEDULED)
      if (path.startsWith('/monitor/job/stream')) {
        streamUrl = path
        stream = sseResponse(init?.signal)
        return stream.response
      }
      const cancel = /^\/monitor\/job\/(\d+)\/cancel$/.exec(path)
      if (cancel) {
        const before = listed.find((j) => j.jobId === Number(cancel[1]))!
        const after: JobInfo = { ...before, state: 'cancelled', finishTime: '2026-01-01T08:05:00Z', cancelRequested: true }
        listed = listed.map((j) => (j.jobId === after.jobId ? after : j))
        return jsonResponse(after)
      }
      return jsonResponse(null, 404)
    })
  })
  afterEach(async () => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    stream = null
    streamUrl = ''
    sessionStore.setState({ user: null, roles: [], permissions: [] })
    localStorage.clear()
    await i18n.changeLanguage('en_US')
  })

  it("lists everyone's jobs with their state, progress, starter, duration and error", async () => {
    signIn(['monitor:job:list'])
    renderWithProviders(<JobsPage />)
    expect(await screen.findByText('Export Operation log')).toBeTruthy()
    // All jobs: the list call carries no `mine`.
    expect(bodies('/monitor/job/list')[0]).toEqual({ pageNum: 1, pageSize: 20 })
    expect(within(row(4)).getByText('Running')).toBeTruthy()
    expect(screen.getByTestId('job-state-2').dataset.state).toBe('succeeded')
    expect(within(row(4)).getByText('250 of 1,000')).toBeTruthy()
    expect(within(row(1)).getByText('Action')).toBeTruthy()
    expect(within(row(1)).getByText('The server stopped while this job ran')).toBeTruthy()
    expect(within(row(2)).getByText('2 min 5 s')).toBeTruthy()
    expect(within(row(3)).getByText('tester')).toBeTruthy()
    // Live: the stream of everyone's jobs.
    await waitFor(() => expect(streamUrl).toBe('/monitor/job/stream/all'))
  })

  it("shows the server's scheduled work, how often and where each runs, its last run and how it ended, with monitor:job:list", async () => {
    signIn(['monitor:job:list'])
    renderWithProviders(<JobsPage />)
    await screen.findByText('Export Operation log')
    // Asked for only when its tab opens.
    expect(calls('GET', '/monitor/job/schedules')).toHaveLength(0)
    fireEvent.click(screen.getByTestId('jobs-tab-scheduled'))
    const work = (key: string) => screen.getByTestId(`scheduled-${key}`)
    await screen.findByText('Mark silent devices offline')
    expect(within(work('backup')).getByText('Every 24 h, as a job')).toBeTruthy()
    expect(within(work('backup')).getByText('Job 12')).toBeTruthy()
    expect(within(work('devicePresence')).getByText('Every 10 s, on one server')).toBeTruthy()
    expect(within(work('devicePresence')).getByText('took 12 ms')).toBeTruthy()
    expect(within(work('devicePresence')).getByText('OK')).toBeTruthy()
    expect(within(work('iotSim.carrierSync')).getByText('took 3 s')).toBeTruthy()
    expect(screen.getByTestId('scheduled-error-iotSim.carrierSync').textContent).toBe('the carrier did not answer')
    expect(within(work('dashboardRollups')).getByText('Not yet')).toBeTruthy()
  })

  it('shows no scheduled work to a user who sees only their own jobs', async () => {
    signIn([])
    renderWithProviders(<JobsPage />)
    await screen.findByText('Export Operation log')
    expect(screen.queryByTestId('jobs-tab-scheduled')).toBeNull()
    expect(calls('GET', '/monitor/job/schedules')).toHaveLength(0)
  })

  it('offers Cancel only for unfinished jobs the user may cancel, and Download only for a file the server says they may download', async () => {
    // The user's own finished export; alice's (job 2) left a file too, which is hers: seeing it is not downloading it.
    listed = [job({ jobId: 5, title: 'Export Users', state: 'succeeded', done: 5, total: 5, fileName: 'users.xlsx', mayDownload: true, createById: ME, createBy: 'tester' }), ...JOBS]
    signIn(['monitor:job:list'])
    renderWithProviders(<JobsPage />)
    await screen.findByText('Export Operation log')
    // Without monitor:job:cancel: only the user's own queued job.
    expect(within(row(3)).getByTestId('row-cancel')).toBeTruthy()
    expect(within(row(4)).queryByTestId('row-cancel')).toBeNull()
    for (const id of [1, 2, 5]) expect(within(row(id)).queryByTestId('row-cancel')).toBeNull()
    expect(within(row(5)).getByTestId('row-download')).toBeTruthy()
    expect(within(row(2)).getByText('Finished')).toBeTruthy()
    for (const id of [1, 2, 3, 4]) expect(within(row(id)).queryByTestId('row-download')).toBeNull()
  })

  it('shows a checklist result (a conformance check’s report) clause by clause, failed as well as passed, and none for other results', async () => {
    const report = {
      clauses: [
        { id: 'ping', title: 'Command ping succeeds', result: 'passed', reason: '', section: { ref: 'docs/iot-protocol.md#command-down', title: 'command (down)' } },
        { id: 'configOutOfRange', title: 'Configuration out of range refused (422)', result: 'failed', reason: 'The setConfig command ended succeeded 0, expected failed 422', section: { ref: 'docs/iot-protocol.md#setconfig-values', title: 'setConfig values' } },
      ],
    }
    listed = [job({ jobId: 6, kind: 'action', title: 'Conformance check · VL000001', state: 'failed', result: report, error: 'The device did not pass 1 of 2 conformance clauses: configOutOfRange', createById: ME }), ...JOBS]
    signIn(['monitor:job:list'])
    renderWithProviders(<JobsPage />)
    await screen.findByText('Conformance check · VL000001')
    for (const id of [1, 2, 3, 4]) expect(within(row(id)).queryByTestId('row-report')).toBeNull()
    fireEvent.click(within(row(6)).getByTestId('row-report'))
    const table = await screen.findByTestId('checklist-report')
    expect(within(table).getByText('Configuration out of range refused (422)')).toBeTruthy()
    expect(within(table).getByText('Failed')).toBeTruthy()
    expect(within(table).getByText('Passed')).toBeTruthy()
    expect(within(table).getByText('The setConfig command ended succeeded 0, expected failed 422')).toBeTruthy()
    expect(within(table).getByText('docs/iot-protocol.md#setconfig-values')).toBeTruthy()
  })

  it('cancels any running or queued job with monitor:job:cancel, after a confirmation', async () => {
    signIn(['monitor:job:list', 'monitor:job:cancel'])
    renderWithProviders(<JobsPage />)
    await screen.findByText('Export Operation log')
    expect(screen.getAllByTestId('row-cancel')).toHaveLength(2)
    fireEvent.click(within(row(4)).getByTestId('row-cancel'))
    expect(await screen.findByText('Cancel the job "Export Operation log" started by alice?')).toBeTruthy()
    await confirm('Cancel job')
    await waitFor(() => expect(calls('POST', '/monitor/job/4/cancel')).toHaveLength(1))
    await waitFor(() => expect(screen.getByTestId('job-state-4').dataset.state).toBe('cancelled'))
    expect(within(row(4)).queryByTestId('row-cancel')).toBeNull()
    expect(calls('POST', '/monitor/job/3/cancel')).toHaveLength(0)
  })

  it('moves a running job along as its events arrive, without loading the list again', async () => {
    signIn(['monitor:job:list'])
    renderWithProviders(<JobsPage />)
    await screen.findByText('250 of 1,000')
    await waitFor(() => expect(stream).not.toBeNull())
    // Loaded once more when the stream opened after the page, then no more.
    await waitFor(() => expect(calls('POST', '/monitor/job/list').length).toBeLessThanOrEqual(2))
    await new Promise((r) => setTimeout(r, 100))
    const loads = calls('POST', '/monitor/job/list').length
    stream!.send('job', { ...JOBS[0], done: 600 })
    expect(await screen.findByText('600 of 1,000')).toBeTruthy()
    // Alice's export finishes: its file is hers, and the event says this user may not download it.
    stream!.send('job', { ...JOBS[0], state: 'succeeded', done: 1000, fileName: 'operlog.xlsx', mayDownload: false, finishTime: '2026-01-01T08:00:11Z' })
    await waitFor(() => expect(screen.getByTestId('job-state-4').dataset.state).toBe('succeeded'))
    expect(within(row(4)).queryByTestId('row-download')).toBeNull()
    // For a user who may (an admin), the same event offers it.
    stream!.send('job', { ...JOBS[0], state: 'succeeded', done: 1000, fileName: 'operlog.xlsx', mayDownload: true, finishTime: '2026-01-01T08:00:11Z' })
    await waitFor(() => expect(within(row(4)).getByTestId('row-download')).toBeTruthy())
    expect(calls('POST', '/monitor/job/list')).toHaveLength(loads)
  })

  it('filters by state and kind, and by the user’s own jobs with the switch', async () => {
    signIn(['monitor:job:list'])
    renderWithProviders(<JobsPage />)
    await screen.findByText('Export Operation log')
    fireEvent.click(screen.getByTestId('jobs-only-mine'))
    await waitFor(() => expect(bodies('/monitor/job/list').at(-1)).toEqual({ pageNum: 1, pageSize: 20, mine: true }))
    const search = screen.getByTestId('crud-search')
    await pick(search, 'State', 'Failed')
    await pick(search, 'Kind', 'Action')
    fireEvent.click(screen.getByTestId('crud-search-submit'))
    await waitFor(() => expect(bodies('/monitor/job/list').at(-1)).toEqual({ pageNum: 1, pageSize: 20, state: 'failed', kind: 'action', mine: true }))
  })

  it('shows in Chinese', async () => {
    await i18n.changeLanguage('zh_CN')
    signIn(['monitor:job:list'])
    renderWithProviders(<JobsPage />)
    expect(await screen.findByText('运行中')).toBeTruthy()
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toContain('发起人')
    expect(screen.getByText('只看我的任务')).toBeTruthy()
    expect(within(row(2)).getByText('2 分 5 秒')).toBeTruthy()
  })
})

describe('job events on a page of jobs', () => {
  const page = [job({ jobId: 30 }), job({ jobId: 20 }), job({ jobId: 10 })]
  const body = { pageNum: 1, pageSize: 3 }

  it('patch a shown job, load the page for a new or newly matching one, and leave other pages alone', () => {
    expect(jobEventEffect(page, body, job({ jobId: 20, state: 'running' }), ME)).toBe('patch')
    expect(jobEventEffect(page, body, job({ jobId: 31 }), ME)).toBe('reload')
    expect(jobEventEffect(page, body, job({ jobId: 5, state: 'running' }), ME)).toBe('ignore')
    expect(jobEventEffect(page, { pageNum: 2, pageSize: 3 }, job({ jobId: 31 }), ME)).toBe('ignore')
    expect(jobEventEffect(page, { pageNum: 2, pageSize: 3 }, job({ jobId: 15, state: 'failed' }), ME)).toBe('reload')
    // Filters: a shown job leaving them reloads; one outside them is no matter.
    expect(jobEventEffect(page, { ...body, state: 'queued' }, job({ jobId: 20, state: 'running' }), ME)).toBe('reload')
    expect(jobEventEffect(page, { ...body, kind: 'action' }, job({ jobId: 31 }), ME)).toBe('ignore')
    expect(jobEventEffect(page, { ...body, mine: true }, job({ jobId: 31, createById: 3 }), ME)).toBe('ignore')
    expect(jobEventEffect(page, { ...body, mine: true }, job({ jobId: 31, createById: ME }), ME)).toBe('reload')
    expect(jobEventEffect([], body, job({ jobId: 1 }), ME)).toBe('reload')
  })

  it('say how often scheduled work runs', () => {
    const en = i18n.getFixedT('en_US')
    expect([500, 10_000, 90_000, 60_000, 3_600_000, 172_800_000].map((ms) => formatEvery(ms, en))).toEqual(['500 ms', '10 s', '90 s', '1 min', '1 h', '48 h'])
    expect(formatEvery(300_000, i18n.getFixedT('zh_CN'))).toBe('5 分钟')
  })

  it('say how long a job ran', () => {
    const t = i18n.getFixedT('en_US')
    expect(formatDuration(400, t)).toBe('0 s')
    expect(formatDuration(59_400, t)).toBe('59 s')
    expect(formatDuration(125_000, t)).toBe('2 min 5 s')
    expect(formatDuration(3_780_000, t)).toBe('1 h 3 min')
  })
})
