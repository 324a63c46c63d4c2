import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor } from '@testing-library/react'
import type { SessionUser } from '@velo/shared'
import { MemoryRouter, useLocation } from 'react-router'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import IotPartPage from './iotpart/index'

const fetchMock = vi.fn<typeof fetch>()
const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions })

/** Where the page has put the router: the tab lives in the query. */
function Location() {
  return <span data-testid="location">{useLocation().search}</span>
}

function open(search = '') {
  return renderWithProviders(
    <MemoryRouter initialEntries={[`/ota/iotpart${search}`]}>
      <IotPartPage />
      <Location />
    </MemoryRouter>,
  )
}

describe('OTA part page', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (input) => {
      const path = String(input).replace(/^\/api/, '')
      if (path === '/ota/iotpart/supplier/list') return jsonResponse({ rows: [{ supplierId: 1, name: 'Quectel Wireless Solutions', supplierCode: 'QC', iotCode: 'Q' }], total: 1 })
      if (path === '/ota/iotpart/product/list') return jsonResponse({ rows: [{ productId: 2, supplierId: 1, supplierIdLabel: 'Quectel Wireless Solutions', name: 'EC200U 4G Cat 1 module', productCode: 'EC', hardwareRevision: 'R1.2' }], total: 1 })
      if (path.startsWith('/system/dict/getDicts/')) return jsonResponse([])
      return jsonResponse(null, 404)
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
    localStorage.clear()
  })

  it('shows only the tabs whose list the user may see, and keeps the chosen one in the URL', async () => {
    // The IoT module's firmware and upgrades have rights of their own (IoT › Firmware, IoT › IoT upgrade).
    signIn(['ota:iotpart:list'])
    open('?tab=firmware')
    expect(screen.getByTestId('ota-tab-supplier')).toBeTruthy()
    expect(screen.getByTestId('ota-tab-product')).toBeTruthy()
    expect(screen.queryByTestId('ota-tab-firmware')).toBeNull()
    expect(screen.queryByTestId('ota-tab-upgrade')).toBeNull()
    // A tab the user may not see in the URL opens the first they may.
    expect(await screen.findByText('Quectel Wireless Solutions')).toBeTruthy()

    fireEvent.click(screen.getByTestId('ota-tab-product'))
    expect(await screen.findByText('EC200U 4G Cat 1 module')).toBeTruthy()
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('?tab=product'))
  })

  it('opens the tab the URL names', async () => {
    signIn(['ota:iotpart:list', 'iot:firmware:list'])
    open('?tab=product')
    expect(screen.getByTestId('ota-tab-firmware')).toBeTruthy()
    expect(await screen.findByText('EC200U 4G Cat 1 module')).toBeTruthy()
    // Only the open tab's list is asked for.
    expect(fetchMock.mock.calls.some(([url]) => String(url).endsWith('/ota/iotpart/supplier/list'))).toBe(false)
  })
})
