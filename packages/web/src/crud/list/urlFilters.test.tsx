import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { Link, MemoryRouter, useLocation, useNavigate } from 'react-router'
import dayjs from 'dayjs'
import { iotEntities, iotWarningEntities, memberEntities, serviceEntities, systemEntities, type FieldDef, type SessionUser } from '@velo/shared'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { EntityListPage } from '../EntityListPage'
import { filtersFrom, searchFieldsOf, type SearchField } from './searchFields'
import { LIST_WRITE_STATE, listQuery, overdueField, placeFromUrl, searchFromUrl, withListQuery } from './urlFilters'

const alarm = iotWarningEntities.iotAlarm
const fieldsOf = (e: typeof alarm | typeof iotEntities.iotDevice | typeof memberEntities.ride) => searchFieldsOf(e)
const stateOf = (fields: SearchField[]) => fields.find((f) => f.field.name === 'state')
const url = (query: string) => new URLSearchParams(query)

describe('URL query → list filters', () => {
  it('takes eq, in and enum values, and ignores unknown parameters and impossible values', () => {
    const fields = fieldsOf(alarm)
    const parsed = searchFromUrl(fields, url('severity=critical&state=activeUnack,activeAck&modelId=3&colour=red&type=nonsense&deviceId=x'))
    expect(parsed.values).toEqual({ severity: 'critical', state: ['activeUnack', 'activeAck'], modelId: 3 })
    expect(filtersFrom(fields, parsed.values)).toEqual({ severity: 'critical', state: ['activeUnack', 'activeAck'], modelId: 3 })
  })

  it('gives the status bar a single state, and the search form several', () => {
    const all = fieldsOf(alarm)
    const bar = stateOf(all)
    const form = all.filter((f) => f !== bar)
    expect(searchFromUrl(form, url('state=activeAck&severity=minor'), bar)).toEqual({ values: { severity: 'minor' }, state: 'activeAck', stateInForm: false, place: {} })
    expect(searchFromUrl(form, url('state=activeUnack,activeAck'), bar)).toEqual({ values: { state: ['activeUnack', 'activeAck'] }, stateInForm: true, place: {} })
    expect(searchFromUrl(form, url('state=gone'), bar)).toEqual({ values: {}, stateInForm: false, place: {} })
  })

  it('reads a device state list (search in) as the multi-select holds it', () => {
    const fields = fieldsOf(iotEntities.iotDevice)
    const parsed = searchFromUrl(fields, url('state=online'))
    expect(parsed.values.state).toEqual(['online'])
    expect(filtersFrom(fields, parsed.values).state).toEqual(['online'])
  })

  it('reads ranges as from,to with either end open', () => {
    const fields = fieldsOf(memberEntities.ride)
    const days = searchFromUrl(fields, url('uploadTime=2026-11-01,2026-11-02')).values.uploadTime as dayjs.Dayjs[]
    expect(days.map((d) => d.format('YYYY-MM-DD'))).toEqual(['2026-11-01', '2026-11-02'])
    const distance: SearchField = { field: { name: 'distance', kind: 'number', label: { en_US: 'Distance', zh_CN: '距离' }, search: 'range' } as FieldDef, mode: 'range' }
    expect(searchFromUrl([distance], url('distance=,12.5')).values).toEqual({ distance: [null, 12.5] })
    expect(filtersFrom([distance], { distance: [null, 12.5] })).toEqual({ distance: [null, 12.5] })
    expect(searchFromUrl([distance], url('distance=,')).values).toEqual({})
  })

  it('offers overdue, a yes/no filter, for entities with due times only', () => {
    const overdue = overdueField(serviceEntities.repairOrder)!
    expect(overdue.field).toMatchObject({ name: 'overdue', kind: 'boolean' })
    expect(overdueField(alarm)).toBeNull()
    expect(searchFromUrl([overdue], url('overdue=true')).values).toEqual({ overdue: true })
    expect(searchFromUrl([overdue], url('overdue=false')).values).toEqual({ overdue: false })
    expect(searchFromUrl([overdue], url('overdue=yes')).values).toEqual({})
    expect(filtersFrom([overdue], { overdue: false })).toEqual({ overdue: false })
  })
})

describe('list state → URL query', () => {
  const sorted = [...alarm.sortable][0]!

  it('writes the search, the status, the page, its size and the sort, and reads them back the same', () => {
    const all = fieldsOf(alarm)
    const bar = stateOf(all)!
    const form = all.filter((f) => f !== bar)
    const query = listQuery({ fields: form, values: { severity: 'critical', modelId: 3 }, bar: { field: 'state', chosen: 'activeAck' }, pageNum: 3, pageSize: 50, defaultPageSize: 20, sort: { field: sorted, order: 'desc' } })
    expect(query).toBe(`modelId=3&severity=critical&state=activeAck&pageNum=3&pageSize=50&orderByColumn=${sorted}&isAsc=desc`)
    const params = url(query)
    expect(searchFromUrl(form, params, bar, placeFromUrl(alarm, params))).toEqual({
      values: { severity: 'critical', modelId: 3 },
      state: 'activeAck',
      stateInForm: false,
      place: { pageNum: 3, pageSize: 50, sort: { field: sorted, order: 'desc' } },
    })
  })

  it('leaves out what the list shows by default, and keeps lists and ranges readable', () => {
    const days = [dayjs('2026-11-01'), dayjs('2026-11-02')]
    const fields = fieldsOf(memberEntities.ride)
    expect(listQuery({ fields, values: { uploadTime: days }, pageNum: 1, pageSize: 20, defaultPageSize: 20, sort: null })).toBe('uploadTime=2026-11-01,2026-11-02')
    expect(listQuery({ fields: fieldsOf(alarm), values: { state: ['activeUnack', 'activeAck'], severity: '' }, pageNum: 1, pageSize: 20, defaultPageSize: 20, sort: null })).toBe(
      'state=activeUnack,activeAck',
    )
    expect(listQuery({ fields: fieldsOf(alarm), values: {}, pageNum: 1, pageSize: 20, defaultPageSize: 20, sort: null })).toBe('')
  })

  it('takes only a page, size and sort the list can show', () => {
    expect(placeFromUrl(alarm, url('pageNum=0&pageSize=37&orderByColumn=nope&isAsc=asc'))).toEqual({})
    expect(placeFromUrl(alarm, url(`pageNum=abc&pageSize=10&orderByColumn=${sorted}&isAsc=sideways`))).toEqual({ pageSize: 10 })
    // A tree lists every row at once.
    expect(placeFromUrl(systemEntities.dept, url('pageNum=2&pageSize=50'))).toEqual({})
  })

  it("replaces the list's parameters and keeps the page's own", () => {
    expect(withListQuery('?tab=2&severity=minor&pageNum=4', ['severity', 'pageNum'], 'severity=major')).toBe('?severity=major&tab=2')
    expect(withListQuery('?severity=minor', ['severity'], '')).toBe('')
  })
})

/** The address the router is at, for the tests to read what the list wrote. */
function Address() {
  const { search } = useLocation()
  return <output data-testid="address">{search}</output>
}

/** An address the list wrote itself arriving late, after its user chose again (two quick choices on a busy machine). */
function LateOwnWrite({ search }: { search: string }) {
  const navigate = useNavigate()
  return (
    <button type="button" onClick={() => void navigate({ pathname: '/iot/warning', search }, { replace: true, state: LIST_WRITE_STATE })}>
      late
    </button>
  )
}

describe('a list opened with filters in its URL', () => {
  const fetchMock = vi.fn<typeof fetch>()
  const listBodies = () =>
    fetchMock.mock.calls.filter(([u]) => String(u) === '/api/iot/warning/list').map(([, init]) => JSON.parse(String(init?.body)) as Record<string, unknown>)

  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (u) => {
      const path = String(u).replace(/^\/api/, '').replace(/\?.*$/, '')
      if (path === '/iot/warning/list') return jsonResponse({ rows: [], total: 0 })
      if (path === '/iot/warning/counts') return jsonResponse({ activeUnack: 2, activeAck: 1, clearedUnack: 0, clearedAck: 0 })
      if (path.endsWith('/options')) return jsonResponse([])
      return jsonResponse(null, 404)
    })
    sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions: ['iot:warning:list'] })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
  })

  const open = (query: string) =>
    renderWithProviders(
      <MemoryRouter initialEntries={[`/iot/warning${query}`]}>
        <EntityListPage entity={alarm} />
      </MemoryRouter>,
    )

  it('sends the severity and both open states from the first request, shown in the search form', async () => {
    open('?severity=critical&state=activeUnack,activeAck&unknown=1')
    await waitFor(() => expect(listBodies().length).toBeGreaterThan(0))
    expect(listBodies()[0]).toMatchObject({ severity: 'critical', state: ['activeUnack', 'activeAck'] })
    // Two states are more than the status bar can show: the form shows them instead.
    expect(screen.queryByTestId('state-filter')).toBeNull()
    expect(await screen.findByText('Critical')).toBeTruthy()
    expect(screen.getByText('Active, unacknowledged')).toBeTruthy()
  })

  it('chooses a single state in the status bar, sent as a list (the field is searched with in)', async () => {
    open('?state=activeAck')
    await waitFor(() => expect(listBodies().length).toBeGreaterThan(0))
    expect(listBodies()[0]).toMatchObject({ state: ['activeAck'] })
    const bar = await screen.findByTestId('state-filter')
    expect(bar.querySelector('.ant-radio-button-wrapper-checked')?.textContent).toMatch(/acknowledged/i)
  })

  it('takes the filters of a new link while it stays open (a kept-alive tab)', async () => {
    renderWithProviders(
      <MemoryRouter initialEntries={['/iot/warning?severity=critical']}>
        <EntityListPage entity={alarm} />
        <Link to="/iot/warning?severity=major&state=clearedAck">again</Link>
      </MemoryRouter>,
    )
    await waitFor(() => expect(listBodies().length).toBeGreaterThan(0))
    fireEvent.click(screen.getByText('again'))
    await waitFor(() => expect(listBodies().at(-1)).toMatchObject({ severity: 'major', state: ['clearedAck'] }))
    expect(await within(screen.getByTestId('crud-search')).findByText('Major')).toBeTruthy()
  })

  it('ignores the URL when the list is part of another page', async () => {
    renderWithProviders(
      <MemoryRouter initialEntries={['/iot/warning?severity=critical']}>
        <EntityListPage entity={alarm} urlFilters={false} />
      </MemoryRouter>,
    )
    await waitFor(() => expect(listBodies().length).toBeGreaterThan(0))
    expect(listBodies()[0]).toEqual({ pageNum: 1, pageSize: 20 })
  })

  it('opens at the page, size and sort its URL names', async () => {
    const sorted = [...alarm.sortable][0]!
    open(`?pageNum=2&pageSize=50&orderByColumn=${sorted}&isAsc=asc`)
    await waitFor(() => expect(listBodies().length).toBeGreaterThan(0))
    expect(listBodies()[0]).toMatchObject({ pageNum: 2, pageSize: 50, orderByColumn: sorted, isAsc: 'asc' })
  })

  it('writes a search and a status chosen to its URL, and takes it back from a bare link', async () => {
    renderWithProviders(
      <MemoryRouter initialEntries={['/iot/warning?pageNum=2&tab=x']}>
        <EntityListPage entity={alarm} />
        <Address />
        <Link to="/iot/warning">menu</Link>
      </MemoryRouter>,
    )
    await waitFor(() => expect(listBodies().length).toBeGreaterThan(0))
    // Opening it wrote nothing: the URL already says what it shows.
    expect(screen.getByTestId('address').textContent).toBe('?pageNum=2&tab=x')
    const bar = await screen.findByTestId('state-filter')
    fireEvent.click(within(bar).getByText(/^Active, acknowledged/))
    // Another status starts from the first page; the page's own parameter stays.
    await waitFor(() => expect(screen.getByTestId('address').textContent).toBe('?state=activeAck&tab=x'))
    expect(listBodies().at(-1)).toMatchObject({ pageNum: 1, state: ['activeAck'] })
    // The menu's link names nothing: the list stays as the user left it, and the URL says so again.
    fireEvent.click(screen.getByText('menu'))
    await waitFor(() => expect(screen.getByTestId('address').textContent).toBe('?state=activeAck'))
    expect(listBodies().at(-1)).toMatchObject({ state: ['activeAck'] })
  })

  it('never goes back to an address it wrote itself that arrives late: it writes what it shows again', async () => {
    renderWithProviders(
      <MemoryRouter initialEntries={['/iot/warning']}>
        <EntityListPage entity={alarm} />
        <Address />
        <LateOwnWrite search="?state=activeUnack" />
      </MemoryRouter>,
    )
    const bar = await screen.findByTestId('state-filter')
    fireEvent.click(within(bar).getByText(/^Active, acknowledged/))
    await waitFor(() => expect(screen.getByTestId('address').textContent).toBe('?state=activeAck'))
    // The write of an earlier choice lands now: the list keeps the user's last choice and says it again.
    fireEvent.click(screen.getByText('late'))
    await waitFor(() => expect(screen.getByTestId('address').textContent).toBe('?state=activeAck'))
    expect(bar.querySelector('.ant-radio-button-wrapper-checked')?.textContent).toMatch(/^Active, acknowledged/)
    expect(listBodies().at(-1)).toMatchObject({ state: ['activeAck'] })
    expect(listBodies().some((b) => JSON.stringify(b.state) === '["activeUnack"]')).toBe(false)
  })
})
