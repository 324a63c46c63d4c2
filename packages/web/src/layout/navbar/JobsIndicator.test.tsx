import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import type { JobInfo } from '@velo/shared'
import { jobStore } from '../../api/jobStore'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { sseResponse, type SseHandle } from '../../test/sse'
import { JobsIndicator } from './JobsIndicator'
import { jobInfo } from '../../test/jobs'

// The jobs button of the top bar against a mocked server: the list, the live stream, cancel and download.

const fetchMock = vi.fn<typeof fetch>()
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)
const envelope = (data: unknown, msg: string) => new Response(JSON.stringify({ code: 200, msg, data }), { status: 200, headers: { 'Content-Type': 'application/json' } })

const job = (over: Partial<JobInfo>): JobInfo => jobInfo(over)

let listed: JobInfo[] = []
let streams: SseHandle[] = []

function serve() {
  fetchMock.mockImplementation(async (input, init) => {
    const path = String(input).replace(/^\/api/, '')
    if (path === '/monitor/job/list') return jsonResponse({ rows: listed, total: listed.length })
    if (path === '/monitor/job/stream') {
      const handle = sseResponse(init?.signal)
      streams.push(handle)
      return handle.response
    }
    if (path === '/monitor/job/7/cancel') return envelope(job({ jobId: 7, done: 30, total: 100, cancelRequested: true }), 'Cancelling: the job stops at its next step')
    if (path === '/monitor/job/6/file')
      return new Response('PK…', {
        status: 200,
        headers: { 'Content-Type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'Content-Disposition': 'attachment; filename="loginLog_20261124080000.xlsx"' },
      })
    return jsonResponse(null, 404)
  })
}

/** Opens the list from the button. */
async function openList() {
  fireEvent.click(await screen.findByTestId('jobs-indicator'))
  return screen.findByTestId('jobs-list')
}

describe('jobs indicator', () => {
  beforeEach(() => {
    listed = []
    streams = []
    vi.stubGlobal('fetch', fetchMock)
    sessionStore.setState({ token: 'signed-in' })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ token: undefined })
  })

  it('shows nothing, and keeps no stream open, while the user has no job', async () => {
    serve()
    renderWithProviders(<JobsIndicator />)
    await waitFor(() => expect(calls('POST', '/monitor/job/list')).toHaveLength(1))
    expect(screen.queryByTestId('jobs-indicator')).toBeNull()
    expect(calls('GET', '/monitor/job/stream')).toHaveLength(0)
  })

  it('lists the user’s jobs with their progress, moves the bar on each event, and says when one finishes', async () => {
    listed = [
      job({ jobId: 7, done: 30, total: 100 }),
      job({ jobId: 6, state: 'succeeded', done: 100, total: 100, fileName: 'loginLog_20261124080000.xlsx', mayDownload: true }),
      job({ jobId: 5, state: 'failed', error: 'The server stopped while this job ran' }),
      // A file the server says this user may not download: no button for it.
      job({ jobId: 4, state: 'succeeded', done: 10, total: 10, fileName: 'other.xlsx', mayDownload: false }),
    ]
    serve()
    renderWithProviders(<JobsIndicator />)
    // One job runs: the badge says 1, and the stream is open for it.
    const button = await screen.findByTestId('jobs-indicator')
    expect(within(button).getByText('1')).toBeTruthy()
    await waitFor(() => expect(streams).toHaveLength(1))

    const list = await openList()
    const running = within(list).getByTestId('job-7')
    expect(within(running).getByText('Running')).toBeTruthy()
    expect(within(running).getByText('30 of 100')).toBeTruthy()
    expect(within(within(list).getByTestId('job-5')).getByText('The server stopped while this job ran')).toBeTruthy()
    expect(within(list).getByTestId('job-download-6')).toBeTruthy()
    expect(within(list).queryByTestId('job-download-4')).toBeNull()
    // A running job has no file yet, a finished one nothing to cancel.
    expect(within(list).queryByTestId('job-download-7')).toBeNull()
    expect(within(list).queryByTestId('job-cancel-6')).toBeNull()

    /** The server's list and its event agree, as they do on a real server. */
    const change = (next: JobInfo) => {
      listed = listed.map((j) => (j.jobId === next.jobId ? next : j))
      act(() => streams[0]!.send('job', next))
    }
    change(job({ jobId: 7, done: 75, total: 100 }))
    await waitFor(() => expect(within(screen.getByTestId('job-7')).getByText('75 of 100')).toBeTruthy())

    change(job({ jobId: 7, state: 'succeeded', done: 100, total: 100, fileName: 'loginLog_x.xlsx', mayDownload: true }))
    expect(await screen.findByText('Export Login log: finished')).toBeTruthy()
    await waitFor(() => expect(within(screen.getByTestId('job-7')).getByTestId('job-download-7')).toBeTruthy())
    await waitFor(() => expect(within(screen.getByTestId('job-7')).getByText('Finished')).toBeTruthy())
    // Nothing runs any more: no count, and the stream is closed.
    await waitFor(() => expect(screen.getByTestId('jobs-indicator').querySelector('.ant-badge-count[data-show="true"]')).toBeNull())
    await waitFor(() => expect(calls('GET', '/monitor/job/stream')[0]![1]?.signal?.aborted).toBe(true))
  })

  it('cancels a running job after a confirmation, and downloads a finished export', async () => {
    listed = [job({ jobId: 7, done: 30, total: 100 }), job({ jobId: 6, state: 'succeeded', done: 100, total: 100, fileName: 'loginLog_20261124080000.xlsx', mayDownload: true })]
    serve()
    const saved: string[] = []
    URL.createObjectURL = vi.fn(() => 'blob:job')
    URL.revokeObjectURL = vi.fn()
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download)
    })
    renderWithProviders(<JobsIndicator />)
    const list = await openList()

    fireEvent.click(within(list).getByTestId('job-cancel-7'))
    const confirm = await screen.findByText('Cancel this job?')
    fireEvent.click(within(confirm.closest('.ant-popover') as HTMLElement).getByRole('button', { name: 'Cancel job' }))
    await waitFor(() => expect(calls('POST', '/monitor/job/7/cancel')).toHaveLength(1))
    expect(await screen.findByText('Cancelling: the job stops at its next step')).toBeTruthy()
    await waitFor(() => expect(within(screen.getByTestId('job-7')).getByText('Cancelling…')).toBeTruthy())

    fireEvent.click(within(list).getByTestId('job-download-6'))
    await waitFor(() => expect(saved).toEqual(['loginLog_20261124080000.xlsx']))
    expect(calls('GET', '/monitor/job/6/file')).toHaveLength(1)
    expect(URL.createObjectURL).toHaveBeenCalledTimes(1)
    click.mockRestore()
  })

  it('opens on a job just started elsewhere in the console (a large export), and follows it', async () => {
    listed = [job({ jobId: 3, state: 'succeeded', done: 10, total: 10 })]
    serve()
    renderWithProviders(<JobsIndicator />)
    await screen.findByTestId('jobs-indicator')
    expect(calls('GET', '/monitor/job/stream')).toHaveLength(0)

    const started = job({ jobId: 9, state: 'queued', title: 'Export Users' })
    listed = [started, ...listed]
    act(() => jobStore.started(started))
    const list = await screen.findByTestId('jobs-list')
    expect(within(within(list).getByTestId('job-9')).getByText('Queued')).toBeTruthy()
    await waitFor(() => expect(streams).toHaveLength(1))
  })
})
