import { Card, List, Typography } from 'antd'
import { useTranslation } from 'react-i18next'
import { sessionStore } from '../../app/session/sessionStore'

// The dashboard's charts come with a later issue; until then this page says what will be here
// rather than showing made-up numbers.
const UPCOMING = ['engagement', 'performance', 'satisfaction', 'bikes'] as const

export default function DashboardPage() {
  const { t } = useTranslation()
  const user = sessionStore.use((s) => s.user)
  return (
    <Card title={t('dashboard.welcome', { name: user?.nickName || user?.username || '' })} data-testid="dashboard">
      <Typography.Paragraph>{t('dashboard.intro')}</Typography.Paragraph>
      <List
        bordered
        dataSource={[...UPCOMING]}
        renderItem={(key) => (
          <List.Item>
            <List.Item.Meta title={t(`dashboard.${key}`)} description={t(`dashboard.${key}.detail`)} />
          </List.Item>
        )}
      />
    </Card>
  )
}
