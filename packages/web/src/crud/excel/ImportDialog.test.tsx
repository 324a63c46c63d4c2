import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { type JobInfo, systemEntities } from '@velo/shared'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { sseResponse, type SseHandle } from '../../test/sse'
import { ImportDialog } from './ImportDialog'
import { IMPORT_JOB_THRESHOLD_BYTES } from './useImportJob'
import { jobInfo } from '../../test/jobs'

// The import dialog against a mocked server: a small file goes to POST {path}/import and answers at
// once; a large one goes to POST {path}/import/job, and the job's progress and outcome come live.

const fetchMock = vi.fn<typeof fetch>()
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)
const envelope = (data: unknown, msg = 'ok', code = 200) => new Response(JSON.stringify({ code, msg, data }), { status: code, headers: { 'Content-Type': 'application/json' } })

const job = (over: Partial<JobInfo>): JobInfo => jobInfo({ jobId: 9, kind: 'import', title: 'Import Dictionary', state: 'queued', attempts: 0, ...over })

let streams: SseHandle[] = []

function serve() {
  fetchMock.mockImplementation(async (input, init) => {
    const path = String(input).replace(/^\/api/, '')
    if (path === '/system/dict/import') return envelope({ inserted: 2, updated: 0 }, 'Imported: 2 added, 0 updated')
    if (path === '/system/dict/import/job') return envelope(job({}), 'The job is queued: follow it with the jobs button in the top bar')
    if (path === '/monitor/job/9') return envelope(job({}))
    if (path === '/monitor/job/9/cancel') return envelope(job({ state: 'cancelled' }), 'Job cancelled')
    if (path === '/monitor/job/stream') {
      const handle = sseResponse(init?.signal)
      streams.push(handle)
      return handle.response
    }
    return jsonResponse(null, 404)
  })
}

const entity = systemEntities.dictType
const small = () => new File([new Uint8Array(2048)], 'dicts.xlsx')
const large = () => new File([new Uint8Array(IMPORT_JOB_THRESHOLD_BYTES + 1)], 'many-dicts.xlsx')

function renderDialog() {
  const onClose = vi.fn()
  const view = renderWithProviders(<ImportDialog entity={entity} onClose={onClose} />)
  const choose = (file: File) => fireEvent.change(document.querySelector('input[type=file]')!, { target: { files: [file] } })
  const submit = async () => {
    const ok = () => document.querySelector('.ant-modal-footer .ant-btn-primary') as HTMLElement
    // A button still loading (or disabled) from the last import takes no click.
    await waitFor(() => expect(ok().classList.contains('ant-btn-loading') || (ok() as HTMLButtonElement).disabled).toBe(false))
    expect(ok().textContent).toBe('Import')
    fireEvent.click(ok())
  }
  return { ...view, onClose, choose, submit }
}

/** The sent form's updateSupport and file name. */
function sentForm(method: string, path: string) {
  const body = calls(method, path)[0]![1]!.body as FormData
  return { updateSupport: body.get('updateSupport'), name: (body.get('file') as File).name }
}

describe('import dialog', () => {
  beforeEach(() => {
    streams = []
    vi.stubGlobal('fetch', fetchMock)
    sessionStore.setState({ token: 'signed-in' })
    serve()
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ token: undefined })
  })

  it(`imports a file of at most ${IMPORT_JOB_THRESHOLD_BYTES} bytes directly`, async () => {
    const dialog = renderDialog()
    await waitFor(() => expect(document.querySelector('input[type=file]')).toBeTruthy())
    dialog.choose(small())
    await dialog.submit()
    expect((await screen.findByTestId('import-done')).textContent).toContain('2 rows added, 0 rows updated')
    expect(sentForm('POST', '/system/dict/import')).toEqual({ updateSupport: 'false', name: 'dicts.xlsx' })
    expect(calls('POST', '/system/dict/import/job')).toHaveLength(0)
    expect(calls('GET', '/monitor/job/stream')).toHaveLength(0)
  })

  it('imports a larger file as a job: its progress live, then the same report of the rows to correct', async () => {
    const dialog = renderDialog()
    await waitFor(() => expect(document.querySelector('input[type=file]')).toBeTruthy())
    dialog.choose(large())
    fireEvent.click(screen.getByTestId('import-update'))
    await dialog.submit()
    await waitFor(() => expect(calls('POST', '/system/dict/import/job')).toHaveLength(1))
    expect(sentForm('POST', '/system/dict/import/job')).toEqual({ updateSupport: 'true', name: 'many-dicts.xlsx' })
    expect(calls('POST', '/system/dict/import')).toHaveLength(0)

    const panel = await screen.findByTestId('import-job')
    expect(within(panel).getByText(/imported in the background/)).toBeTruthy()
    await waitFor(() => expect(streams).toHaveLength(1))
    act(() => streams[0]!.send('job', job({ state: 'running', done: 1200, total: 4000 })))
    await waitFor(() => expect(within(panel).getByText('1,200 of 4,000')).toBeTruthy())
    // Another job of the user's moves nothing here.
    act(() => streams[0]!.send('job', job({ jobId: 3, state: 'succeeded', result: { inserted: 1, updated: 0 } })))

    const errors = [
      { row: 3, field: 'dictType', message: 'Dictionary type must start with a letter' },
      { row: 7, field: 'dictName', message: 'Dictionary name is required' },
    ]
    act(() => streams[0]!.send('job', job({ state: 'failed', done: 2000, total: 4000, error: 'Import failed: 2 rows have errors, nothing was imported', result: { errors } })))
    const report = await screen.findByTestId('import-report')
    const rows = within(report)
      .getAllByRole('row')
      .slice(1)
      .map((row) => within(row).getAllByRole('cell').map((c) => c.textContent))
    expect(rows).toEqual([
      ['3', 'Dictionary type', 'Dictionary type must start with a letter'],
      ['7', 'Dictionary name', 'Dictionary name is required'],
    ])
    expect(screen.queryByTestId('import-job')).toBeNull()
    // Ended: the stream is closed.
    await waitFor(() => expect(calls('GET', '/monitor/job/stream')[0]![1]?.signal?.aborted).toBe(true))
  })

  it('shows the counts when the job succeeds, and a failure without row problems as its message', async () => {
    const dialog = renderDialog()
    await waitFor(() => expect(document.querySelector('input[type=file]')).toBeTruthy())
    dialog.choose(large())
    await dialog.submit()
    await waitFor(() => expect(streams).toHaveLength(1))
    act(() => streams[0]!.send('job', job({ state: 'succeeded', done: 4000, total: 4000, result: { inserted: 3990, updated: 10 }, fileName: 'many-dicts.xlsx' })))
    expect((await screen.findByTestId('import-done')).textContent).toContain('3990 rows added, 10 rows updated')

    // Again, with a file the job could not read.
    dialog.choose(large())
    expect(screen.queryByTestId('import-done')).toBeNull()
    await dialog.submit()
    await waitFor(() => expect(streams).toHaveLength(2))
    act(() => streams[1]!.send('job', job({ state: 'failed', error: 'The file could not be read as an Excel workbook' })))
    expect((await screen.findByTestId('import-failed')).textContent).toContain('The file could not be read as an Excel workbook')
  })

  it('stops the job on request, or hands it to the top bar when closed while it runs', async () => {
    const dialog = renderDialog()
    await waitFor(() => expect(document.querySelector('input[type=file]')).toBeTruthy())
    dialog.choose(large())
    await dialog.submit()
    await screen.findByTestId('import-job')
    fireEvent.click(screen.getByTestId('import-job-stop'))
    const confirm = await screen.findByText('Stop this import? Nothing of it will be imported.')
    fireEvent.click(within(confirm.closest('.ant-popover') as HTMLElement).getByRole('button', { name: 'Stop the import' }))
    expect(await screen.findByTestId('import-cancelled')).toBeTruthy()
    expect(calls('POST', '/monitor/job/9/cancel')).toHaveLength(1)

    dialog.choose(large())
    await dialog.submit()
    await screen.findByTestId('import-job')
    const close = document.querySelector('.ant-modal-footer .ant-btn:not(.ant-btn-primary)') as HTMLElement
    expect(close.textContent).toBe('Close')
    fireEvent.click(close)
    expect(dialog.onClose).toHaveBeenCalled()
    // The top bar's list holds it, to follow it from there.
    expect(dialog.client.getQueryData<{ rows: JobInfo[] }>(['jobs', 'mine'])?.rows.map((j) => j.jobId)).toEqual([9])
  })
})
