import { PRODUCTION } from './owners'
import { defineEntity } from '../entity/define'
import type { FieldDef } from '../entity/types'
import { FRAME_CHARACTERS } from '../order/frame-number'
import { createTime, idField, remark } from './common-fields'

// Orders › Bike orders (SPEC §3 Device order): production orders placed with a frame supplier, and
// the frame numbers generated for them (docs/frame-numbers.md). A number is born here, stamped on a
// frame, bound to the bike registered with it, and voided when it must never be used.

const codeRule = { en_US: 'Upper-case letters and digits, without I, O or Q', zh_CN: '只能使用大写字母和数字，不含 I、O、Q' }

/** A part of the frame-number template: fixed once the order has numbers (the module refuses a change). */
const templateCode = (name: string, label: FieldDef['label'], min: number, max: number, help: FieldDef['label']) =>
  ({ name, kind: 'text', label, required: true, min, max, pattern: FRAME_CHARACTERS, patternMessage: codeRule, help, list: false }) as const

const NUMBER_STATUS = [
  { value: 'generated', label: { en_US: 'Generated', zh_CN: '已生成' }, color: 'default' },
  { value: 'printed', label: { en_US: 'Printed', zh_CN: '已打印' }, color: 'blue' },
  { value: 'bound', label: { en_US: 'Bound', zh_CN: '已绑定' }, color: 'success' },
  { value: 'voided', label: { en_US: 'Voided', zh_CN: '已作废' }, color: 'error' },
] as const

const count = (name: string, label: FieldDef['label'], list = false) =>
  ({ name, kind: 'number', int: true, min: 0, label, readOnly: true, required: true, default: 0, list }) as const

export const deviceOrder = defineEntity({
  key: 'deviceOrder',
  table: 'ordDeviceOrder',
  path: '/order/deviceOrder',
  permission: 'order:deviceOrder',
  label: { en_US: 'Bike orders', zh_CN: '车辆订单' },
  singular: { en_US: 'bike order', zh_CN: '车辆订单' },
  idField: 'orderId',
  labelField: 'orderNo',
  defaultSort: { field: 'createTime', order: 'desc' },
  scope: PRODUCTION,
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export', 'import'],
  storage: { indexes: [{ columns: ['createTime'] }, { columns: ['deliveryDate'] }] },
  // The numbers, with their status counts, export, void and replace, inside the order's details.
  related: [{ entity: 'frameNumber', by: 'orderId', label: { en_US: 'Frame numbers', zh_CN: '车架号' }, manage: true }],
  fields: [
    idField('orderId'),
    {
      name: 'orderNo',
      kind: 'text',
      label: { en_US: 'Order number', zh_CN: '订单编号' },
      required: true,
      unique: true,
      max: 32,
      pattern: /^[A-Za-z0-9][A-Za-z0-9_-]*$/,
      patternMessage: { en_US: 'Letters, digits, - and _', zh_CN: '只能使用字母、数字、- 和 _' },
      search: 'like',
      sort: true,
    },
    {
      name: 'orderType',
      kind: 'enum',
      label: { en_US: 'Order type', zh_CN: '订单类型' },
      required: true,
      default: 'regular',
      search: 'eq',
      options: [
        { value: 'regular', label: { en_US: 'Regular', zh_CN: '常规' }, color: 'default' },
        // Spare frames for repairs: their numbers carry the supplementary code.
        { value: 'repair', label: { en_US: 'Repair (supplementary)', zh_CN: '维修补充' }, color: 'orange' },
      ],
    },
    { name: 'modelId', kind: 'reference', entity: 'bikeModel', label: { en_US: 'Model', zh_CN: '车型' }, required: true, search: 'eq' },
    { name: 'quantity', kind: 'number', int: true, min: 1, max: 1_000_000, label: { en_US: 'Quantity ordered', zh_CN: '订购数量' }, required: true, sort: true },
    count('numbersGenerated', { en_US: 'Numbers generated', zh_CN: '已生成车架号' }, true),
    // Numbers beyond 5 % more than ordered (SPEC §5): set by the generation, shown as a flag.
    { name: 'overrun', kind: 'boolean', alarm: true, label: { en_US: 'Over 5 %', zh_CN: '超出 5%' }, readOnly: true, default: false, search: 'eq' },
    { name: 'salesRegion', kind: 'text', label: { en_US: 'Sales region/area', zh_CN: '销售区域' }, required: true, max: 64, search: 'like' },
    { name: 'deliveryDate', kind: 'date', label: { en_US: 'Delivery date', zh_CN: '交货日期' }, required: true, search: 'range', sort: true },
    { name: 'purchasingEntity', kind: 'text', label: { en_US: 'Purchasing entity', zh_CN: '采购主体' }, required: true, max: 100, search: 'like', list: false },
    { name: 'tpNumber', kind: 'text', label: { en_US: 'TP number', zh_CN: 'TP 编号' }, required: true, max: 64, search: 'like', list: false },
    { name: 'frameSupplier', kind: 'text', label: { en_US: 'Frame supplier', zh_CN: '车架供应商' }, required: true, max: 100, search: 'like' },
    templateCode('brandCode', { en_US: 'Brand code', zh_CN: '品牌代码' }, 2, 3, { en_US: 'First characters of every number, e.g. VL', zh_CN: '车架号开头，例如 VL' }),
    templateCode('manufacturerCode', { en_US: 'Manufacturer', zh_CN: '生产商代码' }, 1, 2, { en_US: 'The frame maker or plant, e.g. A', zh_CN: '车架厂或工厂代码，例如 A' }),
    { name: 'modelYear', kind: 'number', int: true, min: 2000, max: 2099, label: { en_US: 'Year', zh_CN: '年份' }, required: true, list: false, help: { en_US: 'Model year: one character in the number (2026 → T)', zh_CN: '车型年份，车架号中占一位（2026 → T）' } },
    templateCode('specCode', { en_US: 'Model/colour/size code', zh_CN: '车型/颜色/尺寸代码' }, 1, 6, { en_US: 'e.g. MET, or METBKM for model, colour and size', zh_CN: '例如 MET，或 METBKM 表示车型、颜色、尺寸' }),
    {
      ...templateCode('repairCode', { en_US: 'Repair (supplementary) code', zh_CN: '补充代码' }, 1, 2, { en_US: 'Marks the frames of a repair order, after the model code', zh_CN: '维修补充订单车架号中的标记，位于车型代码之后' }),
      required: false,
      when: { field: 'orderType', is: ['repair'] },
    },
    {
      name: 'serialStart',
      kind: 'number',
      int: true,
      min: 1,
      max: 99_999_999,
      label: { en_US: 'Serial number start', zh_CN: '序列号起始' },
      list: false,
      help: { en_US: 'Optional: the first serial to use (serials below it are skipped, never issued)', zh_CN: '可选：起始序列号（跳过的序列号不再使用）' },
    },
    {
      name: 'serialEnd',
      kind: 'number',
      int: true,
      min: 1,
      max: 99_999_999,
      label: { en_US: 'Serial number end', zh_CN: '序列号结束' },
      list: false,
      help: { en_US: 'Optional: no serial above it is generated for this order', zh_CN: '可选：本订单生成的序列号不超过此值' },
    },
    { name: 'serialDigits', kind: 'number', int: true, min: 4, max: 8, label: { en_US: 'Serial digits', zh_CN: '序列号位数' }, required: true, default: 6, list: false },
    { name: 'checkCharacter', kind: 'boolean', label: { en_US: 'Check character', zh_CN: '校验位' }, default: true, list: false, help: { en_US: 'A last character that catches a mistyped or swapped character (mod 11, X for 10)', zh_CN: '末位校验字符，可发现输错或相邻互换（模 11，10 记为 X）' } },
    count('countGenerated', { en_US: 'Not yet printed', zh_CN: '未打印' }),
    count('countPrinted', { en_US: 'Printed', zh_CN: '已打印' }),
    count('countBound', { en_US: 'Bound to bikes', zh_CN: '已绑定车辆' }, true),
    count('countVoided', { en_US: 'Voided', zh_CN: '已作废' }),
    remark,
    createTime,
  ],
  // A number once made is kept for good (a recall traces it): an order with numbers is not deleted
  // (its numbers are voided instead), and the fields that make its numbers no longer change, or its
  // numbers would not be its template's (docs/frame-numbers.md).
  states: [
    {
      when: { field: 'numbersGenerated', above: 0 },
      edit: ['orderNo', 'modelId', 'quantity', 'salesRegion', 'deliveryDate', 'purchasingEntity', 'tpNumber', 'frameSupplier', 'serialStart', 'serialEnd', 'remark'],
      delete: false,
      reason: { en_US: 'it has frame numbers', zh_CN: '已生成车架号' },
    },
  ],
  actions: [
    {
      name: 'generate',
      label: { en_US: 'Generate numbers', zh_CN: '生成车架号' },
      on: 'row',
      mode: 'job',
      preview: true,
      input: [{ name: 'count', kind: 'number', int: true, min: 1, max: 1_000_000, label: { en_US: 'Count', zh_CN: '数量' }, required: true }],
      confirm: { en_US: 'Generate frame numbers for {label}? Generated numbers are never reused, only voided.', zh_CN: '确认为 {label} 生成车架号？车架号生成后不会重复使用，只能作废。' },
    },
    {
      name: 'printLabels',
      label: { en_US: 'Print labels', zh_CN: '打印标签' },
      on: 'row',
      mode: 'job',
      input: [
        {
          name: 'which',
          kind: 'enum',
          label: { en_US: 'Numbers', zh_CN: '车架号' },
          required: true,
          default: 'unprinted',
          options: [
            { value: 'unprinted', label: { en_US: 'Not yet printed', zh_CN: '未打印的' }, color: 'default' },
            { value: 'all', label: { en_US: 'All but voided', zh_CN: '除已作废外全部' }, color: 'default' },
          ],
        },
      ],
      confirm: { en_US: 'A PDF of A4 label sheets (number, Code 128 and QR code); the numbers become Printed.', zh_CN: '生成 A4 标签 PDF（车架号、Code 128 条码和二维码），车架号状态变为已打印。' },
    },
  ],
})

export const frameNumber = defineEntity({
  key: 'frameNumber',
  table: 'ordFrameNumber',
  path: '/order/deviceOrder/number',
  // The order's rights: the numbers are part of the order's page.
  permission: 'order:deviceOrder',
  label: { en_US: 'Frame numbers', zh_CN: '车架号' },
  singular: { en_US: 'frame number', zh_CN: '车架号' },
  idField: 'numberId',
  labelField: 'frameNumber',
  defaultSort: { field: 'serial', order: 'asc' },
  scope: PRODUCTION,
  // Numbers are generated, never added, edited or deleted: a lost number would be issued twice.
  operations: ['list', 'get', 'export'],
  storage: {
    indexes: [{ columns: ['orderId', 'serial'] }, { columns: ['orderId', 'status'] }, { columns: ['bikeId'] }],
  },
  fields: [
    idField('numberId'),
    { name: 'orderId', kind: 'reference', entity: 'deviceOrder', label: { en_US: 'Order', zh_CN: '订单' }, required: true, readOnly: true, search: 'eq' },
    { name: 'frameNumber', kind: 'text', label: { en_US: 'Frame number', zh_CN: '车架号' }, required: true, readOnly: true, unique: true, max: 32, search: 'like', sort: true },
    { name: 'serial', kind: 'number', int: true, min: 0, label: { en_US: 'Serial', zh_CN: '序列号' }, required: true, readOnly: true, sort: true },
    {
      name: 'numberType',
      kind: 'enum',
      label: { en_US: 'Type', zh_CN: '类型' },
      required: true,
      readOnly: true,
      default: 'regular',
      search: 'eq',
      options: [
        { value: 'regular', label: { en_US: 'Regular', zh_CN: '常规' }, color: 'default' },
        { value: 'replacement', label: { en_US: 'Replacement', zh_CN: '补换' }, color: 'orange' },
      ],
    },
    { name: 'status', kind: 'enum', label: { en_US: 'Status', zh_CN: '状态' }, default: 'generated', search: 'eq', options: NUMBER_STATUS },
    { name: 'bikeId', kind: 'reference', entity: 'bike', label: { en_US: 'Bike', zh_CN: '车辆' }, readOnly: true, search: 'eq' },
    { name: 'replacesId', kind: 'reference', entity: 'frameNumber', label: { en_US: 'Replaces', zh_CN: '替换' }, readOnly: true },
    { name: 'reason', kind: 'longText', max: 500, label: { en_US: 'Reason', zh_CN: '原因' }, readOnly: true },
    { name: 'printedTime', kind: 'datetime', label: { en_US: 'Printed', zh_CN: '打印时间' }, readOnly: true, list: false },
    createTime,
  ],
  transitions: {
    field: 'status',
    initial: 'generated',
    steps: [
      {
        name: 'void',
        label: { en_US: 'Void', zh_CN: '作废' },
        from: ['generated', 'printed'],
        to: 'voided',
        input: [{ name: 'reason', kind: 'longText', max: 500, label: { en_US: 'Reason', zh_CN: '原因' }, required: true }],
        confirm: { en_US: 'Void {label}? It is never issued again.', zh_CN: '确认作废 {label}？作废后不再使用。' },
        danger: true,
      },
    ],
  },
  actions: [
    {
      name: 'replace',
      label: { en_US: 'Replace number', zh_CN: '补换车架号' },
      on: 'row',
      mode: 'sync',
      when: { field: 'status', is: ['bound'] },
      input: [
        {
          name: 'cause',
          kind: 'enum',
          label: { en_US: 'Reason', zh_CN: '原因' },
          required: true,
          options: [
            { value: 'damagedFrame', label: { en_US: 'Damaged frame', zh_CN: '车架损坏' }, color: 'default' },
            { value: 'warrantyExchange', label: { en_US: 'Warranty exchange', zh_CN: '质保更换' }, color: 'default' },
            { value: 'unreadable', label: { en_US: 'Number unreadable', zh_CN: '车架号无法识别' }, color: 'default' },
            { value: 'other', label: { en_US: 'Other', zh_CN: '其他' }, color: 'default' },
          ],
        },
        { name: 'note', kind: 'longText', max: 400, label: { en_US: 'Note', zh_CN: '说明' } },
      ],
      confirm: {
        en_US: 'Give the bike of {label} a replacement number? {label} is voided; the bike and its history keep the link.',
        zh_CN: '确认为 {label} 的车辆补换车架号？{label} 将作废，车辆及其档案保留关联。',
      },
      danger: true,
    },
  ],
})
