import { CONSOLE_RECORDS, PRODUCTION } from './owners'
import { defineEntity } from '../entity/define'
import type { EnumOption } from '../entity/types'
import { createTime, idField, remark, status } from './common-fields'

// The factory's production-line tool (SPEC §3): its accounts, and the devices registered and tested
// on the line through the tool API (modules/tool). Only the tool API writes the devices.

const USER_TYPE_OPTIONS: readonly EnumOption[] = [
  { value: 'production', label: { en_US: 'Production', zh_CN: '生产' }, color: 'blue' },
  { value: 'test', label: { en_US: 'Test', zh_CN: '测试' }, color: 'orange' },
]

const TEST_RESULT_OPTIONS: readonly EnumOption[] = [
  { value: 'pending', label: { en_US: 'Pending', zh_CN: '待测试' }, color: 'default' },
  { value: 'passed', label: { en_US: 'Passed', zh_CN: '通过' }, color: 'success' },
  { value: 'failed', label: { en_US: 'Failed', zh_CN: '未通过' }, color: 'error' },
]

const userType = {
  name: 'userType',
  kind: 'enum',
  options: USER_TYPE_OPTIONS,
  max: 16,
  label: { en_US: 'User type', zh_CN: '用户类型' },
  default: 'production',
  search: 'eq',
} as const

export const toolUser = defineEntity({
  key: 'toolUser',
  table: 'toolUser',
  path: '/tool/user',
  permission: 'tool:user',
  label: { en_US: 'Tool users', zh_CN: '工具用户' },
  singular: { en_US: 'tool user', zh_CN: '工具用户' },
  idField: 'toolUserId',
  labelField: 'email',
  defaultSort: { field: 'toolUserId', order: 'desc' },
  scope: PRODUCTION,
  // Counts the password changes: a tool token remembers the count it was opened under, so a new password ends the old tokens.
  storage: { columns: [{ name: 'sessionGeneration', kind: 'number', int: true, default: 0 }] },
  actions: [
    {
      name: 'resetPassword',
      label: { en_US: 'Reset password', zh_CN: '重置密码' },
      on: 'row',
      input: [
        {
          name: 'password',
          kind: 'password',
          label: { en_US: 'New password', zh_CN: '新密码' },
          required: true,
          help: { en_US: '6 to 20 letters, digits and special characters; the tool signs in again', zh_CN: '6 到 20 位字母、数字和特殊字符；工具需重新登录' },
        },
      ],
      confirm: { en_US: 'Set a new password for {label}? The tool signed in with the old one is signed out.', zh_CN: '为 {label} 设置新密码？用旧密码登录的工具将退出登录。' },
    },
  ],
  fields: [
    idField('toolUserId'),
    { name: 'companyName', kind: 'text', label: { en_US: 'Company name', zh_CN: '公司名称' }, required: true, max: 100, search: 'like', sort: true },
    { name: 'email', kind: 'email', label: { en_US: 'Email', zh_CN: '邮箱' }, required: true, unique: true, search: 'like', sort: true },
    {
      name: 'password',
      kind: 'password',
      label: { en_US: 'Password', zh_CN: '密码' },
      required: true,
      help: { en_US: '6 to 20 letters, digits and special characters', zh_CN: '6 到 20 位字母、数字和特殊字符' },
    },
    { ...status, label: { en_US: 'Status', zh_CN: '状态' } },
    { ...userType, required: true },
    { name: 'loginIp', kind: 'text', label: { en_US: 'Last sign-in IP', zh_CN: '最后登录IP' }, max: 128, nullable: true, readOnly: true },
    { name: 'loginTime', kind: 'datetime', label: { en_US: 'Last sign-in', zh_CN: '最后登录时间' }, readOnly: true, sort: true },
    remark,
    createTime,
  ],
})

/** A device registered on the line through the tool API, with its end-of-line test. */
export const toolDevice = defineEntity({
  key: 'toolDevice',
  table: 'toolDevice',
  path: '/tool/iot',
  permission: 'tool:iot',
  label: { en_US: 'Tool-system IoT', zh_CN: '工具系统设备' },
  singular: { en_US: 'tool-system device', zh_CN: '工具系统设备' },
  idField: 'toolDeviceId',
  labelField: 'sn',
  defaultSort: { field: 'toolDeviceId', order: 'desc' },
  scope: PRODUCTION,
  operations: ['list', 'get', 'export'],
  storage: {
    audited: false,
    indexes: [{ columns: ['operatorId', 'toolDeviceId'] }, { columns: ['userType', 'toolDeviceId'] }],
  },
  fields: [
    idField('toolDeviceId'),
    { name: 'deviceId', kind: 'reference', entity: 'iotDevice', carry: ['state'], label: { en_US: 'IoT device', zh_CN: '物联网设备' }, required: true, unique: true, readOnly: true },
    { name: 'sn', kind: 'text', label: { en_US: 'SN', zh_CN: 'SN' }, required: true, max: 32, readOnly: true, search: 'like', sort: true },
    { name: 'modelId', kind: 'reference', entity: 'iotModel', label: { en_US: 'Product model', zh_CN: '产品型号' }, required: true, readOnly: true, search: 'eq' },
    { name: 'operatorId', kind: 'reference', entity: 'toolUser', label: { en_US: 'Operator', zh_CN: '操作员' }, required: true, readOnly: true, search: 'eq' },
    { ...userType, required: true, readOnly: true },
    { name: 'registeredAt', kind: 'datetime', label: { en_US: 'Registered', zh_CN: '注册时间' }, required: true, readOnly: true, search: 'range', sort: true },
    { name: 'testResult', kind: 'enum', options: TEST_RESULT_OPTIONS, max: 8, default: 'pending', label: { en_US: 'Test result', zh_CN: '测试结果' }, readOnly: true, search: 'eq', sort: true },
    { name: 'pingMs', kind: 'number', int: true, duration: 'ms', label: { en_US: 'Command round trip', zh_CN: '指令往返' }, readOnly: true },
    { name: 'gnssSatellites', kind: 'number', int: true, label: { en_US: 'GNSS satellites', zh_CN: 'GNSS卫星数' }, readOnly: true },
    { name: 'gnssLatitude', kind: 'number', label: { en_US: 'GNSS latitude', zh_CN: 'GNSS纬度' }, readOnly: true, list: false },
    { name: 'gnssLongitude', kind: 'number', label: { en_US: 'GNSS longitude', zh_CN: 'GNSS经度' }, readOnly: true, list: false },
    { name: 'gnssAt', kind: 'datetime', label: { en_US: 'GNSS fix at', zh_CN: 'GNSS定位时间' }, readOnly: true, list: false },
    { name: 'simIccid', kind: 'text', label: { en_US: 'SIM attached (ICCID)', zh_CN: 'SIM附着(ICCID)' }, max: 22, readOnly: true },
    { name: 'testedAt', kind: 'datetime', label: { en_US: 'Tested', zh_CN: '测试时间' }, readOnly: true, search: 'range', sort: true },
    { name: 'failureReason', kind: 'text', label: { en_US: 'Failure reason', zh_CN: '失败原因' }, max: 500, readOnly: true },
  ],
})

const GEN_TEMPLATE_OPTIONS: readonly EnumOption[] = [
  { value: 'plain', label: { en_US: 'Plain list', zh_CN: '单表' }, color: 'blue' },
  { value: 'tree', label: { en_US: 'Tree', zh_CN: '树表' }, color: 'green' },
]

/**
 * A database table imported into code generation (Tool system › Code generation, modules/tool/gen):
 * how it becomes a module. Rows come from importing tables; the column settings are one document
 * (`config`, shared/src/tools/gen.ts genTableConfigSchema) saved by PUT /tool/gen/{id}, which
 * checks it whole. The engine serves the list, one row, delete and export.
 */
export const genTable = defineEntity({
  key: 'genTable',
  table: 'toolGenTable',
  path: '/tool/gen',
  permission: 'tool:gen',
  label: { en_US: 'Code generation', zh_CN: '代码生成' },
  singular: { en_US: 'imported table', zh_CN: '导入的表' },
  idField: 'tableId',
  labelField: 'tableName',
  defaultSort: { field: 'tableId', order: 'desc' },
  scope: CONSOLE_RECORDS,
  operations: ['list', 'get', 'remove', 'export'],
  fields: [
    idField('tableId'),
    { name: 'tableName', kind: 'text', label: { en_US: 'Table', zh_CN: '表名称' }, required: true, unique: true, max: 128, readOnly: true, search: 'like', sort: true },
    { name: 'tableComment', kind: 'text', label: { en_US: 'Table comment', zh_CN: '表描述' }, max: 500, readOnly: true, search: 'like' },
    { name: 'entityKey', kind: 'text', label: { en_US: 'Entity key', zh_CN: '实体名称' }, required: true, max: 63, readOnly: true, search: 'like', sort: true },
    { name: 'area', kind: 'text', label: { en_US: 'Menu area', zh_CN: '上级菜单' }, required: true, max: 32, readOnly: true },
    { name: 'template', kind: 'enum', options: GEN_TEMPLATE_OPTIONS, max: 8, default: 'plain', label: { en_US: 'Template', zh_CN: '生成模板' }, readOnly: true, search: 'eq' },
    { name: 'config', kind: 'longText', label: { en_US: 'Settings', zh_CN: '生成配置' }, required: true, readOnly: true, list: false, hidden: true, export: false },
    createTime,
    { name: 'updateTime', kind: 'datetime', label: { en_US: 'Updated', zh_CN: '更新时间' }, readOnly: true, sort: true },
  ],
})
