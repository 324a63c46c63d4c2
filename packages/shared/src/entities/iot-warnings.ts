import { PRODUCT_CATALOGUE } from './owners'
import { defineEntity } from '../entity/define'
import type { EnumOption, FieldDef, Label } from '../entity/types'
import { ALARM_SEVERITY_OPTIONS, ALARM_STATE_OPTIONS, ALARM_TYPE_OPTIONS } from '../iot/alarms'
import { remark } from './common-fields'

// IoT › Warnings (issue 17): alarms raised by rules on device data, and the message configuration
// that says who hears of them. Alarms are written by the server only: list, details and export.

const reason: FieldDef = { name: 'reason', kind: 'longText', label: { en_US: 'Reason', zh_CN: '原因' }, required: true, max: 200 }

export const iotAlarm = defineEntity({
  key: 'iotAlarm',
  table: 'iotAlarm',
  path: '/iot/warning',
  permission: 'iot:warning',
  label: { en_US: 'Warnings', zh_CN: '告警记录' },
  singular: { en_US: 'warning', zh_CN: '告警' },
  idField: 'alarmId',
  labelField: 'alarmId',
  defaultSort: { field: 'lastTime', order: 'desc' },
  scope: { via: 'deviceId' },
  // A warning of the rider's bike while it was theirs; its position is theirs (a geofence crossing).
  rider: { by: { device: 'deviceId', since: 'startTime' }, erase: 'anonymise' },
  operations: ['list', 'get', 'export'],
  storage: {
    audited: false,
    columns: [
      // "<deviceId>:<type>:<code>" while the alarm is active, null once cleared: the unique index makes
      // a repeat from any instance count on the one active row instead of adding a second.
      { name: 'activeKey', kind: 'text', max: 80, nullable: true, unique: true },
    ],
    indexes: [{ columns: ['state', 'lastTime'] }, { columns: ['deviceId', 'startTime'] }],
  },
  // No steps: the server and the bulk actions move the state; the transitions give the status bar its counts.
  transitions: { field: 'state', initial: 'activeUnack', steps: [] },
  fields: [
    { name: 'alarmId', kind: 'number', int: true, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true, sort: true },
    { name: 'deviceId', kind: 'reference', entity: 'iotDevice', carry: ['state'], label: { en_US: 'Device', zh_CN: '设备' }, required: true, readOnly: true, search: 'eq' },
    { name: 'modelId', kind: 'reference', entity: 'iotModel', label: { en_US: 'Model', zh_CN: '型号' }, readOnly: true, search: 'eq' },
    { name: 'type', kind: 'enum', options: ALARM_TYPE_OPTIONS, label: { en_US: 'Type', zh_CN: '告警类型' }, required: true, readOnly: true, search: 'eq', sort: true },
    { name: 'code', kind: 'text', max: 32, label: { en_US: 'Fault code', zh_CN: '故障码' }, readOnly: true, search: 'eq' },
    { name: 'severity', kind: 'enum', options: ALARM_SEVERITY_OPTIONS, label: { en_US: 'Severity', zh_CN: '严重程度' }, required: true, readOnly: true, search: 'eq', sort: true },
    { name: 'state', kind: 'enum', options: ALARM_STATE_OPTIONS, label: { en_US: 'State', zh_CN: '状态' }, default: 'activeUnack', readOnly: true, search: 'in' },
    { name: 'detail', kind: 'text', max: 500, label: { en_US: 'Detail', zh_CN: '详情' }, readOnly: true },
    // Where the device was when the warning was raised or last repeated (a geofence crossing): the
    // rider's whereabouts, so a field of its own that masks, retention and erasure know, never the detail's text.
    { name: 'latitude', kind: 'number', label: { en_US: 'Latitude', zh_CN: '纬度' }, readOnly: true, list: false, personal: 'location' },
    { name: 'longitude', kind: 'number', label: { en_US: 'Longitude', zh_CN: '经度' }, readOnly: true, list: false, personal: 'location' },
    { name: 'count', kind: 'number', int: true, min: 1, default: 1, label: { en_US: 'Count', zh_CN: '次数' }, readOnly: true, sort: true },
    { name: 'startTime', kind: 'datetime', label: { en_US: 'First occurred', zh_CN: '首次发生' }, readOnly: true, required: true, search: 'range', sort: true },
    { name: 'lastTime', kind: 'datetime', label: { en_US: 'Last occurred', zh_CN: '最近发生' }, readOnly: true, required: true, sort: true },
    { name: 'endTime', kind: 'datetime', label: { en_US: 'Ended', zh_CN: '结束时间' }, readOnly: true, list: false },
    { name: 'ackTime', kind: 'datetime', label: { en_US: 'Acknowledged', zh_CN: '确认时间' }, readOnly: true },
    { name: 'ackBy', kind: 'text', max: 64, label: { en_US: 'Acknowledged by', zh_CN: '确认人' }, readOnly: true },
    { name: 'ackReason', kind: 'text', max: 200, label: { en_US: 'Acknowledgement reason', zh_CN: '确认原因' }, readOnly: true, list: false },
    { name: 'clearTime', kind: 'datetime', label: { en_US: 'Cleared', zh_CN: '清除时间' }, readOnly: true, list: false },
    { name: 'clearBy', kind: 'text', max: 64, label: { en_US: 'Cleared by', zh_CN: '清除人' }, readOnly: true, list: false, help: { en_US: 'Blank: cleared by the system (the condition ended)', zh_CN: '为空：系统自动清除（条件已结束）' } },
    { name: 'clearReason', kind: 'text', max: 200, label: { en_US: 'Clear reason', zh_CN: '清除原因' }, readOnly: true, list: false },
  ],
  actions: [
    {
      name: 'acknowledge',
      label: { en_US: 'Acknowledge', zh_CN: '确认' },
      on: 'selection',
      mode: 'sync',
      input: [reason],
    },
    {
      name: 'clear',
      label: { en_US: 'Clear', zh_CN: '清除' },
      on: 'selection',
      mode: 'sync',
      input: [reason],
      danger: true,
    },
  ],
})

const EVENT_OPTIONS: readonly EnumOption[] = [
  ...ALARM_TYPE_OPTIONS,
  { value: 'deviceOnline', label: { en_US: 'Device online', zh_CN: '设备上线' }, color: 'green' },
  { value: 'deviceOffline', label: { en_US: 'Device offline', zh_CN: '设备离线' }, color: 'default' },
]

const text = (name: string, label: Label, required: boolean, long: boolean): FieldDef =>
  ({
    name,
    kind: long ? 'longText' : 'text',
    max: long ? 1000 : 200,
    label,
    ...(required ? { required: true } : {}),
    list: false,
    ...(long ? { help: { en_US: 'Placeholders: {sn} {type} {severity} {detail} {time}', zh_CN: '占位符：{sn} {type} {severity} {detail} {time}' } } : {}),
  }) as FieldDef

/**
 * Who hears of a device event, per event type: the bike's member in the app inbox (in their
 * language; blank texts fall back to English) and staff by e-mail (English and Chinese).
 */
export const iotMessageConfig = defineEntity({
  key: 'iotMessageConfig',
  table: 'iotMessageConfig',
  path: '/iot/messageConfig',
  permission: 'iot:messageConfig',
  label: { en_US: 'Message configuration', zh_CN: '消息配置' },
  singular: { en_US: 'message configuration', zh_CN: '消息配置' },
  idField: 'messageConfigId',
  labelField: 'eventType',
  defaultSort: { field: 'messageConfigId', order: 'asc' },
  scope: PRODUCT_CATALOGUE,
  // One row per event, seeded: changed in the form, not moved between installations by spreadsheet.
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  fields: [
    { name: 'messageConfigId', kind: 'number', int: true, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true, sort: true },
    { name: 'eventType', kind: 'enum', options: EVENT_OPTIONS, label: { en_US: 'Event', zh_CN: '事件' }, required: true, unique: true, search: 'eq', sort: true },
    {
      name: 'severity',
      kind: 'enum',
      options: ALARM_SEVERITY_OPTIONS,
      label: { en_US: 'Severity', zh_CN: '严重程度' },
      default: 'major',
      search: 'eq',
      help: { en_US: 'Of the warnings raised for this event', zh_CN: '该事件产生的告警的严重程度' },
    },
    { name: 'enabled', kind: 'boolean', label: { en_US: 'Notify', zh_CN: '启用通知' }, default: true, search: 'eq' },
    { name: 'notifyMember', kind: 'boolean', label: { en_US: "Member's app inbox", zh_CN: '会员App收件箱' }, default: true },
    { name: 'notifyStaff', kind: 'boolean', label: { en_US: 'Staff e-mail', zh_CN: '员工邮件' }, default: false },
    {
      name: 'staffEmails',
      kind: 'text',
      max: 500,
      label: { en_US: 'Staff e-mail addresses', zh_CN: '员工邮箱' },
      help: { en_US: 'Comma-separated', zh_CN: '用逗号分隔' },
    },
    {
      name: 'staffRoleIds',
      kind: 'referenceMany',
      entity: 'role',
      through: { table: 'iotMessageConfigRole', from: 'messageConfigId', to: 'roleId' },
      label: { en_US: 'Staff roles', zh_CN: '员工角色' },
      help: { en_US: 'Their users with an e-mail address are written to', zh_CN: '发送给这些角色中有邮箱的用户' },
      list: false,
    },
    text('titleEn', { en_US: 'Title (English)', zh_CN: '标题(英文)' }, true, false),
    text('textEn', { en_US: 'Text (English)', zh_CN: '内容(英文)' }, true, true),
    text('titleZh', { en_US: 'Title (Chinese)', zh_CN: '标题(中文)' }, true, false),
    text('textZh', { en_US: 'Text (Chinese)', zh_CN: '内容(中文)' }, true, true),
    text('titleDe', { en_US: 'Title (German)', zh_CN: '标题(德语)' }, false, false),
    text('textDe', { en_US: 'Text (German)', zh_CN: '内容(德语)' }, false, true),
    text('titleNl', { en_US: 'Title (Dutch)', zh_CN: '标题(荷兰语)' }, false, false),
    text('textNl', { en_US: 'Text (Dutch)', zh_CN: '内容(荷兰语)' }, false, true),
    text('titleFr', { en_US: 'Title (French)', zh_CN: '标题(法语)' }, false, false),
    text('textFr', { en_US: 'Text (French)', zh_CN: '内容(法语)' }, false, true),
    remark,
  ],
})
