import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { systemEntities, type SessionUser } from '@velo/shared'
import { changeUserStatus } from '../../api/system'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { prettyJson } from '../../crud/kinds/JsonCell'
import { StatusSwitch } from './StatusSwitch'
import { TreeCheck } from './TreeCheck'
import { RoleUsersDrawer } from './role/RoleUsersDrawer'

const fetchMock = vi.fn<typeof fetch>()
const tick = (title: string) => fireEvent.click(screen.getByText(title).closest('.ant-tree-treenode')!.querySelector('.ant-tree-checkbox')!)
const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions })
const status = systemEntities.user.fieldMap.get('status')!
const nodes = [{ id: 1, label: 'System', children: [{ id: 2, label: 'Users', children: [{ id: 3, label: 'List' }, { id: 4, label: 'Add' }] }] }]

describe('system pages', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url) => (String(url).includes('getDicts') ? jsonResponse([{ dictValue: '0', dictLabel: 'Normal', dictLabelZh: '正常', listClass: 'primary', isDefault: 'Y' }]) : jsonResponse({})))
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
  })

  it('switches a status after a confirmation, and shows a tag to users who may not', async () => {
    signIn(['system:user:edit'])
    const row = { userId: 5, userName: 'bob', status: '0' }
    const { unmount } = renderWithProviders(
      <StatusSwitch entity={systemEntities.user} field={status} value="0" row={row} permission="system:user:edit" change={(s) => changeUserStatus(5, s)} />,
    )
    fireEvent.click(screen.getByTestId('status-switch-bob'))
    const dialog = await screen.findByRole('dialog')
    expect(within(dialog).getByText('Disable "bob"?')).toBeTruthy()
    fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }))
    await waitFor(() => expect(fetchMock.mock.calls.some(([url, init]) => String(url) === '/api/system/user/changeStatus' && init?.method === 'PUT')).toBe(true))
    const put = fetchMock.mock.calls.find(([url]) => String(url) === '/api/system/user/changeStatus')!
    expect(JSON.parse(String(put[1]!.body))).toEqual({ userId: 5, status: '1' })
    unmount()

    signIn(['system:user:list'])
    renderWithProviders(<StatusSwitch entity={systemEntities.user} field={status} value="0" row={row} permission="system:user:edit" change={() => Promise.resolve()} />)
    expect(await screen.findByText('Normal')).toBeTruthy()
    expect(screen.queryByRole('switch')).toBeNull()
  })

  it('keeps half-checked parents for menus, only full ticks for departments', async () => {
    const onMenus = vi.fn()
    const { unmount } = renderWithProviders(<TreeCheck nodes={nodes} mode="withParents" value={[1, 2, 3]} onChange={onMenus} />)
    // Saved with its parents, the leaf alone marks the tree: Users is half-checked, not all of it.
    expect(document.querySelectorAll('.ant-tree-checkbox-checked')).toHaveLength(1)
    tick('Add')
    expect(onMenus).toHaveBeenLastCalledWith(expect.arrayContaining([1, 2, 3, 4]))
    unmount()

    const onDepts = vi.fn()
    renderWithProviders(<TreeCheck nodes={nodes} mode="checked" value={[]} onChange={onDepts} />)
    tick('List')
    expect(onDepts).toHaveBeenLastCalledWith([3])
  })

  it("the role's users: Search always reloads, even with the same filters", async () => {
    signIn(['system:role:edit'])
    fetchMock.mockImplementation(async (url) => (String(url).endsWith('/users/list') ? jsonResponse({ rows: [{ userId: 7, userName: 'carol', status: '0' }], total: 1 }) : jsonResponse([])))
    const lists = () => fetchMock.mock.calls.filter(([url]) => String(url) === '/api/system/role/2/users/list')
    renderWithProviders(<RoleUsersDrawer roleRow={{ roleId: 2, roleName: 'Staff' }} onClose={() => {}} />)
    await screen.findByText('carol')
    expect(lists()).toHaveLength(1)
    const search = screen.getByRole('button', { name: /Search/ })
    fireEvent.click(search)
    await waitFor(() => expect(lists()).toHaveLength(2))
    fireEvent.click(search)
    await waitFor(() => expect(lists()).toHaveLength(3))
    expect(JSON.parse(String(lists()[2]![1]!.body))).toEqual({ pageNum: 1, pageSize: 20 })
  })

  it('formats JSON for reading and leaves other text alone', () => {
    expect(prettyJson('{"a":1,"b":[2]}')).toBe('{\n  "a": 1,\n  "b": [\n    2\n  ]\n}')
    expect(prettyJson('not json')).toBe('not json')
  })
})
