import type { EnumOption } from '../entity/types'

// Warnings (issue 17): what the server raises from device data, and what the console filters by.
// ThingsBoard's severities and states (DOMAIN.md › Alarms), without its "indeterminate".

// simClash: a device reports a SIM card linked to another device (the move waits for staff, modules/iot/sim).
// geofence: a position entered or left a geofence (issue 42; the alarm's code is the fence's id).
// stolen: staff reported the bike stolen; it stays active until they mark it recovered (issue 42).
export const ALARM_TYPES = ['lowBattery', 'fall', 'theft', 'offline', 'simDataLow', 'fault', 'simClash', 'geofence', 'stolen'] as const
export type AlarmType = (typeof ALARM_TYPES)[number]
export const ALARM_SEVERITIES = ['critical', 'major', 'minor', 'warning'] as const
export type AlarmSeverity = (typeof ALARM_SEVERITIES)[number]
export const ALARM_STATES = ['activeUnack', 'activeAck', 'clearedUnack', 'clearedAck'] as const
export type AlarmState = (typeof ALARM_STATES)[number]
/** Device state changes a message configuration may also notify about (besides the alarm types). */
export const DEVICE_STATE_EVENTS = ['deviceOnline', 'deviceOffline'] as const
export const NOTIFIED_EVENTS = [...ALARM_TYPES, ...DEVICE_STATE_EVENTS] as const
export type NotifiedEvent = (typeof NOTIFIED_EVENTS)[number]

export const ALARM_TYPE_OPTIONS: readonly EnumOption[] = [
  { value: 'lowBattery', label: { en_US: 'Low battery', zh_CN: '低电量' }, color: 'gold' },
  { value: 'fall', label: { en_US: 'Fall detected', zh_CN: '倾倒' }, color: 'red' },
  { value: 'theft', label: { en_US: 'Vibration while locked', zh_CN: '锁车震动' }, color: 'volcano' },
  { value: 'offline', label: { en_US: 'Offline too long', zh_CN: '长时间离线' }, color: 'default' },
  { value: 'simDataLow', label: { en_US: 'SIM data low', zh_CN: 'SIM流量不足' }, color: 'orange' },
  { value: 'fault', label: { en_US: 'Device fault', zh_CN: '设备故障' }, color: 'magenta' },
  { value: 'simClash', label: { en_US: 'SIM card claimed by two devices', zh_CN: 'SIM卡被两台设备上报' }, color: 'purple' },
  { value: 'geofence', label: { en_US: 'Geofence entered or left', zh_CN: '进出电子围栏' }, color: 'cyan' },
  { value: 'stolen', label: { en_US: 'Reported stolen', zh_CN: '已报失窃' }, color: 'red' },
]

export const ALARM_SEVERITY_OPTIONS: readonly EnumOption[] = [
  { value: 'critical', label: { en_US: 'Critical', zh_CN: '紧急' }, color: 'red' },
  { value: 'major', label: { en_US: 'Major', zh_CN: '重要' }, color: 'orange' },
  { value: 'minor', label: { en_US: 'Minor', zh_CN: '次要' }, color: 'gold' },
  { value: 'warning', label: { en_US: 'Warning', zh_CN: '提示' }, color: 'blue' },
]

export const ALARM_STATE_OPTIONS: readonly EnumOption[] = [
  { value: 'activeUnack', label: { en_US: 'Active, unacknowledged', zh_CN: '活动未确认' }, color: 'error' },
  { value: 'activeAck', label: { en_US: 'Active, acknowledged', zh_CN: '活动已确认' }, color: 'warning' },
  { value: 'clearedUnack', label: { en_US: 'Cleared, unacknowledged', zh_CN: '已清除未确认' }, color: 'processing' },
  { value: 'clearedAck', label: { en_US: 'Cleared, acknowledged', zh_CN: '已清除已确认' }, color: 'default' },
]

/** Live event of GET /iot/stream ('alarm'): an alarm raised, repeated, acknowledged or cleared. */
export interface AlarmEventData {
  alarmId: number
  deviceId: number
  type: AlarmType
  severity: AlarmSeverity
  state: AlarmState
  count: number
  lastTime: string
  /** True when the alarm row is new (the list gains a row); else its fields changed. */
  raised: boolean
}
