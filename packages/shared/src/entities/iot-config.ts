import { PRODUCT_CATALOGUE } from './owners'
import { defineEntity } from '../entity/define'
import { labelWithUnit, type DurationUnit } from '../duration'
import type { EnumOption, FieldDef, Label } from '../entity/types'
import { CONFIG_VALUES, type ConfigValueKey } from '../iot/config-values'
import { createTime, idField, remark, status } from './common-fields'

// IoT configuration templates (SPEC §3): the values a device runs, pushed to devices through the
// command layer (setConfig), the outcome per device, and the devices whose reported configuration
// differs from their template (drift). The keys and the comparison are in iot/config-values.ts.

// A duration's label leaves its unit out: lists and details read the value as a duration, the form's
// input and the Excel column name the unit (shared/src/duration.ts).
const VALUE_LABELS: Record<ConfigValueKey, { label: Label; help?: Label; duration?: DurationUnit }> = {
  lowBatteryPercent: { label: { en_US: 'Low battery alert (%)', zh_CN: '低电量告警阈值(%)' }, help: { en_US: 'A low-battery warning is raised below this charge', zh_CN: '电量低于此值时产生低电量告警' } },
  overSpeedKmh: { label: { en_US: 'Over-speed alert (km/h)', zh_CN: '超速告警阈值(km/h)' } },
  alarmVolume: { label: { en_US: 'Alarm amplitude (0–10)', zh_CN: '报警音量(0–10)' } },
  alarmSeconds: { label: { en_US: 'Alarm duration', zh_CN: '报警时长' }, duration: 's' },
  fallAngle: { label: { en_US: 'Fall detection angle (°)', zh_CN: '倾倒检测角度(°)' }, help: { en_US: 'A lean beyond this angle is a fall', zh_CN: '倾斜超过此角度视为倾倒' } },
  vibrationSensitivity: { label: { en_US: 'Vibration sensitivity (1–5)', zh_CN: '震动灵敏度(1–5)' }, help: { en_US: '1 least, 5 most sensitive', zh_CN: '1 最不灵敏，5 最灵敏' } },
  wakeUpMinutes: { label: { en_US: 'Wake-up frequency', zh_CN: '唤醒频率' }, duration: 'min' },
  lowPowerMinutes: { label: { en_US: 'Low-power mode: report every', zh_CN: '低功耗模式上报间隔' }, duration: 'min' },
  ultraLowPowerHours: { label: { en_US: 'Ultra-low-power mode: report every', zh_CN: '超低功耗模式上报间隔' }, duration: 'h' },
  transceiveSeconds: { label: { en_US: 'Transmit-receive mode: report every', zh_CN: '收发模式上报间隔' }, duration: 's' },
  ridingSeconds: { label: { en_US: 'Riding mode: report every', zh_CN: '骑行模式上报间隔' }, duration: 's' },
  gpsReportSeconds: { label: { en_US: 'GPS reporting frequency', zh_CN: 'GPS上报频率' }, duration: 's' },
  traceReportSeconds: { label: { en_US: 'Trace reporting frequency', zh_CN: '轨迹上报频率' }, duration: 's' },
  traceReportMeters: { label: { en_US: 'Trace reporting distance (m)', zh_CN: '轨迹上报距离(米)' } },
}

/** Shown in the template list; the others in the form and details. */
const LISTED: readonly ConfigValueKey[] = ['lowBatteryPercent', 'fallAngle', 'vibrationSensitivity']

const valueFields = CONFIG_VALUES.map(
  (v): FieldDef => ({
    name: v.key,
    kind: 'number',
    int: true,
    min: v.min,
    max: v.max,
    default: v.default,
    label: VALUE_LABELS[v.key].label,
    ...(VALUE_LABELS[v.key].help ? { help: VALUE_LABELS[v.key].help } : {}),
    ...(VALUE_LABELS[v.key].duration ? { duration: VALUE_LABELS[v.key].duration } : {}),
    list: LISTED.includes(v.key),
  }),
)

/** A drift row's setting, shown by its label; with its unit, as the row's values are bare numbers. */
const SETTING_OPTIONS: readonly EnumOption[] = valueFields.map((f) => ({ value: f.name, label: labelWithUnit(f) }))

const DEVICE_STATE_CHOICES: readonly EnumOption[] = [
  { value: 'online', label: { en_US: 'Online', zh_CN: '在线' } },
  { value: 'offline', label: { en_US: 'Offline', zh_CN: '离线' } },
  { value: 'activated', label: { en_US: 'Activated', zh_CN: '已激活' } },
  { value: 'activatedOffline', label: { en_US: 'Activated, offline', zh_CN: '已激活离线' } },
  { value: 'inactive', label: { en_US: 'Inactive', zh_CN: '未激活' } },
]

/**
 * Who a push goes to: the ticked devices, or every device matching the filter (model, state,
 * firmware version). Ids win when both are given.
 */
const pushTargets: readonly FieldDef[] = [
  {
    name: 'deviceIds',
    kind: 'referenceMany',
    entity: 'iotDevice',
    // An action's input is never stored: the join table is not created.
    through: { table: 'iotConfigPushTarget', from: 'configId', to: 'deviceId' },
    label: { en_US: 'Devices', zh_CN: '设备' },
    help: { en_US: 'Leave empty to push to every device matching the filter below', zh_CN: '留空则下发给所有符合以下条件的设备' },
  },
  { name: 'modelId', kind: 'reference', entity: 'iotModel', label: { en_US: 'Product model', zh_CN: '产品型号' } },
  { name: 'state', kind: 'enum', options: DEVICE_STATE_CHOICES, label: { en_US: 'State', zh_CN: '状态' } },
  { name: 'firmwareVersion', kind: 'text', max: 32, label: { en_US: 'Software/firmware version', zh_CN: '软件/固件版本' } },
]

export const iotConfig = defineEntity({
  key: 'iotConfig',
  table: 'iotConfig',
  path: '/iot/config',
  permission: 'iot:config',
  label: { en_US: 'IoT configuration', zh_CN: '设备配置' },
  singular: { en_US: 'configuration template', zh_CN: '配置模板' },
  idField: 'configId',
  labelField: 'name',
  defaultSort: { field: 'configId', order: 'desc' },
  scope: PRODUCT_CATALOGUE,
  fields: [
    idField('configId'),
    { name: 'name', kind: 'text', label: { en_US: 'Template name', zh_CN: '模板名称' }, required: true, unique: true, max: 100, search: 'like', sort: true },
    { name: 'protocolVersion', kind: 'text', label: { en_US: 'Protocol version', zh_CN: '协议版本' }, max: 16, default: '1', pattern: /^\d{1,3}(\.\d{1,3}){0,2}$/, patternMessage: { en_US: 'Protocol version: a number such as 1 or 1.2', zh_CN: '协议版本：数字，如 1 或 1.2' } },
    {
      name: 'version',
      kind: 'text',
      label: { en_US: 'Config version', zh_CN: '配置版本' },
      max: 32,
      readOnly: true,
      search: 'eq',
      help: { en_US: 'Changes when the values change; devices report the version they run', zh_CN: '配置值变化时随之变化；设备上报其运行的版本' },
    },
    ...valueFields,
    status,
    remark,
    createTime,
  ],
  actions: [
    {
      name: 'push',
      label: { en_US: 'Push', zh_CN: '下发' },
      on: 'row',
      mode: 'job',
      permission: 'iot:config:push',
      preview: true,
      input: pushTargets,
      confirm: { en_US: 'Push "{label}" to the devices counted below?', zh_CN: '确定将“{label}”下发到下方统计的设备吗？' },
    },
  ],
  related: [
    { entity: 'iotConfigPush', by: 'configId', label: { en_US: 'Pushes', zh_CN: '下发记录' }, manage: true },
    { entity: 'iotConfigDrift', by: 'configId', label: { en_US: 'Drift', zh_CN: '配置偏差' }, manage: true },
  ],
})

const PUSH_STATUS_OPTIONS: readonly EnumOption[] = [
  { value: 'queued', label: { en_US: 'Queued', zh_CN: '排队中' }, color: 'default' },
  { value: 'sent', label: { en_US: 'Sent', zh_CN: '已发送' }, color: 'processing' },
  { value: 'acknowledged', label: { en_US: 'Acknowledged', zh_CN: '已确认' }, color: 'success' },
  { value: 'refused', label: { en_US: 'Refused', zh_CN: '已拒绝' }, color: 'error' },
  { value: 'timedOut', label: { en_US: 'Timed out', zh_CN: '超时' }, color: 'warning' },
  { value: 'expired', label: { en_US: 'Expired', zh_CN: '已过期' }, color: 'default' },
]

/** One device's part of a push, following its setConfig command to the device's answer. */
export const iotConfigPush = defineEntity({
  key: 'iotConfigPush',
  table: 'iotConfigPush',
  path: '/iot/configPush',
  permission: 'iot:config',
  label: { en_US: 'Configuration pushes', zh_CN: '配置下发记录' },
  singular: { en_US: 'configuration push', zh_CN: '配置下发记录' },
  idField: 'pushId',
  labelField: 'pushId',
  defaultSort: { field: 'pushId', order: 'desc' },
  scope: { via: 'deviceId' },
  operations: ['list', 'get', 'export'],
  // No step moves a push: the server follows its command. Declared for the status bar with counts.
  transitions: { field: 'status', initial: 'queued', steps: [] },
  storage: {
    audited: false,
    indexes: [
      { name: 'iot_config_push_command', columns: ['commandId'] },
      { name: 'iot_config_push_device', columns: ['deviceId', 'pushId'] },
      { name: 'iot_config_push_config', columns: ['configId', 'status'] },
    ],
  },
  fields: [
    idField('pushId'),
    // Empty for a stolen device's tracking configuration, which is no template (modules/iot/stolen.ts).
    { name: 'configId', kind: 'reference', entity: 'iotConfig', label: { en_US: 'Template', zh_CN: '配置模板' }, readOnly: true, search: 'eq' },
    { name: 'deviceId', kind: 'reference', entity: 'iotDevice', carry: ['state'], label: { en_US: 'Device', zh_CN: '设备' }, required: true, readOnly: true, search: 'eq' },
    { name: 'version', kind: 'text', label: { en_US: 'Config version', zh_CN: '配置版本' }, max: 32, readOnly: true },
    { name: 'status', kind: 'enum', options: PUSH_STATUS_OPTIONS, label: { en_US: 'Status', zh_CN: '状态' }, readOnly: true, default: 'queued', search: 'eq', sort: true },
    { name: 'commandId', kind: 'number', int: true, label: { en_US: 'Command ID', zh_CN: '指令编号' }, readOnly: true, list: false },
    { name: 'applied', kind: 'longText', label: { en_US: 'Applied values', zh_CN: '已应用的配置' }, readOnly: true, nullable: true },
    { name: 'code', kind: 'number', int: true, label: { en_US: 'Device code', zh_CN: '设备返回码' }, readOnly: true },
    { name: 'message', kind: 'text', label: { en_US: "Device's reason", zh_CN: '设备返回原因' }, max: 500, readOnly: true, nullable: true },
    { name: 'createBy', kind: 'text', label: { en_US: 'Pushed by', zh_CN: '下发人' }, max: 64, readOnly: true },
    { name: 'createTime', kind: 'datetime', label: { en_US: 'Pushed', zh_CN: '下发时间' }, readOnly: true, required: true, search: 'range', sort: true },
    { name: 'updateTime', kind: 'datetime', label: { en_US: 'Answered', zh_CN: '应答时间' }, readOnly: true, sort: true },
  ],
})

/**
 * The configuration each device last reported (status.config), kept to compare with its template:
 * again when the template changes.
 */
export const iotConfigReport = defineEntity({
  key: 'iotConfigReport',
  table: 'iotConfigReport',
  path: '/iot/configReport',
  permission: 'iot:config',
  label: { en_US: 'Reported configurations', zh_CN: '设备上报配置' },
  singular: { en_US: 'reported configuration', zh_CN: '设备上报配置' },
  idField: 'reportId',
  labelField: 'version',
  defaultSort: { field: 'reportId', order: 'desc' },
  scope: { via: 'deviceId' },
  operations: ['list', 'get', 'export'],
  storage: { audited: false },
  fields: [
    idField('reportId'),
    { name: 'deviceId', kind: 'reference', entity: 'iotDevice', label: { en_US: 'Device', zh_CN: '设备' }, required: true, readOnly: true, unique: true, search: 'eq' },
    { name: 'version', kind: 'text', label: { en_US: 'Config version', zh_CN: '配置版本' }, max: 32, readOnly: true, search: 'eq' },
    { name: 'values', kind: 'longText', label: { en_US: 'Reported values', zh_CN: '上报的配置' }, readOnly: true },
    { name: 'reportedAt', kind: 'datetime', label: { en_US: 'Reported', zh_CN: '上报时间' }, readOnly: true, required: true, sort: true, search: 'range' },
  ],
})

/** A value a device runs that differs from its template: one row per device and field. */
export const iotConfigDrift = defineEntity({
  key: 'iotConfigDrift',
  table: 'iotConfigDrift',
  path: '/iot/configDrift',
  permission: 'iot:config',
  label: { en_US: 'Configuration drift', zh_CN: '配置偏差' },
  singular: { en_US: 'configuration drift', zh_CN: '配置偏差' },
  idField: 'driftId',
  labelField: 'field',
  defaultSort: { field: 'driftId', order: 'asc' },
  scope: { via: 'deviceId' },
  operations: ['list', 'get', 'export'],
  storage: {
    audited: false,
    indexes: [{ name: 'iot_config_drift_device', columns: ['deviceId'] }, { name: 'iot_config_drift_config', columns: ['configId'] }],
  },
  fields: [
    idField('driftId'),
    { name: 'configId', kind: 'reference', entity: 'iotConfig', label: { en_US: 'Template', zh_CN: '配置模板' }, required: true, readOnly: true, search: 'eq' },
    { name: 'deviceId', kind: 'reference', entity: 'iotDevice', carry: ['state'], label: { en_US: 'Device', zh_CN: '设备' }, required: true, readOnly: true, search: 'eq' },
    { name: 'field', kind: 'enum', options: SETTING_OPTIONS, label: { en_US: 'Setting', zh_CN: '配置项' }, max: 64, readOnly: true, search: 'eq' },
    { name: 'expected', kind: 'text', label: { en_US: 'Template value', zh_CN: '模板值' }, max: 200, readOnly: true },
    { name: 'reported', kind: 'text', label: { en_US: 'Reported value', zh_CN: '设备上报值' }, max: 200, readOnly: true },
    { name: 'detectedAt', kind: 'datetime', label: { en_US: 'Detected', zh_CN: '发现时间' }, readOnly: true, required: true, sort: true },
  ],
  actions: [
    {
      name: 'pushAgain',
      label: { en_US: 'Push again', zh_CN: '重新下发' },
      on: 'selection',
      mode: 'job',
      permission: 'iot:config:push',
      confirm: { en_US: "Push each selected device's template to it again?", zh_CN: '确定向所选设备重新下发其配置模板吗？' },
    },
  ],
})
