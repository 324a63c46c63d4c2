import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor } from '@testing-library/react'
import type { SessionUser, Trace } from '@velo/shared'
import { sessionStore } from '../../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../../test/render'
import { sseResponse } from '../../../test/sse'
import { DeviceDrawer } from '../device/DeviceDrawer'

// The device drawer's Trace tab: offered only with both rights the server asks for, it asks for the
// chosen range and shows the server's figures (jsdom has no WebGL: the map says so instead).

const fetchMock = vi.fn<typeof fetch>()
const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions })
const traceCalls = () => fetchMock.mock.calls.filter(([url, init]) => String(url) === '/api/iot/trace' && init?.method === 'POST').map(([, init]) => JSON.parse(String(init?.body)))

const HOUR = 3_600_000
const answer = (o: Partial<Trace> = {}): Trace => ({
  deviceId: 1,
  sn: 'VB0001',
  from: new Date(Date.now() - 24 * HOUR).toISOString(),
  to: new Date().toISOString(),
  retainedFrom: new Date(Date.now() - 90 * 24 * HOUR).toISOString(),
  positionCount: 3,
  times: [Date.now() - 3 * HOUR, Date.now() - 2 * HOUR, Date.now() - HOUR],
  lat: [52.37, 52.371, 52.372],
  lng: [4.9, 4.91, 4.92],
  speed: [12, 31.5, 0],
  summary: {
    distanceKm: 1.234,
    durationSeconds: 7200,
    topSpeed: { speed: 31.5, time: new Date(Date.now() - 2 * HOUR).toISOString(), lat: 52.371, lng: 4.91 },
    stops: [{ lat: 52.372, lng: 4.92, from: new Date(Date.now() - 90 * 60_000).toISOString(), to: new Date(Date.now() - HOUR).toISOString(), seconds: 1800 }],
  },
  ...o,
})

function serve(trace: () => Trace) {
  fetchMock.mockImplementation(async (input, init) => {
    const path = String(input).replace(/^\/api/, '')
    if (path.startsWith('/iot/stream')) return sseResponse(init?.signal).response
    if (path === '/iot/device/1') return jsonResponse({ deviceId: 1, sn: 'VB0001', modelId: 3, state: 'online' })
    if (path === '/iot/message/list' || path === '/iot/command/list') return jsonResponse({ rows: [], total: 0 })
    if (path === '/iot/trace') return jsonResponse(trace())
    if (path.startsWith('/system/dict/getDicts/')) return jsonResponse([])
    return jsonResponse(null, 404)
  })
}

describe("the device drawer's trace", () => {
  beforeEach(() => vi.stubGlobal('fetch', fetchMock))
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
  })

  it('is not offered without the right to see positions, nor without the device query right', async () => {
    serve(answer)
    signIn(['iot:device:list', 'iot:device:query'])
    const { unmount } = renderWithProviders(<DeviceDrawer deviceId={1} onClose={() => {}} />)
    await screen.findByRole('tab', { name: 'Messages' })
    expect(screen.queryByRole('tab', { name: 'Trace' })).toBeNull()
    unmount()
    signIn(['iot:device:list', 'member:pii:location'])
    renderWithProviders(<DeviceDrawer deviceId={1} onClose={() => {}} />)
    await screen.findByRole('tab', { name: 'Messages' })
    expect(screen.queryByRole('tab', { name: 'Trace' })).toBeNull()
    expect(traceCalls()).toEqual([])
  })

  it('asks for the last 24 hours, then the preset chosen, and shows distance, duration, top speed and stops', async () => {
    serve(answer)
    signIn(['iot:device:list', 'iot:device:query', 'member:pii:location'])
    renderWithProviders(<DeviceDrawer deviceId={1} onClose={() => {}} />)
    fireEvent.click(await screen.findByRole('tab', { name: 'Trace' }))
    expect((await screen.findByTestId('trace-distance')).textContent).toContain('1.23 km')
    expect(screen.getByTestId('trace-duration').textContent).toContain('2 h 00 min')
    expect(screen.getByTestId('trace-top-speed').textContent).toContain('31.5 km/h')
    expect(screen.getByTestId('trace-stops').textContent).toContain('1')
    expect(screen.getByTestId('trace-stop-list').textContent).toContain('(30 min)')
    expect(screen.queryByTestId('trace-retention')).toBeNull()
    const [first] = traceCalls()
    expect(first.deviceId).toBe(1)
    expect(Date.parse(first.to) - Date.parse(first.from)).toBe(24 * HOUR)

    fireEvent.click(screen.getByText('Last hour'))
    await waitFor(() => expect(traceCalls()).toHaveLength(2))
    const second = traceCalls()[1]
    expect(Date.parse(second.to) - Date.parse(second.from)).toBe(HOUR)
  })

  it('explains an empty trace whose range reaches back past the positions kept', async () => {
    serve(() => answer({ from: new Date(Date.now() - 100 * 24 * HOUR).toISOString(), positionCount: 0, times: [], lat: [], lng: [], speed: [], summary: { distanceKm: 0, durationSeconds: 0, topSpeed: null, stops: [] } }))
    signIn(['iot:device:list', 'iot:device:query', 'member:pii:location'])
    renderWithProviders(<DeviceDrawer deviceId={1} onClose={() => {}} />)
    fireEvent.click(await screen.findByRole('tab', { name: 'Trace' }))
    expect((await screen.findByTestId('trace-retention')).textContent).toMatch(/no longer kept/)
    expect(screen.getByTestId('trace-empty').textContent).toContain('No positions in this range')
  })
})
