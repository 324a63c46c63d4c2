import { defineEntity } from '../entity/define'
import type { FieldDef } from '../entity/types'
import { createTime, idField, remark } from './common-fields'

const reason = (required: boolean): FieldDef => ({ name: 'reason', kind: 'longText', label: { en_US: 'Reason', zh_CN: '原因' }, max: 500, required })

/**
 * SIM cards of the IoT modules (SPEC §3, §4; DOMAIN.md › SIM life cycle). The life-cycle status
 * moves through the steps below; each step is also asked of the card's carrier, which answers
 * "accepted" and confirms later (the server polls it): until then the carrier state says pending,
 * and a change the carrier refuses later is undone (modules/iot/sim). Usage comes from what the
 * devices report and from the carrier's Excel (import with "update rows", keyed by ICCID); the flow
 * state turns to warning at the card's threshold.
 */
export const iotSim = defineEntity({
  key: 'iotSim',
  table: 'iotSim',
  path: '/iot/sim',
  permission: 'iot:sim',
  label: { en_US: 'SIM cards', zh_CN: 'SIM卡管理' },
  singular: { en_US: 'SIM card', zh_CN: 'SIM卡' },
  idField: 'simId',
  labelField: 'iccid',
  defaultSort: { field: 'simId', order: 'desc' },
  scope: { via: 'deviceId' },
  storage: {
    columns: [
      // The carrier's id of the change it accepted and has not confirmed yet (polled until it has).
      { name: 'carrierRequestId', kind: 'text', max: 128, nullable: true },
      // The status before that change: restored if the carrier refuses it after all.
      { name: 'pendingFrom', kind: 'text', max: 16, nullable: true },
    ],
    indexes: [{ columns: ['status', 'simId'] }, { columns: ['deviceId'] }, { columns: ['carrierRequestId'] }, { columns: ['lastSyncAt'] }],
  },
  fields: [
    idField('simId'),
    {
      name: 'iccid',
      kind: 'text',
      label: { en_US: 'ICCID', zh_CN: 'ICCID' },
      required: true,
      unique: true,
      immutable: true,
      min: 19,
      max: 20,
      pattern: /^\d{19,20}$/,
      patternMessage: { en_US: 'ICCID: 19 or 20 digits', zh_CN: 'ICCID：19 或 20 位数字' },
      check: 'luhn',
      search: 'like',
      sort: true,
    },
    {
      name: 'imei',
      kind: 'text',
      label: { en_US: 'IMEI', zh_CN: 'IMEI' },
      min: 15,
      max: 15,
      pattern: /^\d{15}$/,
      patternMessage: { en_US: 'IMEI: 15 digits', zh_CN: 'IMEI：15 位数字' },
      check: 'luhn',
      search: 'like',
    },
    {
      name: 'status',
      kind: 'enum',
      label: { en_US: 'Status', zh_CN: '状态' },
      default: 'silent',
      search: 'eq',
      options: [
        { value: 'silent', label: { en_US: 'Silent', zh_CN: '沉默期' }, color: 'default' },
        { value: 'inUse', label: { en_US: 'In use', zh_CN: '使用中' }, color: 'success' },
        { value: 'paused', label: { en_US: 'Paused', zh_CN: '已停用' }, color: 'warning' },
        { value: 'suspended', label: { en_US: 'Suspended', zh_CN: '已停机' }, color: 'error' },
        { value: 'obsolete', label: { en_US: 'Obsolete', zh_CN: '已销户' }, color: 'default' },
      ],
    },
    {
      name: 'flowState',
      kind: 'enum',
      label: { en_US: 'Flow state', zh_CN: '流量状态' },
      default: 'normal',
      readOnly: true,
      search: 'eq',
      options: [
        { value: 'normal', label: { en_US: 'Normal', zh_CN: '正常' }, color: 'success' },
        { value: 'warning', label: { en_US: 'Warning', zh_CN: '预警' }, color: 'error' },
      ],
    },
    { name: 'limitMb', kind: 'number', label: { en_US: 'Package data (MB)', zh_CN: '套餐流量(MB)' }, required: true, min: 0, max: 10_000_000, sort: true },
    { name: 'usedMb', kind: 'number', label: { en_US: 'Used (MB)', zh_CN: '已用流量(MB)' }, default: 0, min: 0, max: 10_000_000, sort: true },
    { name: 'remainingMb', kind: 'number', label: { en_US: 'Remaining (MB)', zh_CN: '剩余流量(MB)' }, readOnly: true, sort: true },
    {
      name: 'warningPercent',
      kind: 'number',
      int: true,
      min: 1,
      max: 100,
      default: 80,
      label: { en_US: 'Usage warning at (%)', zh_CN: '流量预警阈值(%)' },
      help: { en_US: 'The flow state turns to warning when this share of the package is used', zh_CN: '已用流量达到套餐的该比例时流量状态变为预警' },
      list: false,
    },
    {
      name: 'periodType',
      kind: 'enum',
      label: { en_US: 'Period type', zh_CN: '周期类型' },
      default: 'month',
      options: [
        { value: 'day', label: { en_US: 'Day', zh_CN: '日' } },
        { value: 'month', label: { en_US: 'Month', zh_CN: '月' } },
        { value: 'year', label: { en_US: 'Year', zh_CN: '年' } },
      ],
    },
    {
      name: 'cycleStartDay',
      kind: 'number',
      int: true,
      min: 1,
      max: 31,
      default: 1,
      label: { en_US: 'Cycle start day', zh_CN: '周期起始日' },
      help: { en_US: 'Day of the month the billing cycle starts (the usage restarts)', zh_CN: '每月计费周期开始的日期（流量重新计算）' },
      list: false,
    },
    { name: 'apn', kind: 'text', label: { en_US: 'APN', zh_CN: 'APN' }, max: 64, default: '', list: false },
    { name: 'deviceId', kind: 'reference', entity: 'iotDevice', carry: ['state'], label: { en_US: 'Device', zh_CN: '所在设备' }, search: 'eq' },
    {
      name: 'carrier',
      kind: 'enum',
      label: { en_US: 'Carrier', zh_CN: '运营商' },
      default: 'simulated',
      // Room for the names of carriers added later.
      max: 32,
      search: 'eq',
      // One option per carrier adapter of the server (modules/iot/sim/carrier.ts).
      options: [{ value: 'simulated', label: { en_US: 'Simulated carrier', zh_CN: '模拟运营商' } }],
      list: false,
    },
    {
      name: 'carrierState',
      kind: 'text',
      label: { en_US: 'Carrier state', zh_CN: '运营商状态' },
      max: 32,
      readOnly: true,
      help: { en_US: 'What the carrier reports; pending while it has not confirmed a change', zh_CN: '运营商报告的状态；变更未确认时为 pending' },
    },
    { name: 'lastSyncAt', kind: 'datetime', label: { en_US: 'Last synchronised', zh_CN: '最后同步' }, readOnly: true, sort: true, list: false },
    remark,
    createTime,
  ],
  transitions: {
    field: 'status',
    initial: 'silent',
    steps: [
      { name: 'activate', label: { en_US: 'Activate', zh_CN: '激活' }, from: ['silent'], to: 'inUse', input: [reason(false)] },
      { name: 'pause', label: { en_US: 'Pause', zh_CN: '停用' }, from: ['inUse'], to: 'paused', input: [reason(true)] },
      { name: 'resume', label: { en_US: 'Resume', zh_CN: '恢复' }, from: ['paused', 'suspended'], to: 'inUse', input: [reason(true)] },
      { name: 'suspend', label: { en_US: 'Suspend (carrier)', zh_CN: '停机（运营商）' }, from: ['inUse', 'paused'], to: 'suspended', input: [reason(true)], danger: true },
      {
        name: 'retire',
        label: { en_US: 'Retire', zh_CN: '销户' },
        from: ['silent', 'inUse', 'paused', 'suspended'],
        to: 'obsolete',
        input: [reason(true)],
        confirm: { en_US: 'Retire {label}? The carrier cancels the card for good.', zh_CN: '确认销户 {label}？运营商将永久注销该卡。' },
        danger: true,
      },
    ],
  },
})
