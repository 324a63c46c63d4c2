import { Card, Col, Row, Spin, Tabs } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { getProfile } from '../../../api/profile'
import { BasicInfoForm } from './BasicInfoForm'
import { PasswordForm } from './PasswordForm'
import { ProfileCard } from './ProfileCard'

/** Personal centre: who I am, my avatar, my details and my password. */
export default function ProfilePage() {
  const { t } = useTranslation()
  const profile = useQuery({ queryKey: ['user', 'profile'], queryFn: getProfile })
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
            items={[
              { key: 'info', label: t('profile.basicInfo'), children: <BasicInfoForm user={user} /> },
              { key: 'password', label: t('profile.changePassword'), children: <PasswordForm /> },
            ]}
          />
        </Card>
      </Col>
    </Row>
  )
}
