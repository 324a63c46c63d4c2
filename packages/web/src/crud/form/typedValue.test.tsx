import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { systemEntities } from '@velo/shared'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { EntityForm } from './EntityForm'

// Issue 12, item 4: the configuration form offers the input of the key's type.
const fetchMock = vi.fn<typeof fetch>()
const yesNo = [
  { dictValue: 'Y', dictLabel: 'Yes', dictLabelZh: '是', listClass: '', isDefault: 'N' },
  { dictValue: 'N', dictLabel: 'No', dictLabelZh: '否', listClass: '', isDefault: 'Y' },
]
const row = (configKey: string, configValue: string) => ({ configId: 3, configName: 'A setting', configKey, configValue, configType: 'Y', remark: '' })

function serve(current: object) {
  fetchMock.mockImplementation(async (url, init) => {
    const path = String(url)
    if (path.includes('getDicts')) return jsonResponse(yesNo)
    if (path === '/api/system/config/3') return jsonResponse(current)
    if (init?.method === 'PUT' || init?.method === 'POST') return jsonResponse({ ...current, ...JSON.parse(String(init.body)) })
    return jsonResponse(null, 404)
  })
}

const sent = () => JSON.parse(String(fetchMock.mock.calls.find(([, init]) => init?.method === 'PUT' || init?.method === 'POST')![1]!.body))
const valueControl = async () => {
  await screen.findByLabelText('Key')
  return screen.getByLabelText('Value')
}

// antd's first render in jsdom takes seconds on a busy machine.
describe('the configuration form', { timeout: 20_000 }, () => {
  beforeEach(() => vi.stubGlobal('fetch', fetchMock))
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
  })

  it('offers a switch for a boolean key and sends true or false as text', async () => {
    serve(row('sys.account.captchaEnabled', 'true'))
    renderWithProviders(<EntityForm entity={systemEntities.config} id={3} onClose={() => {}} />)
    const control = await valueControl()
    expect(control.getAttribute('role')).toBe('switch')
    expect(control.getAttribute('aria-checked')).toBe('true')
    fireEvent.click(control)
    fireEvent.click(screen.getByTestId('entity-form-save'))
    await waitFor(() => expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'PUT')).toBe(true))
    expect(sent()).toEqual({ configId: 3, configValue: 'false' })
  })

  it('offers a number input with the limits of an integer key', async () => {
    serve(row('sys.account.lockTime', '10'))
    renderWithProviders(<EntityForm entity={systemEntities.config} id={3} onClose={() => {}} />)
    const control = await valueControl()
    expect(control.getAttribute('role')).toBe('spinbutton')
    expect(control.getAttribute('aria-valuemin')).toBe('1')
    expect(control.getAttribute('aria-valuemax')).toBe('1440')
    expect((control as HTMLInputElement).value).toBe('10')
    expect(screen.getByText('minutes')).toBeTruthy()
  })

  it('offers a select of the choices of an enum key', async () => {
    serve(row('sys.account.captchaType', 'math'))
    renderWithProviders(<EntityForm entity={systemEntities.config} id={3} onClose={() => {}} />)
    const control = await valueControl()
    expect(control.getAttribute('role')).toBe('combobox')
    expect(screen.getByTestId('typed-value-enum').textContent).toContain('Arithmetic (math)')
  })

  it('keeps a text box for a key of the admins own', async () => {
    serve({ ...row('service.hotline', '+49 30 1234567'), configType: 'N' })
    renderWithProviders(<EntityForm entity={systemEntities.config} id={3} onClose={() => {}} />)
    const control = await valueControl()
    expect(control.tagName).toBe('INPUT')
    expect(control.getAttribute('role')).toBeNull()
    expect((control as HTMLInputElement).value).toBe('+49 30 1234567')
  })

  it('follows the key as it is typed on add, and says what a bad value must be before sending', async () => {
    serve({})
    renderWithProviders(<EntityForm entity={systemEntities.config} onClose={() => {}} />)
    const dialog = await screen.findByRole('dialog')
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'Initial password' } })
    fireEvent.change(within(dialog).getByLabelText('Value'), { target: { value: 'a b' } })
    fireEvent.change(within(dialog).getByLabelText('Key'), { target: { value: 'sys.account.registerUser' } })
    await waitFor(() => expect(within(dialog).getByLabelText('Value').getAttribute('role')).toBe('switch'))
    fireEvent.change(within(dialog).getByLabelText('Key'), { target: { value: 'sys.user.initPassword' } })
    await waitFor(() => expect(within(dialog).getByLabelText('Value').getAttribute('role')).toBeNull())
    fireEvent.click(screen.getByTestId('entity-form-save'))
    expect(await within(dialog).findByText('Value of sys.user.initPassword must be 6 to 20 letters, digits and special characters')).toBeTruthy()
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'POST')).toBe(false)
  })
})
