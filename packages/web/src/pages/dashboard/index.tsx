import { Card, Space, Typography } from 'antd'
import { Link } from 'react-router'
import { DASHBOARDS, homeDashboard, type DashboardKey } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { useAccessCheck } from '../../session/Access'
import { sessionStore } from '../../session/sessionStore'
import { DashboardView } from '../../dashboards/DashboardView'
import { localized } from '../../i18n'

/**
 * Devices online is live: the home figures are fetched again every 10 s while the page is shown.
 * Polling rather than the IoT event stream: the stream needs IoT rights the home page's reader may
 * not have, and one small request per 10 s costs less than following every device's changes.
 */
const LIVE_EVERY_MS = 10_000

const ANALYTICS: readonly Exclude<DashboardKey, 'home'>[] = ['engagement', 'performance', 'satisfaction', 'bikeStats']

/** Home: the welcome, the cards and the registrations trend, and the dashboards this user may open. */
export default function DashboardPage() {
  const { t } = useTranslation()
  const user = sessionStore.use((s) => s.user)
  const may = useAccessCheck()
  const open = ANALYTICS.filter((key) => may({ permissions: [`${DASHBOARDS[key].permission}:list`] }))
  const header = (
    <div>
      <Typography.Title level={4} className="dash-title">
        {t('dashboard.welcome', { name: user?.nickName || user?.username || '' })}
      </Typography.Title>
      <Typography.Text type="secondary">{t('dashboard.intro')}</Typography.Text>
    </div>
  )
  return (
    <div data-testid="dashboard">
      <DashboardView def={homeDashboard} header={header} refetchEveryMs={LIVE_EVERY_MS} />
      {open.length > 0 && (
        <Card size="small" title={t('dashboard.links')} style={{ marginTop: 12 }} data-testid="dashboard-links">
          <Space wrap size="large">
            {open.map((key) => (
              <Link key={key} to={`/analytics/${key}`} data-testid={`dashboard-link-${key}`}>
                {localized(DASHBOARDS[key].title)}
              </Link>
            ))}
          </Space>
        </Card>
      )}
    </div>
  )
}
