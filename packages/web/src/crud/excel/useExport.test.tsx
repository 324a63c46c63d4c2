import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { systemEntities, type JobInfo } from '@velo/shared'
import { jobStore } from '../../api/jobStore'
import { renderWithProviders } from '../../test/render'
import { EXPORT_JOB_THRESHOLD, useExport } from './useExport'

// Large exports become jobs; the rest stay a direct download.

const fetchMock = vi.fn<typeof fetch>()
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)
const queued = { jobId: 4, kind: 'export', title: 'Export Login log', state: 'queued' } as JobInfo

function ExportButton({ total }: { total?: number }) {
  const exportRows = useExport(systemEntities.loginLog)
  return (
    <button type="button" onClick={() => exportRows({ status: '1' }, total)}>
      export
    </button>
  )
}

async function confirm(text: RegExp) {
  const dialog = await waitFor(() => {
    const found = screen.getAllByRole('dialog').find((d) => text.test(d.textContent ?? ''))
    expect(found).toBeTruthy()
    return found!
  })
  fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }))
}

describe('useExport', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url) => {
      if (String(url).endsWith('/export/job')) {
        return new Response(JSON.stringify({ code: 200, msg: 'The job is queued: follow it with the jobs button in the top bar', data: queued }), { status: 200, headers: { 'Content-Type': 'application/json' } })
      }
      return new Response('PK', { status: 200, headers: { 'Content-Disposition': 'attachment; filename="loginLog.xlsx"' } })
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
  })

  it(`starts a job above ${EXPORT_JOB_THRESHOLD.toLocaleString()} rows and hands it to the jobs button`, async () => {
    const shown: JobInfo[] = []
    const stop = jobStore.onStarted((job) => shown.push(job))
    renderWithProviders(<ExportButton total={1_000_000} />)
    fireEvent.click(screen.getByText('export'))
    await confirm(/1,000,000 rows.*in the background/)
    await waitFor(() => expect(calls('POST', '/monitor/logininfor/export/job')).toHaveLength(1))
    expect(JSON.parse(String(calls('POST', '/monitor/logininfor/export/job')[0]![1]?.body))).toEqual({ status: '1' })
    expect(await screen.findByText('The job is queued: follow it with the jobs button in the top bar')).toBeTruthy()
    expect(shown).toEqual([queued])
    expect(calls('POST', '/monitor/logininfor/export')).toHaveLength(0)
    stop()
  })

  it('downloads directly at or below the threshold', async () => {
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {})
    URL.createObjectURL = vi.fn(() => 'blob:x')
    URL.revokeObjectURL = vi.fn()
    renderWithProviders(<ExportButton total={EXPORT_JOB_THRESHOLD} />)
    fireEvent.click(screen.getByText('export'))
    // It says how many rows the file will hold, in the page's number format (issue 36).
    await confirm(/matching the current search \(50,000 rows\), in the list's order\?/)
    await waitFor(() => expect(click).toHaveBeenCalledTimes(1))
    expect(calls('POST', '/monitor/logininfor/export')).toHaveLength(1)
    expect(calls('POST', '/monitor/logininfor/export/job')).toHaveLength(0)
    click.mockRestore()
  })
})
