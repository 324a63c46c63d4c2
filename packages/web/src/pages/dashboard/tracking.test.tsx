import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { dashboardEntities, type SessionUser } from '@velo/shared'
import { resolvePage } from '../../routes/pageRegistry'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { EntityListPage } from '../../crud/EntityListPage'

// Dashboards › Tracking configuration has no page of its own: the engine's tree list of the
// trackingNode definition. This checks it is found, lists as a tree, adds child nodes and shows the
// server's refusal to delete a node with children.

const node = dashboardEntities.trackingNode
const nodes = [
  { nodeId: 1, parentId: 0, name: 'App', code: 'app', label: 'Application', path: '/', orderNum: 0, status: '0' },
  { nodeId: 2, parentId: 1, name: 'Launch', code: 'app.launch', label: 'Cold start', path: '/launch', orderNum: 1, status: '0' },
]
const REFUSAL = 'Cannot delete node: Child nodes exist'

const fetchMock = vi.fn<typeof fetch>()

describe('tracking configuration', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (u, init) => {
      const path = String(u).replace(/^\/api/, '').replace(/\?.*$/, '')
      if (path === '/dashboard/tracking/list') return jsonResponse({ rows: nodes, total: nodes.length })
      if (path === '/dashboard/tracking/options') return jsonResponse(nodes.map((n) => ({ value: n.nodeId, label: n.name, parentId: n.parentId })))
      if (path.startsWith('/system/dict/getDicts/')) return jsonResponse([{ dictValue: '0', dictLabel: 'Normal', dictLabelZh: '正常', listClass: 'primary', isDefault: 'Y' }])
      // The engine's tree rule, as the server words it.
      if (path === '/dashboard/tracking/1' && init?.method === 'DELETE')
        return new Response(JSON.stringify({ code: 500, msg: REFUSAL, data: null }), { status: 200, headers: { 'Content-Type': 'application/json' } })
      return jsonResponse(null, 404)
    })
    sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions: ['dashboard:tracking:list', 'dashboard:tracking:add', 'dashboard:tracking:remove'] })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
  })

  it('is the generic list of the trackingNode definition', () => {
    expect(resolvePage('dashboard/tracking/index')?.displayName).toBe('EntityPage(trackingNode)')
  })

  it('lists the tree, offers child nodes, and shows why a node with children stays', async () => {
    renderWithProviders(<EntityListPage entity={node} />)
    const table = await screen.findByTestId('crud-table')
    expect(await within(table).findByText('App')).toBeTruthy()
    const appRow = within(table).getByText('App').closest('tr')!
    expect(within(appRow).getByTestId('row-add-child')).toBeTruthy()

    fireEvent.click(within(appRow).getByTestId('row-delete'))
    fireEvent.click(await screen.findByRole('button', { name: 'OK' }))
    await waitFor(() => expect(screen.getByText(REFUSAL)).toBeTruthy())
  })
})
