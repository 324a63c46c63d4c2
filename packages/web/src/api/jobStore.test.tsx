import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { type JobInfo, type SessionUser, systemEntities } from '@velo/shared'
import { sessionStore } from '../session/sessionStore'
import { ImportDialog } from '../crud/excel/ImportDialog'
import { IMPORT_JOB_THRESHOLD_BYTES } from '../crud/excel/useImportJob'
import { JobsIndicator } from '../layout/navbar/JobsIndicator'
import JobsPage from '../pages/monitor/job/index'
import { jsonResponse, renderWithProviders } from '../test/render'
import { sseResponse, type SseHandle } from '../test/sse'
import { jobStore } from './jobStore'
import { jobInfo } from '../test/jobs'

// One GET /monitor/job/stream per tab, whoever follows jobs. The stream is read with fetch (it needs
// the Authorization header, which EventSource cannot send), so the fake server counts the streams it
// is asked for: each is one connection.

const fetchMock = vi.fn<typeof fetch>()
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)
const envelope = (data: unknown, msg = 'ok') => new Response(JSON.stringify({ code: 200, msg, data }), { status: 200, headers: { 'Content-Type': 'application/json' } })

const job = (over: Partial<JobInfo>): JobInfo => jobInfo({ jobId: 7, ...over })

let listed: JobInfo[] = []
let streams: SseHandle[] = []
/** The streams asked for and not closed: the connections the tab holds. */
const openStreams = () => calls('GET', '/monitor/job/stream').filter(([, init]) => !init?.signal?.aborted).length

function serve() {
  fetchMock.mockImplementation(async (input, init) => {
    const path = String(input).replace(/^\/api/, '')
    if (path === '/monitor/job/list') return jsonResponse({ rows: listed, total: listed.length })
    if (path === '/monitor/job/stream') {
      const handle = sseResponse(init?.signal)
      streams.push(handle)
      return handle.response
    }
    if (path === '/system/dict/import/job') return envelope(job({ jobId: 9, kind: 'import', title: 'Import Dictionary', state: 'queued' }), 'The job is queued')
    if (path === '/monitor/job/9') return envelope(job({ jobId: 9, kind: 'import', title: 'Import Dictionary', state: 'queued' }))
    return jsonResponse(null, 404)
  })
}

describe('the tab’s job stream', () => {
  beforeEach(() => {
    listed = []
    streams = []
    vi.stubGlobal('fetch', fetchMock)
    sessionStore.setState({ token: 'signed-in' })
    serve()
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ token: undefined, user: null, permissions: [] })
  })

  it('is one stream for the jobs indicator and an import dialog open together', async () => {
    // An export runs: the indicator follows it.
    listed = [job({ jobId: 7, done: 30, total: 100 })]
    renderWithProviders(
      <>
        <JobsIndicator />
        <ImportDialog entity={systemEntities.dictType} onClose={() => {}} />
      </>,
    )
    await waitFor(() => expect(streams).toHaveLength(1))

    // A large file is imported as a job: the dialog follows it on the same stream, and reads the job
    // once, since it joined a stream that was open already.
    await waitFor(() => expect(document.querySelector('input[type=file]')).toBeTruthy())
    fireEvent.change(document.querySelector('input[type=file]')!, { target: { files: [new File([new Uint8Array(IMPORT_JOB_THRESHOLD_BYTES + 1)], 'many-dicts.xlsx')] } })
    fireEvent.click(document.querySelector('.ant-modal-footer .ant-btn-primary') as HTMLElement)
    const panel = await screen.findByTestId('import-job')
    await waitFor(() => expect(calls('GET', '/monitor/job/9')).toHaveLength(1))
    expect(calls('GET', '/monitor/job/stream')).toHaveLength(1)

    // One event moves both: the dialog's bar and the indicator's list.
    const progress = job({ jobId: 9, kind: 'import', title: 'Import Dictionary', state: 'running', done: 1200, total: 4000 })
    listed = [progress, ...listed]
    act(() => streams[0]!.send('job', progress))
    await waitFor(() => expect(within(panel).getByText('1,200 of 4,000')).toBeTruthy())
    fireEvent.click(screen.getByTestId('jobs-indicator'))
    await waitFor(() => expect(within(screen.getByTestId('job-9')).getByText('1,200 of 4,000')).toBeTruthy())

    // The import ends: the dialog shows its counts; the export still runs, so the stream stays.
    const imported = { ...progress, state: 'succeeded' as const, done: 4000, result: { inserted: 4000, updated: 0 } }
    act(() => streams[0]!.send('job', imported))
    expect((await screen.findByTestId('import-done')).textContent).toContain('4000 rows added, 0 rows updated')
    expect(openStreams()).toBe(1)

    // The export ends too: nobody follows jobs any more, and the one stream closes.
    act(() => streams[0]!.send('job', job({ jobId: 7, state: 'succeeded', done: 100, total: 100 })))
    await waitFor(() => expect(openStreams()).toBe(0))
    expect(calls('GET', '/monitor/job/stream')).toHaveLength(1)
  })

  it('is the one stream of Monitoring › Jobs for a user who sees only their own jobs', async () => {
    sessionStore.setState({ user: { userId: 1, username: 'tester' } as SessionUser, permissions: [] })
    listed = [job({ jobId: 7, done: 30, total: 100 })]
    renderWithProviders(
      <>
        <JobsIndicator />
        <JobsPage />
      </>,
    )
    expect(await screen.findByTestId('job-row-7')).toBeTruthy()
    await waitFor(() => expect(screen.getByTestId('jobs-live').dataset.status).toBe('open'))
    act(() => streams[0]!.send('job', job({ jobId: 7, done: 60, total: 100 })))
    await waitFor(() => expect(within(screen.getByTestId('job-row-7')).getByText('60 of 100')).toBeTruthy())
    expect(fetchMock.mock.calls.filter(([url]) => String(url).startsWith('/api/monitor/job/stream'))).toHaveLength(1)
  })

  it('opens with the first follower, closes with the last, and on sign-out', async () => {
    expect(calls('GET', '/monitor/job/stream')).toHaveLength(0)
    const seen: number[][] = [[], []]
    const leave = [jobStore.follow({ onJob: (j) => seen[0]!.push(j.jobId) }), jobStore.follow({ onJob: (j) => seen[1]!.push(j.jobId) })]
    await waitFor(() => expect(jobStore.getState().status).toBe('open'))
    expect(calls('GET', '/monitor/job/stream')).toHaveLength(1)
    streams[0]!.send('job', job({ jobId: 3 }))
    await waitFor(() => expect(seen).toEqual([[3], [3]]))

    leave[0]!()
    expect(openStreams()).toBe(1)
    leave[1]!()
    expect(openStreams()).toBe(0)
    expect(jobStore.getState().status).toBe('closed')

    // Signed out while followed: closed, and opened again for whoever signs in next.
    const again = jobStore.follow({})
    await waitFor(() => expect(jobStore.getState().status).toBe('open'))
    sessionStore.setState({ token: undefined })
    expect(openStreams()).toBe(0)
    expect(jobStore.getState().status).toBe('closed')
    sessionStore.setState({ token: 'someone-else' })
    await waitFor(() => expect(jobStore.getState().status).toBe('open'))
    expect(calls('GET', '/monitor/job/stream')).toHaveLength(3)
    again()
    expect(openStreams()).toBe(0)
  })

  it('opens nothing for a tab that is not signed in', () => {
    sessionStore.setState({ token: undefined })
    const leave = jobStore.follow({})
    expect(calls('GET', '/monitor/job/stream')).toHaveLength(0)
    leave()
  })
})
