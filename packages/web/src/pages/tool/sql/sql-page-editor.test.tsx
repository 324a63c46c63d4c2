import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor } from '@testing-library/react'
import type { SessionUser, SqlHistoryEntry } from '@velo/shared'
import { sessionStore } from '../../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../../test/render'
import SqlPage from './index'

// The page with the real CodeMirror editor (sql-page.test.tsx stands a textarea in for it): the
// statement picked from the history reaches the editor, and Ctrl+Enter in the editor runs it.

const fetchMock = vi.fn<typeof fetch>()
const runCalls = () => fetchMock.mock.calls.filter(([url]) => String(url) === '/api/tool/sql/run')
const history: SqlHistoryEntry[] = [{ historyId: 1, sql: 'SELECT 42 AS answer', mode: 'read', outcome: 'ok', rowCount: 1, durationMs: 1, createTime: '2026-11-25T01:00:00Z' }]

describe('SQL execution page with CodeMirror', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    // jsdom has no layout; CodeMirror measures text ranges to draw the selection.
    Range.prototype.getClientRects ??= () => [] as unknown as DOMRectList
    Range.prototype.getBoundingClientRect ??= () => new DOMRect()
    fetchMock.mockImplementation(async (url) => {
      const path = String(url).replace(/^\/api/, '')
      if (path === '/tool/sql/history') return jsonResponse(history)
      if (path === '/tool/sql/schema') return jsonResponse({ dialect: 'sqlite', tables: { sys_user: ['user_id'] } })
      if (path === '/tool/sql/run') return jsonResponse({ kind: 'rows', columns: [{ name: 'answer', type: null }], rows: [[42]], truncated: null, rowsAffected: null, durationMs: 1 })
      return jsonResponse(null, 404)
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
  })

  it('fills the editor from the history and runs it with Ctrl+Enter', async () => {
    sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions: ['tool:sql:list', 'tool:sql:execute'] })
    renderWithProviders(<SqlPage />)
    await waitFor(() => expect(screen.getByTestId('sql-editor').getAttribute('data-ready')).toBe('true'), { timeout: 10_000 })
    const content = screen.getByLabelText('SQL statement')
    expect(content.getAttribute('contenteditable')).toBe('true')

    fireEvent.click((await screen.findAllByTestId('sql-history-item'))[0]!)
    await waitFor(() => expect(content.textContent).toBe('SELECT 42 AS answer'))
    fireEvent.keyDown(content, { key: 'Enter', ctrlKey: true })
    await waitFor(() => expect(runCalls()).toHaveLength(1))
    expect(JSON.parse(String(runCalls()[0]![1]?.body))).toEqual({ sql: 'SELECT 42 AS answer' })
    expect((await screen.findByTestId('sql-summary')).textContent).toBe('1 row in 1 ms')
  })
})
