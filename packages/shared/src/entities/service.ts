import { defineEntity } from '../entity/define'
import type { FieldDef } from '../entity/types'
import { createTime, idField } from './common-fields'

const OPEN = ['draft', 'pending', 'bikeCollecting', 'arrangingCollection', 'processing'] as const

const remarkInput = (required: boolean): FieldDef => ({
  name: 'remark',
  kind: 'longText',
  label: { en_US: 'Remark', zh_CN: '备注' },
  max: 500,
  required,
})

/**
 * Online warranty repair and return orders (SPEC §3, §4): a rider asks, staff review and choose how
 * the bike comes in, receive it, repair it and finish. The status moves only through the steps below
 * (SPEC §4 names the states, not the rules; these are ours, from the issue). Due times: a review
 * within 2 working days, a repair within 10 (system configuration).
 */
export const repairOrder = defineEntity({
  key: 'repairOrder',
  table: 'serviceRepairOrder',
  path: '/service/repairOrder',
  permission: 'service:repairOrder',
  label: { en_US: 'Repair service orders', zh_CN: '维修服务单' },
  singular: { en_US: 'service order', zh_CN: '服务单' },
  idField: 'repairOrderId',
  labelField: 'orderNo',
  defaultSort: { field: 'createTime', order: 'desc' },
  scope: { country: 'countryId', person: 'createBy' },
  // A rider's orders are those with their e-mail. An order still being handled holds an erasure
  // (we need the address to send the bike back); a closed one keeps its product and dates, not who.
  rider: {
    by: { email: 'contactEmail' },
    erase: 'anonymise',
    hold: {
      field: 'status',
      isNot: ['finished', 'withdrawn', 'closed'],
      reason: { en_US: 'service order {label} is still open: it needs their address until it is finished', zh_CN: '售后工单 {label} 尚未结束：完成前仍需其联系地址' },
    },
  },
  // Orders come from the riders' app or a staff member's form, one at a time: no import.
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  // The status bar counts per state and the list filters by one, newest first.
  storage: { indexes: [{ columns: ['status', 'createTime'] }] },
  fields: [
    idField('repairOrderId'),
    // Set by the server on add (readOnly + required: always stored).
    { name: 'orderNo', kind: 'text', label: { en_US: 'Order number', zh_CN: '服务单号' }, readOnly: true, required: true, unique: true, max: 32, search: 'like', sort: true },
    {
      name: 'status',
      kind: 'enum',
      label: { en_US: 'Status', zh_CN: '状态' },
      default: 'draft',
      search: 'eq',
      options: [
        // What each state means for the order and the bike (SPEC §4): the review's "Move to" shows
        // it under each way in, and the status bar as its tooltip.
        {
          value: 'draft',
          label: { en_US: 'Draft', zh_CN: '草稿' },
          color: 'default',
          description: { en_US: 'Not submitted yet: it can still be changed or deleted.', zh_CN: '尚未提交，仍可修改或删除。' },
        },
        {
          value: 'pending',
          label: { en_US: 'Pending review', zh_CN: '待审核' },
          color: 'gold',
          description: { en_US: 'Submitted: a reviewer accepts it, choosing how the bike comes in, or rejects it.', zh_CN: '已提交，等待审核：通过时选择车辆如何送修，或驳回。' },
        },
        {
          value: 'bikeCollecting',
          label: { en_US: 'Bike collecting', zh_CN: '待寄回' },
          color: 'cyan',
          description: { en_US: 'By mail: the rider sends the bike to us; staff confirm receipt when it arrives.', zh_CN: '邮寄：由骑行者将车辆寄给我们，车辆到达后由工作人员确认收车。' },
        },
        {
          value: 'arrangingCollection',
          label: { en_US: 'Arranging collection', zh_CN: '安排取车' },
          color: 'geekblue',
          description: { en_US: 'Collection: we book a courier to pick the bike up from the rider; staff confirm receipt when it arrives.', zh_CN: '上门取车：由我们安排快递到骑行者处取车，车辆到达后由工作人员确认收车。' },
        },
        {
          value: 'processing',
          label: { en_US: 'Processing', zh_CN: '处理中' },
          color: 'processing',
          description: {
            en_US: 'Being repaired. No transport needed: a review goes straight here when the bike is already with us or parts or remote help will do.',
            zh_CN: '正在维修。无需运送车辆：车辆已在我们这里，或寄送配件、远程处理即可时，审核后直接进入此状态。',
          },
        },
        {
          value: 'finished',
          label: { en_US: 'Finished', zh_CN: '已完成' },
          color: 'success',
          description: { en_US: 'Done: only its evaluation may still be added.', zh_CN: '已完成：只能再补充评价。' },
        },
        {
          value: 'withdrawn',
          label: { en_US: 'Withdrawn', zh_CN: '已撤回' },
          color: 'default',
          description: { en_US: 'Withdrawn before it was finished; it cannot be reopened.', zh_CN: '在完成前已撤回，不能恢复。' },
        },
        {
          value: 'closed',
          label: { en_US: 'Closed', zh_CN: '已关闭' },
          color: 'error',
          description: { en_US: 'Rejected at review; the reason is in its history.', zh_CN: '审核未通过（已驳回），原因见流转记录。' },
        },
      ],
    },
    {
      name: 'serviceType',
      kind: 'enum',
      label: { en_US: 'Service type', zh_CN: '服务类型' },
      required: true,
      search: 'eq',
      options: [
        { value: 'repair', label: { en_US: 'Repair', zh_CN: '维修' }, color: 'blue' },
        { value: 'return', label: { en_US: 'Return', zh_CN: '退货' }, color: 'purple' },
      ],
    },
    { name: 'contactEmail', kind: 'email', label: { en_US: 'Contact email', zh_CN: '联系邮箱' }, required: true, search: 'like', personal: 'contact' },
    // A registered bike, picked by its frame number (the bike's label); the server fills the product
    // from it. Null only on orders older than the reference whose typed frame number named no bike.
    { name: 'bikeId', kind: 'reference', entity: 'bike', label: { en_US: 'Bike ID', zh_CN: '车辆编号' }, required: true, nullable: true, search: 'eq' },
    { name: 'firstName', kind: 'text', label: { en_US: 'First name', zh_CN: '名' }, required: true, max: 64, personal: 'contact' },
    { name: 'lastName', kind: 'text', label: { en_US: 'Last name', zh_CN: '姓' }, required: true, max: 64, personal: 'contact' },
    { name: 'countryId', kind: 'reference', entity: 'country', label: { en_US: 'Country / region', zh_CN: '国家/地区' }, search: 'eq' },
    { name: 'returnAddress', kind: 'longText', label: { en_US: 'Return address', zh_CN: '寄回地址' }, max: 500, list: false, personal: 'contact' },
    { name: 'issueDescription', kind: 'longText', label: { en_US: 'Issue description', zh_CN: '问题描述' }, required: true, max: 2000, list: false },
    { name: 'photo', kind: 'file', accept: ['jpg', 'jpeg', 'png'], maxBytes: 20 * 1024 * 1024, label: { en_US: 'Photo', zh_CN: '照片' }, list: false, personal: 'content' },
    { name: 'video', kind: 'file', accept: ['mp4', 'mov'], maxBytes: 500 * 1024 * 1024, label: { en_US: 'Video', zh_CN: '视频' }, list: false, personal: 'content' },
    { name: 'shippingLabel', kind: 'file', accept: ['pdf'], maxBytes: 10 * 1024 * 1024, label: { en_US: 'Shipping label (PDF)', zh_CN: '快递面单（PDF）' }, list: false },
    // The bike's product when the order was made or its bike changed: model, colour and size codes, and the model's name.
    { name: 'sku', kind: 'text', label: { en_US: 'SKU', zh_CN: 'SKU' }, max: 64, search: 'like', readOnly: true },
    { name: 'productName', kind: 'text', label: { en_US: 'Product name', zh_CN: '产品名称' }, max: 128, readOnly: true },
    { name: 'remark', kind: 'longText', label: { en_US: 'Remarks', zh_CN: '备注' }, max: 500, list: false },
    { name: 'dueTime', kind: 'datetime', label: { en_US: 'Due', zh_CN: '截止时间' }, readOnly: true, sort: true },
    { name: 'evaluationStars', kind: 'number', int: true, min: 1, max: 5, label: { en_US: 'Evaluation', zh_CN: '评价星级' }, readOnly: true },
    { name: 'evaluationText', kind: 'longText', label: { en_US: 'Evaluation text', zh_CN: '评价内容' }, max: 1000, readOnly: true, list: false, personal: 'content' },
    createTime,
  ],
  transitions: {
    field: 'status',
    initial: 'draft',
    steps: [
      { name: 'submit', label: { en_US: 'Submit', zh_CN: '提交' }, from: ['draft'], to: 'pending' },
      {
        name: 'review',
        label: { en_US: 'Review', zh_CN: '审核' },
        from: ['pending'],
        // Accepted: the reviewer chooses how the bike comes in (mail, pickup, or none needed).
        to: ['bikeCollecting', 'arrangingCollection', 'processing'],
        input: [remarkInput(false)],
      },
      {
        name: 'reject',
        label: { en_US: 'Reject', zh_CN: '驳回' },
        from: ['pending'],
        to: 'closed',
        permission: 'service:repairOrder:review',
        input: [{ name: 'reason', kind: 'longText', label: { en_US: 'Reason', zh_CN: '原因' }, max: 500, required: true }],
        danger: true,
      },
      // While the customer mails the bike, staff note what they learn without advancing.
      { name: 'addRemark', label: { en_US: 'Add remark', zh_CN: '添加备注' }, from: ['bikeCollecting'], to: 'bikeCollecting', input: [remarkInput(true)] },
      {
        name: 'receive',
        label: { en_US: 'Bike received', zh_CN: '确认收车' },
        from: ['bikeCollecting', 'arrangingCollection'],
        to: 'processing',
        input: [{ name: 'trackingNumber', kind: 'text', label: { en_US: 'Tracking number', zh_CN: '物流单号' }, max: 64 }],
      },
      { name: 'finish', label: { en_US: 'Finish', zh_CN: '完成' }, from: ['processing'], to: 'finished', input: [remarkInput(false)], confirm: { en_US: 'Finish {label}?', zh_CN: '确认完成 {label}？' } },
      {
        name: 'withdraw',
        label: { en_US: 'Withdraw', zh_CN: '撤回' },
        from: OPEN,
        to: 'withdrawn',
        input: [{ name: 'reason', kind: 'longText', label: { en_US: 'Reason', zh_CN: '原因' }, max: 500 }],
        confirm: { en_US: 'Withdraw {label}? It cannot be reopened.', zh_CN: '确认撤回 {label}？撤回后不能恢复。' },
        danger: true,
      },
    ],
    // RMA practice: a return authorisation lapses when the product never arrives. An order whose
    // customer was asked to mail the bike and never did closes by itself, instead of waiting forever
    // among the open ones; staff who arrange a pickup (arrangingCollection) keep theirs.
    timed: [
      {
        name: 'closeUncollected',
        label: { en_US: 'Closed: bike never sent', zh_CN: '超期未寄车关闭' },
        from: ['bikeCollecting'],
        to: 'closed',
        after: { days: 30, configKey: 'service.repairOrder.collectionDays' },
      },
    ],
    deadline: {
      field: 'dueTime',
      due: {
        pending: { days: 2, workingDays: true, configKey: 'service.repairOrder.reviewDays' },
        processing: { days: 10, workingDays: true, configKey: 'service.repairOrder.repairDays' },
      },
    },
  },
  // Once submitted, an order is the customer's request with its history: it ends by withdraw or
  // reject, never by delete (only a draft, which has no history yet, goes). Once over (finished,
  // withdrawn, closed) it is the record of what was done: nothing of it changes but its evaluation.
  states: [
    {
      when: { field: 'status', is: ['pending', 'bikeCollecting', 'arrangingCollection', 'processing'] },
      delete: false,
      reason: { en_US: 'it has been submitted: withdraw it instead', zh_CN: '已提交，请撤回' },
    },
    { when: { field: 'status', is: ['finished', 'withdrawn', 'closed'] }, edit: [], delete: false },
  ],
  actions: [
    {
      name: 'evaluate',
      label: { en_US: 'Evaluate', zh_CN: '评价' },
      on: 'row',
      when: { field: 'status', is: ['finished'] },
      // Once: an order evaluated already no longer offers it.
      whenEmpty: ['evaluationStars'],
      input: [
        { name: 'stars', kind: 'number', int: true, min: 1, max: 5, label: { en_US: 'Stars', zh_CN: '星级' }, required: true, widget: 'rate' },
        { name: 'text', kind: 'longText', label: { en_US: 'Evaluation text', zh_CN: '评价内容' }, max: 1000 },
      ],
    },
  ],
})
