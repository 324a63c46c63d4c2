import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { screen, waitFor } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import type { SessionUser } from '@velo/shared'
import { sessionStore } from '../../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../../test/render'
import { sseResponse, type SseHandle } from '../../../test/sse'
import FleetMapPage from './index'

// IoT › Map in jsdom, which has no WebGL: the page says so and shows the same devices as a list,
// following the live stream; a caller without the right to see positions gets the reason instead.

const fetchMock = vi.fn<typeof fetch>()
const setup = (positions: boolean) => ({ positions, models: [{ value: 3, label: 'City 500' }], countries: [{ value: 7, label: 'Netherlands' }], firmwareVersions: ['1.0.0'] })
const fleet = { ids: [1, 2], sns: ['VL0001', 'VL0002'], lat: [52.37, 52.52], lng: [4.89, 13.4], status: [1, 2], unlocated: 1 }
let stream: SseHandle | null = null

function serve(positions: boolean) {
  fetchMock.mockImplementation(async (input, init) => {
    const url = new URL(String(input), 'http://localhost')
    const path = url.pathname.replace(/^\/api/, '')
    if (path === '/iot/map/setup') return jsonResponse(setup(positions))
    if (path === '/iot/map/devices') return jsonResponse(fleet)
    if (path === '/iot/map/stream') {
      stream = sseResponse(init?.signal)
      return stream.response
    }
    return jsonResponse(null, 404)
  })
}

const open = (at = '/iot/map') =>
  renderWithProviders(
    <MemoryRouter initialEntries={[at]}>
      <FleetMapPage />
    </MemoryRouter>,
  )

describe('IoT › Map', () => {
  beforeEach(() => {
    stream = null
    vi.stubGlobal('fetch', fetchMock)
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null)
    sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions: ['iot:map:list', 'member:pii:location'] })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    vi.restoreAllMocks()
    fetchMock.mockReset()
  })

  it('without WebGL lists the devices, with the filters of the URL in its calls, and follows them live', async () => {
    serve(true)
    open('/iot/map?state=online,bogus&countryId=7')
    expect(await screen.findByTestId('map-no-webgl')).toBeTruthy()
    expect(await screen.findByTestId('map-device-VL0001')).toBeTruthy()
    expect(screen.getByTestId('map-shown').textContent).toBe('2 devices shown')
    expect(screen.getByTestId('map-device-VL0002').getAttribute('data-status')).toBe('alarm')
    const asked = fetchMock.mock.calls.map(([u]) => String(u)).find((u) => u.includes('/iot/map/devices'))!
    expect(new URL(asked, 'http://localhost').searchParams.get('state')).toBe('online')
    expect(new URL(asked, 'http://localhost').searchParams.get('countryId')).toBe('7')

    await waitFor(() => expect(stream).not.toBeNull())
    stream!.send('positions', { ids: [1, 5], sns: ['VL0001', 'VL0005'], lat: [48.85, 50], lng: [2.35, 5], status: [0, 1], unlocated: 0 })
    await waitFor(() => expect(screen.getByTestId('map-device-VL0001').getAttribute('data-lat')).toBe('48.85'))
    expect(screen.getByTestId('map-device-VL0001').getAttribute('data-status')).toBe('offline')
    expect(screen.getByTestId('map-device-VL0005')).toBeTruthy()
    stream!.send('gone', [2])
    await waitFor(() => expect(screen.queryByTestId('map-device-VL0002')).toBeNull())
    expect(screen.getByTestId('map-shown').textContent).toBe('2 devices shown')
  })

  it('without the right to see positions says why, and asks for no position', async () => {
    serve(false)
    // The session holds the map's right but not the one to see positions, as the server's setup says.
    sessionStore.setState({ permissions: ['iot:map:list'] })
    open()
    expect((await screen.findByTestId('map-no-positions')).textContent).toContain('Positions are personal data of the riders')
    expect(fetchMock.mock.calls.some(([u]) => String(u).includes('/iot/map/devices') || String(u).includes('/iot/map/stream'))).toBe(false)
  })
})
