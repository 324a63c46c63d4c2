import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import type { AccountFeatures } from '@velo/shared'
import { LANGUAGE_KEY } from '../../lib/config'
import { sessionStore } from '../../session/sessionStore'
import { removeToken } from '../../session/token'
import { jsonResponse } from '../../test/render'
import { AuthApp } from '../../app/AuthApp'
import { forgetFeatures } from '../../layout/auth/useFeatures'

// The sign-in page's single sign-on: the provider's button, the password form folded away when
// password sign-in is off, and the way back from the provider (?sso=<code>, ?ssoError=<reason>).

vi.mock('../../app/loadConsole', () => ({ loadConsole: vi.fn(), preloadConsole: vi.fn(), startSession: vi.fn() }))

const fetchMock = vi.fn<typeof fetch>()
const calls = (path: string) => fetchMock.mock.calls.filter(([url]) => String(url) === `/api${path}`)
let features: AccountFeatures = { captchaEnabled: false, registerEnabled: false, forgetPasswordEnabled: true, sso: { name: 'Velo ID', passwordSignIn: true } }
let loginSso = () => jsonResponse({ token: 'the-sso-token' })

function openAt(path: string) {
  window.history.replaceState(null, '', path)
  const onLeave = vi.fn()
  render(<AuthApp onLeave={onLeave} />)
  return onLeave
}
const toastText = () => document.querySelector('[data-testid=auth-toast-error]')?.textContent

beforeEach(() => {
  vi.stubGlobal('fetch', fetchMock)
  fetchMock.mockImplementation(async (url) => {
    const path = String(url).replace(/^\/api/, '')
    if (path === '/common/features') return jsonResponse(features)
    if (path === '/common/captcha') return jsonResponse({ captchaEnabled: false })
    if (path === '/login/sso') return loginSso()
    if (path === '/login') return jsonResponse({ token: 'the-token' })
    return jsonResponse(null, 404)
  })
})

afterEach(() => {
  vi.unstubAllGlobals()
  fetchMock.mockReset()
  localStorage.clear()
  removeToken()
  sessionStore.setState({ token: undefined })
  document.getElementById('auth-toasts')?.remove()
  features = { captchaEnabled: false, registerEnabled: false, forgetPasswordEnabled: true, sso: { name: 'Velo ID', passwordSignIn: true } }
  loginSso = () => jsonResponse({ token: 'the-sso-token' })
  forgetFeatures()
})

describe('single sign-on on the sign-in page', () => {
  it('offers the provider by name beside the password form, and keeps the page to open afterwards', async () => {
    openAt('/login?redirect=%2Fsystem%2Fuser')
    const button = (await screen.findByTestId('login-sso')) as HTMLAnchorElement
    expect(button.textContent).toBe('Sign in with Velo ID')
    expect(button.getAttribute('href')).toBe('/api/auth/oidc/start?redirect=%2Fsystem%2Fuser')
    expect(screen.getByTestId('login-form')).toBeTruthy()
    expect(screen.getByText('or')).toBeTruthy()
  })

  it('says "single sign-on" in the page’s language when the provider has no name, and never links elsewhere', async () => {
    features = { ...features, sso: { passwordSignIn: true } }
    localStorage.setItem(LANGUAGE_KEY, 'zh_CN')
    openAt('/login?redirect=https%3A%2F%2Fevil.example%2F')
    const button = (await screen.findByTestId('login-sso')) as HTMLAnchorElement
    expect(button.textContent).toBe('单点登录')
    expect(button.getAttribute('href')).toBe('/api/auth/oidc/start')
  })

  it('shows nothing of it when the server has none', async () => {
    features = { captchaEnabled: false, registerEnabled: false, forgetPasswordEnabled: true }
    openAt('/login')
    expect(await screen.findByText('Forgot password?')).toBeTruthy()
    expect(screen.queryByTestId('login-sso')).toBeNull()
  })

  it('folds the password form behind "Administrator sign-in" when password sign-in is off', async () => {
    features = { ...features, sso: { name: 'Velo ID', passwordSignIn: false } }
    openAt('/login')
    expect(await screen.findByTestId('login-sso-only')).toBeTruthy()
    expect(screen.queryByTestId('login-form')).toBeNull()
    expect(screen.queryByPlaceholderText('Password')).toBeNull()
    fireEvent.click(screen.getByTestId('login-admin'))
    expect(await screen.findByTestId('login-form')).toBeTruthy()
    expect(screen.getByPlaceholderText('Password')).toBeTruthy()
    // The provider stays the first choice above it.
    expect(screen.getByTestId('login-sso').textContent).toBe('Sign in with Velo ID')
  })

  it('trades the one-time code of ?sso= once and goes into the console, as a password sign-in does', async () => {
    const onLeave = openAt('/login?sso=one-time-code-0123456789&redirect=%2Fsystem%2Fdict')
    await waitFor(() => expect(onLeave).toHaveBeenCalledWith('/system/dict', { replace: true }))
    expect(calls('/login/sso')).toHaveLength(1)
    expect(JSON.parse(String(calls('/login/sso')[0]![1]!.body))).toEqual({ code: 'one-time-code-0123456789', withSession: true })
    // With this browser's cookie (it started the sign-in); no other call sends cookies.
    expect(calls('/login/sso')[0]![1]!.credentials).toBe('same-origin')
    expect(calls('/common/features')[0]![1]!.credentials).toBe('omit')
    expect(sessionStore.getState().token).toBe('the-sso-token')
    // The spent code is gone from the address, where to go next is kept.
    expect(window.location.search).toBe('?redirect=%2Fsystem%2Fdict')
  })

  it('asks for the second factor after single sign-on when the server does', async () => {
    loginSso = () => jsonResponse({ secondFactor: { ticket: 't'.repeat(32), methods: ['totp', 'recovery'] } })
    const onLeave = openAt('/login?sso=one-time-code-0123456789')
    expect(await screen.findByTestId('second-factor-form')).toBeTruthy()
    expect(onLeave).not.toHaveBeenCalled()
    expect(sessionStore.getState().token).toBeUndefined()
  })

  it('shows why a single sign-on stopped, in the page’s language, and the server’s refusal of a spent code', async () => {
    localStorage.setItem(LANGUAGE_KEY, 'zh_CN')
    openAt('/login?ssoError=emailUnverified')
    await waitFor(() => expect(toastText()).toBe('身份提供方尚未验证您账号的邮箱地址'))
    expect(window.location.search).toBe('')
    expect(calls('/login/sso')).toHaveLength(0)
  })

  it('shows the server’s message when the code is refused', async () => {
    loginSso = () => new Response(JSON.stringify({ code: 400, msg: 'This single sign-on ran out of time or was used already: sign in again', data: null }), { headers: { 'Content-Type': 'application/json' } })
    const onLeave = openAt('/login?sso=spent-code-0123456789abc')
    await waitFor(() => expect(toastText()).toBe('This single sign-on ran out of time or was used already: sign in again'))
    expect(onLeave).not.toHaveBeenCalled()
    expect((await screen.findByTestId('login-sso')).getAttribute('aria-busy')).toBe('false')
  })
})
