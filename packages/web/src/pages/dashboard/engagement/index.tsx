import { engagementDashboard } from '@velo/shared'
import { DashboardView } from '../../../dashboards/DashboardView'

/** Dashboards › User engagement (/analytics/engagement), drawn from its definition. */
export default function EngagementDashboardPage() {
  return <DashboardView def={engagementDashboard} />
}
