import { iotGeofenceEntities } from '@velo/shared'
import { http } from '../../../api/http'
import { EntityListPage } from '../../../crud/EntityListPage'
import { setGeometryBaseMap } from '../../../crud/kinds/geometryBaseMap'
import '../iot.css'

// IoT › Geofences (issue 42 §3): the generic list and form; the form's drawing map shows the fleet
// map's base map (MAP_STYLE_URL, or the world map shipped with the console: no request leaves it).

const geofence = iotGeofenceEntities.iotGeofence

setGeometryBaseMap(async () => {
  const setup = await http.get<{ styleUrl?: string }>('/iot/geofence/setup')
  if (setup.styleUrl) return setup.styleUrl
  const { worldStyle } = await import('../map/worldStyle')
  return worldStyle()
})

export default function GeofencePage() {
  return <EntityListPage entity={geofence} />
}
