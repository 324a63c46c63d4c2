import { APP_CONTENT, PRODUCT_CATALOGUE } from './owners'
import { defineEntity } from '../entity/define'
import { createTime, idField, remark, status } from './common-fields'
import type { EnumOption } from '../entity/types'

// The bikes area (SPEC §3 Bike): bike models with their colours and sizes, the bikes themselves,
// the pictures and static images the app shows, and each bike's history (vehicle records).

/** Whether a bike is bound to a member (as a member's bind status). */
const BIND_STATUS_OPTIONS: readonly EnumOption[] = [
  { value: 'unbound', label: { en_US: 'Unbound', zh_CN: '未绑定' }, color: 'default' },
  { value: 'bound', label: { en_US: 'Bound', zh_CN: '已绑定' }, color: 'success' },
]

/** Frame numbers and model, colour and size codes: upper-case letters and digits. */
const CODE_PATTERN = /^[A-Z0-9]+$/
const codeMessage = { en_US: 'Use upper-case letters and digits only', zh_CN: '只能使用大写字母和数字' }

/** Bike categories: a dictionary (bike_category, seeded), so a new category needs no release. */
const category = {
  name: 'category',
  kind: 'dict',
  dict: 'bike_category',
  label: { en_US: 'Category', zh_CN: '类别' },
  required: true,
  max: 16,
  search: 'eq',
} as const

/** Orders within a list (colours of a model, pictures). */
const orderNum = {
  name: 'orderNum',
  kind: 'number',
  int: true,
  min: 0,
  max: 99999,
  label: { en_US: 'Sort', zh_CN: '排序' },
  required: true,
  default: 0,
  sort: true,
} as const

/**
 * Bike models, the page Bikes › Model colours and sizes (its menu component 'bike/modelSpec/index'
 * resolves to this path). A model's colours and sizes are the two entities below it, under the
 * same rights (bike:modelSpec). A model that bikes or pictures use cannot be deleted; its colours
 * and sizes go with it (modules/bike).
 */
export const bikeModel = defineEntity({
  key: 'bikeModel',
  table: 'bikeModel',
  path: '/bike/modelSpec',
  permission: 'bike:modelSpec',
  label: { en_US: 'Bike models', zh_CN: '车型' },
  singular: { en_US: 'bike model', zh_CN: '车型' },
  idField: 'modelId',
  labelField: 'name',
  defaultSort: { field: 'orderNum', order: 'asc' },
  scope: PRODUCT_CATALOGUE,
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  // The page's colours and sizes, in the model's details.
  related: [
    { entity: 'modelColour', by: 'modelId' },
    { entity: 'modelSize', by: 'modelId' },
  ],
  fields: [
    idField('modelId'),
    category,
    { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, required: true, max: 100, search: 'like', sort: true },
    // Part of generated frame numbers (device orders): unique.
    { name: 'code', kind: 'text', label: { en_US: 'Code', zh_CN: '代码' }, required: true, unique: true, max: 16, pattern: CODE_PATTERN, patternMessage: codeMessage, search: 'like', sort: true },
    orderNum,
    { ...status, search: 'eq' },
    remark,
    createTime,
  ],
})

/**
 * The colours a model comes in. A code is unique within its model (a unique index; the module
 * answers a duplicate with 409 before the database refuses it). One that bikes or pictures use
 * cannot be deleted or moved to another model.
 */
export const modelColour = defineEntity({
  key: 'modelColour',
  table: 'bikeModelColour',
  path: '/bike/modelSpec/colour',
  permission: 'bike:modelSpec',
  label: { en_US: 'Model colours', zh_CN: '车型颜色' },
  singular: { en_US: 'model colour', zh_CN: '车型颜色' },
  idField: 'colourId',
  labelField: 'name',
  defaultSort: { field: 'orderNum', order: 'asc' },
  scope: PRODUCT_CATALOGUE,
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  storage: { indexes: [{ name: 'bike_model_colour_model_code', columns: ['modelId', 'code'], unique: true }] },
  fields: [
    idField('colourId'),
    { name: 'modelId', kind: 'reference', entity: 'bikeModel', label: { en_US: 'Model', zh_CN: '车型' }, required: true, search: 'eq' },
    { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, required: true, max: 50, search: 'like', sort: true },
    { name: 'code', kind: 'text', label: { en_US: 'Code', zh_CN: '代码' }, required: true, max: 8, pattern: CODE_PATTERN, patternMessage: codeMessage, search: 'eq' },
    {
      name: 'swatch',
      kind: 'text',
      label: { en_US: 'Swatch', zh_CN: '色值' },
      max: 7,
      pattern: /^#[0-9A-Fa-f]{6}$/,
      patternMessage: { en_US: 'A colour as #RRGGBB', zh_CN: '颜色格式为 #RRGGBB' },
      help: { en_US: 'e.g. #1F2937', zh_CN: '例如 #1F2937' },
    },
    orderNum,
    { ...status, search: 'eq' },
    createTime,
  ],
})

/**
 * The sizes a model comes in: the frame size and the rider heights it fits. A code is unique within
 * its model (as colours); each maximum is at least its minimum (the module checks both ranges).
 */
export const modelSize = defineEntity({
  key: 'modelSize',
  table: 'bikeModelSize',
  path: '/bike/modelSpec/size',
  permission: 'bike:modelSpec',
  label: { en_US: 'Model sizes', zh_CN: '车型尺寸' },
  singular: { en_US: 'model size', zh_CN: '车型尺寸' },
  idField: 'sizeId',
  labelField: 'name',
  defaultSort: { field: 'orderNum', order: 'asc' },
  scope: PRODUCT_CATALOGUE,
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  storage: { indexes: [{ name: 'bike_model_size_model_code', columns: ['modelId', 'code'], unique: true }] },
  fields: [
    idField('sizeId'),
    { name: 'modelId', kind: 'reference', entity: 'bikeModel', label: { en_US: 'Model', zh_CN: '车型' }, required: true, search: 'eq' },
    // 'S', 'M', 'L' or '54 cm': what the app and the dealers call it.
    { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, required: true, max: 32, search: 'like', sort: true },
    { name: 'code', kind: 'text', label: { en_US: 'Code', zh_CN: '代码' }, required: true, max: 8, pattern: CODE_PATTERN, patternMessage: codeMessage, search: 'eq' },
    { name: 'frameSizeMin', kind: 'number', min: 0, max: 100, label: { en_US: 'Frame size from (cm)', zh_CN: '车架尺寸下限(cm)' } },
    { name: 'frameSizeMax', kind: 'number', min: 0, max: 100, label: { en_US: 'Frame size to (cm)', zh_CN: '车架尺寸上限(cm)' } },
    { name: 'riderHeightMin', kind: 'number', int: true, min: 50, max: 250, label: { en_US: 'Rider height from (cm)', zh_CN: '适合身高下限(cm)' } },
    { name: 'riderHeightMax', kind: 'number', int: true, min: 50, max: 250, label: { en_US: 'Rider height to (cm)', zh_CN: '适合身高上限(cm)' } },
    orderNum,
    { ...status, search: 'eq' },
    createTime,
  ],
})

/**
 * The bikes (SPEC §3 Bike). Binding is the app's: the member, bind status and bound time are
 * read-only here, and staff end a binding with the `unbind` action, from the bike list or the
 * member's details (its handler clears them, marks the fitted IoT device unbound and writes a
 * vehicle record with the reason). Battery health, cycles and rides come from the bike's IoT reports.
 */
export const bike = defineEntity({
  key: 'bike',
  table: 'bikeBike',
  path: '/bike/bike',
  permission: 'bike:bike',
  label: { en_US: 'Bikes', zh_CN: '车辆列表' },
  singular: { en_US: 'bike', zh_CN: '车辆' },
  idField: 'bikeId',
  labelField: 'frameNumber',
  defaultSort: { field: 'createTime', order: 'desc' },
  scope: { via: 'memberId' },
  // The bike is the maker's: unbound (its history says by whom: an erased member), not deleted.
  rider: { by: { member: 'memberId' }, erase: 'unbind', set: { bindStatus: 'unbound', boundTime: null, defaultBike: false } },
  // SPEC §5: a bound bike cannot be deleted (the console offers no Delete on it; the module refuses one with a rider too).
  states: [{ when: { field: 'bindStatus', is: ['bound'] }, delete: false, reason: { en_US: 'Bound vehicle cannot be deleted', zh_CN: '已绑定的车辆不能删除' } }],
  // No import yet: a colour or size is named by its name, which repeats across models; bikes come
  // from device orders' frame-number generation instead.
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  // A bike's details: its history, and the rides it made.
  related: [
    { entity: 'bikeRecord', by: 'bikeId', columns: ['eventTime', 'eventKind', 'detail', 'memberId', 'operBy'] },
    { entity: 'ride', by: 'bikeId', columns: ['uploadTime', 'memberId', 'distance', 'duration', 'avgSpeed'], chart: { time: 'uploadTime', value: 'distance', by: 'week', weeks: 12 } },
  ],
  storage: {
    indexes: [
      { columns: ['createTime'] },
      { columns: ['modelId'] },
      // A member's bikes (the member drawer).
      { columns: ['memberId'] },
      // The bike on a device: one at most, whatever two requests fitting it at once do (null: none fitted).
      { columns: ['iotDeviceId'], unique: true },
      { columns: ['bindStatus', 'createTime'] },
      // Bikes registered per month (the registered-bikes dashboard).
      { columns: ['bindStatus', 'boundTime'] },
      // The registered-bikes dashboard's two passes (bound bikes by model and member, fitted bikes by
      // device): read from these instead of the wide rows.
      { columns: ['bindStatus', 'modelId', 'memberId'] },
      { columns: ['iotDeviceId', 'modelId', 'memberId'] },
    ],
  },
  fields: [
    idField('bikeId'),
    {
      name: 'frameNumber',
      kind: 'text',
      label: { en_US: 'Bike ID / frame number', zh_CN: '车辆编号/车架号' },
      required: true,
      unique: true,
      min: 4,
      max: 32,
      pattern: CODE_PATTERN,
      patternMessage: { en_US: 'Frame number: 4 to 32 upper-case letters or digits', zh_CN: '车架号：4 到 32 位大写字母或数字' },
      search: 'like',
      sort: true,
    },
    category,
    { name: 'modelId', kind: 'reference', entity: 'bikeModel', label: { en_US: 'Model', zh_CN: '车型' }, required: true, search: 'eq' },
    // Of the bike's model: the pickers offer the model's, the server refuses others.
    { name: 'colourId', kind: 'reference', entity: 'modelColour', within: 'modelId', label: { en_US: 'Colour', zh_CN: '颜色' }, required: true, search: 'eq' },
    { name: 'sizeId', kind: 'reference', entity: 'modelSize', within: 'modelId', label: { en_US: 'Size', zh_CN: '尺寸' }, required: true, search: 'eq' },
    { name: 'bindStatus', kind: 'enum', options: BIND_STATUS_OPTIONS, label: { en_US: 'Bind status', zh_CN: '绑定状态' }, default: 'unbound', readOnly: true, search: 'eq' },
    { name: 'memberId', kind: 'reference', entity: 'member', label: { en_US: 'Bound member', zh_CN: '绑定会员' }, readOnly: true, search: 'eq' },
    { name: 'boundTime', kind: 'datetime', label: { en_US: 'Bound time', zh_CN: '绑定时间' }, readOnly: true, sort: true },
    {
      // SPEC §3 names "bike access" only. Ours: who may use the bike in the app — its bound member
      // alone, or also the members that member shares it with.
      name: 'access',
      kind: 'enum',
      options: [
        { value: 'private', label: { en_US: 'Owner only', zh_CN: '仅车主' }, color: 'default' },
        { value: 'shared', label: { en_US: 'Shared', zh_CN: '可共享' }, color: 'blue' },
      ],
      label: { en_US: 'Bike access', zh_CN: '车辆权限' },
      default: 'private',
      search: 'eq',
      help: { en_US: 'Whether the bound member may share the bike with other members in the app', zh_CN: '绑定会员能否在 App 中将车辆共享给其他会员' },
    },
    { name: 'bluetoothSerial', kind: 'text', label: { en_US: 'Bluetooth serial', zh_CN: '蓝牙序列号' }, max: 64, search: 'like', list: false },
    { name: 'protocolVersion', kind: 'version', label: { en_US: 'Protocol version', zh_CN: '协议版本' }, nullable: true, list: false },
    {
      name: 'mac',
      kind: 'text',
      label: { en_US: 'MAC', zh_CN: 'MAC 地址' },
      max: 17,
      pattern: /^[0-9A-F]{2}(:[0-9A-F]{2}){5}$/,
      patternMessage: { en_US: 'MAC address as 00:1A:2B:3C:4D:5E (upper-case)', zh_CN: 'MAC 地址格式为 00:1A:2B:3C:4D:5E（大写）' },
      search: 'eq',
      list: false,
    },
    // The member's default among their bikes: chosen in the app.
    { name: 'defaultBike', kind: 'boolean', label: { en_US: 'Default bike', zh_CN: '默认车辆' }, default: false, readOnly: true, list: false },
    // The order whose frame number the bike carries: set when the number is bound (modules/order).
    { name: 'orderId', kind: 'reference', entity: 'deviceOrder', label: { en_US: 'Order', zh_CN: '订单' }, readOnly: true, search: 'eq', list: false },
    {
      name: 'frameType',
      kind: 'enum',
      options: [
        { value: 'regular', label: { en_US: 'Regular', zh_CN: '常规' }, color: 'default' },
        { value: 'replacement', label: { en_US: 'Replacement', zh_CN: '补换' }, color: 'orange' },
      ],
      label: { en_US: 'Frame-number type', zh_CN: '车架号类型' },
      default: 'regular',
      search: 'eq',
    },
    // Needed for a replacement (the module refuses one without it: the engine has no "required when").
    { when: { field: 'frameType', is: ['replacement'] }, name: 'replacementReason', kind: 'longText', max: 500, label: { en_US: 'Replacement reason', zh_CN: '补换原因' }, list: false },
    // Shown with the device's state, kept live from the IoT stream.
    { name: 'iotDeviceId', kind: 'reference', entity: 'iotDevice', carry: ['state', 'theft'], label: { en_US: 'IoT device', zh_CN: '物联网设备' }, search: 'eq' },
    { name: 'batteryHealth', kind: 'number', min: 0, max: 100, label: { en_US: 'Battery health (%)', zh_CN: '电池健康度(%)' }, readOnly: true, sort: true },
    { name: 'cycleTimes', kind: 'number', int: true, min: 0, label: { en_US: 'Cycle times', zh_CN: '循环次数' }, readOnly: true, sort: true },
    { name: 'rideCount', kind: 'number', int: true, min: 0, label: { en_US: 'Ride count', zh_CN: '骑行次数' }, default: 0, readOnly: true, sort: true },
    remark,
    createTime,
  ],
  actions: [
    {
      name: 'unbind',
      label: { en_US: 'Unbind', zh_CN: '解绑' },
      on: 'row',
      mode: 'sync',
      permission: 'bike:bike:unbind',
      when: { field: 'bindStatus', is: ['bound'] },
      confirm: { en_US: 'Unbind {label} from its member?', zh_CN: '确认将 {label} 与会员解绑？' },
      danger: true,
      // Staff decide on the bike and whose it is: both named beside the reason.
      context: ['frameNumber', 'modelId', 'memberId', 'boundTime', 'iotDeviceId'],
      // What the handler (modules/bike) does with the fitted device, worded for each case.
      notes: [
        {
          whenSet: ['iotDeviceId'],
          text: {
            en_US: 'The IoT device {iotDeviceId} stays fitted to this bike and goes on reporting to the console; its bind state becomes Unbound, and its warnings no longer reach {memberId}.',
            zh_CN: '物联网设备 {iotDeviceId} 仍安装在该车辆上，继续向后台上报；其绑定状态变为未绑定，告警不再通知 {memberId}。',
          },
        },
        {
          whenEmpty: ['iotDeviceId'],
          text: { en_US: 'No IoT device is fitted to this bike: only the binding ends.', zh_CN: '该车辆未安装物联网设备：仅解除绑定。' },
        },
      ],
      // Kept in the bike's vehicle record of the unbinding (its detail), as the reason reads in the caller's language.
      input: [
        {
          name: 'reason',
          kind: 'enum',
          label: { en_US: 'Reason', zh_CN: '原因' },
          required: true,
          options: [
            { value: 'sold', label: { en_US: 'Sold or given away', zh_CN: '转卖或赠予' }, color: 'default' },
            { value: 'memberRequest', label: { en_US: "At the member's request", zh_CN: '会员申请' }, color: 'default' },
            { value: 'stolen', label: { en_US: 'Stolen or lost', zh_CN: '被盗或丢失' }, color: 'default' },
            { value: 'returned', label: { en_US: 'Returned (refund or exchange)', zh_CN: '退货或换车' }, color: 'default' },
            { value: 'wrongAccount', label: { en_US: 'Bound to the wrong account', zh_CN: '绑定了错误的账号' }, color: 'default' },
            { value: 'other', label: { en_US: 'Other', zh_CN: '其他' }, color: 'default' },
          ],
        },
        // Required with Other (the module refuses it without: the engine has no "required when").
        {
          name: 'note',
          kind: 'longText',
          max: 400,
          label: { en_US: 'Note', zh_CN: '说明' },
          help: { en_US: 'What happened, in a few words; required for Other', zh_CN: '简要说明情况；原因为“其他”时必填' },
        },
      ],
    },
  ],
})

/** Pictures of a model in a colour, as the app shows them. */
export const bikePicture = defineEntity({
  key: 'bikePicture',
  table: 'bikePicture',
  path: '/bike/picture',
  permission: 'bike:picture',
  label: { en_US: 'Bike pictures', zh_CN: '车辆图片' },
  singular: { en_US: 'bike picture', zh_CN: '车辆图片' },
  idField: 'pictureId',
  defaultSort: { field: 'orderNum', order: 'asc' },
  scope: PRODUCT_CATALOGUE,
  // An image is uploaded in the form: nothing to import.
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  storage: { indexes: [{ columns: ['modelId', 'colourId'] }] },
  fields: [
    idField('pictureId'),
    { name: 'modelId', kind: 'reference', entity: 'bikeModel', label: { en_US: 'Model', zh_CN: '车型' }, required: true, search: 'eq' },
    // Of the picture's model.
    { name: 'colourId', kind: 'reference', entity: 'modelColour', within: 'modelId', label: { en_US: 'Colour', zh_CN: '颜色' }, required: true, search: 'eq' },
    { name: 'image', kind: 'image', label: { en_US: 'Image', zh_CN: '图片' }, required: true },
    orderNum,
    remark,
    createTime,
  ],
})

/** Images the app shows by key (splash, onboarding, empty states), one per key, in a language. */
export const staticImage = defineEntity({
  key: 'staticImage',
  table: 'bikeStaticImage',
  path: '/bike/staticImage',
  permission: 'bike:staticImage',
  label: { en_US: 'Static images', zh_CN: '静态图片' },
  singular: { en_US: 'static image', zh_CN: '静态图片' },
  idField: 'imageId',
  labelField: 'imageKey',
  defaultSort: { field: 'imageKey', order: 'asc' },
  scope: APP_CONTENT,
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  fields: [
    idField('imageId'),
    {
      name: 'imageKey',
      kind: 'text',
      label: { en_US: 'Key', zh_CN: '键' },
      required: true,
      unique: true,
      max: 64,
      pattern: /^[A-Za-z0-9_.-]+$/,
      patternMessage: { en_US: 'Key may use letters, digits, _ . and -', zh_CN: '键只能使用字母、数字、_ . 和 -' },
      search: 'like',
      sort: true,
    },
    { name: 'usage', kind: 'text', label: { en_US: 'Usage', zh_CN: '用途' }, max: 200, search: 'like' },
    { name: 'image', kind: 'image', label: { en_US: 'Image', zh_CN: '图片' }, required: true },
    // The app's languages (the sys_language dictionary).
    { name: 'language', kind: 'dict', dict: 'sys_language', label: { en_US: 'Language', zh_CN: '语言' }, required: true, default: 'en_US', max: 16, search: 'eq' },
    { ...status, search: 'eq' },
    remark,
    createTime,
  ],
})

/**
 * A bike's history, one row per event: produced, ordered, bound and unbound, service orders,
 * firmware versions, a replaced frame number. Written by the other modules' hooks; read here.
 */
export const bikeRecord = defineEntity({
  key: 'bikeRecord',
  table: 'bikeRecord',
  path: '/bike/record',
  permission: 'bike:record',
  label: { en_US: 'Vehicle records', zh_CN: '车辆档案' },
  singular: { en_US: 'vehicle record', zh_CN: '车辆档案' },
  idField: 'recordId',
  labelField: 'frameNumber',
  defaultSort: { field: 'eventTime', order: 'desc' },
  scope: { via: 'bikeId' },
  // A bike's history: its events keep pointing at the (anonymous) member.
  rider: { by: { member: 'memberId' }, erase: 'keep' },
  operations: ['list', 'get', 'export'],
  storage: {
    audited: false,
    indexes: [
      { name: 'bike_record_bike_time', columns: ['bikeId', 'eventTime'] },
      { name: 'bike_record_kind_time', columns: ['eventKind', 'eventTime'] },
      { name: 'bike_record_time', columns: ['eventTime'] },
    ],
  },
  fields: [
    idField('recordId'),
    { name: 'bikeId', kind: 'reference', entity: 'bike', label: { en_US: 'Bike', zh_CN: '车辆' }, required: true, readOnly: true, search: 'eq' },
    // The frame number when it happened: a replaced frame's old number stays on its records.
    { name: 'frameNumber', kind: 'text', max: 32, label: { en_US: 'Frame number', zh_CN: '车架号' }, required: true, readOnly: true, search: 'like', sort: true },
    {
      name: 'eventKind',
      kind: 'enum',
      options: [
        { value: 'produced', label: { en_US: 'Produced', zh_CN: '生产' }, color: 'default' },
        { value: 'ordered', label: { en_US: 'Ordered', zh_CN: '下单' }, color: 'cyan' },
        { value: 'bound', label: { en_US: 'Bound', zh_CN: '绑定' }, color: 'success' },
        { value: 'unbound', label: { en_US: 'Unbound', zh_CN: '解绑' }, color: 'warning' },
        { value: 'serviceOrder', label: { en_US: 'Service order', zh_CN: '服务单' }, color: 'purple' },
        { value: 'firmware', label: { en_US: 'Firmware version', zh_CN: '固件版本' }, color: 'blue' },
        { value: 'frameReplaced', label: { en_US: 'Frame number replaced', zh_CN: '更换车架号' }, color: 'orange' },
      ],
      label: { en_US: 'Event', zh_CN: '事件' },
      required: true,
      readOnly: true,
      search: 'eq',
    },
    { name: 'detail', kind: 'longText', max: 1000, label: { en_US: 'Detail', zh_CN: '详情' }, readOnly: true },
    { name: 'memberId', kind: 'reference', entity: 'member', label: { en_US: 'Member', zh_CN: '会员' }, readOnly: true, search: 'eq' },
    { name: 'eventTime', kind: 'datetime', label: { en_US: 'Time', zh_CN: '时间' }, required: true, readOnly: true, search: 'range', sort: true },
    { name: 'operBy', kind: 'text', max: 64, label: { en_US: 'By', zh_CN: '操作人' }, readOnly: true },
  ],
})
