import type { QueryClient } from '@tanstack/react-query'
import { iotEntities, type ApiRowOf, type DeviceEvent } from '@velo/shared'
import { crudKeys, type Row } from '../../crud/api/crudApi'
import { patchListRows, patchRow } from '../../crud/list/patchListRows'

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

/**
 * Applies a 'device' event to every cached device list page that shows the device, and to its
 * cached row (the detail drawer), in place: no refetch.
 */
export function applyDeviceEvent(queryClient: QueryClient, event: DeviceEvent): void {
  const patch = devicePatch(event)
  patchListRows(queryClient, device, (row) => (row.deviceId === event.deviceId ? patch : null))
  queryClient.setQueryData<DeviceRow>(crudKeys.row(device, event.deviceId), (row) => (row ? patchRow(row, patch) : row))
}
