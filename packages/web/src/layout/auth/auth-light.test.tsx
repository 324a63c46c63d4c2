import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { LANGUAGE_KEY, REMEMBERED_USERNAME_KEY } from '../../lib/config'
import { sessionStore } from '../../session/sessionStore'
import { removeToken } from '../../session/token'
import { jsonResponse } from '../../test/render'
import { startSession } from '../../app/loadConsole'
import { AuthApp } from '../../app/AuthApp'
import { pattern, required, sameAs, firstError } from './authForm'
import { t } from './authI18n'
import { forgetFeatures } from './useFeatures'

// The light sign-in kit: the public pages without antd, router or i18next (main.tsx).

vi.mock('../../app/loadConsole', () => ({ loadConsole: vi.fn(), preloadConsole: vi.fn(), startSession: vi.fn() }))

const fetchMock = vi.fn<typeof fetch>()
const calls = (path: string) => fetchMock.mock.calls.filter(([url]) => String(url) === `/api${path}`)
let features = { captchaEnabled: false, registerEnabled: false, forgetPasswordEnabled: true }
let captcha: Record<string, unknown> = { captchaEnabled: false }
let login = () => jsonResponse({ token: 'the-token' })
let secondFactor = () => jsonResponse({ token: 'the-token' })

function openAt(path: string) {
  window.history.replaceState(null, '', path)
  const onLeave = vi.fn()
  render(<AuthApp onLeave={onLeave} />)
  return onLeave
}

beforeEach(() => {
  vi.stubGlobal('fetch', fetchMock)
  fetchMock.mockImplementation(async (url) => {
    const path = String(url).replace(/^\/api/, '')
    if (path === '/common/features') return jsonResponse(features)
    if (path === '/common/captcha') return jsonResponse(captcha)
    if (path === '/login') return login()
    if (path === '/login/second-factor') return secondFactor()
    if (path === '/login/enrol/start') return jsonResponse({ secret: 'JBSWY3DPEHPK3PXPJBSWY3DP', uri: 'otpauth://totp/x', qrSvg: '<svg xmlns="http://www.w3.org/2000/svg"></svg>' })
    if (path === '/login/enrol/confirm') return jsonResponse({ token: 'the-token', recoveryCodes: ['abcde-fghjk', 'mnpqr-stuvw'] })
    if (path === '/register') return jsonResponse(null)
    return jsonResponse(null, 404)
  })
})

afterEach(async () => {
  vi.unstubAllGlobals()
  fetchMock.mockReset()
  localStorage.clear()
  removeToken()
  sessionStore.setState({ token: undefined })
  document.getElementById('auth-toasts')?.remove()
  features = { captchaEnabled: false, registerEnabled: false, forgetPasswordEnabled: true }
  captcha = { captchaEnabled: false }
  login = () => jsonResponse({ token: 'the-token' })
  secondFactor = () => jsonResponse({ token: 'the-token' })
  // The switches are kept for a minute across pages; each test starts from the server.
  forgetFeatures()
})

describe('rules and texts', () => {
  it('checks as the antd rules did', () => {
    const values = { password: 'secret1', confirm: 'secret2' }
    expect(firstError([required('empty', { whitespace: true })], '  ', values)).toBe('empty')
    expect(firstError([required('empty')], '  ', values)).toBeNull()
    expect(firstError([pattern(/^\d+$/, 'digits')], '', values)).toBeNull()
    expect(firstError([pattern(/^\d+$/, 'digits')], '12a', values)).toBe('digits')
    expect(firstError([sameAs('password', 'mismatch')], values.confirm, values)).toBe('mismatch')
    expect(firstError([sameAs('password', 'mismatch')], 'secret1', values)).toBeNull()
  })

  it('speaks the stored language, with placeholders and no space in two-character buttons', () => {
    expect(t('register.success', { username: 'ann' })).toBe('Account ann registered. Please sign in.')
    localStorage.setItem(LANGUAGE_KEY, 'zh_CN')
    expect(t('login.submit')).toBe('登录')
    expect(t('register.submit')).toBe('注册')
    expect(t('request.http', { code: 502 })).toBe('请求失败，状态码 502')
  })
})

describe('the sign-in page', () => {
  it('shows the form at once and the validation messages on submit, in Chinese too', async () => {
    localStorage.setItem(LANGUAGE_KEY, 'zh_CN')
    openAt('/login')
    expect(screen.getByPlaceholderText('密码')).toBeTruthy()
    expect(document.title).toBe('登录 - Velo Admin')
    fireEvent.click(screen.getByTestId('login-submit'))
    expect(await screen.findByText('请输入您的账号')).toBeTruthy()
    expect(screen.getByText('请输入您的密码')).toBeTruthy()
    expect(screen.getByTestId('login-submit').textContent).toBe('登录')
    expect(calls('/login')).toHaveLength(0)
    // The forget-password link follows the server's switch; registration is off.
    expect(await screen.findByText('忘记密码？')).toBeTruthy()
    expect(screen.queryByText('立即注册')).toBeNull()
  })

  it('signs in with the trimmed username, remembers it, and leaves for the redirect target', async () => {
    const onLeave = openAt('/login?redirect=%2Fsystem%2Fdict%3Fstatus%3D0')
    fireEvent.change(screen.getByPlaceholderText('Username'), { target: { value: '  admin ' } })
    fireEvent.change(screen.getByPlaceholderText('Password'), { target: { value: 'admin123' } })
    fireEvent.click(screen.getByText('Remember me'))
    fireEvent.click(screen.getByTestId('login-submit'))
    await waitFor(() => expect(onLeave).toHaveBeenCalledWith('/system/dict?status=0', { replace: true }))
    // The sign-in asks for its session with the token (one round trip less before the first page).
    expect(JSON.parse(String(calls('/login')[0]![1]!.body))).toEqual({ username: 'admin', password: 'admin123', code: '', uuid: '', withSession: true })
    expect(sessionStore.getState().token).toBe('the-token')
    expect(localStorage.getItem(REMEMBERED_USERNAME_KEY)).toBe('admin')
    // The session (user info, routes) starts loading with the token, not once the console has drawn its guard.
    expect(startSession).toHaveBeenCalledTimes(1)
    expect(startSession).toHaveBeenCalledWith(undefined)
  })

  it('hands the console the user and routes the sign-in answered with, and the page it opens', async () => {
    const userInfo = { user: { userId: 1, username: 'admin' }, roles: ['admin'], permissions: ['*:*:*'] }
    const routes = [{ path: '/system', component: 'Layout', meta: { title: 'menu.system' }, children: [] }]
    login = () => jsonResponse({ token: 'the-token', userInfo, routes })
    const onLeave = openAt('/login?redirect=%2Fsystem%2Fuser')
    fireEvent.change(screen.getByPlaceholderText('Username'), { target: { value: 'admin' } })
    fireEvent.change(screen.getByPlaceholderText('Password'), { target: { value: 'admin123' } })
    fireEvent.click(screen.getByTestId('login-submit'))
    await waitFor(() => expect(onLeave).toHaveBeenCalledWith('/system/user', { replace: true }))
    expect(startSession).toHaveBeenCalledWith({ userInfo, routes, opens: '/system/user' })
  })

  it('asks for the code of the authenticator app after the password, and signs in with it', async () => {
    login = () => jsonResponse({ secondFactor: { ticket: 't'.repeat(32), methods: ['totp', 'recovery'] } })
    secondFactor = () => new Response(JSON.stringify({ code: 400, msg: 'The code is wrong, or it has been used already', data: null }), { headers: { 'Content-Type': 'application/json' } })
    const onLeave = openAt('/login')
    fireEvent.change(screen.getByPlaceholderText('Username'), { target: { value: 'admin' } })
    fireEvent.change(screen.getByPlaceholderText('Password'), { target: { value: 'admin123' } })
    fireEvent.click(screen.getByTestId('login-submit'))
    expect(await screen.findByTestId('second-factor-form')).toBeTruthy()
    expect(screen.getByText('Two-factor sign-in')).toBeTruthy()
    expect(sessionStore.getState().token).toBeUndefined()
    fireEvent.change(screen.getByTestId('second-factor-code'), { target: { value: '123456' } })
    fireEvent.click(screen.getByTestId('second-factor-submit'))
    await waitFor(() => expect(document.querySelector('[data-testid=auth-toast-error]')?.textContent).toBe('The code is wrong, or it has been used already'))
    expect(onLeave).not.toHaveBeenCalled()
    secondFactor = () => jsonResponse({ token: 'the-token' })
    fireEvent.change(screen.getByTestId('second-factor-code'), { target: { value: ' 654321 ' } })
    fireEvent.click(screen.getByTestId('second-factor-submit'))
    await waitFor(() => expect(onLeave).toHaveBeenCalledWith('/', { replace: true }))
    expect(JSON.parse(String(calls('/login/second-factor').at(-1)![1]!.body))).toEqual({ ticket: 't'.repeat(32), code: '654321', withSession: true })
    expect(sessionStore.getState().token).toBe('the-token')
  })

  it('leads a user whose role requires a factor through its setup, and shows the recovery codes before going on', async () => {
    login = () => jsonResponse({ enrol: { ticket: 'e'.repeat(32) } })
    const onLeave = openAt('/login')
    fireEvent.change(screen.getByPlaceholderText('Username'), { target: { value: 'clerk1' } })
    fireEvent.change(screen.getByPlaceholderText('Password'), { target: { value: 'secret12' } })
    fireEvent.click(screen.getByTestId('login-submit'))
    expect(await screen.findByTestId('enrol-qr')).toBeTruthy()
    expect(screen.getByTestId('enrol-secret').textContent).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP')
    fireEvent.change(screen.getByTestId('enrol-code'), { target: { value: '123456' } })
    fireEvent.click(screen.getByTestId('enrol-submit'))
    expect(await screen.findByTestId('recovery-codes')).toBeTruthy()
    expect(screen.getByText('abcde-fghjk')).toBeTruthy()
    expect(onLeave).not.toHaveBeenCalled()
    fireEvent.click(screen.getByTestId('recovery-codes-continue'))
    await waitFor(() => expect(onLeave).toHaveBeenCalledWith('/', { replace: true }))
    expect(calls('/login/enrol/start')).toHaveLength(1)
  })

  it('shows the server message, and a new captcha, when the sign-in is refused', async () => {
    captcha = { captchaEnabled: true, uuid: 'u1', img: 'data:image/svg+xml;base64,AA==' }
    login = () =>
      new Response(JSON.stringify({ code: 500, msg: 'The verification code is wrong', data: null }), { headers: { 'Content-Type': 'application/json' } })
    const onLeave = openAt('/login')
    expect(await screen.findByTestId('captcha-img')).toBeTruthy()
    fireEvent.change(screen.getByPlaceholderText('Username'), { target: { value: 'admin' } })
    fireEvent.change(screen.getByPlaceholderText('Password'), { target: { value: 'admin123' } })
    fireEvent.click(screen.getByTestId('login-submit'))
    expect(await screen.findByText('Please enter the verification code')).toBeTruthy()
    fireEvent.change(screen.getByPlaceholderText('Verification code'), { target: { value: '999' } })
    fireEvent.click(screen.getByTestId('login-submit'))
    await waitFor(() => expect(document.querySelector('[data-testid=auth-toast-error]')?.textContent).toBe('The verification code is wrong'))
    expect(calls('/common/captcha')).toHaveLength(2)
    await waitFor(() => expect((screen.getByPlaceholderText('Verification code') as HTMLInputElement).value).toBe(''))
    expect(onLeave).not.toHaveBeenCalled()
  })
})

describe('the other public pages', () => {
  it('register is closed unless the server opens it', async () => {
    openAt('/register')
    expect(await screen.findByTestId('login-form')).toBeTruthy()
    expect(window.location.pathname).toBe('/login')
  })

  it('register checks the fields, then sends the new user back to sign in with a message', async () => {
    features = { ...features, registerEnabled: true }
    openAt('/register')
    fireEvent.change(await screen.findByPlaceholderText('Username'), { target: { value: 'ab' } })
    expect(await screen.findByText('Username: 4 to 20 letters or digits')).toBeTruthy()
    fireEvent.change(screen.getByPlaceholderText('Username'), { target: { value: 'anna1' } })
    fireEvent.change(screen.getByPlaceholderText('Password'), { target: { value: 'secret123' } })
    fireEvent.change(screen.getByPlaceholderText('Confirm password'), { target: { value: 'secret12' } })
    expect(await screen.findByText('The two passwords do not match')).toBeTruthy()
    // Changing the password checks the confirmation again.
    fireEvent.change(screen.getByPlaceholderText('Password'), { target: { value: 'secret12' } })
    await waitFor(() => expect(screen.queryByText('The two passwords do not match')).toBeNull())
    fireEvent.click(screen.getByRole('button', { name: 'Register' }))
    expect(await screen.findByTestId('login-form')).toBeTruthy()
    expect(window.location.pathname).toBe('/login')
    expect(document.querySelector('[data-testid=auth-toast-success]')?.textContent).toBe('Account anna1 registered. Please sign in.')
  })
})
