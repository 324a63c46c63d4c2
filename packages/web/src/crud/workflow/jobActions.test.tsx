import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { defineEntity, type JobInfo, type SessionUser } from '@velo/shared'
import { jobStore } from '../../api/jobStore'
import { sessionStore } from '../../session/sessionStore'
import { jobInfo } from '../../test/jobs'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { sseResponse, type SseHandle } from '../../test/sse'
import { EntityListPage } from '../EntityListPage'

// A `job` action answers the queued job: the top bar's list gets it, and the page follows it on the
// tab's job stream until it ends, then refreshes the rows and says how it went.

const report = defineEntity({
  key: 'jobActionReport',
  table: 'jobActionReport',
  path: '/test/report',
  permission: 'test:report',
  label: { en_US: 'Reports', zh_CN: '报表' },
  idField: 'reportId',
  labelField: 'name',
  defaultSort: { field: 'reportId', order: 'asc' },
  operations: ['list', 'get'],
  fields: [
    { name: 'reportId', kind: 'number', label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
    { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, required: true },
  ],
  actions: [{ name: 'rebuild', label: { en_US: 'Rebuild', zh_CN: '重建' }, on: 'row', mode: 'job' }],
})

const job = (over: Partial<JobInfo>): JobInfo => jobInfo({ jobId: 21, kind: 'action', title: 'Rebuild Monthly', state: 'queued', attempts: 0, ...over })

const fetchMock = vi.fn<typeof fetch>()
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)
let streams: SseHandle[] = []
/** The job as GET /monitor/job/21 reads it when the stream opens. */
let read: JobInfo

describe('a job action', () => {
  beforeEach(() => {
    streams = []
    read = job({})
    vi.stubGlobal('fetch', fetchMock)
    sessionStore.setState({ token: 'signed-in', user: { username: 'tester' } as SessionUser, roles: ['staff'], permissions: ['test:report:list', 'test:report:rebuild'] })
    fetchMock.mockImplementation(async (url, init) => {
      const path = String(url).replace(/^\/api/, '')
      if (path === '/test/report/list') return jsonResponse({ rows: [{ reportId: 1, name: 'Monthly' }], total: 1 })
      if (path === '/test/report/1/action/rebuild') return new Response(JSON.stringify({ code: 200, msg: 'The job is queued', data: job({}) }), { headers: { 'Content-Type': 'application/json' } })
      if (path === '/monitor/job/21') return jsonResponse(read)
      if (path === '/monitor/job/stream') {
        const handle = sseResponse(init?.signal)
        streams.push(handle)
        return handle.response
      }
      return jsonResponse(null, 404)
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ token: undefined, user: null, roles: [], permissions: [] })
    localStorage.clear()
  })

  async function rebuild() {
    const view = renderWithProviders(<EntityListPage entity={report} />)
    fireEvent.click(await screen.findByTestId('row-action-rebuild'))
    const confirm = await screen.findByRole('dialog')
    fireEvent.click(within(confirm).getByRole('button', { name: 'Rebuild' }))
    await waitFor(() => expect(calls('POST', '/test/report/1/action/rebuild')).toHaveLength(1))
    return view
  }

  it('hands the job to the top bar, follows it, and refreshes the list when it succeeds', async () => {
    const started: JobInfo[] = []
    const stop = jobStore.onStarted((j) => started.push(j))
    try {
      await rebuild()
      await waitFor(() => expect(started).toEqual([job({})]))
      expect(await screen.findByText(/Rebuild started/)).toBeTruthy()
      await waitFor(() => expect(streams).toHaveLength(1))
      // What happened before the stream opened is read once.
      await waitFor(() => expect(calls('GET', '/monitor/job/21')).toHaveLength(1))
      // Queued: nothing changed yet.
      expect(calls('POST', '/test/report/list')).toHaveLength(1)

      act(() => streams[0]!.send('job', job({ state: 'running', done: 1, total: 2 })))
      // Another job of the user's ending moves nothing here.
      act(() => streams[0]!.send('job', job({ jobId: 5, state: 'succeeded' })))
      await new Promise((r) => setTimeout(r, 50))
      expect(calls('POST', '/test/report/list')).toHaveLength(1)

      act(() => streams[0]!.send('job', job({ state: 'succeeded', done: 2, total: 2 })))
      await waitFor(() => expect(calls('POST', '/test/report/list')).toHaveLength(2))
      // Ended: no longer followed, and the stream (nobody else follows it) is closed.
      await waitFor(() => expect(calls('GET', '/monitor/job/stream')[0]![1]?.signal?.aborted).toBe(true))
    } finally {
      stop()
    }
  })

  // How it ended is the top bar's jobs list's to say (layout/navbar/JobsIndicator), once.
  it('refreshes the list when the job fails too', async () => {
    await rebuild()
    await waitFor(() => expect(streams).toHaveLength(1))
    act(() => streams[0]!.send('job', job({ state: 'failed', error: 'Rebuild failed: the source table is locked' })))
    await waitFor(() => expect(calls('POST', '/test/report/list')).toHaveLength(2))
  })

  it('notices an end missed while the stream was away, by reading the job when it opens', async () => {
    // Done before the stream opened: no event will say so.
    read = job({ state: 'succeeded', done: 2, total: 2 })
    await rebuild()
    await waitFor(() => expect(calls('POST', '/test/report/list')).toHaveLength(2))
  })

  it('stops following when the page goes', async () => {
    const view = await rebuild()
    await waitFor(() => expect(streams).toHaveLength(1))
    view.unmount()
    await waitFor(() => expect(calls('GET', '/monitor/job/stream')[0]![1]?.signal?.aborted).toBe(true))
  })
})
