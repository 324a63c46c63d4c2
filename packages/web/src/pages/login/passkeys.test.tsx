import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen, waitFor } from '@testing-library/react'
import { sessionStore } from '../../session/sessionStore'
import { removeToken } from '../../session/token'
import { jsonResponse } from '../../test/render'
import { AuthApp } from '../../app/AuthApp'
import { forgetFeatures } from '../../layout/auth/useFeatures'

// The sign-in page's passkeys: offered only where the browser has WebAuthn, and each ceremony is the
// server's options, the browser's answer (here @simplewebauthn/browser stands in for the prompt), the
// server's check.

vi.mock('../../app/loadConsole', () => ({ loadConsole: vi.fn(), preloadConsole: vi.fn(), startSession: vi.fn() }))
const browser = vi.hoisted(() => ({ startAuthentication: vi.fn(), startRegistration: vi.fn() }))
vi.mock('@simplewebauthn/browser', () => browser)

const fetchMock = vi.fn<typeof fetch>()
const bodyOf = (path: string) => JSON.parse(String(fetchMock.mock.calls.filter(([url]) => String(url) === `/api${path}`).at(-1)![1]!.body)) as Record<string, unknown>
const assertion = { id: 'cred', rawId: 'cred', type: 'public-key', response: {}, clientExtensionResults: {} }

function openLogin() {
  window.history.replaceState(null, '', '/login')
  const onLeave = vi.fn()
  render(<AuthApp onLeave={onLeave} />)
  return onLeave
}

function withWebAuthn() {
  vi.stubGlobal('PublicKeyCredential', function PublicKeyCredential() {})
  vi.stubGlobal('isSecureContext', true)
}

beforeEach(() => {
  vi.stubGlobal('fetch', fetchMock)
  fetchMock.mockImplementation(async (url) => {
    const path = String(url).replace(/^\/api/, '')
    if (path === '/common/features') return jsonResponse({ captchaEnabled: false, registerEnabled: false, forgetPasswordEnabled: false })
    if (path === '/common/captcha') return jsonResponse({ captchaEnabled: false })
    if (path === '/login') return jsonResponse({ secondFactor: { ticket: 't'.repeat(32), methods: ['passkey', 'recovery'] } })
    if (path === '/login/passkey/options') return jsonResponse({ challengeId: 'c'.repeat(32), options: { challenge: 'abc', rpId: 'localhost' } })
    if (path === '/login/passkey') return jsonResponse({ token: 'the-token' })
    if (path === '/login/second-factor/passkey') return jsonResponse({ challenge: 'def', rpId: 'localhost', allowCredentials: [{ id: 'cred', type: 'public-key' }] })
    if (path === '/login/second-factor') return jsonResponse({ token: 'the-token' })
    return jsonResponse(null, 404)
  })
  browser.startAuthentication.mockResolvedValue(assertion)
})

afterEach(() => {
  vi.unstubAllGlobals()
  fetchMock.mockReset()
  browser.startAuthentication.mockReset()
  localStorage.clear()
  removeToken()
  sessionStore.setState({ token: undefined })
  document.getElementById('auth-toasts')?.remove()
  forgetFeatures()
})

describe('passkeys on the sign-in page', () => {
  it('are not offered where the browser has no WebAuthn', async () => {
    openLogin()
    expect(await screen.findByTestId('login-form')).toBeTruthy()
    expect(screen.queryByTestId('login-passkey')).toBeNull()
  })

  it('sign in on their own: the options, the browser’s answer to them, the session', async () => {
    withWebAuthn()
    const onLeave = openLogin()
    fireEvent.click(await screen.findByTestId('login-passkey'))
    await waitFor(() => expect(onLeave).toHaveBeenCalledWith('/', { replace: true }))
    expect(browser.startAuthentication).toHaveBeenCalledWith({ optionsJSON: { challenge: 'abc', rpId: 'localhost' } })
    expect(bodyOf('/login/passkey')).toEqual({ challengeId: 'c'.repeat(32), passkey: assertion, withSession: true })
    expect(sessionStore.getState().token).toBe('the-token')
  })

  it('say so quietly when the user closes the browser’s prompt, and send nothing', async () => {
    withWebAuthn()
    browser.startAuthentication.mockRejectedValue(Object.assign(new Error('closed'), { name: 'NotAllowedError' }))
    const onLeave = openLogin()
    fireEvent.click(await screen.findByTestId('login-passkey'))
    await waitFor(() => expect(document.querySelector('[data-testid=auth-toast-error]')?.textContent).toBe('The passkey prompt was closed or timed out: nothing was sent'))
    expect(fetchMock.mock.calls.some(([url]) => String(url) === '/api/login/passkey')).toBe(false)
    expect(onLeave).not.toHaveBeenCalled()
  })

  it('are the second step when the user has one: the passkey for the ticket, or a code', async () => {
    withWebAuthn()
    const onLeave = openLogin()
    fireEvent.change(await screen.findByPlaceholderText('Username'), { target: { value: 'keyuser' } })
    fireEvent.change(screen.getByPlaceholderText('Password'), { target: { value: 'secret12' } })
    fireEvent.click(screen.getByTestId('login-submit'))
    expect(await screen.findByText('Confirm with your passkey. Lost it? Enter one of your recovery codes instead.')).toBeTruthy()
    expect(screen.getByTestId('second-factor-code')).toBeTruthy()
    fireEvent.click(screen.getByTestId('second-factor-passkey'))
    await waitFor(() => expect(onLeave).toHaveBeenCalledWith('/', { replace: true }))
    expect(bodyOf('/login/second-factor/passkey')).toEqual({ ticket: 't'.repeat(32) })
    expect(bodyOf('/login/second-factor')).toEqual({ ticket: 't'.repeat(32), passkey: assertion, withSession: true })
  })
})
