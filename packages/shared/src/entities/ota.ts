import { PRODUCT_CATALOGUE } from './owners'
import { defineEntity } from '../entity/define'
import type { DurationUnit } from '../duration'
import type { ColumnDef, EntityDef, EnumOption, FieldDef, IndexDef, Label } from '../entity/types'
import { ALARM_TYPE_OPTIONS } from '../iot/alarms'
import { OTA_COMMIT_SECONDS, OTA_DEVICE_STATE_OPTIONS, OTA_PART_LABELS, type OtaPart } from '../iot/ota'
import { createTime, idField, remark } from './common-fields'

/**
 * Firmware, audio and over-the-air upgrades for the four bike parts (issue 18; DOMAIN.md › OTA
 * rollouts). Each part has its own suppliers, products, firmware and upgrade campaigns, with its own
 * page and rights (SPEC §2 `/ota/{part}part/…`; the IoT module's firmware and upgrades are also
 * IoT › Firmware and IoT › IoT upgrade). They are slices of one table per concept (`slice`), so the
 * rollout, the block server and the dashboards read one table for every part.
 *
 * The rollout itself (waves, thresholds, rate, window, retries, the devices' reports) lives in the
 * server's modules/ota; these definitions give its tables, forms, lists and steps.
 */

const PART_COLUMN = 'partKind'
const partColumn: ColumnDef = { name: PART_COLUMN, kind: 'text', max: 8, required: true }
const sliceOf = (part: OtaPart) => ({ column: PART_COLUMN, value: part })

const menu = (part: OtaPart) => `${part}part`
/** The part's page rights: the IoT module's firmware and upgrades have IoT menu pages of their own. */
const partPermission = (part: OtaPart) => `ota:${menu(part)}`
const labelled = (part: OtaPart, en: string, zh: string): Label => ({ en_US: `${OTA_PART_LABELS[part].en_US} ${en}`, zh_CN: `${OTA_PART_LABELS[part].zh_CN}${zh}` })

const keys = (part: OtaPart) => ({
  supplier: `${part}PartSupplier`,
  product: `${part}PartProduct`,
  firmware: `${part}Firmware`,
  upgrade: `${part}Upgrade`,
  upgradeDevice: `${part}UpgradeDevice`,
})

const hex2 = { pattern: /^[0-9A-Fa-f]{2}$/, patternMessage: { en_US: 'CRC8: two hexadecimal digits, e.g. 5A', zh_CN: 'CRC8：两位十六进制数，如 5A' } }

function supplierOf(part: OtaPart): EntityDef {
  return {
    key: keys(part).supplier,
    table: 'otaSupplier',
    slice: sliceOf(part),
    path: `/ota/${menu(part)}/supplier`,
    permission: partPermission(part),
    label: labelled(part, 'suppliers', '供应商'),
    singular: { en_US: 'supplier', zh_CN: '供应商' },
    idField: 'supplierId',
    labelField: 'name',
    defaultSort: { field: 'supplierId', order: 'desc' },
    scope: PRODUCT_CATALOGUE,
    storage: { columns: [partColumn], indexes: [{ columns: [PART_COLUMN, 'supplierId'] }] },
    operations: ['list', 'get', 'add', 'edit', 'remove', 'export', 'import'],
    fields: [
      idField('supplierId'),
      { name: 'name', kind: 'text', label: { en_US: 'Supplier name', zh_CN: '供应商名称' }, required: true, max: 100, search: 'like', sort: true },
      { name: 'supplierCode', kind: 'letterCode', max: 2, label: { en_US: 'Supplier code', zh_CN: '供应商代码' }, required: true, search: 'eq' },
      { name: 'iotCode', kind: 'letterCode', max: 2, label: { en_US: 'IoT code', zh_CN: '物联网代码' }, required: true, search: 'eq' },
      { name: 'contact', kind: 'text', label: { en_US: 'Contact', zh_CN: '联系人' }, max: 100, default: '', list: false },
      remark,
      createTime,
    ],
    related: [{ entity: keys(part).product, by: 'supplierId', label: { en_US: 'Products', zh_CN: '产品' } }],
  }
}

function productOf(part: OtaPart): EntityDef {
  return {
    key: keys(part).product,
    table: 'otaProduct',
    slice: sliceOf(part),
    path: `/ota/${menu(part)}/product`,
    permission: partPermission(part),
    label: labelled(part, 'products', '产品'),
    singular: { en_US: 'product', zh_CN: '产品' },
    idField: 'productId',
    labelField: 'name',
    defaultSort: { field: 'productId', order: 'desc' },
    scope: PRODUCT_CATALOGUE,
    storage: { columns: [partColumn], indexes: [{ columns: [PART_COLUMN, 'productId'] }, { columns: ['supplierId'] }] },
    operations: ['list', 'get', 'add', 'edit', 'remove', 'export', 'import'],
    fields: [
      idField('productId'),
      { name: 'supplierId', kind: 'reference', entity: keys(part).supplier, label: { en_US: 'Supplier', zh_CN: '供应商' }, required: true, search: 'eq' },
      { name: 'name', kind: 'text', label: { en_US: 'Product name', zh_CN: '产品名称' }, required: true, max: 100, search: 'like', sort: true },
      { name: 'productCode', kind: 'letterCode', max: 2, label: { en_US: 'Product code', zh_CN: '产品代码' }, required: true, search: 'eq' },
      {
        name: 'hardwareRevision',
        kind: 'text',
        label: { en_US: 'Hardware revision', zh_CN: '硬件版本' },
        required: true,
        max: 32,
        pattern: /^[A-Za-z0-9._-]+$/,
        patternMessage: { en_US: 'Hardware revision: letters, digits, . _ and -', zh_CN: '硬件版本：字母、数字、. _ 和 -' },
        search: 'eq',
      },
      {
        name: 'bikeModelIds',
        kind: 'referenceMany',
        entity: 'bikeModel',
        through: { table: 'otaProductBikeModel', from: 'productId', to: 'modelId' },
        label: { en_US: 'Fits bike models', zh_CN: '适配车型' },
        search: 'eq',
      },
      remark,
      createTime,
    ],
  }
}

const MODULE_TYPES: readonly EnumOption[] = [
  { value: 'whole', label: { en_US: 'Whole pack', zh_CN: '整包' } },
  { value: 'core', label: { en_US: 'Core', zh_CN: '核心' } },
  { value: 'bluetooth', label: { en_US: 'Bluetooth', zh_CN: '蓝牙' } },
]

/** Image files a part's firmware comes as (the content is not sniffed: any bytes are firmware). */
const FIRMWARE_EXTENSIONS = ['bin', 'hex', 'img', 'fw', 'pkg', 'zip']
const FIRMWARE_MAX_BYTES = 64 * 1024 * 1024

function firmwareOf(part: OtaPart): EntityDef {
  const iot = part === 'iot'
  return {
    key: keys(part).firmware,
    table: 'otaFirmware',
    slice: sliceOf(part),
    path: iot ? '/iot/firmware' : `/ota/${menu(part)}/firmware`,
    permission: iot ? 'iot:firmware' : partPermission(part),
    label: iot ? { en_US: 'Firmware', zh_CN: '固件管理' } : labelled(part, 'firmware', '固件'),
    singular: { en_US: 'firmware', zh_CN: '固件' },
    idField: 'firmwareId',
    labelField: 'name',
    defaultSort: { field: 'firmwareId', order: 'desc' },
    scope: PRODUCT_CATALOGUE,
    operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
    storage: {
      columns: [
        partColumn,
        // The custom version as one number (major × 10⁶ + minor × 10³ + patch): versions compare and sort numerically.
        { name: 'versionNumber', kind: 'number', int: true, max: 999_999_999_999, required: true, default: 0 },
      ],
      indexes: [{ columns: [PART_COLUMN, 'firmwareId'] }, { columns: [PART_COLUMN, 'versionNumber'] }, { columns: ['supplierId'] }],
    },
    fields: [
      idField('firmwareId'),
      { name: 'name', kind: 'text', label: { en_US: 'Firmware name', zh_CN: '固件名称' }, required: true, max: 100, search: 'like', sort: true },
      {
        name: 'code',
        kind: 'text',
        label: { en_US: 'Unique code', zh_CN: '唯一编码' },
        required: true,
        unique: true,
        immutable: true,
        max: 64,
        pattern: /^[A-Za-z0-9._-]+$/,
        patternMessage: { en_US: 'Code: letters, digits, . _ and -', zh_CN: '编码：字母、数字、. _ 和 -' },
        search: 'eq',
      },
      { name: 'supplierId', kind: 'reference', entity: keys(part).supplier, label: { en_US: 'Supplier', zh_CN: '供应商' }, required: true, search: 'eq' },
      { name: 'productId', kind: 'reference', entity: keys(part).product, within: 'supplierId', label: { en_US: 'Product', zh_CN: '产品' }, required: true, search: 'eq' },
      { name: 'moduleType', kind: 'enum', options: MODULE_TYPES, default: 'whole', label: { en_US: 'Module type', zh_CN: '模块类型' }, search: 'eq' },
      { name: 'hasBluetooth', kind: 'boolean', default: false, label: { en_US: 'Has Bluetooth module', zh_CN: '含蓝牙模块' }, list: false },
      { name: 'originalVersion', kind: 'text', max: 64, default: '', label: { en_US: 'Original version', zh_CN: '原始版本' }, help: { en_US: "The supplier's own version name", zh_CN: '供应商自己的版本名' }, list: false },
      {
        name: 'customVersion',
        kind: 'version',
        label: { en_US: 'Custom version', zh_CN: '自定义版本' },
        required: true,
        search: 'eq',
        sort: true,
        sortBy: 'versionNumber',
        help: { en_US: 'Format 0.0.0, at most 999.999.999; compared numerically (1.10.0 is newer than 1.9.0)', zh_CN: '格式 0.0.0，最大 999.999.999；按数值比较（1.10.0 新于 1.9.0）' },
      },
      { name: 'protocolVersion', kind: 'text', max: 16, default: '1', label: { en_US: 'Protocol version', zh_CN: '协议版本' }, list: false },
      {
        name: 'hardwareRevisions',
        kind: 'text',
        max: 200,
        default: '',
        label: { en_US: 'Hardware revisions', zh_CN: '适用硬件版本' },
        help: { en_US: "Comma-separated; empty: the product's revision", zh_CN: '用逗号分隔；留空则为产品的硬件版本' },
        list: false,
      },
      {
        name: 'file',
        kind: 'file',
        accept: FIRMWARE_EXTENSIONS,
        maxBytes: FIRMWARE_MAX_BYTES,
        label: { en_US: 'Firmware file', zh_CN: '固件文件' },
        required: true,
        list: false,
      },
      { name: 'size', kind: 'number', int: true, label: { en_US: 'Size (bytes)', zh_CN: '大小(字节)' }, readOnly: true, sort: true },
      { name: 'sha256', kind: 'text', max: 64, label: { en_US: 'SHA-256', zh_CN: 'SHA-256' }, readOnly: true, list: false, search: 'eq' },
      {
        name: 'crc8',
        kind: 'text',
        max: 2,
        ...hex2,
        label: { en_US: 'CRC8', zh_CN: 'CRC8' },
        help: { en_US: 'As the supplier declares it: a file whose CRC-8 differs is refused; empty: computed', zh_CN: '供应商声明的值：文件的 CRC-8 不符则拒绝；留空则自动计算' },
      },
      { name: 'crcVariant', kind: 'text', max: 32, label: { en_US: 'CRC-8 variant', zh_CN: 'CRC-8 算法' }, readOnly: true, list: false },
      { name: 'bleVersion', kind: 'text', max: 32, default: '', label: { en_US: 'BLE version', zh_CN: '蓝牙版本' }, list: false, when: { field: 'hasBluetooth', is: ['true'] } },
      { name: 'bleFile', kind: 'file', accept: FIRMWARE_EXTENSIONS, maxBytes: FIRMWARE_MAX_BYTES, label: { en_US: 'BLE file', zh_CN: '蓝牙文件' }, list: false, when: { field: 'hasBluetooth', is: ['true'] } },
      { name: 'gnssVersion', kind: 'text', max: 32, default: '', label: { en_US: 'GNSS version', zh_CN: 'GNSS 版本' }, list: false },
      { name: 'gnssFile', kind: 'file', accept: FIRMWARE_EXTENSIONS, maxBytes: FIRMWARE_MAX_BYTES, label: { en_US: 'GNSS file', zh_CN: 'GNSS 文件' }, list: false },
      { name: 'downloadUrl', kind: 'text', max: 500, label: { en_US: 'Download URL', zh_CN: '下载地址' }, readOnly: true, list: false },
      { name: 'serialNumber', kind: 'text', max: 64, default: '', label: { en_US: 'Serial number', zh_CN: '序列号' }, list: false, search: 'like' },
      {
        name: 'functionIds',
        kind: 'referenceMany',
        entity: 'iotFunction',
        through: { table: 'otaFirmwareFunction', from: 'firmwareId', to: 'functionId' },
        label: { en_US: 'Supported functions', zh_CN: '支持的功能' },
      },
      {
        name: 'minAppVersion',
        kind: 'version',
        label: { en_US: 'Minimum app version', zh_CN: '最低 App 版本' },
        readOnly: true,
        nullable: true,
        list: false,
        help: { en_US: 'The highest minimum app version of its functions', zh_CN: '其功能要求的最低 App 版本中的最高者' },
      },
      remark,
      createTime,
    ],
  }
}

const CAMPAIGN_STATUS_OPTIONS: readonly EnumOption[] = [
  { value: 'draft', label: { en_US: 'Draft', zh_CN: '草稿' }, color: 'default' },
  { value: 'awaitingApproval', label: { en_US: 'Awaiting approval', zh_CN: '待审批' }, color: 'warning' },
  { value: 'scheduled', label: { en_US: 'Scheduled', zh_CN: '已排期' }, color: 'processing' },
  { value: 'running', label: { en_US: 'Running', zh_CN: '升级中' }, color: 'processing' },
  { value: 'paused', label: { en_US: 'Paused', zh_CN: '已暂停' }, color: 'error' },
  { value: 'finished', label: { en_US: 'Finished', zh_CN: '已完成' }, color: 'success' },
  { value: 'cancelled', label: { en_US: 'Cancelled', zh_CN: '已取消' }, color: 'default' },
]

const PAYLOAD_OPTIONS: readonly EnumOption[] = [
  { value: 'firmware', label: { en_US: 'Firmware', zh_CN: '固件' } },
  { value: 'audio', label: { en_US: 'Audio', zh_CN: '音频' } },
]

/** Alarm types (iot/alarms.ts) the alarm-rate rule may count; by default those a firmware can plausibly cause. */
const ALARM_TYPES = ALARM_TYPE_OPTIONS.map((o) => o.value)
const DEFAULT_ALARM_TYPES = 'fault,offline,fall,theft'
const ALARM_TYPES_PATTERN = new RegExp(`^((${ALARM_TYPES.join('|')})(,(${ALARM_TYPES.join('|')}))*)?$`)

/** How a wave's success threshold takes its skipped devices. */
const SKIPPED_AS_OPTIONS: readonly EnumOption[] = [
  { value: 'leftOut', label: { en_US: 'Left out of the count', zh_CN: '不计入' } },
  { value: 'notUpgraded', label: { en_US: 'Count as not upgraded', zh_CN: '计为未升级' } },
]

const reason = (required: boolean): FieldDef => ({ name: 'reason', kind: 'longText', label: { en_US: 'Reason', zh_CN: '原因' }, max: 500, required })
const HHMM = { pattern: /^([01]\d|2[0-3]):[0-5]\d$/, patternMessage: { en_US: 'A time of day as HH:MM, e.g. 02:00', zh_CN: '时间格式 HH:MM，如 02:00' } }
const int = (name: string, en: string, zh: string, min: number, max: number, def: number | null, help?: Label): Extract<FieldDef, { kind: 'number' }> => ({
  name,
  kind: 'number',
  int: true,
  min,
  max,
  ...(def === null ? { nullable: true } : { default: def }),
  label: { en_US: en, zh_CN: zh },
  list: false,
  ...(help ? { help } : {}),
})

/** A whole number that is a duration in `unit`: its label leaves the unit out, the input and Excel name it. */
const span = (unit: DurationUnit, ...args: Parameters<typeof int>): FieldDef => ({ ...int(...args), duration: unit })

function upgradeOf(part: OtaPart): EntityDef {
  const iot = part === 'iot'
  const k = keys(part)
  const storageColumns: ColumnDef[] = [
    partColumn,
    // The alarms per 1,000 target bikes per day before the campaign started (the alarm-rate rule's baseline).
    { name: 'baselineAlarmRate', kind: 'number', nullable: true },
    // When it was last resumed or retried: the error and alarm-rate rules judge what happened since.
    { name: 'resumedAt', kind: 'datetime', nullable: true },
    // Of the IoT module only: a campaign may deploy an audio file instead of firmware.
    ...(iot
      ? []
      : ([
          { name: 'payload', kind: 'text', max: 8, required: true, default: 'firmware' },
          { name: 'audioId', kind: 'reference', nullable: true },
        ] satisfies ColumnDef[])),
  ]
  const payloadFields: FieldDef[] = iot
    ? [
        // What it deploys changes in a draft only (the state rules below): a revision may take another image.
        { name: 'payload', kind: 'enum', options: PAYLOAD_OPTIONS, default: 'firmware', max: 8, label: { en_US: 'Deploys', zh_CN: '升级内容' }, search: 'eq' },
        { name: 'audioId', kind: 'reference', entity: 'iotAudio', label: { en_US: 'Audio', zh_CN: '音频' }, when: { field: 'payload', is: ['audio'] } },
      ]
    : []
  return {
    key: k.upgrade,
    table: 'otaCampaign',
    slice: sliceOf(part),
    path: iot ? '/iot/upgrade' : `/ota/${menu(part)}/upgrade`,
    permission: iot ? 'iot:upgrade' : partPermission(part),
    label: iot ? { en_US: 'IoT upgrade', zh_CN: '设备升级' } : labelled(part, 'upgrades', '升级'),
    singular: { en_US: 'upgrade campaign', zh_CN: '升级任务' },
    idField: 'campaignId',
    labelField: 'name',
    defaultSort: { field: 'campaignId', order: 'desc' },
    scope: PRODUCT_CATALOGUE,
    operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
    storage: { columns: storageColumns, indexes: [{ columns: [PART_COLUMN, 'campaignId'] }, { columns: ['status'] }, { columns: ['firmwareId'] }] },
    fields: [
      idField('campaignId'),
      { name: 'name', kind: 'text', label: { en_US: 'Campaign name', zh_CN: '任务名称' }, required: true, max: 100, search: 'like', sort: true },
      { name: 'status', kind: 'enum', options: CAMPAIGN_STATUS_OPTIONS, max: 16, default: 'draft', label: { en_US: 'Status', zh_CN: '状态' }, search: 'in' },
      ...payloadFields,
      {
        name: 'firmwareId',
        kind: 'reference',
        entity: k.firmware,
        label: { en_US: 'Firmware', zh_CN: '固件' },
        search: 'eq',
        // Required of the other parts; nullable in the table all slices share (an IoT campaign may deploy audio).
        ...(iot ? { when: { field: 'payload', is: ['firmware'] } } : { required: true, nullable: true }),
      },
      { name: 'targetVersion', kind: 'text', max: 32, label: { en_US: 'Target version', zh_CN: '目标版本' }, readOnly: true },
      // Targets: the devices matching every filter given, or the listed devices.
      {
        name: 'modelIds',
        kind: 'referenceMany',
        entity: 'iotModel',
        through: { table: 'otaCampaignModel', from: 'campaignId', to: 'modelId' },
        label: { en_US: 'Device models', zh_CN: '设备型号' },
        list: false,
      },
      { name: 'productId', kind: 'reference', entity: k.product, label: { en_US: 'Part product', zh_CN: '部件产品' }, list: false },
      { name: 'hardwareRevision', kind: 'text', max: 32, default: '', label: { en_US: 'Hardware revision', zh_CN: '硬件版本' }, list: false },
      { name: 'fromVersionMin', kind: 'version', nullable: true, label: { en_US: 'Current version from', zh_CN: '当前版本从' }, list: false },
      { name: 'fromVersionMax', kind: 'version', nullable: true, label: { en_US: 'Current version up to', zh_CN: '当前版本至' }, list: false },
      {
        name: 'countryIds',
        kind: 'referenceMany',
        entity: 'country',
        through: { table: 'otaCampaignCountry', from: 'campaignId', to: 'countryId' },
        label: { en_US: 'Countries', zh_CN: '国家/地区' },
        list: false,
      },
      {
        name: 'deviceIds',
        kind: 'referenceMany',
        entity: 'iotDevice',
        through: { table: 'otaCampaignTarget', from: 'campaignId', to: 'deviceId' },
        label: { en_US: 'Device list', zh_CN: '设备清单' },
        help: { en_US: 'Only these devices (the filters above still apply)', zh_CN: '仅这些设备（上面的条件仍然适用）' },
        list: false,
      },
      {
        name: 'allowDowngrade',
        kind: 'boolean',
        default: false,
        alarm: true,
        label: { en_US: 'Allow downgrade', zh_CN: '允许降级' },
        help: { en_US: 'Devices running a newer version are skipped unless this is on', zh_CN: '未开启时跳过运行更新版本的设备' },
        list: false,
      },
      // The rollout.
      // The engine takes the count when one is given (targets.ts waveSizes): each label says which of the two applies.
      int('canaryPercent', 'Canary (%)', '灰度比例(%)', 0, 100, 10, {
        en_US: 'The first group as a share of the targets; applies only while Canary (devices) is empty',
        zh_CN: '第一批设备占目标的比例；仅在“灰度设备数”为空时生效',
      }),
      int('canaryCount', 'Canary (devices)', '灰度设备数', 1, 1_000_000, null, {
        en_US: 'The first group as a number of devices; when given, it applies and Canary (%) is ignored',
        zh_CN: '第一批设备的数量；填写后以此为准，忽略“灰度比例(%)”',
      }),
      int('waveCount', 'Waves after the canary', '灰度后的批次数', 1, 20, 3),
      int('successPercent', 'Success threshold (%)', '成功阈值(%)', 1, 100, 95, { en_US: 'Share of a wave that must succeed before the next starts', zh_CN: '一批成功达到该比例后开始下一批' }),
      int('errorPercent', 'Error threshold (%)', '失败阈值(%)', 1, 100, 10, { en_US: 'The campaign pauses itself when this share of a wave fails', zh_CN: '一批中失败达到该比例时任务自动暂停' }),
      int('errorCount', 'Error threshold (devices)', '失败阈值(台)', 1, 1_000_000, null, { en_US: 'A count instead of the share', zh_CN: '以数量代替比例' }),
      int('errorMinFinished', 'Judged after (devices finished)', '最少完成数后判断', 1, 10_000, 5),
      {
        name: 'alarmRateFactor',
        kind: 'number',
        min: 0,
        max: 100,
        default: 2,
        label: { en_US: 'Alarm rate limit (× before)', zh_CN: '告警率上限(倍)' },
        help: {
          en_US: 'Pauses when alarms per 1,000 upgraded bikes pass this multiple of the rate before the upgrade; 0: off',
          zh_CN: '每千台已升级车辆的告警数超过升级前的该倍数时暂停；0 为关闭',
        },
        list: false,
      },
      int('alarmMinCount', 'Alarms before the rate counts', '告警率判断的最少告警数', 1, 100_000, 5, {
        en_US: 'The alarm rate pauses the campaign only once the upgraded bikes raised at least this many alarms',
        zh_CN: '已升级车辆的告警数至少达到该数量后，告警率才会暂停任务',
      }),
      {
        name: 'alarmTypes',
        kind: 'text',
        max: 100,
        default: DEFAULT_ALARM_TYPES,
        pattern: ALARM_TYPES_PATTERN,
        patternMessage: { en_US: `Alarm types, comma-separated, of: ${ALARM_TYPES.join(', ')}`, zh_CN: `告警类型，用逗号分隔，可选：${ALARM_TYPES.join(', ')}` },
        label: { en_US: 'Alarm types that count', zh_CN: '计入的告警类型' },
        help: {
          en_US: `Comma-separated, of ${ALARM_TYPES.join(', ')}; empty: every type. Low battery and SIM data low rarely follow a firmware`,
          zh_CN: `用逗号分隔，可选 ${ALARM_TYPES.join(', ')}；留空为全部类型。低电量和流量不足很少由固件引起`,
        },
        list: false,
      },
      int('ratePerMinute', 'Devices notified per minute', '每分钟通知设备数', 0, 100_000, 0, {
        en_US: 'Spread over the minute (600: one every 0.1 s); 0: no limit',
        zh_CN: '均匀分布在一分钟内（600 即每 0.1 秒一台）；0 为不限',
      }),
      { name: 'startAt', kind: 'datetime', label: { en_US: 'Start time', zh_CN: '开始时间' }, sort: true },
      { name: 'windowStart', kind: 'text', max: 5, default: '', ...HHMM, label: { en_US: 'Daily window from', zh_CN: '每日窗口开始' }, help: { en_US: "Devices' local time; empty: any time", zh_CN: '设备当地时间；留空为不限' }, list: false },
      { name: 'windowEnd', kind: 'text', max: 5, default: '', ...HHMM, label: { en_US: 'Daily window to', zh_CN: '每日窗口结束' }, list: false },
      { name: 'randomOrder', kind: 'boolean', default: true, label: { en_US: 'Random order', zh_CN: '随机顺序' }, list: false },
      span('min', 'timeoutMinutes', 'Per-device timeout', '单台超时', 1, 10_080, 30),
      // The A/B contract (docs/ota.md › Commit or roll back): the offer carries it, the device rolls back by itself past it.
      span('s', 'commitSeconds', 'Commit deadline', '确认期限', OTA_COMMIT_SECONDS.min, OTA_COMMIT_SECONDS.max, OTA_COMMIT_SECONDS.default, {
        en_US: 'After rebooting into the new image a device has this long to pass its self-test and commit, or it rolls back; only a commit counts as success',
        zh_CN: '重启进入新镜像后，设备须在此时间内通过自检并确认，否则回滚；只有确认才计为成功',
      }),
      int('retries', 'Retries', '重试次数', 0, 10, 2),
      span('s', 'retryBackoffSeconds', 'First retry after', '首次重试间隔', 1, 86_400, 60, { en_US: 'Doubles with each retry', zh_CN: '每次重试加倍' }),
      int('minBattery', 'Minimum battery (%)', '最低电量(%)', 0, 100, 30),
      // Devices that cannot take it for now (riding, battery low, SIM data low, busy) are held, not failed: until a limit.
      span('h', 'holdLimitHours', 'Skip held devices after', '暂缓设备跳过时限', 0, 8760, 72, {
        en_US: 'A device held (riding, battery low, SIM data low, busy) is offered again until then, then skipped; 0: never skipped',
        zh_CN: '暂缓的设备（骑行中、电量低、流量不足、忙）在此之前会再次尝试，之后跳过；0 为从不跳过',
      }),
      {
        name: 'skippedAs',
        kind: 'enum',
        options: SKIPPED_AS_OPTIONS,
        default: 'leftOut',
        label: { en_US: 'Skipped devices in a wave', zh_CN: '批次中跳过的设备' },
        help: {
          en_US: "Left out: the success threshold is judged on the wave's other devices. Not upgraded: they count against it",
          zh_CN: '不计入：成功阈值按该批其余设备计算。计为未升级：计入成功阈值的分母',
        },
        list: false,
      },
      // What the rollout keeps.
      { name: 'currentWave', kind: 'number', int: true, label: { en_US: 'Wave', zh_CN: '当前批次' }, readOnly: true, help: { en_US: '0 is the canary', zh_CN: '0 为灰度批' } },
      { name: 'totalDevices', kind: 'number', int: true, label: { en_US: 'Devices', zh_CN: '设备数' }, readOnly: true },
      { name: 'succeededCount', kind: 'number', int: true, label: { en_US: 'Succeeded', zh_CN: '成功' }, readOnly: true },
      { name: 'failedCount', kind: 'number', int: true, label: { en_US: 'Failed', zh_CN: '失败' }, readOnly: true },
      { name: 'rolledBackCount', kind: 'number', int: true, default: 0, label: { en_US: 'Rolled back', zh_CN: '已回滚' }, readOnly: true },
      { name: 'skippedCount', kind: 'number', int: true, default: 0, label: { en_US: 'Skipped', zh_CN: '已跳过' }, readOnly: true },
      { name: 'pauseReason', kind: 'text', max: 500, label: { en_US: 'Paused because', zh_CN: '暂停原因' }, readOnly: true },
      { name: 'approvedBy', kind: 'text', max: 64, label: { en_US: 'Approved by', zh_CN: '审批人' }, readOnly: true, list: false },
      { name: 'approvedAt', kind: 'datetime', label: { en_US: 'Approved', zh_CN: '审批时间' }, readOnly: true, list: false },
      // What the approval binds (docs/ota.md › Approval binds): the image as submitted, and which revision of the campaign this is.
      {
        name: 'revision',
        kind: 'number',
        int: true,
        required: true,
        default: 1,
        label: { en_US: 'Revision', zh_CN: '修订版本' },
        readOnly: true,
        list: false,
        help: { en_US: 'Counts up each time the campaign goes back to draft (Revise, Send back)', zh_CN: '任务每次退回草稿（修订、退回）时加一' },
      },
      {
        name: 'imageSha256',
        kind: 'text',
        max: 64,
        label: { en_US: 'Approved image SHA-256', zh_CN: '审批的镜像 SHA-256' },
        readOnly: true,
        list: false,
        help: {
          en_US: 'The SHA-256 of the firmware or audio file as submitted: the approval binds it, offers carry it, and no other bytes are served for this campaign',
          zh_CN: '提交时固件或音频文件的 SHA-256：审批即认可它，升级通知携带它，本任务不会下发任何其他内容',
        },
      },
      { name: 'imageSize', kind: 'number', int: true, label: { en_US: 'Approved image size (bytes)', zh_CN: '审批的镜像大小(字节)' }, readOnly: true, list: false },
      { name: 'startedAt', kind: 'datetime', label: { en_US: 'Started', zh_CN: '开始于' }, readOnly: true, list: false },
      { name: 'finishedAt', kind: 'datetime', label: { en_US: 'Finished', zh_CN: '结束于' }, readOnly: true, list: false },
      remark,
      createTime,
    ],
    transitions: {
      field: 'status',
      initial: 'draft',
      steps: [
        // Without approval (config key ota.approvalRequired off) a submitted campaign moves on to scheduled at once.
        { name: 'submit', label: { en_US: 'Submit', zh_CN: '提交' }, from: ['draft'], to: 'awaitingApproval' },
        { name: 'approve', label: { en_US: 'Approve', zh_CN: '审批通过' }, from: ['awaitingApproval'], to: 'scheduled', stepUp: true },
        { name: 'reject', label: { en_US: 'Send back', zh_CN: '退回' }, from: ['awaitingApproval'], to: 'draft', permission: `${iot ? 'iot:upgrade' : partPermission(part)}:approve`, input: [reason(true)], danger: true },
        // A change after submit is a new revision: back to a draft, the approval and the image it bound cleared, submitted and approved again.
        // Not once started: devices have taken this revision's image (cancel it and add a new campaign instead).
        {
          name: 'revise',
          label: { en_US: 'Revise', zh_CN: '修订' },
          from: ['awaitingApproval', 'scheduled'],
          to: 'draft',
          input: [reason(false)],
          confirm: {
            en_US: 'Take "{label}" back to a draft to change it? Its approval is cleared: it must be submitted and approved again.',
            zh_CN: '将“{label}”退回草稿以便修改吗？其审批将被清除，需重新提交并审批。',
          },
        },
        { name: 'start', label: { en_US: 'Start now', zh_CN: '立即开始' }, from: ['scheduled'], to: 'running', stepUp: true },
        { name: 'pause', label: { en_US: 'Pause', zh_CN: '暂停' }, from: ['running'], to: 'paused', input: [reason(false)] },
        { name: 'resume', label: { en_US: 'Resume', zh_CN: '继续' }, from: ['paused'], to: 'running' },
        {
          name: 'cancel',
          label: { en_US: 'Cancel', zh_CN: '取消' },
          from: ['draft', 'awaitingApproval', 'scheduled', 'running', 'paused'],
          to: 'cancelled',
          danger: true,
          input: [
            {
              name: 'forced',
              kind: 'boolean',
              default: false,
              label: { en_US: 'Also abort devices already upgrading', zh_CN: '同时中止正在升级的设备' },
              help: { en_US: 'Off: only devices not yet started are cancelled', zh_CN: '关闭时只取消尚未开始的设备' },
            },
            reason(false),
          ],
        },
      ],
    },
    // Submitted, a campaign is what was approved and resolved: it no longer changes (a new campaign
    // instead). Under way, it is not deleted either: cancelled or finished, it may go.
    states: [
      { when: { field: 'status', is: ['awaitingApproval', 'scheduled', 'running', 'paused', 'finished', 'cancelled'] }, edit: [] },
      {
        when: { field: 'status', is: ['awaitingApproval', 'scheduled', 'running', 'paused'] },
        delete: false,
        reason: { en_US: 'it is under way: cancel it before deleting it', zh_CN: '任务正在进行，请先取消再删除' },
      },
    ],
    actions: [
      {
        name: 'retryFailed',
        label: { en_US: 'Retry the failed', zh_CN: '重试失败设备' },
        on: 'row',
        when: { field: 'status', is: ['running', 'paused', 'finished'] },
        confirm: { en_US: 'Queue the failed, timed-out and rejected devices of "{label}" again?', zh_CN: '将“{label}”中失败、超时和被拒绝的设备重新排队吗？' },
      },
      {
        name: 'skipHeld',
        label: { en_US: 'Skip the held', zh_CN: '跳过暂缓设备' },
        on: 'row',
        when: { field: 'status', is: ['running', 'paused'] },
        confirm: {
          en_US: 'Skip the devices of "{label}" that are held now (riding, battery low, SIM data low)? They are not offered this upgrade again.',
          zh_CN: '跳过“{label}”中当前暂缓的设备（骑行中、电量低、流量不足）吗？它们将不再收到本次升级。',
        },
      },
    ],
    related: [{ entity: k.upgradeDevice, by: 'campaignId', label: { en_US: 'Devices', zh_CN: '设备' }, manage: true }],
  }
}

function upgradeDeviceOf(part: OtaPart): EntityDef {
  const iot = part === 'iot'
  const k = keys(part)
  const indexes: IndexDef[] = [
    { columns: ['campaignId', 'deviceId'], unique: true },
    { columns: ['campaignId', 'state', 'wave'] },
    { columns: ['campaignId', 'wave', 'position'] },
    { columns: ['deviceId', 'state'] },
    { columns: ['state', 'updatedAt'] },
  ]
  return {
    key: k.upgradeDevice,
    table: 'otaCampaignDevice',
    slice: sliceOf(part),
    path: iot ? '/iot/upgradeDevice' : `/ota/${menu(part)}/upgradeDevice`,
    permission: iot ? 'iot:upgrade' : partPermission(part),
    label: iot ? { en_US: 'Upgraded devices', zh_CN: '升级设备' } : labelled(part, 'upgraded devices', '升级设备'),
    singular: { en_US: 'upgraded device', zh_CN: '升级设备' },
    idField: 'upgradeId',
    labelField: 'upgradeId',
    defaultSort: { field: 'upgradeId', order: 'asc' },
    scope: { via: 'deviceId' },
    operations: ['list', 'get', 'export'],
    storage: {
      audited: false,
      columns: [
        partColumn,
        // The order the rollout notifies a wave in (random when the campaign says so).
        { name: 'position', kind: 'number', int: true, required: true, default: 0 },
        { name: 'nextAttemptAt', kind: 'datetime', nullable: true },
        // Since when the device has been held (refusing for a passing reason, or its SIM data low): skipped past the campaign's limit.
        { name: 'heldSince', kind: 'datetime', nullable: true },
        // Offers it answered with a passing refusal: each took an attempt (a new offer id) but uses no retry.
        { name: 'heldOffers', kind: 'number', int: true, required: true, default: 0 },
        // The device's IANA time zone (its owner's country), for the daily window.
        { name: 'timeZone', kind: 'text', max: 64, required: true, default: 'UTC' },
      ],
      indexes,
    },
    // The state is the device's, never a person's: no steps; the history is the transition log.
    transitions: { field: 'state', initial: 'queued', steps: [] },
    fields: [
      idField('upgradeId'),
      { name: 'campaignId', kind: 'reference', entity: k.upgrade, label: { en_US: 'Campaign', zh_CN: '升级任务' }, required: true, readOnly: true, search: 'eq' },
      { name: 'deviceId', kind: 'reference', entity: 'iotDevice', carry: ['state'], label: { en_US: 'Device', zh_CN: '设备' }, required: true, readOnly: true, search: 'eq' },
      { name: 'wave', kind: 'number', int: true, label: { en_US: 'Wave', zh_CN: '批次' }, readOnly: true, search: 'eq', sort: true },
      { name: 'state', kind: 'enum', options: OTA_DEVICE_STATE_OPTIONS, max: 12, default: 'queued', label: { en_US: 'State', zh_CN: '状态' }, readOnly: true, search: 'in' },
      { name: 'percent', kind: 'number', int: true, label: { en_US: 'Downloaded (%)', zh_CN: '下载进度(%)' }, readOnly: true },
      { name: 'attempt', kind: 'number', int: true, label: { en_US: 'Attempt', zh_CN: '尝试次数' }, readOnly: true },
      { name: 'fromVersion', kind: 'text', max: 32, label: { en_US: 'From version', zh_CN: '原版本' }, readOnly: true },
      { name: 'toVersion', kind: 'text', max: 32, label: { en_US: 'To version', zh_CN: '目标版本' }, readOnly: true },
      { name: 'code', kind: 'text', max: 32, label: { en_US: "Device's code", zh_CN: '设备代码' }, readOnly: true, search: 'eq' },
      { name: 'message', kind: 'text', max: 500, label: { en_US: 'Message', zh_CN: '信息' }, readOnly: true, list: false },
      { name: 'notifiedAt', kind: 'datetime', label: { en_US: 'Notified', zh_CN: '通知时间' }, readOnly: true, sort: true },
      { name: 'finishedAt', kind: 'datetime', label: { en_US: 'Finished', zh_CN: '完成时间' }, readOnly: true, sort: true },
      { name: 'updatedAt', kind: 'datetime', label: { en_US: 'Updated', zh_CN: '更新时间' }, readOnly: true, list: false },
      // Its commit deadline runs from here (the rollout's expire()).
      { name: 'trialAt', kind: 'datetime', label: { en_US: 'On trial since', zh_CN: '开始试运行' }, readOnly: true, list: false },
    ],
  }
}

export const iotPartSupplier = defineEntity(supplierOf('iot'))
export const iotPartProduct = defineEntity(productOf('iot'))
export const iotFirmware = defineEntity(firmwareOf('iot'))
export const iotUpgrade = defineEntity(upgradeOf('iot'))
export const iotUpgradeDevice = defineEntity(upgradeDeviceOf('iot'))

export const displayPartSupplier = defineEntity(supplierOf('display'))
export const displayPartProduct = defineEntity(productOf('display'))
export const displayFirmware = defineEntity(firmwareOf('display'))
export const displayUpgrade = defineEntity(upgradeOf('display'))
export const displayUpgradeDevice = defineEntity(upgradeDeviceOf('display'))

export const bmsPartSupplier = defineEntity(supplierOf('bms'))
export const bmsPartProduct = defineEntity(productOf('bms'))
export const bmsFirmware = defineEntity(firmwareOf('bms'))
export const bmsUpgrade = defineEntity(upgradeOf('bms'))
export const bmsUpgradeDevice = defineEntity(upgradeDeviceOf('bms'))

export const ecuPartSupplier = defineEntity(supplierOf('ecu'))
export const ecuPartProduct = defineEntity(productOf('ecu'))
export const ecuFirmware = defineEntity(firmwareOf('ecu'))
export const ecuUpgrade = defineEntity(upgradeOf('ecu'))
export const ecuUpgradeDevice = defineEntity(upgradeDeviceOf('ecu'))

/** Sounds the IoT module plays (SPEC §3 Audio), deployed to devices by an IoT upgrade campaign whose payload is audio. */
export const iotAudio = defineEntity({
  key: 'iotAudio',
  table: 'iotAudio',
  path: '/iot/audio',
  permission: 'iot:audio',
  label: { en_US: 'IoT audio', zh_CN: '设备音频' },
  singular: { en_US: 'audio', zh_CN: '音频' },
  idField: 'audioId',
  labelField: 'appName',
  defaultSort: { field: 'audioId', order: 'desc' },
  scope: PRODUCT_CATALOGUE,
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  // A sound a campaign has taken never changes (docs/ota.md › Approval binds): its next version is another row with the same IoT name.
  storage: { indexes: [{ columns: ['iotName', 'version'], unique: true }] },
  fields: [
    idField('audioId'),
    { name: 'appName', kind: 'text', label: { en_US: 'App name', zh_CN: 'App 名称' }, required: true, max: 100, search: 'like', sort: true },
    {
      name: 'iotName',
      kind: 'text',
      label: { en_US: 'IoT name', zh_CN: '设备端名称' },
      required: true,
      max: 64,
      pattern: /^[a-z0-9_]+$/,
      patternMessage: { en_US: 'IoT name: lower-case letters, digits and _', zh_CN: '设备端名称：小写字母、数字和 _' },
      search: 'like',
      help: {
        en_US: 'The name the device plays it by (the playAudio command); a new version of a sound is another audio with the same IoT name',
        zh_CN: '设备播放时使用的名称（playAudio 指令）；声音的新版本是另一条 IoT 名称相同的音频',
      },
    },
    { name: 'version', kind: 'version', default: '1.0.0', label: { en_US: 'Version', zh_CN: '版本' } },
    { name: 'file', kind: 'file', accept: ['mp3', 'wav', 'opus', 'amr', 'pcm'], maxBytes: 8 * 1024 * 1024, label: { en_US: 'Audio file', zh_CN: '音频文件' }, required: true, list: false },
    { name: 'size', kind: 'number', int: true, label: { en_US: 'Size (bytes)', zh_CN: '大小(字节)' }, readOnly: true, sort: true },
    { name: 'builtIn', kind: 'boolean', default: false, label: { en_US: 'Built in', zh_CN: '内置' }, search: 'eq' },
    {
      name: 'deployStatus',
      kind: 'enum',
      options: [
        { value: 'notDeployed', label: { en_US: 'Not deployed', zh_CN: '未部署' }, color: 'default' },
        { value: 'deploying', label: { en_US: 'Deploying', zh_CN: '部署中' }, color: 'processing' },
        { value: 'deployed', label: { en_US: 'Deployed', zh_CN: '已部署' }, color: 'success' },
      ],
      default: 'notDeployed',
      label: { en_US: 'Deploy status', zh_CN: '部署状态' },
      readOnly: true,
      search: 'eq',
    },
    { name: 'md5', kind: 'text', max: 32, label: { en_US: 'MD5', zh_CN: 'MD5' }, readOnly: true },
    { name: 'sha256', kind: 'text', max: 64, label: { en_US: 'SHA-256', zh_CN: 'SHA-256' }, readOnly: true, list: false },
    {
      name: 'crc8',
      kind: 'text',
      max: 2,
      ...hex2,
      label: { en_US: 'CRC8', zh_CN: 'CRC8' },
      help: { en_US: 'As declared: a file whose CRC-8 differs is refused; empty: computed', zh_CN: '声明值：文件的 CRC-8 不符则拒绝；留空则自动计算' },
    },
    remark,
    createTime,
  ],
})
