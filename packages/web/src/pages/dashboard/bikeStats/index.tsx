import { bikeStatsDashboard } from '@velo/shared'
import { DashboardView } from '../../../dashboards/DashboardView'

/** Dashboards › Registered bikes (/analytics/bikeStats), drawn from its definition. */
export default function BikeStatsDashboardPage() {
  return <DashboardView def={bikeStatsDashboard} />
}
