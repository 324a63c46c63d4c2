import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import type { OtaCampaignOverview, SessionUser } from '@velo/shared'
import { sessionStore } from '../../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../../test/render'
import { sseResponse, type SseHandle } from '../../../test/sse'
import { UpgradePage } from '../UpgradePage'
import { CampaignOverview } from './CampaignOverview'

// echarts draws on a canvas, which jsdom has not: the chart's option is what is checked.
const drawn = vi.hoisted(() => ({ setOption: vi.fn(), resize: vi.fn(), dispose: vi.fn() }))
vi.mock('echarts/core', () => ({ use: vi.fn(), init: vi.fn(() => drawn) }))
vi.mock('echarts/charts', () => ({ BarChart: {}, LineChart: {} }))
vi.mock('echarts/components', () => ({ GridComponent: {}, TooltipComponent: {} }))
vi.mock('echarts/renderers', () => ({ CanvasRenderer: {} }))

const paused: OtaCampaignOverview = {
  campaignId: 7,
  status: 'paused',
  pauseReason: 'Failures in the canary passed the error threshold: 2 of 5 finished (40 %, limit 10 %)',
  currentWave: 0,
  totalDevices: 50,
  counts: { succeeded: 3, failed: 2, queued: 45 },
  waves: [
    { wave: 0, total: 5, succeeded: 3, failed: 2, active: 0, queued: 0, status: 'stopped' },
    { wave: 1, total: 45, succeeded: 0, failed: 0, active: 0, queued: 45, status: 'waiting' },
  ],
  timeline: [
    { at: '2026-11-24T10:00:00.000Z', counts: { queued: 50 } },
    { at: '2026-11-24T10:01:00.000Z', counts: { queued: 45, downloading: 4, installing: 1 } },
    { at: '2026-11-24T10:02:00.000Z', counts: { queued: 45, succeeded: 3, failed: 1, timedOut: 1 } },
  ],
  failed: [
    { upgradeId: 11, deviceId: 101, sn: 'VL0000101', state: 'failed', code: 'E_FLASH_WRITE', message: 'Flash write failed', attempt: 1, at: '2026-11-24T10:01:30.000Z' },
    { upgradeId: 12, deviceId: 102, sn: 'VL0000102', state: 'timedOut', code: null, message: null, attempt: 2, at: '2026-11-24T10:02:00.000Z' },
  ],
}

describe('campaign live view', () => {
  afterEach(() => {
    drawn.setOption.mockReset()
  })

  it('shows why it paused itself, the devices per state in their colours, and each wave as a bar of its devices', () => {
    renderWithProviders(<CampaignOverview part="iot" overview={paused} />)
    const reason = screen.getByTestId('ota-pause-reason')
    expect(reason.textContent).toContain('The campaign is paused')
    expect(reason.textContent).toContain('Failures in the canary passed the error threshold: 2 of 5 finished (40 %, limit 10 %)')
    expect(reason.className).toContain('ant-alert-error')

    expect(screen.getByTestId('ota-total').textContent).toBe('50 devices')
    expect(screen.getByTestId('ota-count-succeeded').textContent).toBe('Succeeded 3')
    expect(screen.getByTestId('ota-count-succeeded').className).toContain('ant-tag-success')
    expect(screen.getByTestId('ota-count-failed').className).toContain('ant-tag-error')
    expect(screen.getByTestId('ota-count-queued').textContent).toBe('Queued 45')
    // States without devices are left out.
    expect(screen.queryByTestId('ota-count-installing')).toBeNull()

    const canary = screen.getByTestId('ota-wave-0')
    expect(canary.textContent).toContain('Canary')
    expect(canary.textContent).toContain('Stopped the campaign')
    expect(canary.textContent).toContain('3 succeeded, 2 failed, 0 in progress, 0 queued of 5')
    const segments = [...canary.querySelectorAll<HTMLElement>('.ota-wave-segment')].map((s) => [s.dataset.segment, s.style.width])
    expect(segments).toEqual([
      ['succeeded', '60%'],
      ['failed', '40%'],
    ])
    const next = screen.getByTestId('ota-wave-1')
    expect(next.textContent).toContain('Wave 1')
    expect(next.textContent).toContain('Waiting')
    expect([...next.querySelectorAll<HTMLElement>('.ota-wave-segment')].map((s) => s.dataset.segment)).toEqual(['queued'])
  })

  it('says a campaign is paused even when whoever paused it gave no reason', () => {
    renderWithProviders(<CampaignOverview part="iot" overview={{ ...paused, pauseReason: null }} />)
    expect(screen.getByTestId('ota-pause-reason').textContent).toBe('The campaign is paused')
  })

  it('shows no pause reason while running', () => {
    renderWithProviders(<CampaignOverview part="iot" overview={{ ...paused, status: 'running', pauseReason: null }} />)
    expect(screen.queryByTestId('ota-pause-reason')).toBeNull()
  })

  it('draws the states over time as stacked bands that add up to the devices', async () => {
    renderWithProviders(<CampaignOverview part="iot" overview={paused} />)
    await waitFor(() => expect(drawn.setOption).toHaveBeenCalled())
    const option = drawn.setOption.mock.calls.at(-1)![0] as { series: { name: string; stack: string; data: number[] }[]; xAxis: { data: string[] } }
    expect(option.xAxis.data).toHaveLength(3)
    const band = (name: string) => option.series.find((s) => s.name === name)!
    expect(band('Queued or held').data).toEqual([50, 45, 45])
    expect(band('In progress').data).toEqual([0, 5, 0])
    expect(band('Succeeded').data).toEqual([0, 0, 3])
    expect(band('Failed, rolled back or timed out').data).toEqual([0, 0, 2])
    expect(option.series.every((s) => s.stack === 'devices')).toBe(true)
    for (let i = 0; i < 3; i++) expect(option.series.reduce((sum, s) => sum + s.data[i]!, 0)).toBe(50)
  })

  it('labels each time of a short campaign differently, with seconds when minutes repeat', async () => {
    const timeline = [
      { at: '2026-11-24T10:01:00.000Z', counts: { queued: 2 } },
      { at: '2026-11-24T10:01:20.000Z', counts: { succeeded: 2 } },
    ]
    renderWithProviders(<CampaignOverview part="iot" overview={{ ...paused, timeline }} />)
    await waitFor(() => expect(drawn.setOption).toHaveBeenCalled())
    const labels = (drawn.setOption.mock.calls.at(-1)![0] as { xAxis: { data: string[] } }).xAxis.data
    expect(new Set(labels).size).toBe(2)
    expect(labels[0]).toMatch(/:00$/)
    expect(labels[1]).toMatch(/:20$/)
  })

  it('says plainly how a finished campaign ended', () => {
    const counts = { succeeded: 40, failed: 2, timedOut: 1, rolledBack: 3, skipped: 4 }
    renderWithProviders(<CampaignOverview part="iot" overview={{ ...paused, status: 'finished', pauseReason: null, counts }} />)
    const summary = screen.getByTestId('ota-finished-summary')
    expect(summary.textContent).toContain('The campaign has finished')
    expect(summary.textContent).toContain('40 succeeded, 3 failed, 3 rolled back, 4 skipped, 0 cancelled')
    expect(screen.queryByTestId('ota-pause-reason')).toBeNull()
  })

  it('lists the failed devices with their codes, and opens a device from its SN', () => {
    const open = vi.fn()
    renderWithProviders(<CampaignOverview part="iot" overview={paused} onOpenDevice={open} />)
    const table = screen.getByTestId('ota-failed')
    const first = within(table).getByText('VL0000101').closest('tr')!
    expect(within(first).getByText('E_FLASH_WRITE').closest('code')).toBeTruthy()
    expect(within(first).getByText('Failed')).toBeTruthy()
    expect(within(first).getByText('Flash write failed')).toBeTruthy()
    expect(within(within(table).getByText('VL0000102').closest('tr')!).getByText('Timed out')).toBeTruthy()
    fireEvent.click(within(table).getByText('VL0000102'))
    expect(open).toHaveBeenCalledWith(102)
  })

  it('says so when the campaign has no devices yet, and draws nothing', () => {
    renderWithProviders(<CampaignOverview part="iot" overview={{ ...paused, status: 'draft', pauseReason: null, totalDevices: 0, counts: {}, waves: [], timeline: [], failed: [] }} />)
    expect(screen.getByTestId('ota-no-devices')).toBeTruthy()
    expect(screen.queryByTestId('ota-timeline')).toBeNull()
    expect(screen.queryByTestId('ota-failed')).toBeNull()
  })
})

describe('upgrade page', () => {
  const fetchMock = vi.fn<typeof fetch>()
  let stream: SseHandle | undefined
  let overview: OtaCampaignOverview = paused
  const calls = (path: string) => fetchMock.mock.calls.filter(([url]) => String(url) === `/api${path}`)
  const campaign = { campaignId: 7, name: 'Spring firmware', status: 'paused', payload: 'firmware', firmwareId: 3, firmwareIdLabel: 'Core 2.1.0', targetVersion: '2.1.0', currentWave: 0, totalDevices: 50, succeededCount: 3, failedCount: 2, pauseReason: paused.pauseReason }
  let row: Record<string, unknown> = campaign
  let history: unknown[] = []

  beforeEach(() => {
    overview = paused
    row = campaign
    history = []
    stream = undefined
    sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions: ['iot:upgrade:list', 'iot:upgrade:query', 'iot:upgrade:resume'] })
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (input, init) => {
      const path = String(input).replace(/^\/api/, '')
      if (path === '/iot/upgrade/stream') {
        stream = sseResponse(init?.signal)
        return stream.response
      }
      if (path === '/iot/upgrade/list') return jsonResponse({ rows: [row], total: 1 })
      if (path === '/iot/upgrade/counts') return jsonResponse({ [String(row.status)]: 1 })
      if (path === '/iot/upgrade/7') return jsonResponse(row)
      if (path === '/iot/upgrade/7/overview') return jsonResponse(overview)
      if (path === '/iot/upgrade/7/history') return jsonResponse(history)
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

  it("opens a campaign's live view from its name, offers the steps its state allows, and follows the rollout's events without reloading", async () => {
    renderWithProviders(<UpgradePage part="iot" />)
    fireEvent.click(await screen.findByText('Spring firmware'))
    const drawer = await screen.findByTestId('ota-campaign-drawer')
    await within(drawer).findByTestId('ota-pause-reason')
    expect(within(drawer).getByTestId('ota-count-succeeded').textContent).toBe('Succeeded 3')
    // Paused: resume is offered (the user holds it); start is not valid from paused.
    expect(within(drawer).getByTestId('campaign-row-step-resume')).toBeTruthy()
    expect(within(drawer).queryByTestId('campaign-row-step-start')).toBeNull()
    await waitFor(() => expect(within(drawer).getByTestId('ota-live').dataset.status).toBe('open'))
    const listCalls = calls('/iot/upgrade/list').length

    // The devices report: a burst of events is one refetch of what is shown.
    overview = { ...paused, status: 'running', pauseReason: null, counts: { succeeded: 50 }, waves: paused.waves.map((w) => ({ ...w, succeeded: w.total, failed: 0, queued: 0, status: 'passed' as const })) }
    for (let i = 0; i < 5; i++) stream!.send('ota', { type: 'device', campaignId: 7, deviceId: 100 + i, sn: `VL000010${i}`, wave: 0, state: 'succeeded' })
    await waitFor(() => expect(within(drawer).getByTestId('ota-count-succeeded').textContent).toBe('Succeeded 50'), { timeout: 3000 })
    expect(within(drawer).queryByTestId('ota-pause-reason')).toBeNull()
    expect(calls('/iot/upgrade/7/overview')).toHaveLength(2)
    expect(calls('/iot/upgrade/list').length).toBe(listCalls + 1)
    // Nothing reloaded the page: the stream is the same one.
    expect(calls('/iot/upgrade/stream')).toHaveLength(1)
  })

  it('offers Revise on an approved campaign, and its history shows the approval a revision cleared and each change with who made it', async () => {
    sessionStore.setState({ permissions: ['iot:upgrade:list', 'iot:upgrade:query', 'iot:upgrade:revise'] })
    row = { ...campaign, status: 'scheduled', pauseReason: '', approvedBy: 'admin2', revision: 2, imageSha256: 'ab'.repeat(32) }
    overview = { ...paused, status: 'scheduled', pauseReason: null }
    const at = '2026-11-24T10:00:00.000Z'
    history = [
      { logId: 1, step: 'approve', fromState: 'awaitingApproval', toState: 'scheduled', input: { revision: 1 }, userName: 'admin2', operTime: at },
      { logId: 2, step: 'revise', fromState: 'scheduled', toState: 'draft', input: { reason: 'Battery floor', revision: 1, approvedBy: 'admin2' }, userName: 'admin', operTime: at },
      { logId: 3, step: 'modify', fromState: 'draft', toState: 'draft', input: { revision: 2, minBattery: { from: 30, to: 0 } }, userName: 'admin', operTime: at },
    ]
    renderWithProviders(<UpgradePage part="iot" />)
    fireEvent.click(await screen.findByText('Spring firmware'))
    const drawer = await screen.findByTestId('ota-campaign-drawer')
    expect(await within(drawer).findByTestId('campaign-row-step-revise')).toBeTruthy()
    fireEvent.click(within(drawer).getByText('Details and history'))
    const records = await within(drawer).findAllByTestId('transition-record')
    expect(records).toHaveLength(3)
    expect(records[1]!.textContent).toContain('Revise')
    expect(records[1]!.textContent).toContain('Approved byadmin2')
    expect(records[2]!.textContent).toContain('admin')
    expect(records[2]!.textContent).toContain('Minimum battery (%)30 → 0')
    expect(records[2]!.textContent).toContain('Revision2')
  })
})
