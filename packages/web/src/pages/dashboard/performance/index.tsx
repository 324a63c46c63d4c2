import { performanceDashboard } from '@velo/shared'
import { DashboardView } from '../../../dashboards/DashboardView'

/** Dashboards › App performance (/analytics/performance), drawn from its definition. */
export default function PerformanceDashboardPage() {
  return <DashboardView def={performanceDashboard} />
}
