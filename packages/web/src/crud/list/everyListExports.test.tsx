import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { screen } from '@testing-library/react'
import type { SessionUser } from '@velo/shared'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import OnlinePage from '../../pages/monitor/online/index'
import MenuPage from '../../pages/system/menu/index'

// Every list exports (SPEC §1): the two list pages that had no Export button have one now, for
// whoever holds the export right.

const fetchMock = vi.fn<typeof fetch>()
const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions })

describe.each([
  ['menus', MenuPage, 'system:menu', { menuId: 1, parentId: 0, menuName: 'Reports', menuType: 'M', orderNum: 1, status: '0' }],
  ['online users', OnlinePage, 'monitor:online', { sessionId: 'a'.repeat(32), userName: 'Reports', ipaddr: '10.0.0.1' }],
] as const)('the %s list', (_name, Page, permission, row) => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url) => {
      const path = String(url).replace(/^\/api/, '')
      if (path.endsWith('/list')) return jsonResponse({ rows: [row], total: 1 })
      return jsonResponse([])
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
    localStorage.clear()
  })

  it('offers Export with the export right, and not without it', async () => {
    signIn([`${permission}:list`, `${permission}:export`])
    const { unmount } = renderWithProviders(<Page />)
    await screen.findAllByText('Reports')
    expect(screen.getByTestId('crud-export')).toBeTruthy()
    unmount()

    signIn([`${permission}:list`])
    renderWithProviders(<Page />)
    await screen.findAllByText('Reports')
    expect(screen.queryByTestId('crud-export')).toBeNull()
  })
})
