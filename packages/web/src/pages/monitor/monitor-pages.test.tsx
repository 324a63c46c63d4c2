import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import type { SessionUser } from '@velo/shared'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import LoginLogPage from './loginLog/index'
import OnlinePage from './online/index'

const fetchMock = vi.fn<typeof fetch>()
const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions })
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)

const logins = [
  { infoId: 1, userName: 'alice', ipaddr: '10.0.0.1', status: '0', msg: 'Signed in', loginTime: '2026-01-01T08:00:00Z' },
  { infoId: 2, userName: 'bob', ipaddr: '10.0.0.2', status: '1', msg: 'Too many wrong passwords', loginTime: '2026-01-01T09:00:00Z' },
]
const sessions = [{ sessionId: 'a'.repeat(32), userName: 'alice', deptName: 'Sales', ipaddr: '10.0.0.1', browser: 'Chrome', os: 'Linux', loginTime: '2026-01-01T08:00:00Z', lastAccessTime: '2026-01-01T08:05:00Z' }]

/** OK on the newest confirmation (an earlier one may still be closing). */
async function confirm() {
  const dialogs = await screen.findAllByRole('dialog')
  fireEvent.click(within(dialogs.at(-1)!).getByRole('button', { name: 'OK' }))
}

describe('monitor pages', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url, init) => {
      const path = String(url).replace(/^\/api/, '')
      if (path.startsWith('/system/dict/getDicts/')) return jsonResponse([])
      if (path === '/monitor/logininfor/list') return jsonResponse({ rows: logins, total: 2 })
      if (path === '/monitor/logininfor/clean') return jsonResponse({ deleted: 2 })
      if (path.startsWith('/monitor/logininfor/unlock/')) return jsonResponse(null)
      if (path === '/monitor/online/list') return jsonResponse({ rows: sessions, total: 1 })
      if (init?.method === 'DELETE') return jsonResponse(null)
      return jsonResponse(null, 404)
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
    localStorage.clear()
  })

  it('login log: unlocks the account of a failed sign-in and cleans up after confirmations', async () => {
    signIn(['monitor:logininfor:list', 'monitor:logininfor:remove', 'monitor:logininfor:unlock'])
    renderWithProviders(<LoginLogPage />)
    await screen.findByText('bob')
    // Only the failed sign-in offers Unlock.
    expect(screen.getAllByTestId('row-unlock')).toHaveLength(1)
    fireEvent.click(screen.getByTestId('row-unlock'))
    await confirm()
    await waitFor(() => expect(calls('GET', '/monitor/logininfor/unlock/bob')).toHaveLength(1))
    expect(await screen.findByText('Account "bob" unlocked')).toBeTruthy()

    fireEvent.click(screen.getByTestId('log-clean'))
    await confirm()
    await waitFor(() => expect(calls('DELETE', '/monitor/logininfor/clean')).toHaveLength(1))
    expect(await screen.findByText('2 entries deleted')).toBeTruthy()
  })

  it('login log: without the permissions there is no unlock and no clean-up', async () => {
    signIn(['monitor:logininfor:list'])
    renderWithProviders(<LoginLogPage />)
    await screen.findByText('bob')
    expect(screen.queryByTestId('row-unlock')).toBeNull()
    expect(screen.queryByTestId('log-unlock')).toBeNull()
    expect(screen.queryByTestId('log-clean')).toBeNull()
  })

  it('online users: searches by user name and IP, and forces a session out after a confirmation', async () => {
    signIn(['monitor:online:list', 'monitor:online:forceLogout'])
    renderWithProviders(<OnlinePage />)
    expect(await screen.findByText('Chrome')).toBeTruthy()
    const search = screen.getByTestId('crud-search')
    expect(within(search).getByLabelText('User')).toBeTruthy()
    fireEvent.change(within(search).getByLabelText('IP address'), { target: { value: '10.0' } })
    fireEvent.click(screen.getByTestId('crud-search-submit'))
    await waitFor(() => expect(calls('POST', '/monitor/online/list')).toHaveLength(2))
    expect(JSON.parse(String(calls('POST', '/monitor/online/list')[1]![1]!.body))).toEqual({ pageNum: 1, pageSize: 20, ipaddr: '10.0' })
    fireEvent.click(screen.getByTestId('row-force-logout'))
    await confirm()
    await waitFor(() => expect(calls('DELETE', `/monitor/online/${'a'.repeat(32)}`)).toHaveLength(1))
  })
})
