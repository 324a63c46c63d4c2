import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { bikeEntities, orderEntities, PICKER_LIMIT, serviceEntities, systemEntities, type SessionUser } from '@velo/shared'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { EntityForm } from './EntityForm'
import { piiRider } from '../../test/piiRider'

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

  describe('a save the server asks to confirm first (409 with data.confirm)', () => {
    const QUESTION = 'Key sys.x already exists, overwrite?'
    const question = () => new Response(JSON.stringify({ code: 409, msg: QUESTION, data: { confirm: true } }), { status: 409, headers: { 'Content-Type': 'application/json' } })
    const writes = () => fetchMock.mock.calls.filter(([, init]) => init?.method === 'POST' || init?.method === 'PUT')
    /** Answers the question to a write without ?confirmed=true, and saves one with it. */
    const server = async (url: RequestInfo | URL, init?: RequestInit) => {
      if (String(url).includes('getDicts')) return jsonResponse(dict)
      if (init?.method === 'POST' || init?.method === 'PUT') return String(url).endsWith('?confirmed=true') ? jsonResponse({ configId: 4, configKey: 'sys.x' }) : question()
      if (String(url) === '/api/system/config/4') return jsonResponse({ configId: 4, configName: 'Thing', configKey: 'sys.x', configValue: '1', configType: 'N', remark: '' })
      return jsonResponse(null, 404)
    }
    async function fillAndSave() {
      const dialog = await screen.findByRole('dialog')
      fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'Thing' } })
      fireEvent.change(within(dialog).getByLabelText('Key'), { target: { value: 'sys.x' } })
      fireEvent.change(within(dialog).getByLabelText('Value'), { target: { value: '1' } })
      fireEvent.click(screen.getByTestId('entity-form-save'))
    }
    const questionModal = async () => {
      await waitFor(() => expect(document.querySelector('.form-confirm-overwrite')).toBeTruthy())
      return document.querySelector('.form-confirm-overwrite') as HTMLElement
    }

    it('asks the question in the server words and, on OK, sends the same add again with ?confirmed=true', async () => {
      fetchMock.mockImplementation(server)
      const onClose = vi.fn()
      const onSaved = vi.fn()
      renderWithProviders(<EntityForm entity={systemEntities.config} onClose={onClose} onSaved={onSaved} />)
      await fillAndSave()
      const modal = await questionModal()
      expect(within(modal).getByText(QUESTION)).toBeTruthy()
      // Asked, not refused: no red message, and the form stays until the answer.
      expect(screen.queryByText('failed')).toBeNull()
      expect(onClose).not.toHaveBeenCalled()
      fireEvent.click(screen.getByTestId('form-confirm-ok'))
      await waitFor(() => expect(onSaved).toHaveBeenCalledWith({ configId: 4, configKey: 'sys.x' }))
      expect(onClose).toHaveBeenCalled()
      const [first, second] = writes()
      expect(writes()).toHaveLength(2)
      expect(String(first![0])).toBe('/api/system/config')
      expect(String(second![0])).toBe('/api/system/config?confirmed=true')
      expect(second![1]!.method).toBe('POST')
      expect(JSON.parse(String(second![1]!.body))).toEqual(JSON.parse(String(first![1]!.body)))
      expect(await screen.findByText('Added successfully')).toBeTruthy()
    })

    it('keeps the form open with nothing more sent when the question is cancelled', async () => {
      fetchMock.mockImplementation(server)
      const onClose = vi.fn()
      const onSaved = vi.fn()
      renderWithProviders(<EntityForm entity={systemEntities.config} onClose={onClose} onSaved={onSaved} />)
      await fillAndSave()
      const modal = await questionModal()
      fireEvent.click(within(modal).getByRole('button', { name: 'Cancel' }))
      expect(writes()).toHaveLength(1)
      expect(onSaved).not.toHaveBeenCalled()
      expect(onClose).not.toHaveBeenCalled()
      expect((screen.getByLabelText('Key') as HTMLInputElement).value).toBe('sys.x')
      // The save button is ready for another try.
      await waitFor(() => expect(screen.getByTestId('entity-form-save').className).not.toContain('ant-btn-loading'))
    })

    it('asks on modify too, and sends the same changes again with ?confirmed=true', async () => {
      fetchMock.mockImplementation(server)
      const onSaved = vi.fn()
      renderWithProviders(<EntityForm entity={systemEntities.config} id={4} onClose={() => {}} onSaved={onSaved} />)
      fireEvent.change(await screen.findByLabelText('Value'), { target: { value: '2' } })
      fireEvent.click(screen.getByTestId('entity-form-save'))
      await questionModal()
      fireEvent.click(screen.getByTestId('form-confirm-ok'))
      await waitFor(() => expect(onSaved).toHaveBeenCalled())
      const [first, second] = writes()
      expect(second![1]!.method).toBe('PUT')
      expect(String(second![0])).toBe('/api/system/config?confirmed=true')
      expect(JSON.parse(String(second![1]!.body))).toEqual({ configId: 4, configValue: '2' })
      expect(JSON.parse(String(first![1]!.body))).toEqual({ configId: 4, configValue: '2' })
    })

    it('puts the field errors of the confirmed save under their fields', async () => {
      fetchMock.mockImplementation(async (url, init) => {
        if (init?.method === 'POST' && String(url).endsWith('?confirmed=true')) return jsonResponse({ errors: [{ field: 'configKey', message: 'Key sys.x is locked' }] }, 400, 400)
        return server(url, init)
      })
      const onClose = vi.fn()
      renderWithProviders(<EntityForm entity={systemEntities.config} onClose={onClose} />)
      await fillAndSave()
      await questionModal()
      fireEvent.click(screen.getByTestId('form-confirm-ok'))
      expect(await screen.findByText('Key sys.x is locked')).toBeTruthy()
      expect(onClose).not.toHaveBeenCalled()
    })
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

  it('shows a field only while its `when` field has one of the values, and sends only the shown ones', async () => {
    const menuTypes = [
      { dictValue: 'M', dictLabel: 'Directory', dictLabelZh: '目录', listClass: '', isDefault: 'Y' },
      { dictValue: 'C', dictLabel: 'Menu', dictLabelZh: '菜单', listClass: '', isDefault: 'N' },
      { dictValue: 'F', dictLabel: 'Button', dictLabelZh: '按钮', listClass: '', isDefault: 'N' },
    ]
    fetchMock.mockImplementation(async (url, init) => {
      const path = String(url)
      if (path.includes('getDicts/sys_menu_type')) return jsonResponse(menuTypes)
      if (path.includes('getDicts')) return jsonResponse([])
      if (path === '/api/system/menu/options') return jsonResponse([{ value: 7, label: 'Pages', parentId: 0 }])
      if (init?.method === 'POST') return jsonResponse({ menuId: 9 })
      return jsonResponse(null, 404)
    })
    renderWithProviders(<EntityForm entity={systemEntities.menu} preset={{ parentId: 7, menuType: 'F' }} onClose={() => {}} />)
    const perms = await screen.findByLabelText('Permission')
    // A button: no icon, route or component.
    expect(screen.queryByLabelText('Icon')).toBeNull()
    expect(screen.queryByLabelText('Component path')).toBeNull()
    expect(screen.queryByLabelText('Route address')).toBeNull()
    fireEvent.click(await screen.findByLabelText('Menu'))
    expect(await screen.findByLabelText('Component path')).toBeTruthy()
    expect(screen.getByLabelText('Route address')).toBeTruthy()
    fireEvent.click(screen.getByLabelText('Button'))
    await waitFor(() => expect(screen.queryByLabelText('Component path')).toBeNull())
    fireEvent.change(screen.getByLabelText('Menu name'), { target: { value: 'button.add' } })
    fireEvent.change(perms, { target: { value: 'system:thing:add' } })
    fireEvent.click(screen.getByTestId('entity-form-save'))
    await waitFor(() => expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'POST')).toBe(true))
    const post = fetchMock.mock.calls.find(([, init]) => init?.method === 'POST')!
    expect(JSON.parse(String(post[1]!.body))).toEqual({ parentId: 7, menuName: 'button.add', menuType: 'F', orderNum: 0, perms: 'system:thing:add', status: '0' })
  })

  it('offers the rows of a referenced entity from GET {path}/options', async () => {
    fetchMock.mockImplementation(async (url) => {
      const path = String(url)
      if (path.includes('getDicts')) return jsonResponse([])
      if (path === '/api/system/role/options') return jsonResponse([{ value: 2, label: 'Common staff' }])
      if (path === '/api/system/dept/options') return jsonResponse([{ value: 1, label: 'HQ', parentId: 0 }])
      return jsonResponse(null, 404)
    })
    renderWithProviders(<EntityForm entity={systemEntities.user} onClose={() => {}} />)
    fireEvent.mouseDown(await screen.findByLabelText('Roles'))
    expect(await screen.findByText('Common staff')).toBeTruthy()
    expect(fetchMock.mock.calls.some(([url]) => String(url).endsWith('/list'))).toBe(false)
  })

  it('offers the colours of the chosen model only, and drops the colour when the model changes', async () => {
    fetchMock.mockImplementation(async (url) => {
      const path = String(url)
      if (path.includes('getDicts')) return jsonResponse([])
      if (path === '/api/bike/modelSpec/options') return jsonResponse([{ value: 1, label: 'Urban' }, { value: 2, label: 'Trail' }])
      if (path === '/api/bike/modelSpec/colour/options?modelId=1') return jsonResponse([{ value: 11, label: 'Urban black' }])
      if (path === '/api/bike/modelSpec/colour/options?modelId=2') return jsonResponse([{ value: 21, label: 'Trail green' }])
      return jsonResponse([])
    })
    renderWithProviders(<EntityForm entity={bikeEntities.bike} onClose={() => {}} />)
    const dialog = await screen.findByRole('dialog')
    const colour = within(dialog).getByLabelText('Colour')
    // Nothing to offer before a model is chosen.
    expect(colour.closest('.ant-select')!.className).toContain('disabled')
    expect(within(dialog).getAllByText('Choose the model first').length).toBeGreaterThan(0)
    const choose = async (label: string, option: string) => {
      fireEvent.mouseDown(within(dialog).getByLabelText(label))
      fireEvent.click(await screen.findByTitle(option))
    }
    await choose('Model', 'Urban')
    await waitFor(() => expect(colour.closest('.ant-select')!.className).not.toContain('disabled'))
    await choose('Colour', 'Urban black')
    expect(screen.queryByTitle('Trail green')).toBeNull()
    await choose('Model', 'Trail')
    await waitFor(() => expect(within(dialog).queryByTitle('Urban black')).toBeNull())
    fireEvent.mouseDown(within(dialog).getByLabelText('Colour'))
    expect(await screen.findByTitle('Trail green')).toBeTruthy()
    expect(fetchMock.mock.calls.some(([url]) => String(url) === '/api/bike/modelSpec/colour/options')).toBe(false)
  })

  it('searches a picker with more rows than the server sends at once on the server, as the user types', async () => {
    const many = Array.from({ length: PICKER_LIMIT }, (_, i) => ({ value: i + 1, label: `VLA${String(i).padStart(6, '0')}` }))
    fetchMock.mockImplementation(async (url) => {
      const path = String(url)
      if (path.includes('getDicts')) return jsonResponse([])
      if (path === '/api/iot/device/options') return jsonResponse(many)
      if (path === '/api/iot/device/options?keyword=VLZ') return jsonResponse([{ value: 5000, label: 'VLZ000005' }])
      return jsonResponse([])
    })
    renderWithProviders(<EntityForm entity={bikeEntities.bike} onClose={() => {}} />)
    const dialog = await screen.findByRole('dialog')
    const input = within(dialog).getByLabelText('IoT device')
    fireEvent.mouseDown(input)
    await waitFor(() => expect(fetchMock.mock.calls.some(([url]) => String(url) === '/api/iot/device/options')).toBe(true))
    fireEvent.change(input, { target: { value: 'VLZ' } })
    fireEvent.click(await screen.findByTitle('VLZ000005', {}, { timeout: 2000 }))
    await waitFor(() => expect(within(dialog).getByTitle('VLZ000005')).toBeTruthy())
  })

  it('names the chosen row of such a picker though the first rows do not include it', async () => {
    const many = Array.from({ length: PICKER_LIMIT }, (_, i) => ({ value: i + 1, label: `VLA${String(i).padStart(6, '0')}` }))
    fetchMock.mockImplementation(async (url) => {
      const path = String(url)
      if (path.includes('getDicts')) return jsonResponse([])
      if (path === '/api/bike/bike/7') return jsonResponse({ bikeId: 7, frameNumber: 'VL0007', category: 'city', modelId: 1, colourId: 11, sizeId: 12, iotDeviceId: 5000 })
      if (path === '/api/iot/device/options') return jsonResponse(many)
      if (path === '/api/iot/device/options?id=5000') return jsonResponse([{ value: 5000, label: 'VLZ000005' }])
      return jsonResponse([])
    })
    renderWithProviders(<EntityForm entity={bikeEntities.bike} id={7} onClose={() => {}} />)
    expect(await screen.findByTitle('VLZ000005', {}, { timeout: 3000 })).toBeTruthy()
  })

  describe("a row whose state locks fields (the definition's states)", () => {
    const numbered = {
      orderId: 7, orderNo: 'PO-7', orderType: 'regular', modelId: 1, modelIdLabel: 'Metro', quantity: 100, numbersGenerated: 2, overrun: false, salesRegion: 'EU West',
      deliveryDate: '2026-12-15', purchasingEntity: 'Velo', tpNumber: 'TP-1', frameSupplier: 'Frames Ltd', brandCode: 'VL', manufacturerCode: 'A', modelYear: 2026,
      specCode: 'MET', repairCode: '', serialStart: null, serialEnd: null, serialDigits: 6, checkCharacter: true, remark: '', createTime: '2026-11-24T08:00:00.000Z',
    }

    it('shows what a bike order with numbers can no longer change locked, says why, and sends only the rest', async () => {
      fetchMock.mockImplementation(async (url, init) => {
        const path = String(url)
        if (path === '/api/order/deviceOrder/7') return jsonResponse(numbered)
        if (init?.method === 'PUT') return jsonResponse({ ...numbered, salesRegion: 'EU North' })
        if (path.startsWith('/api/bike/modelSpec/options')) return jsonResponse([{ value: 1, label: 'Metro' }])
        return jsonResponse([])
      })
      const onClose = vi.fn()
      renderWithProviders(<EntityForm entity={orderEntities.deviceOrder} id={7} onClose={onClose} />)
      expect((await screen.findByTestId('form-state-notice')).textContent).toBe('Some fields of bike order "PO-7" can no longer change: it has frame numbers')
      expect((screen.getByLabelText('Brand code') as HTMLInputElement).disabled).toBe(true)
      expect((screen.getByLabelText('Serial digits') as HTMLInputElement).disabled).toBe(true)
      const region = screen.getByLabelText('Sales region/area') as HTMLInputElement
      expect(region.disabled).toBe(false)
      fireEvent.change(region, { target: { value: 'EU North' } })
      fireEvent.click(screen.getByTestId('entity-form-save'))
      await waitFor(() => expect(onClose).toHaveBeenCalled())
      const put = fetchMock.mock.calls.find(([, init]) => init?.method === 'PUT')!
      expect(JSON.parse(String(put[1]!.body))).toEqual({ orderId: 7, salesRegion: 'EU North' })
    })

    it('opens a finished order (finished since its list was read) locked, says why, and cannot save it', async () => {
      const finished = { repairOrderId: 4, orderNo: 'RS-4', status: 'finished', serviceType: 'repair', contactEmail: 'rider@example.com', bikeId: 3, bikeIdLabel: 'VL0003', firstName: 'Ada', lastName: 'Lovelace', issueDescription: 'Noise' }
      fetchMock.mockImplementation(async (url) => (String(url) === '/api/service/repairOrder/4' ? jsonResponse(finished) : jsonResponse([])))
      renderWithProviders(<EntityForm entity={serviceEntities.repairOrder} id={4} onClose={() => {}} />)
      expect((await screen.findByTestId('form-state-notice')).textContent).toBe('Cannot modify service order "RS-4": it is Finished')
      expect((screen.getByLabelText('Contact email') as HTMLInputElement).disabled).toBe(true)
      expect((screen.getByTestId('entity-form-save') as HTMLButtonElement).disabled).toBe(true)
      expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'PUT')).toBe(false)
    })
  })

  describe('personal fields the user may not see (shared/src/privacy.ts)', () => {
    const rider = piiRider
    // As the server answers a user without member:pii:contact and member:pii:body; the height is not set.
    const masked = { riderId: 1, nickname: 'Jan', email: 'j•••@example.com', birthday: null, height: null, masked: ['email', 'birthday'] }
    const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions })
    afterEach(() => sessionStore.setState({ user: null, roles: [], permissions: [] }))
    const input = (name: string) => screen.getByLabelText(name) as HTMLInputElement

    it('shows them disabled with their masks on modify and never sends them', async () => {
      signIn(['pii:rider:edit'])
      fetchMock.mockImplementation(async (url, init) => {
        if (String(url) === '/api/pii/rider/1') return jsonResponse(masked)
        if (init?.method === 'PUT') return jsonResponse({ ...masked, nickname: 'Jay' })
        return jsonResponse(null, 404)
      })
      const onSaved = vi.fn()
      renderWithProviders(<EntityForm entity={rider} id={1} onClose={() => {}} onSaved={onSaved} />)
      const nickname = await screen.findByLabelText('Nickname')
      expect(input('Email').disabled).toBe(true)
      expect(input('Email').value).toBe('j•••@example.com')
      // A value the server answered as null is there, hidden: its mask, not an empty box.
      expect(input('Birthday').disabled).toBe(true)
      expect(input('Birthday').value).toBe('•••')
      // A value not set is no secret: empty, and locked all the same.
      expect(input('Height').disabled).toBe(true)
      expect(input('Height').value).toBe('')
      expect(screen.getByText('Personal data (contact details): you have no right to see or change it')).toBeTruthy()

      // Whatever reaches the masked input goes nowhere.
      fireEvent.change(input('Email'), { target: { value: 'x@example.com' } })
      fireEvent.change(nickname, { target: { value: 'Jay' } })
      fireEvent.click(screen.getByTestId('entity-form-save'))
      await waitFor(() => expect(onSaved).toHaveBeenCalled())
      const put = fetchMock.mock.calls.find(([, init]) => init?.method === 'PUT')!
      expect(JSON.parse(String(put[1]!.body))).toEqual({ riderId: 1, nickname: 'Jay' })
    })

    it('leaves the fields of a category the user may see, and the add form, as they were', async () => {
      signIn(['pii:rider:edit', 'pii:rider:add', 'member:pii:contact'])
      fetchMock.mockImplementation(async (url) => (String(url) === '/api/pii/rider/1' ? jsonResponse({ ...masked, email: 'jan@example.com', masked: ['birthday'] }) : jsonResponse(null, 404)))
      const { unmount } = renderWithProviders(<EntityForm entity={rider} id={1} onClose={() => {}} />)
      await screen.findByLabelText('Nickname')
      expect(input('Email').disabled).toBe(false)
      expect(input('Email').value).toBe('jan@example.com')
      expect(input('Birthday').disabled).toBe(true)
      unmount()

      // The user types what they add: every field is theirs.
      renderWithProviders(<EntityForm entity={rider} onClose={() => {}} />)
      await screen.findByLabelText('Nickname')
      expect(input('Email').disabled).toBe(false)
      await waitFor(() => expect(input('Birthday').disabled).toBe(false))
      expect(screen.queryAllByTestId('masked-input')).toHaveLength(0)
    })
  })
})
