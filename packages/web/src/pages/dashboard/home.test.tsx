import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { screen } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import type { SessionUser } from '@velo/shared'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import DashboardPage from './index'

vi.mock('../../dashboards/echartsSetup', () => ({ echarts: { init: () => ({ setOption: () => {}, resize: () => {}, dispose: () => {} }) } }))

const fetchMock = vi.fn<typeof fetch>()

describe('home page', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async () =>
      jsonResponse({ key: 'home', query: { from: '2026-08-27', to: '2026-11-24' }, refreshedAt: null, figures: [{ key: 'cards', rows: [[5, 4, 3, 2, 1, 0, 0, 0, 0]] }, { key: 'registrations', rows: [] }] }),
    )
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
  })

  it('welcomes the user and links only the dashboards they may open', async () => {
    sessionStore.setState({ user: { username: 'ana', nickName: 'Ana' } as SessionUser, roles: ['ops'], permissions: ['dashboard:satisfaction:list', 'member:member:list'] })
    renderWithProviders(
      <MemoryRouter initialEntries={['/dashboard']}>
        <DashboardPage />
      </MemoryRouter>,
    )
    expect(screen.getByText('Welcome, Ana')).toBeTruthy()
    expect((await screen.findByTestId('card-value-membersActive7d')).textContent).toBe('4')
    expect(screen.queryByTestId('card-bikesRegistered')).toBeNull()
    expect(screen.getByTestId('dashboard-link-satisfaction').getAttribute('href')).toBe('/analytics/satisfaction')
    expect(screen.queryByTestId('dashboard-link-engagement')).toBeNull()
  })
})
