import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { systemEntities } from '@velo/shared'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { EntityForm } from './EntityForm'

const fetchMock = vi.fn<typeof fetch>()
const dict = [{ dictValue: 'N', dictLabel: 'No', dictLabelZh: '否', listClass: '', isDefault: 'Y' }]

describe('EntityForm', () => {
  beforeEach(() => vi.stubGlobal('fetch', fetchMock))
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
  })

  it('adds in a dialog and puts the server field errors under their fields', async () => {
    fetchMock.mockImplementation(async (url, init) => {
      if (String(url).includes('getDicts')) return jsonResponse(dict)
      if (init?.method === 'POST') {
        return jsonResponse({ errors: [{ field: 'configKey', message: 'Key sys.x exists already' }] }, 400, 400)
      }
      return jsonResponse(null, 404)
    })
    const onClose = vi.fn()
    renderWithProviders(<EntityForm entity={systemEntities.config} onClose={onClose} />)
    const dialog = await screen.findByRole('dialog')
    expect(dialog.className).not.toContain('drawer')
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'Thing' } })
    fireEvent.change(within(dialog).getByLabelText('Key'), { target: { value: 'sys.x' } })
    fireEvent.change(within(dialog).getByLabelText('Value'), { target: { value: '1' } })
    fireEvent.click(screen.getByTestId('entity-form-save'))
    expect(await within(dialog).findByText('Key sys.x exists already')).toBeTruthy()
    const post = fetchMock.mock.calls.find(([, init]) => init?.method === 'POST')!
    // The definition's default travels for fields the user left alone.
    expect(JSON.parse(String(post[1]!.body))).toEqual({ configName: 'Thing', configKey: 'sys.x', configValue: '1', configType: 'N' })
    expect(onClose).not.toHaveBeenCalled()
  })

  it('says what is missing before sending anything', async () => {
    fetchMock.mockImplementation(async () => jsonResponse(dict))
    renderWithProviders(<EntityForm entity={systemEntities.config} onClose={() => {}} />)
    fireEvent.click(await screen.findByTestId('entity-form-save'))
    expect(await screen.findByText('Name is required')).toBeTruthy()
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'POST')).toBe(false)
  })

  it('modifies a long entity in a drawer: loads the row, hides the password, locks immutable fields, sends the changes', async () => {
    const row = { userId: 5, userName: 'alice', nickName: 'Alice', deptId: null, email: 'a@velo.local', phonenumber: '+31 20 123 4567', sex: '1', status: '0', roleIds: [], remark: '' }
    fetchMock.mockImplementation(async (url, init) => {
      const path = String(url)
      if (path === '/api/system/user/5') return jsonResponse(row)
      if (path.includes('getDicts')) return jsonResponse([])
      if (path.endsWith('/list')) return jsonResponse({ rows: [], total: 0 })
      if (init?.method === 'PUT') return jsonResponse({ ...row, nickName: 'Ally' })
      return jsonResponse(null, 404)
    })
    const onSaved = vi.fn()
    renderWithProviders(<EntityForm entity={systemEntities.user} id={5} onClose={() => {}} onSaved={onSaved} />)
    const nick = await screen.findByLabelText('Nickname')
    expect(document.querySelector('.ant-drawer')).toBeTruthy()
    expect(screen.queryByLabelText('Password')).toBeNull()
    expect((screen.getByLabelText('User name') as HTMLInputElement).disabled).toBe(true)
    fireEvent.change(nick, { target: { value: 'Ally' } })
    fireEvent.click(screen.getByTestId('entity-form-save'))
    await waitFor(() => expect(onSaved).toHaveBeenCalled())
    const put = fetchMock.mock.calls.find(([, init]) => init?.method === 'PUT')!
    expect(JSON.parse(String(put[1]!.body))).toEqual({ userId: 5, nickName: 'Ally' })
    expect(await screen.findByText('Modified successfully')).toBeTruthy()
  })
})
