import { APP_CONTENT } from './owners'
import { defineEntity } from '../entity/define'
import { createTime, idField, remark, status } from './common-fields'

// The dashboards area (SPEC §1, §3 Tracking node): the tree of tracking codes the app records events
// against, and the events themselves. The other dashboards read the events through daily rollups
// (server modules/dashboard/rollups.ts), never this table row by row.

/**
 * A tracking node (SPEC §3: name, code, label, path, parent). The app sends events by code; a code
 * is unique across the tree, and a node with children cannot be deleted (the engine's tree rule).
 */
export const trackingNode = defineEntity({
  key: 'trackingNode',
  table: 'dashTrackingNode',
  path: '/dashboard/tracking',
  permission: 'dashboard:tracking',
  label: { en_US: 'Tracking configuration', zh_CN: '埋点配置' },
  singular: { en_US: 'tracking node', zh_CN: '埋点节点' },
  idField: 'nodeId',
  labelField: 'name',
  defaultSort: { field: 'orderNum', order: 'asc' },
  scope: APP_CONTENT,
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export', 'import'],
  fields: [
    idField('nodeId'),
    { name: 'parentId', kind: 'treeParent', label: { en_US: 'Parent node', zh_CN: '上级节点' }, required: true, list: false },
    { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, required: true, max: 64, search: 'like' },
    // What the app sends: dotted lowercase words ("app.launch", "ride.start").
    {
      name: 'code',
      kind: 'text',
      label: { en_US: 'Code', zh_CN: '编码' },
      required: true,
      unique: true,
      max: 64,
      pattern: /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/,
      patternMessage: { en_US: 'Lowercase words joined by dots, such as app.launch', zh_CN: '以点分隔的小写单词，例如 app.launch' },
      search: 'like',
      sort: true,
    },
    { name: 'label', kind: 'text', label: { en_US: 'Label', zh_CN: '标签' }, max: 100, search: 'like' },
    // The app screen or feature path the node stands for ("/ride/summary").
    { name: 'path', kind: 'text', label: { en_US: 'Path', zh_CN: '路径' }, max: 200 },
    { name: 'orderNum', kind: 'number', int: true, min: 0, max: 99999, label: { en_US: 'Sort', zh_CN: '排序' }, required: true, default: 0, sort: true },
    { ...status, label: { en_US: 'Status', zh_CN: '状态' } },
    remark,
    createTime,
  ],
})

/** Platforms the app runs on (as the app upload log has them). */
const PLATFORMS = [
  { value: 'ios', label: { en_US: 'iOS', zh_CN: 'iOS' }, color: 'default' },
  { value: 'android', label: { en_US: 'Android', zh_CN: 'Android' }, color: 'green' },
] as const

/**
 * Events the app records against tracking codes (POST /app/tracking/events): read by staff under the
 * tracking page's rights, never written or changed here. `app.launch` carries the cold start time in
 * `value` (ms) and opens a session; `app.crash` names the session that crashed.
 */
export const trackingEvent = defineEntity({
  key: 'trackingEvent',
  table: 'dashTrackingEvent',
  path: '/dashboard/trackingEvent',
  permission: 'dashboard:tracking',
  label: { en_US: 'Tracking events', zh_CN: '埋点事件' },
  singular: { en_US: 'tracking event', zh_CN: '埋点事件' },
  idField: 'eventId',
  defaultSort: { field: 'eventTime', order: 'desc' },
  scope: { via: 'memberId' },
  // What the app did, by code: statistics with no value that names the rider.
  rider: { by: { member: 'memberId' }, erase: 'keep' },
  operations: ['list', 'get', 'export'],
  storage: {
    audited: false,
    indexes: [
      { columns: ['eventTime'] },
      { columns: ['code', 'eventTime'] },
      { columns: ['memberId', 'eventTime'] },
    ],
  },
  fields: [
    idField('eventId'),
    { name: 'memberId', kind: 'reference', entity: 'member', label: { en_US: 'Member', zh_CN: '会员' }, required: true, readOnly: true, search: 'eq' },
    { name: 'code', kind: 'text', label: { en_US: 'Code', zh_CN: '编码' }, required: true, max: 64, readOnly: true, search: 'eq', sort: true },
    { name: 'sessionId', kind: 'text', label: { en_US: 'Session', zh_CN: '会话' }, required: true, max: 64, readOnly: true, search: 'eq' },
    { name: 'platform', kind: 'enum', options: PLATFORMS, label: { en_US: 'Platform', zh_CN: '平台' }, required: true, readOnly: true, search: 'eq' },
    { name: 'appVersion', kind: 'version', label: { en_US: 'App version', zh_CN: 'App 版本' }, required: true, readOnly: true, search: 'eq', sort: true },
    // A measure the code defines: the cold start time of app.launch (ms), a duration, a count.
    { name: 'value', kind: 'number', label: { en_US: 'Value', zh_CN: '数值' }, readOnly: true },
    { name: 'eventTime', kind: 'datetime', label: { en_US: 'Event time', zh_CN: '事件时间' }, required: true, readOnly: true, search: 'range', sort: true },
    { name: 'receiveTime', kind: 'datetime', label: { en_US: 'Received', zh_CN: '接收时间' }, required: true, readOnly: true, sort: true },
  ],
})
