import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import type { SessionUser } from '@velo/shared'
import { jsonResponse, renderWithProviders } from '../../../test/render'
import { BasicInfoForm } from './BasicInfoForm'
import { PasswordForm } from './PasswordForm'

const fetchMock = vi.fn<typeof fetch>()
const failure = (msg: string) =>
  new Response(JSON.stringify({ code: 400, msg, data: null }), { status: 400, headers: { 'Content-Type': 'application/json' } })

const user: SessionUser = {
  userId: 7,
  username: 'rider1',
  nickName: 'Rider',
  avatar: '',
  email: 'rider1@example.com',
  phone: '',
  sex: '2',
  deptId: null,
  deptName: null,
  createTime: '2026-01-01T00:00:00Z',
  loginIp: null,
  loginDate: null,
}

// antd's first render in jsdom takes seconds on a busy machine.
describe('profile forms', { timeout: 20_000 }, () => {
  beforeEach(() => vi.stubGlobal('fetch', fetchMock))
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
  })

  async function changePasswordAnswered(msg: string) {
    fetchMock.mockImplementation(async () => failure(msg))
    renderWithProviders(<PasswordForm />)
    const form = screen.getByTestId('password-form')
    fireEvent.change(within(form).getByLabelText('Old password'), { target: { value: 'wrong-old' } })
    fireEvent.change(within(form).getByLabelText('New password'), { target: { value: 'brand-new-1' } })
    fireEvent.change(within(form).getByLabelText('Confirm password'), { target: { value: 'brand-new-1' } })
    fireEvent.click(within(form).getByRole('button', { name: /save/i }))
    await waitFor(() => expect(document.querySelector('.ant-message-error')).toBeTruthy())
    return document.querySelector('.ant-message-error')!.textContent
  }

  it('names the failed action once before the server reason', async () => {
    expect(await changePasswordAnswered('The old password is wrong')).toBe('Change password failed: The old password is wrong')
  })

  it('never doubles the action when the reason already names it', async () => {
    expect(await changePasswordAnswered('Change password failed: the old password is wrong')).toBe('Change password failed: the old password is wrong')
  })

  it('saves the details of an account that has no phone yet', async () => {
    fetchMock.mockImplementation(async () => jsonResponse(null))
    renderWithProviders(<BasicInfoForm user={user} />)
    const form = screen.getByTestId('profile-form')
    fireEvent.change(within(form).getByLabelText('Nickname'), { target: { value: 'Rider One' } })
    fireEvent.click(within(form).getByRole('button', { name: /save/i }))
    await waitFor(() => expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'PUT')).toBe(true))
    const put = fetchMock.mock.calls.find(([, init]) => init?.method === 'PUT')!
    expect(JSON.parse(String(put[1]!.body))).toMatchObject({ nickName: 'Rider One', phone: '', email: 'rider1@example.com' })
  })

  it('still checks a phone that is entered, and refuses clearing a stored one', async () => {
    renderWithProviders(<BasicInfoForm user={{ ...user, phone: '+31 6 1234 5678' }} />)
    const form = screen.getByTestId('profile-form')
    const phone = within(form).getByLabelText('Phone')
    fireEvent.change(phone, { target: { value: '' } })
    fireEvent.click(within(form).getByRole('button', { name: /save/i }))
    expect(await within(form).findByText('Please enter the phone number')).toBeTruthy()
    fireEvent.change(phone, { target: { value: 'call me' } })
    expect(await within(form).findByText('Please enter a valid phone number')).toBeTruthy()
    expect(fetchMock).not.toHaveBeenCalled()
  })
})
