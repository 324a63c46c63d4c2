import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import type { SecurityOverview, SessionUser } from '@velo/shared'
import dayjs from 'dayjs'
import { jsonResponse, renderWithProviders } from '../../../test/render'
import { sessionActions, sessionStore } from '../../../session/sessionStore'
import ProfilePage from './index'
import { groupsOfFour } from './AddAuthenticatorDialog'
import { SecurityTab } from './SecurityTab'

// The personal centre's Security tab against a mocked server: factors, recovery codes and sessions.

const fetchMock = vi.fn<typeof fetch>()
const calls = (method: string, path: string) => fetchMock.mock.calls.filter(([url, init]) => String(url) === `/api${path}` && (init?.method ?? 'GET') === method)
const bodyOf = (call: Parameters<typeof fetch>) => JSON.parse(String(call[1]!.body)) as unknown

const CURRENT_SESSION = 'a'.repeat(32)
const LAPTOP_SESSION = 'b'.repeat(32)
const TEN_CODES = Array.from({ length: 10 }, (_, i) => `code${i}-abcd${i}`)
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'

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

const withApp: SecurityOverview = {
  factors: [{ factorId: 3, kind: 'totp', name: 'Work phone', createTime: '2026-03-01T08:00:00Z', lastUsedTime: null }],
  recoveryCodesLeft: 8,
  secondFactor: { required: true, enrolled: true, due: '2026-04-01T00:00:00Z' },
  sessions: [
    { sessionId: CURRENT_SESSION, current: true, ipaddr: '10.0.0.5', browser: 'Firefox 140', os: 'Linux', loginTime: '2026-03-02T09:00:00Z', lastSeen: '2026-03-02T09:30:00Z' },
    { sessionId: LAPTOP_SESSION, current: false, ipaddr: '192.0.2.44', browser: 'Chrome 138', os: 'Windows 11', loginTime: '2026-02-20T07:00:00Z', lastSeen: '2026-02-21T18:00:00Z' },
  ],
}
const inAWeek = dayjs().add(7, 'day').startOf('hour').toISOString()
const withoutApp: SecurityOverview = { ...withApp, factors: [], recoveryCodesLeft: 0, secondFactor: { required: true, enrolled: false, due: inAWeek } }

let overview: SecurityOverview = withApp

function serve() {
  fetchMock.mockImplementation(async (input, init) => {
    const path = String(input).replace(/^\/api/, '')
    const method = init?.method ?? 'GET'
    if (path === '/system/user/profile' && method === 'GET') return jsonResponse({ user, roleGroup: 'Riders' })
    if (path === '/system/user/profile/security') return jsonResponse(overview)
    if (path === '/system/user/profile/totp/start') return jsonResponse({ secret: SECRET, uri: `otpauth://totp/Velo:rider1?secret=${SECRET}`, qrSvg: '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>' })
    if (path === '/system/user/profile/totp/confirm') {
      overview = { ...withApp, recoveryCodesLeft: 10 }
      return jsonResponse({ factorId: 3, recoveryCodes: TEN_CODES })
    }
    if (path === '/system/user/profile/recoveryCodes') return jsonResponse({ recoveryCodes: TEN_CODES })
    if (method === 'DELETE') return jsonResponse(null)
    return jsonResponse(null, 404)
  })
}

/** The popconfirm a button opened, and its button named `name`. */
async function confirmIn(title: string, name: string) {
  const popover = (await screen.findByText(title)).closest('.ant-popover') as HTMLElement
  fireEvent.click(within(popover).getByRole('button', { name }))
}

const originalObjectUrl = { create: URL.createObjectURL, revoke: URL.revokeObjectURL }

describe('the Security tab', { timeout: 20_000 }, () => {
  beforeEach(() => {
    overview = withApp
    vi.stubGlobal('fetch', fetchMock)
    serve()
    sessionActions.userInfoLoaded({ user, roles: ['rider'], permissions: [], secondFactor: { required: true, enrolled: false, due: inAWeek } })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionActions.resetToken()
    URL.createObjectURL = originalObjectUrl.create
    URL.revokeObjectURL = originalObjectUrl.revoke
  })

  it('lists the factors, the recovery codes left and the sessions', async () => {
    renderWithProviders(<SecurityTab />)
    const factors = await screen.findByTestId('factors-table')
    const factorRow = within(factors).getByText('Work phone').closest('tr')!
    expect(within(factorRow).getByText('Authenticator app')).toBeTruthy()
    expect(within(factorRow).getByText(dayjs('2026-03-01T08:00:00Z').format('YYYY-MM-DD HH:mm:ss'))).toBeTruthy()
    expect(within(factorRow).getByText('Never')).toBeTruthy()
    expect(within(factorRow).getByTestId('factor-remove-3')).toBeTruthy()
    expect(screen.getByTestId('recovery-codes-left').textContent).toBe('8 of 10 recovery codes left')
    expect(screen.getByTestId('recovery-codes-new')).toBeTruthy()

    const sessions = screen.getByTestId('sessions-table')
    const current = within(sessions).getByText('Firefox 140').closest('tr')!
    expect(within(current).getByText('Linux')).toBeTruthy()
    expect(within(current).getByText('10.0.0.5')).toBeTruthy()
    expect(within(current).getByText(dayjs('2026-03-02T09:00:00Z').format('YYYY-MM-DD HH:mm:ss'))).toBeTruthy()
    expect(within(current).getByText(dayjs('2026-03-02T09:30:00Z').format('YYYY-MM-DD HH:mm:ss'))).toBeTruthy()
    expect(within(current).getByTestId('session-current').textContent).toBe('This session')
    expect(within(current).queryByRole('button')).toBeNull()
    const laptop = within(sessions).getByText('Chrome 138').closest('tr')!
    expect(within(laptop).queryByTestId('session-current')).toBeNull()
    expect(within(laptop).getByTestId(`session-signout-${LAPTOP_SESSION}`)).toBeTruthy()
    // The tab's fresher word reaches the user menu: this user now holds a factor.
    await waitFor(() => expect(sessionStore.getState().secondFactor).toEqual(withApp.secondFactor))
  })

  it('warns when the role requires a second factor the user lacks, with the due date', async () => {
    overview = withoutApp
    renderWithProviders(<SecurityTab />)
    const state = await screen.findByTestId('second-factor-state')
    expect(state.classList.contains('ant-alert-warning')).toBe(true)
    expect(state.textContent).toBe(`Your role requires two-factor sign-in. Set it up by ${dayjs(inAWeek).format('YYYY-MM-DD HH:mm:ss')}; after that, signing in leads to the setup first.`)
    // No factor, no recovery codes to renew.
    expect(screen.queryByTestId('recovery-codes-new')).toBeNull()
    expect(screen.queryByTestId('recovery-codes-left')).toBeNull()
    expect(within(screen.getByTestId('factors-table')).getByText('No second factor yet')).toBeTruthy()
  })

  it('says "now" once the due date has passed, thanks a user who complied, and only recommends when not required', async () => {
    overview = { ...withoutApp, secondFactor: { required: true, enrolled: false, due: '2026-01-01T00:00:00Z' } }
    const first = renderWithProviders(<SecurityTab />)
    expect((await screen.findByTestId('second-factor-state')).textContent).toBe('Your role requires two-factor sign-in. Set it up now: the next sign-in leads to the setup first.')
    first.unmount()

    overview = withApp
    const second = renderWithProviders(<SecurityTab />)
    const met = await screen.findByTestId('second-factor-state')
    expect(met.classList.contains('ant-alert-success')).toBe(true)
    expect(met.textContent).toBe('Two-factor sign-in is on, as your role requires.')
    second.unmount()

    overview = { ...withoutApp, secondFactor: { required: false, enrolled: false, due: null } }
    renderWithProviders(<SecurityTab />)
    const recommended = await screen.findByTestId('second-factor-state')
    expect(recommended.classList.contains('ant-alert')).toBe(false)
    expect(recommended.textContent).toMatch(/^Two-factor sign-in is recommended/)
  })

  it('adds an authenticator app with its first code, then shows the ten recovery codes once', async () => {
    overview = withoutApp
    renderWithProviders(<SecurityTab />)
    fireEvent.click(await screen.findByTestId('factor-add'))

    const qr = await screen.findByTestId('factor-qr')
    expect(qr.getAttribute('src')).toBe(`data:image/svg+xml;utf8,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>')}`)
    expect(screen.getByTestId('factor-secret').textContent).toContain('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP')
    expect((screen.getByTestId('factor-name') as HTMLInputElement).value).toBe('Authenticator app')
    expect(calls('POST', '/system/user/profile/totp/start')).toHaveLength(1)

    // The app shows '123 456'; the space is no part of the code.
    fireEvent.change(screen.getByTestId('factor-code'), { target: { value: '123 456' } })
    fireEvent.click(screen.getByTestId('factor-confirm'))
    await waitFor(() => expect(calls('POST', '/system/user/profile/totp/confirm')).toHaveLength(1))
    expect(bodyOf(calls('POST', '/system/user/profile/totp/confirm')[0]!)).toEqual({ code: '123456', name: 'Authenticator app' })

    const dialog = await screen.findByTestId('recovery-codes-dialog')
    expect(within(dialog).getAllByRole('listitem').map((item) => item.textContent)).toEqual(TEN_CODES)
    expect(dialog.textContent).toContain('Each works once')
    expect(dialog.textContent).toContain('they will not be shown again')
    expect(screen.queryByTestId('factor-add-dialog')).toBeNull()
    // The overview is asked again and now lists the app.
    await waitFor(() => expect(calls('GET', '/system/user/profile/security').length).toBeGreaterThanOrEqual(2))
    expect(await within(screen.getByTestId('factors-table')).findByText('Work phone')).toBeTruthy()

    fireEvent.click(screen.getByTestId('recovery-codes-done'))
    await waitFor(() => expect(screen.queryByText(TEN_CODES[0]!)).toBeNull())
    expect(screen.getByTestId('recovery-codes-left').textContent).toBe('10 of 10 recovery codes left')
  })

  it('refuses a code that is not six digits without asking the server', async () => {
    renderWithProviders(<SecurityTab />)
    fireEvent.click(await screen.findByTestId('factor-add'))
    fireEvent.change(await screen.findByTestId('factor-code'), { target: { value: '12345' } })
    fireEvent.click(screen.getByTestId('factor-confirm'))
    expect(await screen.findByText('Please enter the 6-digit code')).toBeTruthy()
    expect(calls('POST', '/system/user/profile/totp/confirm')).toHaveLength(0)
  })

  it('keeps the dialog open after a wrong code, for the next one', async () => {
    renderWithProviders(<SecurityTab />)
    fireEvent.click(await screen.findByTestId('factor-add'))
    const code = (await screen.findByTestId('factor-code')) as HTMLInputElement
    fetchMock.mockImplementationOnce(async () => jsonResponse(null, 400, 400))
    fireEvent.change(code, { target: { value: '000000' } })
    fireEvent.click(screen.getByTestId('factor-confirm'))
    await waitFor(() => expect(document.querySelector('.ant-message-error')).toBeTruthy())
    await waitFor(() => expect(code.value).toBe(''))
    expect(screen.getByTestId('factor-add-dialog')).toBeTruthy()
    expect(screen.queryByTestId('recovery-codes-dialog')).toBeNull()
  })

  it('removes a factor after a confirmation', async () => {
    renderWithProviders(<SecurityTab />)
    fireEvent.click(await screen.findByTestId('factor-remove-3'))
    await confirmIn('Remove this second factor?', 'Remove')
    await waitFor(() => expect(calls('DELETE', '/system/user/profile/factor/3')).toHaveLength(1))
    await waitFor(() => expect(calls('GET', '/system/user/profile/security')).toHaveLength(2))
  })

  it('signs out another session', async () => {
    renderWithProviders(<SecurityTab />)
    fireEvent.click(await screen.findByTestId(`session-signout-${LAPTOP_SESSION}`))
    await waitFor(() => expect(calls('DELETE', `/system/user/profile/session/${LAPTOP_SESSION}`)).toHaveLength(1))
    await waitFor(() => expect(calls('GET', '/system/user/profile/security')).toHaveLength(2))
    expect(screen.queryByTestId(`session-signout-${CURRENT_SESSION}`)).toBeNull()
  })

  it('makes new recovery codes after a confirmation, to copy or download', async () => {
    const saved: { name: string; text: Promise<string> }[] = []
    URL.createObjectURL = vi.fn((blob: Blob) => {
      saved.push({ name: '', text: blob.text() })
      return 'blob:codes'
    })
    URL.revokeObjectURL = vi.fn()
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved[saved.length - 1]!.name = this.download
    })
    renderWithProviders(<SecurityTab />)
    fireEvent.click(await screen.findByTestId('recovery-codes-new'))
    await confirmIn('Make ten new recovery codes?', 'New recovery codes')
    await waitFor(() => expect(calls('POST', '/system/user/profile/recoveryCodes')).toHaveLength(1))
    const dialog = await screen.findByTestId('recovery-codes-dialog')
    expect(within(dialog).getAllByRole('listitem')).toHaveLength(10)

    // jsdom is no secure context: the copy takes the text area way.
    const copied: string[] = []
    const execCommand = vi.fn(() => {
      copied.push(document.querySelector<HTMLTextAreaElement>('textarea[readonly]')!.value)
      return true
    })
    Object.defineProperty(document, 'execCommand', { value: execCommand, configurable: true })
    fireEvent.click(within(dialog).getByTestId('recovery-codes-copy'))
    expect(await screen.findByText('Recovery codes copied')).toBeTruthy()
    expect(copied).toEqual([TEN_CODES.join('\n')])
    Reflect.deleteProperty(document, 'execCommand')

    fireEvent.click(within(dialog).getByTestId('recovery-codes-download'))
    expect(saved.map((s) => s.name)).toEqual(['velo-admin-recovery-codes-rider1.txt'])
    const text = await saved[0]!.text
    expect(text.split('\r\n').filter((line) => TEN_CODES.includes(line))).toEqual(TEN_CODES)
    click.mockRestore()
  })

  it('asks the server for nothing when the new codes are not confirmed', async () => {
    renderWithProviders(<SecurityTab />)
    fireEvent.click(await screen.findByTestId('recovery-codes-new'))
    await confirmIn('Make ten new recovery codes?', 'Cancel')
    expect(calls('POST', '/system/user/profile/recoveryCodes')).toHaveLength(0)
  })
})

describe('the personal centre tabs', { timeout: 20_000 }, () => {
  beforeEach(() => {
    overview = withApp
    vi.stubGlobal('fetch', fetchMock)
    serve()
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
  })

  const openAt = (url: string) =>
    renderWithProviders(
      <MemoryRouter initialEntries={[url]}>
        <ProfilePage />
      </MemoryRouter>,
    )

  it('opens the Security tab from ?tab=security', async () => {
    openAt('/user/profile?tab=security')
    expect(await screen.findByTestId('security-tab')).toBeTruthy()
    expect(screen.queryByTestId('profile-form')).toBeNull()
  })

  it('opens Basic information by default, and the Security tab when chosen', async () => {
    openAt('/user/profile')
    expect(await screen.findByTestId('profile-form')).toBeTruthy()
    expect(calls('GET', '/system/user/profile/security')).toHaveLength(0)
    fireEvent.click(screen.getByTestId('profile-tab-security'))
    expect(await screen.findByTestId('security-tab')).toBeTruthy()
  })
})

describe('the key of an authenticator app', () => {
  it('reads in groups of four', () => {
    expect(groupsOfFour('JBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP')
    expect(groupsOfFour('ABCDEF')).toBe('ABCD EF')
    expect(groupsOfFour('ABCD')).toBe('ABCD')
  })
})
