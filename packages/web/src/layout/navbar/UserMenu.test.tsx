import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor } from '@testing-library/react'
import { MemoryRouter, useLocation } from 'react-router'
import type { SecondFactorState, SessionUser } from '@velo/shared'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { sessionActions, sessionStore } from '../../session/sessionStore'
import { UserMenu } from './UserMenu'

// The avatar menu points a user whose role requires a second factor they lack to its setup, with a
// dot on the avatar; everyone else sees the menu as before.

const fetchMock = vi.fn<typeof fetch>()

const user: SessionUser = {
  userId: 7,
  username: 'rider1',
  nickName: 'Rider',
  avatar: '',
  email: '',
  phone: '',
  sex: '2',
  deptId: null,
  deptName: null,
  createTime: '2026-01-01T00:00:00Z',
  loginIp: null,
  loginDate: null,
}

function Where() {
  const location = useLocation()
  return <div data-testid="where">{`${location.pathname}${location.search}`}</div>
}

function openMenuAs(secondFactor: SecondFactorState) {
  sessionActions.userInfoLoaded({ user, roles: ['rider'], permissions: [], secondFactor })
  renderWithProviders(
    <MemoryRouter initialEntries={['/index']}>
      <UserMenu />
      <Where />
    </MemoryRouter>,
  )
  fireEvent.click(screen.getByTestId('avatar-menu'))
}

describe('the user menu', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async () => jsonResponse(null))
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionActions.resetToken()
  })

  it('nudges a user whose role requires a second factor they lack, and leads to its setup', async () => {
    openMenuAs({ required: true, enrolled: false, due: '2026-06-01T00:00:00Z' })
    expect(screen.getByTestId('avatar-second-factor-dot')).toBeTruthy()
    fireEvent.click(await screen.findByText('Set up two-factor sign-in'))
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/user/profile?tab=security'))
  })

  it('does not nudge once the user holds a factor', async () => {
    openMenuAs({ required: true, enrolled: true, due: '2026-06-01T00:00:00Z' })
    expect(await screen.findByText('Profile')).toBeTruthy()
    expect(screen.queryByText('Set up two-factor sign-in')).toBeNull()
    expect(screen.queryByTestId('avatar-second-factor-dot')).toBeNull()
  })

  it('does not nudge when the role requires none', async () => {
    openMenuAs({ required: false, enrolled: false, due: null })
    expect(await screen.findByText('Profile')).toBeTruthy()
    expect(screen.queryByText('Set up two-factor sign-in')).toBeNull()
    expect(screen.queryByTestId('avatar-second-factor-dot')).toBeNull()
  })

  it('forgets the requirement with the session', () => {
    sessionActions.userInfoLoaded({ user, roles: ['rider'], permissions: [], secondFactor: { required: true, enrolled: false, due: null } })
    expect(sessionStore.getState().secondFactor).toEqual({ required: true, enrolled: false, due: null })
    sessionActions.resetToken()
    expect(sessionStore.getState().secondFactor).toBeNull()
  })
})
