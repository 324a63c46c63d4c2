import { PRODUCT_CATALOGUE } from './owners'
import { defineEntity } from '../entity/define'
import type { EnumOption } from '../entity/types'
import { COMMAND_STATUSES, COMMANDS, FUNCTION_COMMANDS, SERIAL_RANGES_PATTERN, SN_PATTERN } from '../iot/protocol'
import { createTime, idField, remark, status } from './common-fields'

// The IoT area (SPEC §3): product models, the functions a model offers, the devices, and what the
// gateway records of them (commands and messages). Device state fields are the gateway's: read-only here.

const DEVICE_STATE_OPTIONS: readonly EnumOption[] = [
  { value: 'inactive', label: { en_US: 'Inactive', zh_CN: '未激活' }, color: 'default' },
  { value: 'online', label: { en_US: 'Online', zh_CN: '在线' }, color: 'processing' },
  { value: 'offline', label: { en_US: 'Offline', zh_CN: '离线' }, color: 'warning' },
  { value: 'activated', label: { en_US: 'Activated', zh_CN: '已激活' }, color: 'success' },
  { value: 'activatedOffline', label: { en_US: 'Activated, offline', zh_CN: '已激活离线' }, color: 'orange' },
]

const THEFT_OPTIONS: readonly EnumOption[] = [
  { value: 'normal', label: { en_US: 'Not reported', zh_CN: '未报失窃' }, color: 'default' },
  { value: 'stolen', label: { en_US: 'Stolen', zh_CN: '失窃' }, color: 'red' },
]

const THEFT_RECORD_OPTIONS: readonly EnumOption[] = [
  { value: 'stolen', label: { en_US: 'Stolen', zh_CN: '失窃中' }, color: 'red' },
  { value: 'recovered', label: { en_US: 'Recovered', zh_CN: '已找回' }, color: 'success' },
]

/** Why a device is reported stolen or recovered: kept in its theft record and the operation log. */
const theftReason = { name: 'reason', kind: 'longText', max: 500, required: true, label: { en_US: 'Reason', zh_CN: '原因' } } as const

const COMMAND_STATUS_OPTIONS: readonly EnumOption[] = COMMAND_STATUSES.map((value) => ({
  value,
  label: {
    queued: { en_US: 'Queued', zh_CN: '排队中' },
    sent: { en_US: 'Sent', zh_CN: '已发送' },
    delivered: { en_US: 'Delivered', zh_CN: '已送达' },
    succeeded: { en_US: 'Succeeded', zh_CN: '成功' },
    failed: { en_US: 'Failed', zh_CN: '失败' },
    timedOut: { en_US: 'Timed out', zh_CN: '超时' },
    expired: { en_US: 'Expired', zh_CN: '已过期' },
  }[value],
  color: { queued: 'default', sent: 'processing', delivered: 'cyan', succeeded: 'success', failed: 'error', timedOut: 'warning', expired: 'default' }[value],
}))

const commandOptions = (names: readonly string[]): EnumOption[] =>
  names.map((name) => ({ value: name, label: COMMANDS.find((c) => c.name === name)!.label }))

export const iotModel = defineEntity({
  key: 'iotModel',
  table: 'iotModel',
  path: '/iot/model',
  permission: 'iot:model',
  label: { en_US: 'IoT model', zh_CN: '设备型号' },
  singular: { en_US: 'IoT model', zh_CN: '设备型号' },
  idField: 'modelId',
  labelField: 'name',
  defaultSort: { field: 'modelId', order: 'desc' },
  scope: PRODUCT_CATALOGUE,
  // Signs devices' self-registration (POST /iot/register); never listed.
  storage: { columns: [{ name: 'registrationKey', kind: 'text', max: 64, required: true, secret: true }] },
  fields: [
    idField('modelId'),
    { name: 'productId', kind: 'text', label: { en_US: 'Product ID', zh_CN: '产品ID' }, required: true, unique: true, max: 64, pattern: /^[A-Za-z0-9_-]+$/, patternMessage: { en_US: 'Product ID may use letters, digits, - and _', zh_CN: '产品ID只能使用字母、数字、- 和 _' }, search: 'like', sort: true, immutable: true },
    { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, required: true, max: 100, search: 'like', sort: true },
    { name: 'provider', kind: 'text', label: { en_US: 'Provider', zh_CN: '供应商' }, max: 100, default: '', search: 'like' },
    { name: 'tag', kind: 'text', label: { en_US: 'Tag', zh_CN: '标签' }, max: 50, default: '' },
    { name: 'productCode', kind: 'letterCode', max: 2, label: { en_US: 'Product code', zh_CN: '产品代码' }, required: true, search: 'eq' },
    {
      name: 'snPrefix',
      kind: 'text',
      label: { en_US: 'IoT SN prefix code', zh_CN: '设备SN前缀' },
      required: true,
      max: 8,
      pattern: /^[A-Z0-9]{1,8}$/,
      patternMessage: { en_US: 'SN prefix: 1 to 8 upper-case letters or digits', zh_CN: 'SN前缀：1 到 8 位大写字母或数字' },
      help: { en_US: 'Serial numbers of this model start with it', zh_CN: '该型号设备序列号以此开头' },
    },
    {
      name: 'registrationSerials',
      kind: 'text',
      label: { en_US: 'Self-registration serials', zh_CN: '可自注册序列号' },
      max: 1000,
      default: '',
      list: false,
      pattern: SERIAL_RANGES_PATTERN,
      patternMessage: { en_US: 'Serials: ranges VL000100-VL000199, single SNs or a prefix VL*, comma-separated', zh_CN: '序列号：区间 VL000100-VL000199、单个 SN 或前缀 VL*，用逗号分隔' },
      help: {
        en_US: "The serials the factory made: only these may register themselves with the model's key, each once. Empty: none may (devices added here or imported need no registration)",
        zh_CN: '工厂已生产的序列号：只有这些设备可用型号的注册密钥自行注册，每个一次。留空则都不可（在此添加或导入的设备无需注册）',
      },
    },
    { name: 'supportsAudio', kind: 'boolean', label: { en_US: 'Supports audio', zh_CN: '支持音频' }, default: false, search: 'eq' },
    { name: 'bikeModels', kind: 'text', label: { en_US: 'Supported bike models', zh_CN: '适配车型' }, max: 500, default: '', help: { en_US: 'Comma-separated', zh_CN: '用逗号分隔' } },
    status,
    remark,
    createTime,
  ],
})

export const iotFunction = defineEntity({
  key: 'iotFunction',
  table: 'iotFunction',
  path: '/iot/function',
  permission: 'iot:function',
  label: { en_US: 'IoT function', zh_CN: '设备功能' },
  singular: { en_US: 'IoT function', zh_CN: '设备功能' },
  idField: 'functionId',
  labelField: 'name',
  defaultSort: { field: 'functionId', order: 'asc' },
  scope: PRODUCT_CATALOGUE,
  fields: [
    idField('functionId'),
    { name: 'name', kind: 'text', label: { en_US: 'IoT function name', zh_CN: '功能名称' }, required: true, unique: true, max: 100, search: 'like', sort: true },
    { name: 'command', kind: 'enum', options: commandOptions(FUNCTION_COMMANDS), max: 32, label: { en_US: 'Command', zh_CN: '指令' }, required: true, search: 'eq', help: { en_US: 'The device command this function unlocks', zh_CN: '该功能开放的设备指令' } },
    { name: 'description', kind: 'longText', label: { en_US: 'Description', zh_CN: '描述' }, max: 500, default: '' },
    { name: 'modelIds', kind: 'referenceMany', entity: 'iotModel', through: { table: 'iotFunctionModel', from: 'functionId', to: 'modelId' }, label: { en_US: 'Supported models', zh_CN: '支持型号' }, required: true },
    { name: 'firmwareVersions', kind: 'text', label: { en_US: 'Firmware versions', zh_CN: '固件版本' }, required: true, max: 200, help: { en_US: 'e.g. 1.2.0 and later, or a list', zh_CN: '例如 1.2.0 及以上，或版本列表' } },
    { name: 'minAppVersion', kind: 'version', label: { en_US: 'Minimum app version', zh_CN: '最低App版本' }, nullable: true },
    status,
    createTime,
  ],
})

export const iotDevice = defineEntity({
  key: 'iotDevice',
  table: 'iotDevice',
  path: '/iot/device',
  permission: 'iot:device',
  label: { en_US: 'IoT device', zh_CN: '物联网设备' },
  singular: { en_US: 'IoT device', zh_CN: '物联网设备' },
  idField: 'deviceId',
  labelField: 'sn',
  // Devices change as they report: 'device' events of the IoT stream carry the new state.
  live: { stream: '/iot/stream', event: 'device' },
  defaultSort: { field: 'deviceId', order: 'desc' },
  scope: { heldBy: { entity: 'bike', field: 'iotDeviceId' } },
  // The device is the maker's; its last position while the rider had the bike is theirs.
  rider: { by: { device: 'deviceId' }, erase: 'anonymise' },
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export', 'import'],
  storage: {
    columns: [
      // SHA-256 of a 256-bit random secret (iot/device-auth.ts).
      { name: 'secretHash', kind: 'text', max: 64, nullable: true, secret: true },
      { name: 'online', kind: 'boolean', default: false },
      { name: 'activated', kind: 'boolean', default: false },
      { name: 'simUsedMb', kind: 'number' },
      { name: 'simLimitMb', kind: 'number' },
      // What the bike's other parts run and are, as the IoT module reads them off the bike's bus
      // (status `parts`): the OTA rollout targets and checks them (issue 18).
      { name: 'displayVersion', kind: 'text', max: 32, nullable: true },
      { name: 'displayHardware', kind: 'text', max: 32, nullable: true },
      { name: 'bmsVersion', kind: 'text', max: 32, nullable: true },
      { name: 'bmsHardware', kind: 'text', max: 32, nullable: true },
      { name: 'ecuVersion', kind: 'text', max: 32, nullable: true },
      { name: 'ecuHardware', kind: 'text', max: 32, nullable: true },
    ],
    indexes: [
      { columns: ['state'] },
      { name: 'iot_device_model', columns: ['modelId'] },
      { name: 'iot_device_online_seen', columns: ['online', 'lastSeenAt'] },
    ],
  },
  // A stolen bike is being tracked: deleting its device would end that and lose its theft record.
  states: [{ when: { field: 'theft', is: ['stolen'] }, delete: false, reason: { en_US: 'it is reported stolen (mark it recovered first)', zh_CN: '已报失窃（请先标记为已找回）' } }],
  // Each time it was reported stolen, to its recovery (stolen mode): who, why, when.
  related: [{ entity: 'iotTheft', by: 'deviceId', columns: ['status', 'reportedAt', 'reportedBy', 'reason', 'recoveredAt', 'recoveredBy', 'recoveryReason'] }],
  fields: [
    idField('deviceId'),
    { name: 'sn', kind: 'text', label: { en_US: 'SN', zh_CN: 'SN' }, required: true, unique: true, immutable: true, max: 32, pattern: SN_PATTERN, patternMessage: { en_US: 'SN: 4 to 32 upper-case letters or digits', zh_CN: 'SN：4 到 32 位大写字母或数字' }, search: 'like', sort: true },
    { name: 'uuid', kind: 'text', label: { en_US: 'UUID', zh_CN: 'UUID' }, max: 36, required: true, readOnly: true, list: false },
    { name: 'modelId', kind: 'reference', entity: 'iotModel', label: { en_US: 'Product model', zh_CN: '产品型号' }, required: true, search: 'eq' },
    { name: 'state', kind: 'enum', options: DEVICE_STATE_OPTIONS, max: 16, default: 'inactive', label: { en_US: 'State', zh_CN: '状态' }, readOnly: true, search: 'in', sort: true },
    { name: 'lastSeenAt', kind: 'datetime', label: { en_US: 'Last seen', zh_CN: '最后在线' }, readOnly: true, sort: true, search: 'range' },
    { name: 'firmwareVersion', kind: 'text', label: { en_US: 'Software/firmware version', zh_CN: '软件/固件版本' }, max: 32, readOnly: true, search: 'eq', sort: true },
    { name: 'hardwareVersion', kind: 'text', label: { en_US: 'Hardware version', zh_CN: '硬件版本' }, max: 32, readOnly: true },
    { name: 'configVersion', kind: 'text', label: { en_US: 'Config version', zh_CN: '配置版本' }, max: 32, readOnly: true },
    { name: 'thingModel', kind: 'text', label: { en_US: 'Thing model', zh_CN: '物模型' }, max: 64, default: '' },
    {
      name: 'flowState',
      kind: 'enum',
      options: [
        { value: 'normal', label: { en_US: 'Normal', zh_CN: '正常' }, color: 'success' },
        { value: 'warning', label: { en_US: 'Warning', zh_CN: '预警' }, color: 'error' },
      ],
      label: { en_US: 'Flow state', zh_CN: '流量状态' },
      max: 8,
      default: 'normal',
      readOnly: true,
      search: 'eq',
    },
    {
      name: 'bindState',
      kind: 'enum',
      options: [
        { value: 'unbound', label: { en_US: 'Unbound', zh_CN: '未绑定' }, color: 'default' },
        { value: 'bound', label: { en_US: 'Bound', zh_CN: '已绑定' }, color: 'success' },
      ],
      label: { en_US: 'Bind state', zh_CN: '绑定状态' },
      max: 8,
      default: 'unbound',
      readOnly: true,
      search: 'eq',
    },
    { name: 'simNumber', kind: 'text', label: { en_US: 'SIM number (ICCID)', zh_CN: 'SIM卡号' }, max: 22, readOnly: true, search: 'like' },
    {
      name: 'transportMode',
      kind: 'enum',
      options: [
        { value: 'off', label: { en_US: 'Off', zh_CN: '关闭' }, color: 'default' },
        { value: 'on', label: { en_US: 'On', zh_CN: '开启' }, color: 'blue' },
      ],
      label: { en_US: 'Transport mode', zh_CN: '运输模式' },
      default: 'off',
      readOnly: true,
    },
    { name: 'remainingFlow', kind: 'number', label: { en_US: 'Remaining flow (MB)', zh_CN: '剩余流量(MB)' }, readOnly: true, sort: true },
    { name: 'battery', kind: 'number', label: { en_US: 'Battery %', zh_CN: '电量%' }, readOnly: true, sort: true },
    { name: 'signal', kind: 'number', label: { en_US: 'Signal (dBm)', zh_CN: '信号(dBm)' }, readOnly: true, list: false },
    { name: 'latitude', kind: 'number', label: { en_US: 'Latitude', zh_CN: '纬度' }, readOnly: true, list: false, personal: 'location' },
    { name: 'longitude', kind: 'number', label: { en_US: 'Longitude', zh_CN: '经度' }, readOnly: true, list: false, personal: 'location' },
    { name: 'activatedAt', kind: 'datetime', label: { en_US: 'Activated', zh_CN: '激活时间' }, readOnly: true, list: false },
    // Moved only by the Report stolen and Recovered actions (modules/iot/stolen.ts): the list's filter and the actions' state.
    { name: 'theft', kind: 'enum', options: THEFT_OPTIONS, max: 8, default: 'normal', label: { en_US: 'Theft', zh_CN: '失窃状态' }, readOnly: true, search: 'eq' },
    remark,
    createTime,
  ],
  actions: [
    {
      name: 'reportStolen',
      label: { en_US: 'Report stolen', zh_CN: '报告失窃' },
      on: 'row',
      mode: 'sync',
      permission: 'iot:device:stolen',
      when: { field: 'theft', is: ['normal'] },
      danger: true,
      input: [theftReason],
      notes: [
        {
          text: {
            en_US: 'The device is pushed a tracking configuration (GPS and trace reports every few seconds) and a Reported stolen warning stays active until Recovered; the rider is told. An offline device gets it when it connects.',
            zh_CN: '将向设备下发跟踪配置（每隔几秒上报 GPS 与轨迹），“已报失窃”告警在标记找回前一直有效，并通知骑行者。离线设备在连接后收到配置。',
          },
        },
      ],
    },
    {
      name: 'recovered',
      label: { en_US: 'Recovered', zh_CN: '已找回' },
      on: 'row',
      mode: 'sync',
      permission: 'iot:device:stolen',
      when: { field: 'theft', is: ['stolen'] },
      input: [theftReason],
      notes: [
        {
          text: {
            en_US: 'The configuration the device ran before it was reported stolen is pushed back, and the Reported stolen warning is cleared.',
            zh_CN: '将重新下发设备报告失窃前运行的配置，并清除“已报失窃”告警。',
          },
        },
      ],
    },
    {
      // The conformance kit (docs/iot-protocol.md › Checking a device): a scripted plan against this one
      // device, run in the server that holds the broker connection; its report is the job's result.
      name: 'conformance',
      label: { en_US: 'Conformance check', zh_CN: '协议一致性检查' },
      on: 'row',
      mode: 'job',
      permission: 'iot:device:conformance',
      input: [
        {
          name: 'waitSeconds',
          kind: 'number',
          int: true,
          min: 1,
          max: 300,
          default: 30,
          label: { en_US: 'Wait for each answer (s)', zh_CN: '每项等待时间(秒)' },
          help: { en_US: 'How long the kit waits for each answer of the device before the clause fails', zh_CN: '每项检查等待设备应答的时长，超时则该项不通过' },
        },
      ],
      confirm: {
        en_US: 'Check "{label}" against the device protocol? The kit reboots it, drops its connection twice, pushes a configuration it must refuse and offers it a test audio file.',
        zh_CN: '确定按设备协议检查“{label}”吗？检查会重启设备、两次断开其连接、下发一项应被拒绝的配置，并向其提供一个测试音频文件。',
      },
    },
  ],
})

/** Commands sent to devices, with their outcome: the gateway writes them; people read them. */
export const iotCommand = defineEntity({
  key: 'iotCommand',
  table: 'iotCommand',
  path: '/iot/command',
  permission: 'iot:device',
  label: { en_US: 'Device command', zh_CN: '设备指令' },
  singular: { en_US: 'device command', zh_CN: '设备指令' },
  idField: 'commandId',
  labelField: 'requestId',
  defaultSort: { field: 'commandId', order: 'desc' },
  scope: { via: 'deviceId' },
  operations: ['list', 'get', 'export'],
  storage: {
    columns: [
      { name: 'deliveredAt', kind: 'datetime' },
      // sent_at + timeout: when a sent command without a final reply times out.
      { name: 'deadlineAt', kind: 'datetime' },
    ],
    indexes: [
      { name: 'iot_command_device_status', columns: ['deviceId', 'status'] },
      { name: 'iot_command_status_deadline', columns: ['status', 'deadlineAt'] },
    ],
  },
  fields: [
    idField('commandId'),
    { name: 'requestId', kind: 'text', label: { en_US: 'Request ID', zh_CN: '请求ID' }, max: 64, required: true, unique: true, readOnly: true, search: 'eq' },
    { name: 'deviceId', kind: 'reference', entity: 'iotDevice', label: { en_US: 'Device', zh_CN: '设备' }, required: true, readOnly: true, search: 'eq' },
    { name: 'command', kind: 'enum', options: commandOptions(COMMANDS.map((c) => c.name)), max: 32, label: { en_US: 'Command', zh_CN: '指令' }, required: true, readOnly: true, search: 'eq' },
    { name: 'params', kind: 'longText', label: { en_US: 'Parameters', zh_CN: '参数' }, default: '{}', readOnly: true },
    { name: 'status', kind: 'enum', options: COMMAND_STATUS_OPTIONS, max: 12, label: { en_US: 'Status', zh_CN: '状态' }, required: true, readOnly: true, search: 'in' },
    { name: 'reply', kind: 'longText', label: { en_US: 'Reply', zh_CN: '回复' }, nullable: true, readOnly: true },
    { name: 'roundTripMs', kind: 'number', int: true, duration: 'ms', label: { en_US: 'Round trip', zh_CN: '往返耗时' }, readOnly: true, sort: true },
    { name: 'timeoutSeconds', kind: 'number', int: true, duration: 's', label: { en_US: 'Timeout', zh_CN: '超时' }, required: true, readOnly: true, list: false },
    { name: 'sentAt', kind: 'datetime', label: { en_US: 'Sent', zh_CN: '发送时间' }, readOnly: true, list: false },
    { name: 'repliedAt', kind: 'datetime', label: { en_US: 'Replied', zh_CN: '回复时间' }, readOnly: true, list: false },
    { name: 'expiresAt', kind: 'datetime', label: { en_US: 'Expires', zh_CN: '过期时间' }, required: true, readOnly: true, list: false },
    { name: 'createBy', kind: 'text', label: { en_US: 'Sent by', zh_CN: '发送人' }, max: 64, readOnly: true },
    { ...createTime, search: 'range' },
  ],
})

/** What devices said and were told, for the device detail and debugging (heartbeats are not kept). */
export const iotMessage = defineEntity({
  key: 'iotMessage',
  table: 'iotMessage',
  path: '/iot/message',
  permission: 'iot:device',
  label: { en_US: 'Device message', zh_CN: '设备消息' },
  singular: { en_US: 'device message', zh_CN: '设备消息' },
  idField: 'messageId',
  labelField: 'topic',
  defaultSort: { field: 'messageId', order: 'desc' },
  scope: { via: 'deviceId' },
  // Positions inside payloads, from the time the rider had the bike.
  rider: { by: { device: 'deviceId', since: 'createTime' }, erase: 'anonymise' },
  operations: ['list', 'get', 'export'],
  storage: {
    audited: false,
    indexes: [
      { name: 'iot_message_device', columns: ['deviceId', 'messageId'] },
      { name: 'iot_message_time', columns: ['createTime'] },
    ],
  },
  fields: [
    idField('messageId'),
    { name: 'deviceId', kind: 'reference', entity: 'iotDevice', label: { en_US: 'Device', zh_CN: '设备' }, readOnly: true, search: 'eq' },
    {
      name: 'direction',
      kind: 'enum',
      options: [
        { value: 'up', label: { en_US: 'Up', zh_CN: '上行' }, color: 'green' },
        { value: 'down', label: { en_US: 'Down', zh_CN: '下行' }, color: 'blue' },
      ],
      label: { en_US: 'Direction', zh_CN: '方向' },
      required: true,
      readOnly: true,
      search: 'eq',
    },
    { name: 'kind', kind: 'text', label: { en_US: 'Kind', zh_CN: '类型' }, max: 16, required: true, readOnly: true, search: 'eq' },
    { name: 'topic', kind: 'text', label: { en_US: 'Topic', zh_CN: '主题' }, max: 255, required: true, readOnly: true },
    // A telemetry report's position (gps) is the rider's: masked in the payload for whoever may not see positions.
    { name: 'payload', kind: 'longText', label: { en_US: 'Payload', zh_CN: '内容' }, required: true, readOnly: true, personalKeys: { category: 'location', keys: ['gps'] } },
    { ...createTime, label: { en_US: 'Time', zh_CN: '时间' } },
  ],
})

/**
 * One time a device was reported stolen, to its recovery: who said so, why and when, and the
 * configuration it ran before, which Recovered pushes back (modules/iot/stolen.ts writes them).
 */
export const iotTheft = defineEntity({
  key: 'iotTheft',
  table: 'iotTheft',
  path: '/iot/theft',
  permission: 'iot:device',
  label: { en_US: 'Theft reports', zh_CN: '失窃记录' },
  singular: { en_US: 'theft report', zh_CN: '失窃记录' },
  idField: 'theftId',
  labelField: 'theftId',
  defaultSort: { field: 'theftId', order: 'desc' },
  scope: { via: 'deviceId' },
  operations: ['list', 'get', 'export'],
  storage: { audited: false, indexes: [{ name: 'iot_theft_device', columns: ['deviceId', 'status'] }] },
  fields: [
    idField('theftId'),
    { name: 'deviceId', kind: 'reference', entity: 'iotDevice', label: { en_US: 'Device', zh_CN: '设备' }, required: true, readOnly: true, search: 'eq' },
    { name: 'status', kind: 'enum', options: THEFT_RECORD_OPTIONS, max: 10, default: 'stolen', label: { en_US: 'Status', zh_CN: '状态' }, readOnly: true, search: 'eq' },
    { name: 'reason', kind: 'text', max: 500, label: { en_US: 'Reason reported', zh_CN: '报失原因' }, readOnly: true },
    { name: 'reportedBy', kind: 'text', max: 64, label: { en_US: 'Reported by', zh_CN: '报告人' }, readOnly: true },
    { name: 'reportedAt', kind: 'datetime', label: { en_US: 'Reported', zh_CN: '报告时间' }, required: true, readOnly: true, sort: true, search: 'range' },
    { name: 'previousConfigId', kind: 'reference', entity: 'iotConfig', label: { en_US: 'Template before', zh_CN: '报失前配置模板' }, readOnly: true, list: false },
    { name: 'previousVersion', kind: 'text', max: 32, label: { en_US: 'Config version before', zh_CN: '报失前配置版本' }, readOnly: true, list: false },
    { name: 'previousValues', kind: 'longText', label: { en_US: 'Configuration before', zh_CN: '报失前配置' }, readOnly: true, list: false },
    { name: 'recoveryReason', kind: 'text', max: 500, label: { en_US: 'Reason recovered', zh_CN: '找回说明' }, readOnly: true },
    { name: 'recoveredBy', kind: 'text', max: 64, label: { en_US: 'Recovered by', zh_CN: '找回操作人' }, readOnly: true },
    { name: 'recoveredAt', kind: 'datetime', label: { en_US: 'Recovered', zh_CN: '找回时间' }, readOnly: true, sort: true },
  ],
})
