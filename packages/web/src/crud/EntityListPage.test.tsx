import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { systemEntities, type SessionUser } from '@velo/shared'
import i18n from '../i18n'
import { sessionStore } from '../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../test/render'
import { EntityListPage } from './EntityListPage'

const countries = [
  { countryId: 1, code: 'DE', name: 'Deutschland', nameEn: 'Germany', timeZone: 'Europe/Berlin', status: '0' },
  { countryId: 2, code: 'NL', name: 'Nederland', nameEn: 'Netherlands', timeZone: 'Europe/Amsterdam', status: '1' },
]
const depts = [
  { deptId: 1, parentId: 0, deptName: 'HQ', orderNum: 0, status: '0' },
  { deptId: 2, parentId: 1, deptName: 'R&D', orderNum: 1, status: '0' },
  { deptId: 3, parentId: 2, deptName: 'Firmware', orderNum: 1, status: '0' },
]
const dict = [
  { dictValue: '0', dictLabel: 'Normal', dictLabelZh: '正常', listClass: 'primary', isDefault: 'Y' },
  { dictValue: '1', dictLabel: 'Disabled', dictLabelZh: '停用', listClass: 'danger', isDefault: 'N' },
]

const items = [{ dictCode: 11, dictType: 'bike_colour', dictLabel: 'Red', dictLabelZh: '红', dictValue: 'red', dictSort: 1, status: '0' }]

const fetchMock = vi.fn<typeof fetch>()
const calls = (method: string, path: string) =>
  fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)
const bodyOf = (call: Parameters<typeof fetch>) => JSON.parse(String(call[1]?.body))

function serve() {
  fetchMock.mockImplementation(async (url, init) => {
    const path = String(url).replace(/^\/api/, '')
    if (path.startsWith('/system/dict/getDicts/')) return jsonResponse(dict)
    if (path === '/system/country/list') return jsonResponse({ rows: countries, total: 42 })
    if (path === '/system/dept/list') return jsonResponse({ rows: depts, total: depts.length })
    if (path === '/system/dict/data/list') return jsonResponse({ rows: items, total: items.length })
    if (init?.method === 'DELETE') return jsonResponse({ deleted: 1 })
    return jsonResponse(null, 404)
  })
}

const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions })

describe('EntityListPage', () => {
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

  it('lists the first page with the default size and shows only the permitted actions', async () => {
    signIn(['system:country:list', 'system:country:remove'])
    renderWithProviders(<EntityListPage entity={systemEntities.country} />)
    expect(await screen.findByText('Germany')).toBeTruthy()
    expect(bodyOf(calls('POST', '/system/country/list')[0]!)).toEqual({ pageNum: 1, pageSize: 20 })
    expect(screen.queryByTestId('crud-add')).toBeNull()
    expect(screen.queryByTestId('crud-export')).toBeNull()
    expect(screen.queryByTestId('crud-import')).toBeNull()
    expect(screen.getByTestId('crud-delete')).toBeTruthy()
    expect(await screen.findByText('Normal')).toBeTruthy()
    expect(screen.getByText('Total 42')).toBeTruthy()
  })

  it('sorts on the server and searches from the first page', async () => {
    signIn(['*:*:*'])
    renderWithProviders(<EntityListPage entity={systemEntities.country} params={{ status: '0' }} />)
    await screen.findByText('Germany')
    fireEvent.click(screen.getAllByText('Code')[1]!)
    await waitFor(() => expect(calls('POST', '/system/country/list')).toHaveLength(2))
    expect(bodyOf(calls('POST', '/system/country/list')[1]!)).toEqual({ pageNum: 1, pageSize: 20, status: '0', orderByColumn: 'code', isAsc: 'asc' })

    const search = screen.getByTestId('crud-search')
    // The forced status filter is not offered again.
    expect(within(search).queryByText('Status')).toBeNull()
    fireEvent.change(within(search).getByLabelText('Name'), { target: { value: ' Deu ' } })
    fireEvent.click(screen.getByTestId('crud-search-submit'))
    await waitFor(() => expect(calls('POST', '/system/country/list')).toHaveLength(3))
    expect(bodyOf(calls('POST', '/system/country/list')[2]!)).toMatchObject({ pageNum: 1, name: 'Deu', status: '0' })
  })

  it('Search always reloads, from the first page, even when the filters did not change', async () => {
    signIn(['*:*:*'])
    renderWithProviders(<EntityListPage entity={systemEntities.country} />)
    await screen.findByText('Germany')
    const lists = () => calls('POST', '/system/country/list')
    expect(lists()).toHaveLength(1)
    // Unchanged (empty) filters: a new request all the same.
    fireEvent.click(screen.getByTestId('crud-search-submit'))
    await waitFor(() => expect(lists()).toHaveLength(2))
    fireEvent.click(screen.getByTestId('crud-search-submit'))
    await waitFor(() => expect(lists()).toHaveLength(3))
    // Reset with nothing to reset reloads too.
    fireEvent.click(screen.getByTestId('crud-search-reset'))
    await waitFor(() => expect(lists()).toHaveLength(4))

    // On page 2, Search goes back to page 1 (one request, not one per change).
    fireEvent.click(screen.getByTitle('2'))
    await waitFor(() => expect(lists()).toHaveLength(5))
    expect(bodyOf(lists()[4]!)).toMatchObject({ pageNum: 2 })
    fireEvent.click(screen.getByTestId('crud-search-submit'))
    await waitFor(() => expect(lists()).toHaveLength(6))
    expect(bodyOf(lists()[5]!)).toMatchObject({ pageNum: 1 })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(lists()).toHaveLength(6)
  })

  it("puts a row's actions beyond two into More", async () => {
    signIn(['*:*:*'])
    const audit = vi.fn()
    renderWithProviders(
      <EntityListPage entity={systemEntities.country} rowActions={(row) => [{ key: 'audit', label: 'Audit', onClick: () => audit(row.code), testId: 'row-audit' }, false]} />,
    )
    await screen.findByText('Germany')
    const germany = screen.getByText('Germany').closest('tr')!
    expect(within(germany).getByTestId('row-edit')).toBeTruthy()
    expect(within(germany).getByTestId('row-delete')).toBeTruthy()
    expect(within(germany).queryByTestId('row-audit')).toBeNull()
    fireEvent.click(within(germany).getByTestId('row-more'))
    fireEvent.click(await screen.findByTestId('row-audit'))
    expect(audit).toHaveBeenCalledWith('DE')
  })

  it("titles the add and modify dialogs with one row's name, in both languages", async () => {
    signIn(['*:*:*'])
    const { unmount } = renderWithProviders(<EntityListPage entity={systemEntities.country} />)
    await screen.findByText('Germany')
    fireEvent.click(screen.getByTestId('crud-add'))
    expect((await screen.findByRole('dialog')).textContent).toContain('Add country')
    unmount()

    await i18n.changeLanguage('zh_CN')
    try {
      renderWithProviders(<EntityListPage entity={systemEntities.user} />)
      fireEvent.click(await screen.findByTestId('crud-add'))
      const dialog = await screen.findByRole('dialog')
      expect(within(dialog).getByText('新增用户')).toBeTruthy()
      expect(dialog.textContent).not.toContain('用户管理')
    } finally {
      await i18n.changeLanguage('en_US')
    }
  })

  it('deletes the selected rows after a confirmation that names them', async () => {
    signIn(['*:*:*'])
    renderWithProviders(<EntityListPage entity={systemEntities.country} />)
    await screen.findByText('Germany')
    const [, first, second] = screen.getAllByRole('checkbox')
    fireEvent.click(first!)
    fireEvent.click(second!)
    fireEvent.click(screen.getByTestId('crud-delete'))
    const dialog = await screen.findByRole('dialog')
    expect(within(dialog).getByText('Delete "Germany, Netherlands" from Countries?')).toBeTruthy()
    fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }))
    await waitFor(() => expect(calls('DELETE', '/system/country/1,2')).toHaveLength(1))
    expect(await screen.findByText('Deleted successfully')).toBeTruthy()
  })

  it('nests a tree entity without a pager and expands every node at once', async () => {
    signIn(['*:*:*'])
    renderWithProviders(<EntityListPage entity={systemEntities.dept} />)
    await screen.findByText('HQ')
    expect(bodyOf(calls('POST', '/system/dept/list')[0]!)).toEqual({})
    expect(screen.queryByText('R&D')).toBeNull()
    expect(screen.queryByText(/^Total/)).toBeNull()
    fireEvent.click(screen.getByTestId('crud-expand'))
    expect(await screen.findByText('Firmware')).toBeTruthy()
    expect(screen.getAllByTestId('row-add-child')).toHaveLength(3)
  })

  it("draws the page's own cells, and a list fixed to a value adds rows with it", async () => {
    signIn(['*:*:*'])
    renderWithProviders(
      <EntityListPage
        entity={systemEntities.dictData}
        params={{ dictType: 'bike_colour' }}
        cells={{ dictLabel: ({ value, row }) => <b data-testid="own-cell">{`${String(value)} / ${String(row.dictLabelZh)}`}</b> }}
      />,
    )
    expect((await screen.findByTestId('own-cell')).textContent).toBe('Red / 红')
    expect(bodyOf(calls('POST', '/system/dict/data/list')[0]!)).toMatchObject({ dictType: 'bike_colour' })
    fireEvent.click(screen.getByTestId('crud-add'))
    const form = await screen.findByTestId('entity-form')
    expect((within(form).getByLabelText('Dictionary type') as HTMLInputElement).value).toBe('bike_colour')
  })

  it("starts a child with the parent and the page's child preset", async () => {
    signIn(['*:*:*'])
    renderWithProviders(<EntityListPage entity={systemEntities.dept} childPreset={(parent) => ({ leader: `${String(parent.deptName)} lead` })} />)
    await screen.findByText('HQ')
    fireEvent.click(screen.getAllByTestId('row-add-child')[0]!)
    const form = await screen.findByTestId('entity-form')
    expect((within(form).getByLabelText('Leader') as HTMLInputElement).value).toBe('HQ lead')
  })
})
