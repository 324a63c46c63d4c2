import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { Link, MemoryRouter } from 'react-router'
import dayjs from 'dayjs'
import { iotEntities, iotWarningEntities, memberEntities, serviceEntities, type FieldDef, type SessionUser } from '@velo/shared'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { EntityListPage } from '../EntityListPage'
import { filtersFrom, searchFieldsOf, type SearchField } from './searchFields'
import { overdueField, searchFromUrl } from './urlFilters'

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
    expect(searchFromUrl(form, url('state=activeAck&severity=minor'), bar)).toEqual({ values: { severity: 'minor' }, state: 'activeAck', stateInForm: false })
    expect(searchFromUrl(form, url('state=activeUnack,activeAck'), bar)).toEqual({ values: { state: ['activeUnack', 'activeAck'] }, stateInForm: true })
    expect(searchFromUrl(form, url('state=gone'), bar)).toEqual({ values: {}, stateInForm: false })
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
})
