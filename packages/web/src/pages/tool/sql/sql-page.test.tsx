import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { SQL_CONFIRM_WRITE_CODE, type SessionUser, type SqlHistoryEntry, type SqlRunResult } from '@velo/shared'
import { sessionStore } from '../../../session/sessionStore'
import i18n from '../../../i18n'
import { jsonResponse, renderWithProviders } from '../../../test/render'
import SqlPage from './index'

// CodeMirror does not lay out in jsdom; a textarea with the same props stands in for the editor.
vi.mock('../../../lib/code/CodeEditor', () => ({
  CodeEditor: (props: { value: string; onChange?: (v: string) => void; onSubmit?: () => void; ariaLabel?: string; testId?: string; language: unknown }) => (
    <textarea
      aria-label={props.ariaLabel}
      data-testid={props.testId}
      data-language={JSON.stringify(props.language)}
      value={props.value}
      onChange={(event) => props.onChange?.(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) props.onSubmit?.()
      }}
    />
  ),
}))

const fetchMock = vi.fn<typeof fetch>()
const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions })
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)
const bodyOf = (call: Parameters<typeof fetch>) => JSON.parse(String(call[1]?.body)) as unknown
const envelope = (status: number, code: number, msg: string) =>
  new Response(JSON.stringify({ code, msg, data: null }), { status, headers: { 'Content-Type': 'application/json' } })

const ALL = ['tool:sql:list', 'tool:sql:execute', 'tool:sql:write', 'tool:sql:export']
const rows: SqlRunResult = {
  kind: 'rows',
  columns: [
    { name: 'user_id', type: 'integer' },
    { name: 'user_name', type: 'varchar' },
    { name: 'remark', type: null },
  ],
  rows: [
    [1, 'alice', null],
    [2, 'bob', 'x'.repeat(500)],
  ],
  truncated: null,
  rowsAffected: null,
  durationMs: 5,
}
const history: SqlHistoryEntry[] = [
  { historyId: 7, sql: 'SELECT count(*) FROM sys_dept', mode: 'read', outcome: 'ok', rowCount: 1, durationMs: 3, createTime: '2026-11-25T01:00:00Z' },
  { historyId: 6, sql: 'DELETE FROM sys_notice', mode: 'write', outcome: 'refused', rowCount: null, durationMs: 1, createTime: '2026-11-25T00:59:00Z' },
]

/** jsdom never ends antd's leave animation: a closed dialog stays in the page, leaving. */
const confirmClosing = () => screen.getByTestId('sql-confirm-write').closest('.ant-modal')?.classList.contains('ant-zoom-leave')

/** How the server answers POST /tool/sql/run in the current test. */
let answerRun: (body: { sql: string; write?: boolean }) => Response

async function typeAndRun(statement: string) {
  fireEvent.change(screen.getByTestId('sql-editor'), { target: { value: statement } })
  fireEvent.click(screen.getByTestId('sql-run'))
}

describe('SQL execution page', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    answerRun = () => jsonResponse(rows)
    fetchMock.mockImplementation(async (url, init) => {
      const path = String(url).replace(/^\/api/, '')
      if (path === '/tool/sql/history') return jsonResponse(history)
      if (path === '/tool/sql/schema') return jsonResponse({ dialect: 'postgres', tables: { sys_user: ['user_id', 'user_name'] } })
      if (path === '/tool/sql/run') return answerRun(JSON.parse(String(init?.body)) as { sql: string; write?: boolean })
      if (path === '/tool/sql/export') return new Response('PK', { status: 200, headers: { 'Content-Disposition': 'attachment; filename="sql-result.xlsx"' } })
      return jsonResponse(null, 404)
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
  })

  it('shows the editor with completion from the schema, the notice and an empty result before the first run', async () => {
    signIn(ALL)
    renderWithProviders(<SqlPage />)
    const editor = screen.getByLabelText('SQL statement')
    await waitFor(() => expect(JSON.parse(editor.getAttribute('data-language')!)).toEqual({ kind: 'sql', dialect: 'postgres', schema: { sys_user: ['user_id', 'user_name'] } }))
    expect(screen.getByTestId('sql-empty').textContent).toContain('Run a statement to see its result here')
    expect(screen.getByTestId('sql-notice').textContent).toContain('Statements run read-only')
    expect(screen.getByTestId('sql-notice').textContent).toContain('You hold the Write permission')
    // Nothing to run or export yet.
    expect(screen.getByTestId('sql-run').hasAttribute('disabled')).toBe(true)
    expect(screen.getByTestId('sql-export').hasAttribute('disabled')).toBe(true)
  })

  it('runs a statement and shows its columns, rows and summary, then refreshes the history', async () => {
    signIn(ALL)
    renderWithProviders(<SqlPage />)
    await waitFor(() => expect(calls('GET', '/tool/sql/history')).toHaveLength(1))
    await typeAndRun('SELECT user_id, user_name, remark FROM sys_user')
    const result = await screen.findByTestId('sql-result')
    expect(bodyOf(calls('POST', '/tool/sql/run')[0]!)).toEqual({ sql: 'SELECT user_id, user_name, remark FROM sys_user' })
    expect(screen.getByTestId('sql-summary').textContent).toBe('2 rows in 5 ms')
    expect(within(result).getByText('alice')).toBeTruthy()
    // Headers name the column with its type as a hint; NULL stands apart from the text 'NULL'.
    expect(within(result).getAllByText('user_name').length).toBeGreaterThan(0)
    expect(within(result).getAllByText('varchar').length).toBeGreaterThan(0)
    expect(result.querySelector('[data-null="true"]')?.textContent).toBe('NULL')
    // A long text is cut in the cell and whole on hover.
    expect(within(result).getByTitle('x'.repeat(500))).toBeTruthy()
    expect(screen.queryByTestId('sql-empty')).toBeNull()
    await waitFor(() => expect(calls('GET', '/tool/sql/history')).toHaveLength(2))
  })

  it('runs with Ctrl+Enter and pages the rows in the browser', async () => {
    signIn(ALL)
    answerRun = () => jsonResponse({ ...rows, rows: Array.from({ length: 45 }, (_, i) => [i, `name-${i}`, null]) })
    renderWithProviders(<SqlPage />)
    const editor = screen.getByTestId('sql-editor')
    fireEvent.change(editor, { target: { value: 'SELECT 1' } })
    fireEvent.keyDown(editor, { key: 'Enter', ctrlKey: true })
    const result = await screen.findByTestId('sql-result')
    expect(calls('POST', '/tool/sql/run')).toHaveLength(1)
    expect(within(result).getByText('name-0')).toBeTruthy()
    expect(within(result).queryByText('name-20')).toBeNull()
    expect(result.textContent).toContain('1–20 of 45')
    fireEvent.click(result.querySelector('.ant-pagination-item-3')!)
    expect(await within(result).findByText('name-40')).toBeTruthy()
  })

  it('says when the row cap or the size cap stopped the rows', async () => {
    signIn(ALL)
    answerRun = () => jsonResponse({ ...rows, truncated: 'rows' })
    renderWithProviders(<SqlPage />)
    await typeAndRun('SELECT * FROM sys_oper_log')
    await waitFor(() => expect(screen.getByTestId('sql-summary').textContent).toBe('2 rows in 5 ms — stopped at the row cap of 2'))
    answerRun = () => jsonResponse({ ...rows, truncated: 'size' })
    fireEvent.click(screen.getByTestId('sql-run'))
    await waitFor(() => expect(screen.getByTestId('sql-summary').textContent).toBe('2 rows in 5 ms — stopped at the size cap'))
  })

  it("shows the server's message for a refused statement under the editor, once", async () => {
    signIn(ALL)
    answerRun = () => envelope(400, 400, 'Statements may not attach databases')
    renderWithProviders(<SqlPage />)
    await typeAndRun("ATTACH 'x.db' AS x")
    const alert = await screen.findByTestId('sql-error')
    expect(alert.textContent).toContain('Statements may not attach databases')
    // No red message from the client on top of the alert.
    expect(screen.getAllByText('Statements may not attach databases')).toHaveLength(1)
    expect(screen.queryByTestId('sql-result')).toBeNull()
  })

  it("shows the server's message when the statement needs a permission the user lacks", async () => {
    signIn(['tool:sql:list', 'tool:sql:execute'])
    answerRun = () => envelope(403, 403, 'Writing needs the permission tool:sql:write')
    renderWithProviders(<SqlPage />)
    expect(screen.getByTestId('sql-notice').textContent).toContain('Writing needs the Write permission and a confirmation')
    expect(screen.getByTestId('sql-notice').textContent).not.toContain('You hold')
    await typeAndRun('DELETE FROM sys_notice')
    expect((await screen.findByTestId('sql-error')).textContent).toContain('Writing needs the permission tool:sql:write')
    expect(screen.queryByTestId('sql-confirm-write')).toBeNull()
  })

  it('asks before a write with the whole statement, sends it again with write: true and reports rows affected', async () => {
    signIn(ALL)
    const statement = "UPDATE sys_notice\n   SET status = '1'\n WHERE notice_id IN (1, 2, 3)\nRETURNING notice_id"
    answerRun = (body) =>
      body.write
        ? jsonResponse({ kind: 'write', columns: [{ name: 'notice_id', type: 'integer' }], rows: [[1], [2], [3]], truncated: null, rowsAffected: 3, durationMs: 7 })
        : envelope(409, SQL_CONFIRM_WRITE_CODE, 'This statement writes: confirm it to run it')
    renderWithProviders(<SqlPage />)
    await typeAndRun(statement)
    const dialog = await screen.findByTestId('sql-confirm-write')
    expect(dialog.textContent).toContain('This statement writes: confirm it to run it')
    expect(within(dialog).getByTestId('sql-confirm-statement').textContent).toBe(statement)
    expect(screen.queryByTestId('sql-error')).toBeNull()
    expect(calls('POST', '/tool/sql/run')).toHaveLength(1)

    fireEvent.click(screen.getByTestId('sql-confirm-run'))
    await waitFor(() => expect(calls('POST', '/tool/sql/run')).toHaveLength(2))
    expect(bodyOf(calls('POST', '/tool/sql/run')[1]!)).toEqual({ sql: statement, write: true })
    expect((await screen.findByTestId('sql-affected')).textContent).toBe('3 rows affected in 7 ms')
    expect(screen.getByTestId('sql-summary').textContent).toBe('3 rows affected in 7 ms — 3 rows returned')
    expect(within(screen.getByTestId('sql-result')).getAllByText('notice_id').length).toBeGreaterThan(0)
    await waitFor(() => expect(confirmClosing()).toBe(true))
  })

  it('cancelling the confirmation sends nothing more', async () => {
    signIn(ALL)
    answerRun = () => envelope(409, SQL_CONFIRM_WRITE_CODE, 'This statement writes: confirm it to run it')
    renderWithProviders(<SqlPage />)
    await typeAndRun('DELETE FROM sys_notice')
    const dialog = await screen.findByRole('dialog')
    await screen.findByTestId('sql-confirm-write')
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(confirmClosing()).toBe(true))
    expect(calls('POST', '/tool/sql/run')).toHaveLength(1)
  })

  it('puts a statement picked from the history into the editor', async () => {
    signIn(ALL)
    renderWithProviders(<SqlPage />)
    const panel = await screen.findByTestId('sql-history')
    await within(panel).findByText('SELECT count(*) FROM sys_dept')
    expect(within(panel).getByText('Refused')).toBeTruthy()
    expect(within(panel).getByText('Write')).toBeTruthy()
    expect(panel.textContent).toContain('3 ms')
    fireEvent.click(within(panel).getAllByTestId('sql-history-item')[1]!)
    expect((screen.getByTestId('sql-editor') as HTMLTextAreaElement).value).toBe('DELETE FROM sys_notice')
    expect(screen.getByTestId('sql-run').hasAttribute('disabled')).toBe(false)
  })

  it('exports the statement as .xlsx', async () => {
    signIn(ALL)
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {})
    URL.createObjectURL = vi.fn(() => 'blob:x')
    URL.revokeObjectURL = vi.fn()
    try {
      renderWithProviders(<SqlPage />)
      fireEvent.change(screen.getByTestId('sql-editor'), { target: { value: 'SELECT * FROM sys_dept' } })
      fireEvent.click(screen.getByTestId('sql-export'))
      await waitFor(() => expect(click).toHaveBeenCalledTimes(1))
      expect(bodyOf(calls('POST', '/tool/sql/export')[0]!)).toEqual({ sql: 'SELECT * FROM sys_dept' })
      expect(await screen.findByText('Exported successfully')).toBeTruthy()
    } finally {
      click.mockRestore()
    }
  })

  it('hides Run and Export without their permissions', async () => {
    signIn(['tool:sql:list'])
    renderWithProviders(<SqlPage />)
    await screen.findByTestId('sql-history')
    expect(screen.queryByTestId('sql-run')).toBeNull()
    expect(screen.queryByTestId('sql-export')).toBeNull()
    expect(screen.getByTestId('sql-notice').textContent).toContain('Running statements needs the Execute permission')
    // Ctrl+Enter does not run either.
    const editor = screen.getByTestId('sql-editor')
    fireEvent.change(editor, { target: { value: 'SELECT 1' } })
    fireEvent.keyDown(editor, { key: 'Enter', ctrlKey: true })
    expect(calls('POST', '/tool/sql/run')).toHaveLength(0)
  })

  it('speaks Chinese', async () => {
    signIn(ALL)
    answerRun = () => jsonResponse({ ...rows, truncated: 'rows' })
    await i18n.changeLanguage('zh_CN')
    try {
      renderWithProviders(<SqlPage />)
      expect(screen.getByLabelText('SQL 语句')).toBeTruthy()
      expect(screen.getByTestId('sql-notice').textContent).toContain('语句以只读方式执行')
      expect(screen.getByTestId('sql-run').textContent).toContain('执行')
      expect(screen.getByTestId('sql-export').textContent).toContain('导出 .xlsx')
      expect(screen.getByTestId('sql-empty').textContent).toContain('执行语句后在此查看结果')
      const panel = await screen.findByTestId('sql-history')
      await within(panel).findByText('已拒绝')
      expect(panel.textContent).toContain('历史记录')
      await typeAndRun('SELECT 1')
      await waitFor(() => expect(screen.getByTestId('sql-summary').textContent).toBe('2 行，耗时 5 毫秒 — 已达到 2 行的上限，其余行未返回'))
      expect(screen.getByTestId('sql-result').textContent).toContain('共 2 条')
    } finally {
      await i18n.changeLanguage('en_US')
    }
  })
})
