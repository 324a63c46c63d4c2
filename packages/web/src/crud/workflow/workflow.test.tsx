import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { memberEntities, serviceEntities, type SessionUser } from '@velo/shared'
import i18n from '../../i18n'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { EntityDetails } from '../EntityDetails'
import { EntityListPage } from '../EntityListPage'

// The service order's steps and actions on the generic list page: which buttons a row offers, the
// confirmation and input dialogs, the status filter with counts, the timeline and the due time.

const { repairOrder } = serviceEntities
const order = (repairOrderId: number, status: string, more: Record<string, unknown> = {}) => ({
  repairOrderId,
  orderNo: `RS-${repairOrderId}`,
  status,
  serviceType: 'repair',
  contactEmail: 'rider@example.com',
  bikeId: 100 + repairOrderId,
  bikeIdLabel: `FR${repairOrderId}`,
  firstName: 'Ada',
  lastName: 'Lovelace',
  dueTime: null,
  overdue: false,
  ...more,
})
const orders = [
  order(1, 'draft'),
  order(2, 'pending', { dueTime: '2020-01-02T09:00:00.000Z', overdue: true }),
  order(3, 'bikeCollecting'),
  order(4, 'finished', { evaluationStars: null }),
  order(5, 'finished', { evaluationStars: 4 }),
]
const counts = { draft: 1, pending: 3, bikeCollecting: 1, arrangingCollection: 0, processing: 0, finished: 1, withdrawn: 0, closed: 0 }
const history = [
  { logId: 1, step: 'submit', fromState: 'draft', toState: 'pending', input: {}, userName: 'admin', operTime: '2026-11-24T08:00:00.000Z' },
  { logId: 2, step: 'review', fromState: 'pending', toState: 'bikeCollecting', input: { remark: 'Mail it back' }, userName: 'reviewer', operTime: '2026-11-24T09:30:00.000Z' },
  { logId: 3, step: 'addRemark', fromState: 'bikeCollecting', toState: 'bikeCollecting', input: { remark: 'Parcel announced' }, userName: 'admin', operTime: '2026-11-24T10:00:00.000Z' },
]

const fetchMock = vi.fn<typeof fetch>()
const calls = (method: string, path: string) =>
  fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)
const bodyOf = (call: Parameters<typeof fetch>) => JSON.parse(String(call[1]?.body)) as Record<string, unknown>

function serve() {
  fetchMock.mockImplementation(async (url, init) => {
    const path = String(url).replace(/^\/api/, '')
    if (path === '/service/repairOrder/list') return jsonResponse({ rows: orders, total: orders.length })
    if (path === '/service/repairOrder/counts') return jsonResponse(counts)
    if (path === '/service/repairOrder/3/history') return jsonResponse(history)
    if (path === '/service/repairOrder/3') return jsonResponse(orders[2])
    const step = /^\/service\/repairOrder\/(\d+)\/(\w+)$/.exec(path)
    if (step && init?.method === 'POST') {
      const row = orders.find((o) => o.repairOrderId === Number(step[1]))
      return new Response(JSON.stringify({ code: 200, msg: `${step[2]}: done`, data: row }), { headers: { 'Content-Type': 'application/json' } })
    }
    if (/\/action\/evaluate$/.test(path)) return jsonResponse(orders[3])
    return jsonResponse(null, 404)
  })
}

const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['staff'], permissions })
const STAFF = ['list', 'query', 'submit', 'review', 'addRemark', 'receive', 'finish', 'withdraw', 'evaluate'].map((p) => `service:repairOrder:${p}`)

const rowOf = (orderNo: string) => screen.getByText(orderNo).closest('tr')!

/** The test ids of a row's actions: its buttons and the items of its More menu. */
async function actionIds(orderNo: string): Promise<string[]> {
  const row = rowOf(orderNo)
  const ids = [...row.querySelectorAll('.crud-row-actions > button[data-testid]')].map((b) => b.getAttribute('data-testid')!)
  const more = within(row).queryByTestId('row-more')
  if (!more) return ids.filter((id) => id !== 'row-more')
  fireEvent.click(more)
  const menu = (await screen.findAllByRole('menu')).at(-1)!
  const inMenu = [...menu.querySelectorAll('[data-testid]')].map((item) => item.getAttribute('data-testid')!)
  fireEvent.click(more)
  return [...ids.filter((id) => id !== 'row-more'), ...inMenu]
}

/** Clicks one of a row's actions, in the row or in its More menu. */
async function clickAction(orderNo: string, testId: string) {
  const row = rowOf(orderNo)
  const button = within(row).queryByTestId(testId)
  if (button) return fireEvent.click(button)
  fireEvent.click(within(row).getByTestId('row-more'))
  const items = await screen.findAllByTestId(testId)
  fireEvent.click(items.at(-1)!)
}

describe('steps and actions on the list page', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    serve()
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
    localStorage.clear()
  })

  it("offers Modify and Delete only where the row's state allows them, and the toolbar says why not", async () => {
    signIn([...STAFF, 'service:repairOrder:edit', 'service:repairOrder:remove'])
    renderWithProviders(<EntityListPage entity={repairOrder} />)
    await screen.findByText('RS-1')
    // A draft: both. Submitted: modified still (a mistyped e-mail), never deleted. Finished: neither.
    expect(await actionIds('RS-1')).toEqual(expect.arrayContaining(['row-edit', 'row-delete']))
    expect(await actionIds('RS-2')).toContain('row-edit')
    expect(await actionIds('RS-2')).not.toContain('row-delete')
    for (const finished of ['RS-4', 'RS-5']) {
      const ids = await actionIds(finished)
      expect(ids).not.toContain('row-edit')
      expect(ids).not.toContain('row-delete')
    }

    const tick = (orderNo: string) => fireEvent.click(within(rowOf(orderNo)).getByRole('checkbox'))
    const edit = () => screen.getByTestId('crud-edit') as HTMLButtonElement
    const remove = () => screen.getByTestId('crud-delete') as HTMLButtonElement
    tick('RS-1')
    await waitFor(() => expect(remove().disabled).toBe(false))
    expect(edit().disabled).toBe(false)
    // With a finished order among the ticked rows: delete is refused for all of them, and says why.
    tick('RS-4')
    await waitFor(() => expect(remove().disabled).toBe(true))
    fireEvent.mouseEnter(remove().parentElement!)
    expect((await screen.findByRole('tooltip')).textContent).toBe('Cannot delete service order "RS-4": it is Finished')
    tick('RS-1')
    await waitFor(() => expect(edit().disabled).toBe(true))
    fireEvent.mouseEnter(edit().parentElement!)
    await waitFor(() => expect(screen.getAllByRole('tooltip').map((t) => t.textContent)).toContain('Cannot modify service order "RS-4": it is Finished'))
  })

  it("offers only the steps valid from each row's state, and actions whose condition the row meets", async () => {
    signIn(STAFF)
    renderWithProviders(<EntityListPage entity={repairOrder} />)
    await screen.findByText('RS-1')
    expect(await actionIds('RS-1')).toEqual(['row-step-submit', 'row-step-withdraw', 'row-details'])
    expect(await actionIds('RS-2')).toEqual(['row-step-review', 'row-step-reject', 'row-step-withdraw', 'row-details'])
    expect(await actionIds('RS-3')).toEqual(['row-step-addRemark', 'row-step-receive', 'row-step-withdraw', 'row-details'])
    // Finished: nothing moves it any more, but it can be evaluated.
    expect(await actionIds('RS-4')).toEqual(['row-action-evaluate', 'row-details'])
    // Evaluated already (the action's whenEmpty): only once.
    expect(await actionIds('RS-5')).toEqual(['row-details'])
  })

  it('shows no Review (nor Reject, which needs the same permission) to a user without service:repairOrder:review', async () => {
    signIn(STAFF.filter((p) => p !== 'service:repairOrder:review'))
    renderWithProviders(<EntityListPage entity={repairOrder} />)
    await screen.findByText('RS-2')
    expect(await actionIds('RS-2')).toEqual(['row-step-withdraw', 'row-details'])
  })

  it('asks for the next state and the input, and sends both as `to` and the input fields', async () => {
    signIn(STAFF)
    renderWithProviders(<EntityListPage entity={repairOrder} />)
    await screen.findByText('RS-2')
    await waitFor(() => expect(calls('POST', '/service/repairOrder/counts')).toHaveLength(1))
    await clickAction('RS-2', 'row-step-review')
    const dialog = await screen.findByRole('dialog')
    expect(within(dialog).getByText('Review RS-2')).toBeTruthy()

    // The state is required: nothing is sent without it.
    fireEvent.click(within(dialog).getByTestId('operation-submit'))
    expect(await within(dialog).findByText('Please choose the next state')).toBeTruthy()
    expect(calls('POST', '/service/repairOrder/2/review')).toHaveLength(0)

    // The ways in, each with what it means under its name (the definition's descriptions).
    const choices = within(dialog).getByTestId('operation-target')
    expect(within(choices).getAllByRole('radio')).toHaveLength(3)
    expect(within(choices).getByText('By mail: the rider sends the bike to us; staff confirm receipt when it arrives.')).toBeTruthy()
    expect(within(choices).getByText(/^Collection: we book a courier/)).toBeTruthy()
    expect(within(choices).getByText(/No transport needed/)).toBeTruthy()
    fireEvent.click(within(choices).getByRole('radio', { name: /^Bike collecting/ }))
    fireEvent.change(within(dialog).getByLabelText('Remark'), { target: { value: ' Mail it back ' } })
    fireEvent.click(within(dialog).getByTestId('operation-submit'))

    await waitFor(() => expect(calls('POST', '/service/repairOrder/2/review')).toHaveLength(1))
    expect(bodyOf(calls('POST', '/service/repairOrder/2/review')[0]!)).toEqual({ to: 'bikeCollecting', remark: 'Mail it back' })
    // The server's message; the list and its counts are fetched again.
    expect(await screen.findByText('review: done')).toBeTruthy()
    await waitFor(() => expect(calls('POST', '/service/repairOrder/list')).toHaveLength(2))
    await waitFor(() => expect(calls('POST', '/service/repairOrder/counts')).toHaveLength(2))
  })

  it("confirms a step without input by the row's name, in red for a dangerous one with its own text", async () => {
    signIn(STAFF)
    renderWithProviders(<EntityListPage entity={repairOrder} />)
    await screen.findByText('RS-1')
    await clickAction('RS-1', 'row-step-submit')
    const confirm = await screen.findByRole('dialog')
    expect(within(confirm).getByText('Submit RS-1?')).toBeTruthy()
    fireEvent.click(within(confirm).getByRole('button', { name: 'Submit' }))
    await waitFor(() => expect(calls('POST', '/service/repairOrder/1/submit')).toHaveLength(1))
    expect(bodyOf(calls('POST', '/service/repairOrder/1/submit')[0]!)).toEqual({})

    // Withdraw takes an optional reason, so it opens the dialog with the definition's warning.
    await clickAction('RS-1', 'row-step-withdraw')
    const dialog = (await screen.findAllByRole('dialog')).at(-1)!
    expect(within(dialog).getByText('Withdraw RS-1? It cannot be reopened.')).toBeTruthy()
    expect(within(dialog).getByTestId('operation-submit').className).toContain('ant-btn-dangerous')
  })

  it('evaluates a finished order with stars', async () => {
    signIn(STAFF)
    renderWithProviders(<EntityListPage entity={repairOrder} />)
    await screen.findByText('RS-4')
    await clickAction('RS-4', 'row-action-evaluate')
    const dialog = await screen.findByRole('dialog')
    const stars = within(dialog).getAllByRole('radio')
    expect(stars).toHaveLength(5)
    fireEvent.click(stars[3]!)
    fireEvent.click(within(dialog).getByTestId('operation-submit'))
    await waitFor(() => expect(calls('POST', '/service/repairOrder/4/action/evaluate')).toHaveLength(1))
    expect(bodyOf(calls('POST', '/service/repairOrder/4/action/evaluate')[0]!)).toEqual({ stars: 4 })
  })

  it('filters by state from a bar with the counts of the other filters, in place of the search field', async () => {
    signIn(STAFF)
    renderWithProviders(<EntityListPage entity={repairOrder} />)
    await screen.findByText('RS-1')
    const bar = screen.getByRole('radiogroup', { name: 'Filter by Status' })
    expect(within(screen.getByTestId('crud-search')).queryByLabelText('Status')).toBeNull()
    const pending = await within(bar).findByRole('radio', { name: 'Pending review (3)' })
    expect(within(bar).getByRole('radio', { name: 'All (6)' })).toHaveProperty('checked', true)

    fireEvent.click(pending)
    await waitFor(() => expect(calls('POST', '/service/repairOrder/list')).toHaveLength(2))
    expect(bodyOf(calls('POST', '/service/repairOrder/list')[1]!)).toEqual({ pageNum: 1, pageSize: 20, status: 'pending' })

    // A search refreshes the counts for its filters; the status is not among them.
    fireEvent.change(within(screen.getByTestId('crud-search')).getByLabelText('Order number'), { target: { value: 'RS-2' } })
    fireEvent.click(screen.getByTestId('crud-search-submit'))
    await waitFor(() => expect(calls('POST', '/service/repairOrder/counts')).toHaveLength(2))
    expect(bodyOf(calls('POST', '/service/repairOrder/counts')[1]!)).toEqual({ orderNo: 'RS-2' })
    expect(bodyOf(calls('POST', '/service/repairOrder/list').at(-1)!)).toMatchObject({ orderNo: 'RS-2', status: 'pending' })

    fireEvent.click(within(bar).getByRole('radio', { name: 'All (6)' }))
    await waitFor(() => expect(bodyOf(calls('POST', '/service/repairOrder/list').at(-1)!)).not.toHaveProperty('status'))
  })

  it('names the states in Chinese too', async () => {
    await i18n.changeLanguage('zh_CN')
    try {
      signIn(STAFF)
      renderWithProviders(<EntityListPage entity={repairOrder} />)
      const bar = await screen.findByRole('radiogroup', { name: '按状态筛选' })
      expect(await within(bar).findByRole('radio', { name: '全部 (6)' })).toBeTruthy()
      expect(within(bar).getByRole('radio', { name: '待审核 (3)' })).toBeTruthy()
    } finally {
      await i18n.changeLanguage('en_US')
    }
  })

  it('marks an overdue due time in red', async () => {
    signIn(STAFF)
    renderWithProviders(<EntityListPage entity={repairOrder} />)
    await screen.findByText('RS-2')
    expect(within(rowOf('RS-2')).getByTestId('overdue-tag').textContent).toBe('Overdue')
    expect(within(rowOf('RS-1')).queryByTestId('overdue-tag')).toBeNull()
  })
})

describe('the details of a row with states', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    serve()
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
  })

  it('shows the timeline: each step with from → to, who, when and what was entered', async () => {
    renderWithProviders(<EntityDetails entity={repairOrder} id={3} onClose={() => undefined} />)
    const timeline = await screen.findByTestId('transition-timeline')
    const records = await within(timeline).findAllByTestId('transition-record')
    expect(records).toHaveLength(3)
    expect(records[0]!.textContent).toContain('Submit')
    expect(records[0]!.textContent).toContain('Draft')
    expect(records[0]!.textContent).toContain('Pending review')
    expect(records[1]!.textContent).toContain('reviewer')
    expect(records[1]!.textContent).toMatch(/2026-11-24 \d\d:30:00/)
    expect(within(records[1]!).getByText('Remark')).toBeTruthy()
    expect(within(records[1]!).getByText('Mail it back')).toBeTruthy()
    // A remark while waiting stays in its state: one tag, no arrow.
    expect(records[2]!.textContent).toContain('Add remark')
    expect(within(records[2]!).getAllByText('Bike collecting')).toHaveLength(1)
  })
})

describe('the details of a row with actions but no states or related lists', () => {
  const { feedback } = memberEntities
  const item = { feedbackId: 7, memberId: 1, memberIdLabel: 'ada@example.com', stars: 4, content: 'Smooth ride', readState: 'unread', readBy: '', reply: '', replyBy: '', replyTime: null, createTime: '2026-11-24T08:00:00.000Z' }
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url) => {
      const path = String(url).replace(/^\/api/, '')
      if (path === '/member/feedback/list') return jsonResponse({ rows: [item], total: 1 })
      // Opening it marks it read (the server's afterGet).
      if (path === '/member/feedback/7') return jsonResponse({ ...item, readState: 'read', readBy: 'tester' })
      return jsonResponse(null, 404)
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
    localStorage.clear()
  })

  const rowActionIds = async () => {
    const row = (await screen.findByText('Smooth ride')).closest('tr')!
    const ids = [...row.querySelectorAll('.crud-row-actions > button[data-testid]')].map((b) => b.getAttribute('data-testid')!)
    const more = within(row).queryByTestId('row-more')
    if (!more) return ids
    fireEvent.click(more)
    const menu = (await screen.findAllByRole('menu')).at(-1)!
    return [...ids.filter((id) => id !== 'row-more'), ...[...menu.querySelectorAll('[data-testid]')].map((i) => i.getAttribute('data-testid')!)]
  }

  it('offers Details (feedback: opening it is reading it) with the query permission, and opens the row', async () => {
    signIn(['list', 'query', 'remove', 'reply'].map((p) => `member:feedback:${p}`))
    renderWithProviders(<EntityListPage entity={feedback} />)
    expect(await rowActionIds()).toEqual(['row-action-reply', 'row-delete', 'row-details'])
    fireEvent.click((await screen.findAllByTestId('row-details')).at(-1)!)
    const details = await screen.findByTestId('entity-details')
    await waitFor(() => expect(details.textContent).toContain('tester'))
    expect(calls('GET', '/member/feedback/7')).toHaveLength(1)
  })

  it('offers no Details without the query permission', async () => {
    signIn(['list', 'remove', 'reply'].map((p) => `member:feedback:${p}`))
    renderWithProviders(<EntityListPage entity={feedback} />)
    expect(await rowActionIds()).toEqual(['row-action-reply', 'row-delete'])
  })
})
