import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { defineEntity, registerEntities, type SessionUser } from '@velo/shared'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { EntityDetails } from '../EntityDetails'
import { EntityListPage } from '../EntityListPage'

// echarts draws on a canvas, which jsdom has not: the chart's option is what is checked.
const drawn = vi.hoisted(() => ({ setOption: vi.fn(), resize: vi.fn(), dispose: vi.fn() }))
vi.mock('echarts/core', () => ({ use: vi.fn(), init: vi.fn(() => drawn) }))
vi.mock('echarts/charts', () => ({ BarChart: {}, LineChart: {} }))
vi.mock('echarts/components', () => ({ GridComponent: {}, TooltipComponent: {} }))
vi.mock('echarts/renderers', () => ({ CanvasRenderer: {} }))

const label = (en: string) => ({ en_US: en, zh_CN: en })
const owner = defineEntity({
  key: 'webRelOwner',
  table: 'webRelOwner',
  path: '/rel/owner',
  permission: 'rel:owner',
  label: label('Owners'),
  idField: 'ownerId',
  defaultSort: { field: 'ownerId', order: 'asc' },
  fields: [
    { name: 'ownerId', kind: 'number', label: label('ID'), readOnly: true },
    { name: 'name', kind: 'text', label: label('Name') },
  ],
  related: [{ entity: 'webRelTrip', by: 'ownerId', label: label('Rides'), pageSize: 2, columns: ['note', 'distance', 'bikeId'], chart: { time: 'startTime', value: 'distance', by: 'week' } }],
})
const trip = defineEntity({
  key: 'webRelTrip',
  table: 'webRelTrip',
  path: '/rel/trip',
  permission: 'rel:trip',
  label: label('Trips'),
  idField: 'tripId',
  defaultSort: { field: 'startTime', order: 'desc' },
  fields: [
    { name: 'tripId', kind: 'number', label: label('ID'), readOnly: true },
    { name: 'ownerId', kind: 'reference', entity: 'webRelOwner', label: label('Owner'), search: 'eq' },
    { name: 'bikeId', kind: 'reference', entity: 'webRelOwner', label: label('Bike') },
    { name: 'startTime', kind: 'datetime', label: label('Start') },
    { name: 'distance', kind: 'number', label: label('Distance'), summable: true },
    { name: 'note', kind: 'text', label: label('Note'), list: false },
  ],
})
registerEntities(owner, trip)

const trips = [
  { tripId: 9, ownerId: 5, ownerIdLabel: 'Alice', bikeId: 7, bikeIdLabel: 'Bike seven', startTime: '2026-03-09T07:30:00.000Z', distance: 7, note: 'Ride to work' },
  { tripId: 8, ownerId: 5, ownerIdLabel: 'Alice', bikeId: 7, bikeIdLabel: 'Bike seven', startTime: '2026-03-08T10:00:00.000Z', distance: 5.5, note: 'Sunday tour' },
]

const fetchMock = vi.fn<typeof fetch>()
const calls = (path: string) => fetchMock.mock.calls.filter(([url]) => String(url) === `/api${path}`)
const bodyOf = (call: Parameters<typeof fetch>) => JSON.parse(String(call[1]?.body))
const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions })

describe('EntityDetails with related lists', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url) => {
      const path = String(url).replace(/^\/api/, '')
      if (path === '/rel/owner/5') return jsonResponse({ ownerId: 5, name: 'Alice' })
      if (path === '/rel/owner/list') return jsonResponse({ rows: [{ ownerId: 5, name: 'Alice' }], total: 1 })
      if (path === '/rel/trip/list') return jsonResponse({ rows: trips, total: 3 })
      if (path === '/rel/trip/summary') return jsonResponse([{ bucket: '2026-03-09', value: 7, count: 1 }])
      return jsonResponse(null, 404)
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    vi.useRealTimers()
    fetchMock.mockReset()
    drawn.setOption.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
  })

  it('lists the related rows through their list, with their cells, page by page', async () => {
    vi.useFakeTimers({ now: new Date('2026-03-11T10:00:00Z'), toFake: ['Date'] })
    signIn(['rel:owner:query', 'rel:trip:list'])
    renderWithProviders(<EntityDetails entity={owner} id={5} as="drawer" onClose={() => undefined} />)
    const section = await screen.findByTestId('related-webRelTrip.ownerId')
    expect(within(screen.getByTestId('related-lists')).getByText('Rides')).toBeTruthy()
    expect(await within(section).findByText('Ride to work')).toBeTruthy()
    expect(within(section).getAllByText('Bike seven')).toHaveLength(2)
    // The definition's columns, in its order: a column the list page hides (note) too.
    const headers = within(section).getAllByRole('columnheader').map((h) => h.textContent)
    expect(headers).toEqual(['Note', 'Distance', 'Bike'])
    expect(bodyOf(calls('/rel/trip/list')[0]!)).toEqual({ ownerId: 5, pageNum: 1, pageSize: 2 })

    fireEvent.click(within(section).getByTitle('2'))
    await waitFor(() => expect(calls('/rel/trip/list')).toHaveLength(2))
    expect(bodyOf(calls('/rel/trip/list')[1]!)).toEqual({ ownerId: 5, pageNum: 2, pageSize: 2 })

    // The chart: distance per week of the last 12 weeks, weeks without rides as 0.
    expect(within(section).getByText('Distance per week')).toBeTruthy()
    expect(bodyOf(calls('/rel/trip/summary')[0]!)).toEqual({ ownerId: 5, time: 'startTime', value: 'distance', bucket: 'week', from: '2025-12-22', to: '2026-03-11' })
    await waitFor(() => expect(drawn.setOption.mock.calls.some(([o]) => o.series[0].data.at(-1) === 7)).toBe(true))
    const option = drawn.setOption.mock.calls.at(-1)![0]
    expect(option.series[0].data).toEqual([...Array(11).fill(0), 7])
    expect(option.xAxis.data.at(-1)).toBe('03-09')
  })

  it('leaves out what the user may not list', async () => {
    signIn(['rel:owner:query'])
    renderWithProviders(<EntityDetails entity={owner} id={5} as="drawer" onClose={() => undefined} />)
    expect(await screen.findByText('Alice')).toBeTruthy()
    expect(screen.queryByTestId('related-lists')).toBeNull()
    expect(calls('/rel/trip/list')).toHaveLength(0)
    expect(calls('/rel/trip/summary')).toHaveLength(0)
  })

  it('are reached from the list page’s Details row action', async () => {
    signIn(['rel:owner:list', 'rel:owner:query', 'rel:trip:list'])
    renderWithProviders(<EntityListPage entity={owner} />)
    fireEvent.click(await screen.findByTestId('row-details'))
    expect(await screen.findByTestId('related-webRelTrip.ownerId')).toBeTruthy()
    expect(bodyOf(calls('/rel/trip/list')[0]!)).toEqual({ ownerId: 5, pageNum: 1, pageSize: 2 })
  })
})

// `manage: true`: the tab is the related entity's whole list page fixed to the row.
const shop = defineEntity({
  key: 'webRelShop',
  table: 'webRelShop',
  path: '/rel/shop',
  permission: 'rel:shop',
  label: label('Shops'),
  idField: 'shopId',
  defaultSort: { field: 'shopId', order: 'asc' },
  fields: [
    { name: 'shopId', kind: 'number', label: label('ID'), readOnly: true },
    { name: 'name', kind: 'text', label: label('Shop name') },
  ],
  related: [{ entity: 'webRelTicket', by: 'shopId', label: label('Tickets'), manage: true }],
})
const ticket = defineEntity({
  key: 'webRelTicket',
  table: 'webRelTicket',
  path: '/rel/ticket',
  permission: 'rel:ticket',
  label: label('Tickets'),
  idField: 'ticketId',
  labelField: 'code',
  defaultSort: { field: 'ticketId', order: 'asc' },
  operations: ['list', 'get', 'export'],
  fields: [
    { name: 'ticketId', kind: 'number', label: label('ID'), readOnly: true },
    { name: 'shopId', kind: 'reference', entity: 'webRelShop', label: label('Shop'), search: 'eq', readOnly: true },
    { name: 'code', kind: 'text', label: label('Code'), search: 'like' },
    {
      name: 'status',
      kind: 'enum',
      label: label('State'),
      search: 'eq',
      options: [
        { value: 'open', label: label('Open') },
        { value: 'void', label: label('Void') },
      ],
    },
  ],
  transitions: { field: 'status', steps: [{ name: 'cancel', label: label('Cancel ticket'), from: ['open'], to: 'void' }] },
})
registerEntities(shop, ticket)

describe('EntityDetails with a managed related list', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url) => {
      const path = String(url).replace(/^\/api/, '')
      if (path === '/rel/shop/5') return jsonResponse({ shopId: 5, name: 'Corner shop' })
      if (path === '/rel/ticket/list') return jsonResponse({ rows: [{ ticketId: 1, shopId: 5, shopIdLabel: 'Corner shop', code: 'T-0001', status: 'open' }], total: 1 })
      if (path === '/rel/ticket/counts') return jsonResponse({ open: 1, void: 4 })
      if (path === '/rel/owner/5') return jsonResponse({ ownerId: 5, name: 'Alice' })
      if (path === '/rel/trip/list') return jsonResponse({ rows: trips, total: 2 })
      if (path === '/rel/trip/summary') return jsonResponse([])
      return jsonResponse(null, 404)
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
    localStorage.clear()
  })

  it("shows the related entity's list page fixed to the row: search, status filter with counts, toolbar and row actions", async () => {
    signIn(['rel:shop:query', 'rel:ticket:list', 'rel:ticket:export', 'rel:ticket:cancel'])
    renderWithProviders(<EntityDetails entity={shop} id={5} as="drawer" onClose={() => undefined} />)
    const tab = await screen.findByTestId('related-webRelTicket.shopId')
    const page = await within(tab).findByTestId('entity-list-webRelTicket')
    expect(await within(page).findByText('T-0001')).toBeTruthy()
    expect(bodyOf(calls('/rel/ticket/list')[0]!)).toEqual({ shopId: 5, pageNum: 1, pageSize: 20 })
    // The row's field leaves the search form; the others stay.
    const search = within(page).getByTestId('crud-search')
    expect(within(search).queryByLabelText('Shop')).toBeNull()
    expect(within(search).getByLabelText('Code')).toBeTruthy()
    // The status filter counts the row's tickets only.
    await waitFor(() => expect(calls('/rel/ticket/counts')).toHaveLength(1))
    expect(bodyOf(calls('/rel/ticket/counts')[0]!)).toEqual({ shopId: 5 })
    expect(await within(page).findByRole('radio', { name: 'All (5)' })).toBeTruthy()
    // The toolbar and the row's steps.
    expect(within(page).getByTestId('crud-export')).toBeTruthy()
    expect(within(page).getByTestId('row-step-cancel')).toBeTruthy()

    // A state chosen keeps the row's filter.
    fireEvent.click(within(page).getByRole('radio', { name: 'Void (4)' }))
    await waitFor(() => expect(calls('/rel/ticket/list')).toHaveLength(2))
    expect(bodyOf(calls('/rel/ticket/list')[1]!)).toEqual({ shopId: 5, status: 'void', pageNum: 1, pageSize: 20 })
    // The drawer is wide enough for a list page.
    expect((document.querySelector('.ant-drawer-content-wrapper') as HTMLElement).style.width).toBe('1200px')
  })

  it('keeps the compact table and the narrower drawer without manage', async () => {
    signIn(['rel:owner:query', 'rel:trip:list'])
    renderWithProviders(<EntityDetails entity={owner} id={5} as="drawer" onClose={() => undefined} />)
    const section = await screen.findByTestId('related-webRelTrip.ownerId')
    expect(within(section).queryByTestId('entity-list-webRelTrip')).toBeNull()
    expect(within(section).getByTestId('related-table')).toBeTruthy()
    expect((document.querySelector('.ant-drawer-content-wrapper') as HTMLElement).style.width).toBe('820px')
  })
})

// Issue 36: a compact related list offers the related entity's row actions it names (a member's
// bikes, unbound from the member's details), with their permission, state rule and dialog.
const desk = defineEntity({
  key: 'webRelDesk',
  table: 'webRelDesk',
  path: '/rel/desk',
  permission: 'rel:desk',
  label: label('Desks'),
  idField: 'deskId',
  defaultSort: { field: 'deskId', order: 'asc' },
  fields: [
    { name: 'deskId', kind: 'number', label: label('ID'), readOnly: true },
    { name: 'name', kind: 'text', label: label('Desk name') },
  ],
  related: [{ entity: 'webRelPass', by: 'deskId', label: label('Passes'), columns: ['code', 'status'], actions: ['revoke'] }],
})
const pass = defineEntity({
  key: 'webRelPass',
  table: 'webRelPass',
  path: '/rel/pass',
  permission: 'rel:pass',
  label: label('Passes'),
  singular: label('pass'),
  idField: 'passId',
  labelField: 'code',
  defaultSort: { field: 'passId', order: 'asc' },
  operations: ['list', 'get'],
  fields: [
    { name: 'passId', kind: 'number', label: label('ID'), readOnly: true },
    { name: 'deskId', kind: 'reference', entity: 'webRelDesk', label: label('Desk'), search: 'eq', readOnly: true },
    { name: 'code', kind: 'text', label: label('Code') },
    { name: 'badgeId', kind: 'reference', entity: 'webRelDesk', label: label('Badge') },
    {
      name: 'status',
      kind: 'enum',
      label: label('State'),
      options: [
        { value: 'active', label: label('Active') },
        { value: 'void', label: label('Void') },
      ],
    },
  ],
  actions: [
    {
      name: 'revoke',
      label: label('Revoke'),
      on: 'row',
      when: { field: 'status', is: ['active'] },
      input: [{ name: 'reason', kind: 'text', label: label('Reason'), required: true }],
      context: ['code'],
      notes: [
        { whenSet: ['badgeId'], text: label('Badge {badgeId} stays on pass {code}.') },
        { whenEmpty: ['badgeId'], text: label('No badge is on this pass.') },
      ],
    },
    { name: 'renew', label: label('Renew'), on: 'row' },
  ],
})
registerEntities(desk, pass)

const passes = [
  { passId: 1, deskId: 5, deskIdLabel: 'Front', code: 'P-1', badgeId: 7, badgeIdLabel: 'B-007', status: 'active' },
  { passId: 2, deskId: 5, deskIdLabel: 'Front', code: 'P-2', badgeId: null, badgeIdLabel: null, status: 'void' },
]

describe('EntityDetails with row actions on a compact related list', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url) => {
      const path = String(url).replace(/^\/api/, '')
      if (path === '/rel/desk/5') return jsonResponse({ deskId: 5, name: 'Front' })
      if (path === '/rel/pass/list') return jsonResponse({ rows: passes, total: 2 })
      if (path === '/rel/pass/1') return jsonResponse(passes[0])
      if (path === '/rel/pass/1/action/revoke') return jsonResponse({ ...passes[0], status: 'void' })
      return jsonResponse(null, 404)
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
  })

  it('offers the named actions the row allows, with their dialog and notes, and reads the list again after', async () => {
    signIn(['rel:desk:query', 'rel:pass:list', 'rel:pass:query', 'rel:pass:revoke', 'rel:pass:renew'])
    renderWithProviders(<EntityDetails entity={desk} id={5} as="drawer" onClose={() => undefined} />)
    const section = await screen.findByTestId('related-webRelPass.deskId')
    await within(section).findByText('P-1')
    expect(within(section).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Code', 'State', 'Actions'])
    const [active, voided] = within(section).getAllByRole('row').slice(1)
    // Only the action the list names (not Renew), and only where the row's state allows it.
    expect(within(active!).getByTestId('row-action-revoke')).toBeTruthy()
    expect(within(active!).queryByTestId('row-action-renew')).toBeNull()
    expect(within(voided!).queryByTestId('row-action-revoke')).toBeNull()

    fireEvent.click(within(active!).getByTestId('row-action-revoke'))
    // Over the drawer (a dialog too): the one with the action's form.
    const dialog = (await screen.findByTestId('operation-form', {}, { timeout: 5000 })).closest<HTMLElement>('.ant-modal')!
    expect(within(dialog).getByText('Revoke: pass P-1')).toBeTruthy()
    // The note read from the row, its placeholders as the details show them.
    expect((await within(dialog).findByTestId('operation-note')).textContent).toBe('Badge B-007 stays on pass P-1.')
    expect(within(dialog).queryByText('No badge is on this pass.')).toBeNull()
    expect(await within(dialog).findByTestId('operation-context-code')).toBeTruthy()
    fireEvent.click(within(dialog).getByTestId('operation-submit'))
    expect(await within(dialog).findByText('Reason is required')).toBeTruthy()
    fireEvent.change(within(dialog).getByLabelText('Reason'), { target: { value: 'Lost' } })
    fireEvent.click(within(dialog).getByTestId('operation-submit'))
    await waitFor(() => expect(calls('/rel/pass/1/action/revoke')).toHaveLength(1))
    expect(bodyOf(calls('/rel/pass/1/action/revoke')[0]!)).toEqual({ reason: 'Lost' })
    await waitFor(() => expect(calls('/rel/pass/list').length).toBeGreaterThan(1))
  })

  it('offers none without the action’s permission', async () => {
    signIn(['rel:desk:query', 'rel:pass:list', 'rel:pass:query'])
    renderWithProviders(<EntityDetails entity={desk} id={5} as="drawer" onClose={() => undefined} />)
    const section = await screen.findByTestId('related-webRelPass.deskId')
    await within(section).findByText('P-1')
    expect(within(section).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Code', 'State'])
    expect(within(section).queryByTestId('row-action-revoke')).toBeNull()
  })
})
