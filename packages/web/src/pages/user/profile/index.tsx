import { lazy, Suspense } from 'react'
import { Card, Col, Row, Spin, Tabs } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router'
import { getProfile } from '../../../api/profile'
import { BasicInfoForm } from './BasicInfoForm'
import { PasswordForm } from './PasswordForm'
import { ProfileCard } from './ProfileCard'

// Tables, dialogs and popconfirms that the other tabs do not show: fetched when the tab is first opened.
const SecurityTab = lazy(() => import('./SecurityTab').then((m) => ({ default: m.SecurityTab })))

const TABS = ['info', 'password', 'security'] as const
type ProfileTab = (typeof TABS)[number]

/** Personal centre: who I am, my avatar, my details, my password and my sign-in security. The tab is in the URL (`?tab=security`) so the user menu and links can open it. */
export default function ProfilePage() {
  const { t } = useTranslation()
  const [search, setSearch] = useSearchParams()
  const profile = useQuery({ queryKey: ['user', 'profile'], queryFn: getProfile })
  const asked = search.get('tab') as ProfileTab | null
  const active: ProfileTab = asked && TABS.includes(asked) ? asked : 'info'
  if (!profile.data) return <Spin spinning={profile.isPending} data-testid="profile-loading" />
  const { user, roleGroup } = profile.data
  return (
    <Row gutter={16} data-testid="profile-page">
      <Col xs={24} md={8}>
        <ProfileCard user={user} roleGroup={roleGroup} />
      </Col>
      <Col xs={24} md={16}>
        <Card>
          <Tabs
            activeKey={active}
            onChange={(tab) => setSearch(tab === 'info' ? new URLSearchParams() : new URLSearchParams({ tab }), { replace: true })}
            items={[
              { key: 'info', label: t('profile.basicInfo'), children: <BasicInfoForm user={user} /> },
              { key: 'password', label: t('profile.changePassword'), children: <PasswordForm /> },
              {
                key: 'security',
                label: <span data-testid="profile-tab-security">{t('profile.security')}</span>,
                children: (
                  <Suspense fallback={<Spin data-testid="security-loading" />}>
                    <SecurityTab />
                  </Suspense>
                ),
              },
            ]}
          />
        </Card>
      </Col>
    </Row>
  )
}
