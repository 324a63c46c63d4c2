import type { QueryClient } from '@tanstack/react-query'
import { iotEntities, type ApiRowOf, type DeviceEvent, type Paged } from '@velo/shared'
import { crudKeys, type Row } from '../../crud/api/crudApi'

const device = iotEntities.iotDevice
type DeviceRow = ApiRowOf<typeof device>

/** The device fields a 'device' event carries; optional ones only when the event has them. */
const LIVE_FIELDS = ['state', 'flowState', 'lastSeenAt', 'battery', 'firmwareVersion', 'configVersion', 'hardwareVersion', 'transportMode', 'simNumber', 'remainingFlow'] as const

/** The event's values by field name, to lay over a device row. */
export function devicePatch(event: DeviceEvent): Row {
  const patch: Row = {}
  for (const name of LIVE_FIELDS) if (event[name] !== undefined) patch[name] = event[name]
  return patch
}

/** The row with the patch applied; the same row when nothing changes (so nothing re-renders). */
export function patchRow<R extends Row>(row: R, patch: Row): R {
  const changed = Object.entries(patch).some(([name, value]) => row[name] !== value)
  return changed ? { ...row, ...patch } : row
}

/**
 * Applies a 'device' event to every cached device list page that shows the device, and to its
 * cached row (the detail drawer), in place: no refetch.
 */
export function applyDeviceEvent(queryClient: QueryClient, event: DeviceEvent): void {
  const patch = devicePatch(event)
  queryClient.setQueriesData<Paged<DeviceRow>>({ queryKey: [...crudKeys.all(device), 'list'] }, (page) => {
    if (!page?.rows) return page
    let changed = false
    const rows = page.rows.map((row) => {
      if (row.deviceId !== event.deviceId) return row
      const next = patchRow(row, patch)
      if (next !== row) changed = true
      return next
    })
    return changed ? { ...page, rows } : page
  })
  queryClient.setQueryData<DeviceRow>(crudKeys.row(device, event.deviceId), (row) => (row ? patchRow(row, patch) : row))
}
