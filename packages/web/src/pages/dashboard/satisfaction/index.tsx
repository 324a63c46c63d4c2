import { satisfactionDashboard } from '@velo/shared'
import { DashboardView } from '../../../dashboards/DashboardView'

/** Dashboards › Satisfaction (/analytics/satisfaction), drawn from its definition. */
export default function SatisfactionDashboardPage() {
  return <DashboardView def={satisfactionDashboard} />
}
