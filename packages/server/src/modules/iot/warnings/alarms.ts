import { ALARM_SEVERITIES, ALARM_TYPES, type AlarmSeverity, type AlarmType } from '@velo/shared'
import type { Services } from '../../../platform/services'

// The warnings module's seam (issue 17): other IoT modules raise and clear alarms through it
// (implemented in store.ts). The type and severity lists live in shared (iot/alarms.ts) for the console.

export { ALARM_SEVERITIES, ALARM_TYPES, type AlarmSeverity, type AlarmType }

export interface RaiseAlarm {
  deviceId: number
  type: AlarmType
  /** Default: the message configuration's severity for the type. */
  severity?: AlarmSeverity
  /** What was seen, for people ("Battery 8 %", "ICCID 8931… 92 % of 1,024 MB used"). */
  detail?: string
  /** A device-reported fault's code (E-BMS-07): a fault alarm is one per device, type and code. */
  code?: string
  /** Where the device was (a geofence crossing): kept in the alarm's personal location fields, never in `detail`. */
  position?: { lat: number; lng: number }
}

export interface Alarms {
  /** Raises an alarm, or counts a repeat of the device's active one of that type (and code). */
  raise(alarm: RaiseAlarm): Promise<void>
  /** Clears the device's active alarm of that type (and code), if any: the condition is over. */
  clear(deviceId: number, type: AlarmType, code?: string): Promise<void>
}

const byServices = new WeakMap<Services, Alarms>()

/** The alarms of one server (set by the warnings module when it registers). */
export function alarmsOf(services: Services): Alarms {
  const alarms = byServices.get(services)
  if (!alarms) throw new Error('the warnings module is not registered')
  return alarms
}

export function setAlarms(services: Services, alarms: Alarms): void {
  byServices.set(services, alarms)
}
