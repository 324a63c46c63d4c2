import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { act } from 'react'
import { MemoryRouter, useLocation } from 'react-router'
import { engagementDashboard, homeDashboard, satisfactionDashboard, type DashboardAnswer, type SessionUser } from '@velo/shared'
import i18n from '../i18n'
import { sessionStore } from '../session/sessionStore'
import { changeSetting } from '../preferences/settingsStore'
import { ThemeProvider } from '../app/ThemeProvider'
import { jsonResponse, renderWithProviders } from '../test/render'
import { DashboardView } from './DashboardView'

// echarts needs a canvas jsdom lacks: a stand-in records what each chart was given.
const drawn = vi.hoisted(() => new Map<string, unknown>())
vi.mock('./echartsSetup', () => ({
  echarts: {
    init: (el: HTMLElement) => ({
      setOption: (option: unknown) => drawn.set(el.dataset.testid ?? '', option),
      resize: () => {},
      dispose: () => {},
    }),
  },
}))

const query = { from: '2026-08-27', to: '2026-11-24' }
const engagement: DashboardAnswer = {
  key: 'engagement',
  query,
  refreshedAt: '2026-11-24T10:05:00.000Z',
  figures: [
    { key: 'summary', rows: [[1234, 800, 56, 23.456, 2.5]] },
    { key: 'daily', rows: [['2026-11-23', 500, 3, 900], ['2026-11-24', 510, 2, 950]] },
    { key: 'weekly', rows: [['2026-W47', 700]] },
    { key: 'monthly', rows: [] },
    { key: 'retention', rows: [['2026-W46', 40, 50, 25, null]] },
    { key: 'ridesPerActive', rows: [['2026-W47', 1.75]] },
  ],
}
const home: DashboardAnswer = {
  key: 'home',
  query,
  refreshedAt: null,
  figures: [
    { key: 'cards', rows: [[12000, 3400, 812, null, null, null, null, 3, 7]] },
    { key: 'registrations', rows: [['2026-11-24', 12, null]] },
  ],
}

const fetchMock = vi.fn<typeof fetch>()
const analyticsCalls = (key: string) =>
  fetchMock.mock.calls.map(([u]) => String(u)).filter((u) => u.startsWith(`/api/analytics/${key}?`) || u === `/api/analytics/${key}`)
let answers: Record<string, () => Response>

function serve() {
  fetchMock.mockImplementation(async (u) => {
    const path = String(u).replace(/^\/api/, '').replace(/\?.*$/, '')
    const answer = answers[path]
    if (answer) return answer()
    if (path.endsWith('/options')) return jsonResponse([{ value: 1, label: 'Germany' }, { value: 2, label: 'Netherlands' }])
    return jsonResponse(null, 404)
  })
}

const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions })

function Where() {
  return <output data-testid="where">{useLocation().search}</output>
}

const open = (ui: React.ReactElement, url = '/analytics/engagement') =>
  renderWithProviders(
    <MemoryRouter initialEntries={[url]}>
      {ui}
      <Where />
    </MemoryRouter>,
  )

describe('DashboardView', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    answers = { '/analytics/engagement': () => jsonResponse(engagement), '/analytics/home': () => jsonResponse(home) }
    serve()
    drawn.clear()
  })
  afterEach(async () => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
    await i18n.changeLanguage('en_US')
  })

  it('draws every figure by its kind, with values in their units', async () => {
    signIn(['dashboard:engagement:list'])
    open(<DashboardView def={engagementDashboard} />)
    expect((await screen.findByTestId('card-value-active')).textContent).toBe('1,234')
    expect(screen.getByTestId('card-value-stickiness').textContent).toBe('23.5%')
    expect(screen.getByTestId('card-value-ridesPerActive').textContent).toBe('2.50')
    expect(screen.getByText('Summaries updated', { exact: false })).toBeTruthy()
    // A figure without rows says so; the others are drawn.
    expect(within(screen.getByTestId('figure-monthly')).getByText('No data in this range')).toBeTruthy()
    await waitFor(() => expect(drawn.has('chart-retention')).toBe(true))
    expect(drawn.get('chart-daily')).toMatchObject({ xAxis: { data: ['2026-11-23', '2026-11-24'] } })
    expect(drawn.get('chart-retention')).toMatchObject({ visualMap: { min: 0, max: 100 } })
    // No export right, no download.
    expect(screen.queryByTestId('dashboard-export')).toBeNull()
  })

  it('shows a chart’s rows as a table on demand', async () => {
    signIn(['dashboard:engagement:list', 'dashboard:engagement:export'])
    open(<DashboardView def={engagementDashboard} />)
    const figure = await screen.findByTestId('figure-retention')
    await waitFor(() => expect(drawn.has('chart-retention')).toBe(true))
    fireEvent.click(within(figure).getByText('Table'))
    const row = await within(figure).findByTestId('row-retention-0')
    expect([...row.querySelectorAll('td')].map((td) => td.textContent)).toEqual(['2026-W46', '40', '50.0%', '25.0%', '–'])
    expect(within(figure).getAllByRole('columnheader').map((th) => th.textContent)).toContain('Day 30')
    expect(screen.getByTestId('dashboard-export')).toBeTruthy()
  })

  it('asks for the view in the URL and writes filter changes back to it', async () => {
    signIn(['dashboard:engagement:list'])
    open(<DashboardView def={engagementDashboard} />, '/analytics/engagement?from=2026-10-01&to=2026-10-31&countryId=2&modelId=9')
    await screen.findByTestId('card-value-active')
    expect(analyticsCalls('engagement')[0]).toBe('/api/analytics/engagement?from=2026-10-01&to=2026-10-31&countryId=2')

    fireEvent.mouseDown(within(screen.getByTestId('dashboard-filter-platform')).getByRole('combobox'))
    fireEvent.click(await screen.findByText('Android'))
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('?from=2026-10-01&to=2026-10-31&countryId=2&platform=android'))
    await waitFor(() => expect(analyticsCalls('engagement')).toContain('/api/analytics/engagement?from=2026-10-01&to=2026-10-31&countryId=2&platform=android'))

    fireEvent.click(screen.getByTestId('dashboard-reset'))
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe(''))
    await waitFor(() => expect(analyticsCalls('engagement')).toContain('/api/analytics/engagement'))
  })

  it('shows the server’s message for a refused range, and offers the default range rather than the same request again', async () => {
    signIn(['dashboard:engagement:list'])
    const refusal = 'The range starts after it ends: pick a start day on or before the end day'
    answers['/analytics/engagement'] = () => new Response(JSON.stringify({ code: 400, msg: refusal, data: null }), { status: 400, headers: { 'Content-Type': 'application/json' } })
    open(<DashboardView def={engagementDashboard} />, '/analytics/engagement?from=2026-10-31&to=2026-10-01')
    expect(await within(await screen.findByTestId('dashboard-error')).findByText(refusal)).toBeTruthy()
    expect(screen.queryByTestId('figure-daily')).toBeNull()
    // Asking again for the same range cannot succeed: no "Try again".
    expect(screen.queryByTestId('dashboard-retry')).toBeNull()

    answers['/analytics/engagement'] = () => jsonResponse(engagement)
    fireEvent.click(screen.getByTestId('dashboard-default-range'))
    expect(await screen.findByTestId('card-value-active')).toBeTruthy()
    expect(screen.queryByTestId('dashboard-error')).toBeNull()
  })

  it('tries again after a failure that is not a refusal', async () => {
    signIn(['dashboard:engagement:list'])
    answers['/analytics/engagement'] = () => new Response('busy', { status: 503 })
    open(<DashboardView def={engagementDashboard} />, '/analytics/engagement')
    await screen.findByTestId('dashboard-error')
    answers['/analytics/engagement'] = () => jsonResponse(engagement)
    fireEvent.click(screen.getByTestId('dashboard-retry'))
    expect(await screen.findByTestId('card-value-active')).toBeTruthy()
  })

  it('home: shows only the cards the user may open, each a link to its filtered list', async () => {
    signIn(['bike:bike:list', 'member:member:list', 'iot:device:list', 'service:repairOrder:list', 'iot:warning:list'])
    open(<DashboardView def={homeDashboard} />, '/dashboard')
    expect((await screen.findByTestId('card-value-bikesRegistered')).textContent).toBe('12,000')
    expect(screen.getByTestId('card-link-devicesOnline').getAttribute('href')).toBe('/iot/device?state=online,activated')
    expect(screen.getByTestId('card-link-serviceOverdue').getAttribute('href')).toBe('/service/repairOrder?overdue=true')
    expect(screen.getByTestId('card-link-warningsCritical').getAttribute('href')).toBe('/iot/warning?severity=critical&state=activeUnack,activeAck')
    // No right to upgrades: that card is not there at all.
    expect(screen.queryByTestId('card-upgradesRunning')).toBeNull()
    // Home is for everyone signed in, and so is its download.
    expect(screen.getByTestId('dashboard-export')).toBeTruthy()
    expect(screen.getByTestId('dashboard-updated').textContent).toBe('Figures read live')
  })

  it('redraws the charts in the dark theme’s colours when the console turns dark', async () => {
    signIn(['dashboard:engagement:list'])
    open(
      <ThemeProvider>
        <DashboardView def={engagementDashboard} />
      </ThemeProvider>,
    )
    await waitFor(() => expect(drawn.has('chart-weekly')).toBe(true))
    const textOf = () => (drawn.get('chart-weekly') as { textStyle: { color: string } }).textStyle.color
    const light = textOf()
    act(() => changeSetting('darkMode', true))
    await waitFor(() => expect(textOf()).not.toBe(light))
    act(() => changeSetting('darkMode', false))
    await waitFor(() => expect(textOf()).toBe(light))
  })

  it('speaks Chinese when the page does', async () => {
    await i18n.changeLanguage('zh_CN')
    signIn(['dashboard:satisfaction:list'])
    answers['/analytics/satisfaction'] = () =>
      jsonResponse({ key: 'satisfaction', query, refreshedAt: null, figures: [{ key: 'summary', rows: [[10, 80, 4.1, 2, 5.5]] }, { key: 'stars', rows: [] }, { key: 'tags', rows: [] }, { key: 'csatTrend', rows: [] }, { key: 'responseTime', rows: [] }] })
    open(<DashboardView def={satisfactionDashboard} />, '/analytics/satisfaction')
    expect(await screen.findByText('满意度')).toBeTruthy()
    expect(screen.getByText('星级分布')).toBeTruthy()
    expect((await screen.findByTestId('card-value-medianResponseHours')).textContent).toBe('5小时30分')
    expect(screen.getAllByText('所选时段内暂无数据').length).toBe(4)
  })
})
