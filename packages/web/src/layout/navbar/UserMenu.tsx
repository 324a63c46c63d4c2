import { Avatar, Badge, Dropdown } from 'antd'
import { CaretDownOutlined } from '@ant-design/icons'
import { Link, useLocation, useNavigate } from 'react-router'
import { useTranslation } from 'react-i18next'
import { avatarUrl } from '../../api/avatar'
import { layoutActions } from '../../preferences/layoutStore'
import { loginUrlFor } from '../../session/redirectTarget'
import { logout } from '../sessionFlow'
import { sessionStore } from '../../session/sessionStore'

/** The nickname (to the personal centre) and the avatar menu: Home, Profile, (Set up two-factor sign-in,) Layout setting, Logout. */
export function UserMenu() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const location = useLocation()
  const user = sessionStore.use((s) => s.user)
  const avatarVersion = sessionStore.use((s) => s.avatarVersion)
  // Until a user whose role requires a second factor has one, the menu points them to the setup.
  const secondFactorDue = sessionStore.use((s) => Boolean(s.secondFactor?.required && !s.secondFactor.enrolled))

  async function signOut() {
    const back = `${location.pathname}${location.search}`
    // Even if the server call fails, the local session is gone; go to sign-in either way.
    await logout().catch(() => undefined)
    navigate(loginUrlFor(back), { replace: true })
  }

  const avatar = <Avatar shape="square" size={36} src={avatarUrl(user?.avatar, avatarVersion)} alt={t('navbar.avatar')} />
  return (
    <>
      <Link to="/user/profile" className="navbar-nickname" data-testid="navbar-nickname">
        {user?.nickName || user?.username}
      </Link>
      <Dropdown
        trigger={['click']}
        menu={{
          items: [
            { key: 'home', label: t('navbar.home') },
            { key: 'profile', label: t('navbar.profile') },
            ...(secondFactorDue ? [{ key: 'secondFactor', label: <span data-testid="menu-second-factor">{t('navbar.setUpSecondFactor')}</span> }] : []),
            { key: 'settings', label: t('navbar.layoutSetting') },
            { type: 'divider' },
            { key: 'logout', label: t('navbar.logout') },
          ],
          onClick: ({ key }) => {
            if (key === 'home') navigate('/')
            else if (key === 'profile') navigate('/user/profile')
            else if (key === 'secondFactor') navigate('/user/profile?tab=security')
            else if (key === 'settings') layoutActions.openSettings(true)
            else if (key === 'logout') void signOut()
          },
        }}
      >
        <span className="avatar-wrapper" data-testid="avatar-menu" role="button" tabIndex={0}>
          {secondFactorDue ? (
            <Badge dot title={t('navbar.setUpSecondFactor')} data-testid="avatar-second-factor-dot">
              {avatar}
            </Badge>
          ) : (
            avatar
          )}
          <CaretDownOutlined className="avatar-caret" />
        </span>
      </Dropdown>
    </>
  )
}
