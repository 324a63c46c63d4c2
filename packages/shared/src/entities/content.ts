import { APP_CONTENT } from './owners'
import { defineEntity } from '../entity/define'
import type { EnumOption, FieldDef, Label } from '../entity/types'
import { createTime, idField, remark, status } from './common-fields'
import { APP_LANGUAGE_OPTIONS } from '../app-languages'

// Not exported here: the registry takes every export of an entities module as an entity.

// App content (SPEC §1, §3): what the riders' mobile app shows. Staff write it here; the app reads
// what each definition's `app` declares through {API_PREFIX}/app/v1 (modules/app), only published
// rows in their time window, for the app's language and country. The rules beyond the definitions
// (pushing messages, agreement versions, the current app version) are in server modules/content.

const language = {
  name: 'language',
  kind: 'enum',
  options: APP_LANGUAGE_OPTIONS,
  label: { en_US: 'Language', zh_CN: '语言' },
  required: true,
  default: 'en_US',
  search: 'eq',
} as const satisfies FieldDef

/** Shown to the app while the status is Normal (the product's enable/disable dictionary). */
const shown = { ...status, label: { en_US: 'Status', zh_CN: '状态' } } as const satisfies FieldDef
const PUBLISHED = { field: 'status', is: ['0'] } as const

const URL_PATTERN = /^https?:\/\/[^\s]+$/
const urlMessage: Label = { en_US: 'Enter a web address starting with http:// or https://', zh_CN: '请输入以 http:// 或 https:// 开头的网址' }
const url = (name: string, label: Label, required = false) =>
  ({ name, kind: 'text', label, required, max: 500, pattern: URL_PATTERN, patternMessage: urlMessage, list: false }) as const

const orderNum = { name: 'orderNum', kind: 'number', int: true, min: 0, max: 99999, label: { en_US: 'Sort', zh_CN: '排序' }, required: true, default: 0, sort: true } as const
const country = (required = false) =>
  ({ name: 'countryId', kind: 'reference', entity: 'country', label: { en_US: 'Country / region', zh_CN: '国家/地区' }, required, search: 'eq' }) as const
const title = { name: 'title', kind: 'text', label: { en_US: 'Title', zh_CN: '标题' }, required: true, max: 200, search: 'like', sort: true } as const
const name = { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, required: true, max: 100, search: 'like', sort: true } as const
const readCount = (name: string, label: Label, list = true) =>
  ({ name, kind: 'number', int: true, min: 0, label, readOnly: true, required: true, default: 0, list }) as const
const startTime = { name: 'startTime', kind: 'datetime', label: { en_US: 'Start time', zh_CN: '开始时间' }, search: 'range', sort: true } as const
const endTime = { name: 'endTime', kind: 'datetime', label: { en_US: 'End time', zh_CN: '结束时间' }, sort: true } as const

/** Help centre questions the app shows (SPEC §3 FAQ): a whole module is this, a migration and a menu row. */
export const faq = defineEntity({
  key: 'faq',
  table: 'contentFaq',
  path: '/content/faq',
  permission: 'content:faq',
  label: { en_US: 'Help centre FAQ', zh_CN: '帮助中心' },
  singular: { en_US: 'FAQ', zh_CN: '常见问题' },
  idField: 'faqId',
  labelField: 'title',
  defaultSort: { field: 'orderNum', order: 'asc' },
  scope: APP_CONTENT,
  fields: [
    idField('faqId'),
    {
      name: 'type',
      kind: 'enum',
      label: { en_US: 'Type', zh_CN: '类型' },
      required: true,
      max: 16,
      search: 'eq',
      options: [
        { value: 'riding', label: { en_US: 'Riding', zh_CN: '骑行' }, color: 'blue' },
        { value: 'battery', label: { en_US: 'Battery and charging', zh_CN: '电池与充电' }, color: 'green' },
        { value: 'app', label: { en_US: 'App and account', zh_CN: 'App 与账号' }, color: 'purple' },
        { value: 'warranty', label: { en_US: 'Warranty and repair', zh_CN: '质保与维修' }, color: 'orange' },
      ],
    },
    { name: 'title', kind: 'text', label: { en_US: 'Title', zh_CN: '标题' }, required: true, max: 200, search: 'like', sort: true },
    { name: 'introduction', kind: 'longText', label: { en_US: 'Introduction', zh_CN: '简介' }, max: 500 },
    { name: 'orderNum', kind: 'number', int: true, min: 0, max: 99999, label: { en_US: 'Sort', zh_CN: '排序' }, required: true, default: 0, sort: true },
    { name: 'content', kind: 'richText', label: { en_US: 'Content', zh_CN: '内容' }, required: true, list: false },
    language,
    status,
    createTime,
  ],
  app: { path: 'faq', fields: ['type', 'title', 'introduction', 'content', 'orderNum'], published: PUBLISHED, language: 'language', filters: ['type'] },
})

/**
 * System messages (SPEC §3, §5): written here, pushed to their audience's app inbox by the Push
 * action (a job: one inbox row per member), or at their send time. A pushed message is history: it
 * cannot be deleted ("Existing messages have been sent, deletion failed") nor changed.
 */
export const message = defineEntity({
  key: 'message',
  table: 'cntMessage',
  path: '/content/message',
  permission: 'content:message',
  label: { en_US: 'System messages', zh_CN: '系统消息' },
  singular: { en_US: 'system message', zh_CN: '系统消息' },
  idField: 'messageId',
  labelField: 'title',
  defaultSort: { field: 'createTime', order: 'desc' },
  scope: { country: 'countryId' },
  // A message chosen for named members: the rider is taken off its list (their inbox copies go with messageRecipient).
  rider: { by: { member: 'memberIds' }, erase: 'unbind', package: false },
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  related: [{ entity: 'messageRecipient', by: 'messageId', label: { en_US: 'Recipients', zh_CN: '接收会员' }, columns: ['memberId', 'createTime', 'readTime'] }],
  storage: { indexes: [{ columns: ['status', 'sendTime'] }] },
  fields: [
    idField('messageId'),
    title,
    { name: 'content', kind: 'richText', label: { en_US: 'Content', zh_CN: '内容' }, required: true, list: false },
    {
      name: 'audience',
      kind: 'enum',
      label: { en_US: 'Audience', zh_CN: '发送对象' },
      required: true,
      default: 'all',
      search: 'eq',
      options: [
        { value: 'all', label: { en_US: 'All members', zh_CN: '全部会员' }, color: 'blue' },
        { value: 'country', label: { en_US: 'Members of a country', zh_CN: '指定国家会员' }, color: 'cyan' },
        { value: 'members', label: { en_US: 'Selected members', zh_CN: '指定会员' }, color: 'purple' },
      ],
    },
    { ...country(), when: { field: 'audience', is: ['country'] } },
    {
      name: 'memberIds',
      kind: 'referenceMany',
      entity: 'member',
      through: { table: 'cntMessageMember', from: 'messageId', to: 'memberId' },
      label: { en_US: 'Members', zh_CN: '会员' },
      when: { field: 'audience', is: ['members'] },
    },
    {
      name: 'sendMode',
      kind: 'enum',
      label: { en_US: 'Send', zh_CN: '发送方式' },
      required: true,
      default: 'now',
      options: [
        { value: 'now', label: { en_US: 'When pushed', zh_CN: '推送时立即发送' }, color: 'default' },
        { value: 'scheduled', label: { en_US: 'At the send time', zh_CN: '定时发送' }, color: 'geekblue' },
      ],
    },
    { name: 'sendTime', kind: 'datetime', label: { en_US: 'Send time', zh_CN: '发送时间' }, search: 'range', sort: true, when: { field: 'sendMode', is: ['scheduled'] } },
    {
      name: 'status',
      kind: 'enum',
      label: { en_US: 'Status', zh_CN: '状态' },
      readOnly: true,
      default: 'draft',
      search: 'eq',
      options: [
        { value: 'draft', label: { en_US: 'Draft', zh_CN: '草稿' }, color: 'default' },
        { value: 'scheduled', label: { en_US: 'Scheduled', zh_CN: '待发送' }, color: 'processing' },
        { value: 'sending', label: { en_US: 'Sending', zh_CN: '发送中' }, color: 'processing' },
        { value: 'sent', label: { en_US: 'Sent', zh_CN: '已发送' }, color: 'success' },
      ],
    },
    readCount('sentCount', { en_US: 'Sent', zh_CN: '已发送' }),
    readCount('readCount', { en_US: 'Read', zh_CN: '已读' }),
    { name: 'sentTime', kind: 'datetime', label: { en_US: 'Sent at', zh_CN: '发送完成时间' }, readOnly: true, sort: true },
    remark,
    createTime,
  ],
  // Being sent or sent, it is history: neither changed nor deleted (SPEC §5, §8).
  states: [{ when: { field: 'status', is: ['sending', 'sent'] }, edit: [], delete: false, reason: { en_US: 'it is being sent or has been sent', zh_CN: '正在发送或已发送' } }],
  actions: [
    {
      name: 'push',
      label: { en_US: 'Push', zh_CN: '推送' },
      on: 'row',
      mode: 'job',
      preview: true,
      when: { field: 'status', is: ['draft'] },
      confirm: {
        en_US: 'Push {label} to the app inbox of its recipients? A pushed message cannot be deleted or changed.',
        zh_CN: '确认将 {label} 推送到接收会员的 App 收件箱？推送后不能删除或修改。',
      },
    },
  ],
})

/** One member's copy of a pushed message: their app inbox row, read or not. */
export const messageRecipient = defineEntity({
  key: 'messageRecipient',
  table: 'cntMessageRecipient',
  path: '/content/message/recipient',
  permission: 'content:message',
  label: { en_US: 'Message recipients', zh_CN: '消息接收记录' },
  singular: { en_US: 'recipient', zh_CN: '接收记录' },
  idField: 'recipientId',
  labelField: 'recipientId',
  defaultSort: { field: 'recipientId', order: 'asc' },
  scope: { via: 'memberId' },
  rider: { by: { member: 'memberId' }, erase: 'delete' },
  operations: ['list', 'get', 'export'],
  storage: {
    audited: false,
    indexes: [
      { columns: ['messageId', 'memberId'], unique: true },
      // A member's inbox, newest first.
      { columns: ['memberId', 'createTime'] },
    ],
  },
  fields: [
    idField('recipientId'),
    { name: 'messageId', kind: 'reference', entity: 'message', label: { en_US: 'Message', zh_CN: '消息' }, required: true, readOnly: true, search: 'eq' },
    { name: 'memberId', kind: 'reference', entity: 'member', label: { en_US: 'Member', zh_CN: '会员' }, required: true, readOnly: true, search: 'eq' },
    { name: 'createTime', kind: 'datetime', label: { en_US: 'Delivered', zh_CN: '送达时间' }, readOnly: true, required: true, sort: true },
    { name: 'readTime', kind: 'datetime', label: { en_US: 'Read', zh_CN: '阅读时间' }, readOnly: true, search: 'range', sort: true },
  ],
})

const PROTOCOL_TYPES: readonly EnumOption[] = [
  { value: 'privacy', label: { en_US: 'Privacy agreement', zh_CN: '隐私协议' }, color: 'blue' },
  { value: 'emailSubscription', label: { en_US: 'Email subscription agreement', zh_CN: '邮件订阅协议' }, color: 'green' },
]

/**
 * Agreements (SPEC §3 App protocol): one row per type, language and version. Publishing a version
 * makes it the one the app shows for its type and language (the previous one is retired); a version
 * marked as an update makes every member who signed an older one count as not signed until they
 * sign again. Saving a type, language and version that exists asks to overwrite it.
 */
export const protocol = defineEntity({
  key: 'protocol',
  table: 'cntProtocol',
  path: '/content/protocol',
  permission: 'content:protocol',
  label: { en_US: 'Agreements', zh_CN: '协议管理' },
  singular: { en_US: 'agreement', zh_CN: '协议' },
  idField: 'protocolId',
  labelField: 'name',
  defaultSort: { field: 'createTime', order: 'desc' },
  scope: APP_CONTENT,
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  related: [{ entity: 'protocolSignature', by: 'protocolId', label: { en_US: 'Signatures', zh_CN: '签署记录' }, columns: ['memberId', 'state', 'signTime', 'cancelTime'] }],
  storage: { indexes: [{ columns: ['type', 'language', 'versionCode'], unique: true }] },
  fields: [
    idField('protocolId'),
    { ...name, label: { en_US: 'Agreement name', zh_CN: '协议名称' } },
    { name: 'type', kind: 'enum', options: PROTOCOL_TYPES, label: { en_US: 'Agreement type', zh_CN: '协议类型' }, required: true, search: 'eq' },
    { name: 'content', kind: 'richText', label: { en_US: 'Agreement content', zh_CN: '协议内容' }, required: true, list: false },
    { ...language, label: { en_US: 'Agreement language', zh_CN: '协议语言' } },
    { name: 'versionCode', kind: 'version', label: { en_US: 'Version code', zh_CN: '版本号' }, required: true, search: 'eq', sort: true },
    {
      name: 'isUpdate',
      kind: 'boolean',
      label: { en_US: 'Is update', zh_CN: '是否更新' },
      default: false,
      help: { en_US: 'Members who signed an earlier version must sign this one again', zh_CN: '已签署旧版本的会员需重新签署' },
    },
    {
      name: 'status',
      kind: 'enum',
      label: { en_US: 'Status', zh_CN: '状态' },
      readOnly: true,
      default: 'draft',
      search: 'eq',
      options: [
        { value: 'draft', label: { en_US: 'Draft', zh_CN: '草稿' }, color: 'default' },
        { value: 'published', label: { en_US: 'Published', zh_CN: '已发布' }, color: 'success' },
        { value: 'retired', label: { en_US: 'Superseded', zh_CN: '已替换' }, color: 'default' },
      ],
    },
    readCount('signCount', { en_US: 'Signatures', zh_CN: '签署数' }),
    readCount('cancelCount', { en_US: 'Cancellations', zh_CN: '取消数' }),
    { name: 'publishTime', kind: 'datetime', label: { en_US: 'Published at', zh_CN: '发布时间' }, readOnly: true, sort: true },
    remark,
    createTime,
  ],
  // Published or superseded, members may have signed or read it: it stays, and only what they did
  // not sign (its name, the remark) changes. A new version says anything else.
  states: [
    {
      when: { field: 'status', is: ['published', 'retired'] },
      edit: ['name', 'remark'],
      delete: false,
      reason: { en_US: 'it has been published and members may have signed it: publish a new version instead', zh_CN: '已发布，会员可能已签署；请发布新版本' },
    },
  ],
  actions: [
    {
      name: 'publish',
      label: { en_US: 'Publish', zh_CN: '发布' },
      on: 'row',
      mode: 'sync',
      preview: true,
      when: { field: 'status', is: ['draft'] },
      confirm: { en_US: 'Publish {label}? The app shows it from now on in place of the current version.', zh_CN: '确认发布 {label}？发布后 App 将显示此版本以替代当前版本。' },
    },
  ],
})

/** A member's signature of an agreement version, or its cancellation (the app writes them). */
export const protocolSignature = defineEntity({
  key: 'protocolSignature',
  table: 'cntProtocolSignature',
  path: '/content/protocol/signature',
  permission: 'content:protocol',
  label: { en_US: 'Agreement signatures', zh_CN: '协议签署记录' },
  singular: { en_US: 'signature', zh_CN: '签署记录' },
  idField: 'signatureId',
  labelField: 'signatureId',
  defaultSort: { field: 'signTime', order: 'desc' },
  scope: { via: 'memberId' },
  // Proof of consent (GDPR Art. 7(1)): which text, which version, when; kept against the anonymous member.
  rider: { by: { member: 'memberId' }, erase: 'keep' },
  operations: ['list', 'get', 'export'],
  storage: {
    audited: false,
    indexes: [
      { columns: ['protocolId', 'memberId'], unique: true },
      { columns: ['memberId', 'type', 'language'] },
    ],
  },
  fields: [
    idField('signatureId'),
    { name: 'protocolId', kind: 'reference', entity: 'protocol', label: { en_US: 'Agreement', zh_CN: '协议' }, required: true, readOnly: true, search: 'eq' },
    { name: 'memberId', kind: 'reference', entity: 'member', label: { en_US: 'Member', zh_CN: '会员' }, required: true, readOnly: true, search: 'eq' },
    // Copies of the agreement's, so a member's standing per type and language is one indexed read.
    { name: 'type', kind: 'enum', options: PROTOCOL_TYPES, label: { en_US: 'Agreement type', zh_CN: '协议类型' }, required: true, readOnly: true, search: 'eq' },
    { ...language, readOnly: true },
    { name: 'versionCode', kind: 'version', label: { en_US: 'Version code', zh_CN: '版本号' }, required: true, readOnly: true },
    {
      name: 'state',
      kind: 'enum',
      label: { en_US: 'State', zh_CN: '状态' },
      readOnly: true,
      default: 'signed',
      search: 'eq',
      options: [
        { value: 'signed', label: { en_US: 'Signed', zh_CN: '已签署' }, color: 'success' },
        { value: 'cancelled', label: { en_US: 'Cancelled', zh_CN: '已取消' }, color: 'warning' },
      ],
    },
    { name: 'signTime', kind: 'datetime', label: { en_US: 'Signed at', zh_CN: '签署时间' }, readOnly: true, required: true, sort: true },
    { name: 'cancelTime', kind: 'datetime', label: { en_US: 'Cancelled at', zh_CN: '取消时间' }, readOnly: true, sort: true },
  ],
})

const notes = (name: string, lang: string, zh: string) =>
  ({ name, kind: 'longText', max: 2000, label: { en_US: `Release notes (${lang})`, zh_CN: `更新说明（${zh}）` }, list: false }) as const

/**
 * App versions (SPEC §3): the app asks whether it is current (the version check of the app API). One
 * version per platform is current; making another current takes the mark from the previous one.
 */
export const appVersion = defineEntity({
  key: 'appVersion',
  table: 'cntAppVersion',
  path: '/content/appVersion',
  permission: 'content:appVersion',
  label: { en_US: 'App versions', zh_CN: 'App 版本' },
  singular: { en_US: 'app version', zh_CN: 'App 版本' },
  idField: 'versionId',
  labelField: 'versionCode',
  defaultSort: { field: 'createTime', order: 'desc' },
  scope: APP_CONTENT,
  storage: { indexes: [{ columns: ['platform', 'versionCode'], unique: true }, { columns: ['platform', 'current'] }] },
  fields: [
    idField('versionId'),
    {
      name: 'platform',
      kind: 'enum',
      label: { en_US: 'Platform', zh_CN: '平台' },
      required: true,
      search: 'eq',
      options: [
        { value: 'ios', label: { en_US: 'iOS', zh_CN: 'iOS' }, color: 'default' },
        { value: 'android', label: { en_US: 'Android', zh_CN: 'Android' }, color: 'green' },
      ],
    },
    { name: 'versionCode', kind: 'version', label: { en_US: 'Version code', zh_CN: '版本号' }, required: true, search: 'eq', sort: true },
    {
      name: 'versionType',
      kind: 'enum',
      label: { en_US: 'Version type', zh_CN: '版本类型' },
      required: true,
      default: 'normal',
      search: 'eq',
      options: [
        { value: 'normal', label: { en_US: 'Normal', zh_CN: '普通更新' }, color: 'default' },
        { value: 'force', label: { en_US: 'Force update', zh_CN: '强制更新' }, color: 'red' },
      ],
    },
    { ...url('downloadUrl', { en_US: 'URL', zh_CN: '下载地址' }, true), list: true },
    {
      name: 'updateInterval',
      kind: 'number',
      int: true,
      min: 0,
      max: 8760,
      duration: 'h',
      label: { en_US: 'Update interval', zh_CN: '更新提醒间隔' },
      required: true,
      default: 24,
      help: { en_US: 'How often the app reminds of a normal update; 0 at every start', zh_CN: '普通更新的提醒间隔；0 表示每次启动都提醒' },
    },
    {
      name: 'current',
      kind: 'boolean',
      label: { en_US: 'Current', zh_CN: '当前版本' },
      default: false,
      search: 'eq',
      help: { en_US: 'The version the app is offered; one per platform', zh_CN: 'App 获取的最新版本；每个平台一个' },
    },
    { name: 'releaseTime', kind: 'datetime', label: { en_US: 'Release time', zh_CN: '发布时间' }, required: true, sort: true },
    notes('notesEn', 'English', '英语'),
    notes('notesDe', 'German', '德语'),
    notes('notesNl', 'Dutch', '荷兰语'),
    notes('notesFr', 'French', '法语'),
    remark,
    createTime,
  ],
})

/** Activities the app announces (SPEC §3 Activity): shown between their start and end. */
export const activity = defineEntity({
  key: 'activity',
  table: 'cntActivity',
  path: '/content/activity',
  permission: 'content:activity',
  label: { en_US: 'Activities', zh_CN: '活动管理' },
  singular: { en_US: 'activity', zh_CN: '活动' },
  idField: 'activityId',
  labelField: 'name',
  defaultSort: { field: 'startTime', order: 'desc' },
  scope: { country: 'countryId' },
  fields: [
    idField('activityId'),
    name,
    { name: 'subtitle', kind: 'text', label: { en_US: 'Subtitle', zh_CN: '副标题' }, max: 200, list: false },
    { name: 'image', kind: 'image', label: { en_US: 'Image', zh_CN: '图片' } },
    { ...startTime, required: true },
    { ...endTime, required: true, help: { en_US: 'After the start time', zh_CN: '须晚于开始时间' } },
    orderNum,
    { name: 'contactUs', kind: 'boolean', label: { en_US: 'Contact us', zh_CN: '联系我们' }, default: false, list: false, help: { en_US: 'The app shows a contact button on the activity', zh_CN: 'App 在活动页显示联系按钮' } },
    country(),
    language,
    { name: 'description', kind: 'richText', label: { en_US: 'Description', zh_CN: '描述' }, required: true, list: false },
    { name: 'reminder', kind: 'boolean', label: { en_US: 'Reminder', zh_CN: '提醒' }, default: false, list: false, help: { en_US: 'Members are reminded when it starts', zh_CN: '活动开始时提醒会员' } },
    { name: 'tagEndTime', kind: 'datetime', label: { en_US: 'Tag end time', zh_CN: '标签结束时间' }, list: false, help: { en_US: 'Until then the app marks it New', zh_CN: '此前 App 显示“新”标签' } },
    { name: 'bikeType', kind: 'dict', dict: 'bike_category', label: { en_US: 'Bike type', zh_CN: '车辆类型' }, max: 16, search: 'eq' },
    { name: 'functionId', kind: 'reference', entity: 'iotFunction', label: { en_US: 'IoT function', zh_CN: '物联网功能' }, list: false },
    shown,
    createTime,
  ],
  app: {
    path: 'activities',
    fields: ['name', 'subtitle', 'image', 'startTime', 'endTime', 'orderNum', 'contactUs', 'description', 'reminder', 'tagEndTime', 'bikeType', 'functionId'],
    published: PUBLISHED,
    window: { start: 'startTime', end: 'endTime' },
    language: 'language',
    country: 'countryId',
    sort: { field: 'orderNum', order: 'asc' },
  },
})

/** Feature guides: the screens that introduce a feature of the app, in order. */
export const guide = defineEntity({
  key: 'guide',
  table: 'cntGuide',
  path: '/content/guide',
  permission: 'content:guide',
  label: { en_US: 'Feature guides', zh_CN: '功能引导' },
  singular: { en_US: 'feature guide', zh_CN: '功能引导' },
  idField: 'guideId',
  // Its required image is uploaded in the form: an Excel row cannot bring one, so nothing to import.
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  labelField: 'title',
  defaultSort: { field: 'orderNum', order: 'asc' },
  scope: APP_CONTENT,
  fields: [
    idField('guideId'),
    title,
    { name: 'description', kind: 'longText', label: { en_US: 'Description', zh_CN: '描述' }, max: 1000, required: true },
    { name: 'image', kind: 'image', label: { en_US: 'Image', zh_CN: '图片' }, required: true },
    { name: 'functionId', kind: 'reference', entity: 'iotFunction', label: { en_US: 'IoT function', zh_CN: '物联网功能' }, search: 'eq' },
    orderNum,
    language,
    shown,
    createTime,
  ],
  app: { path: 'guides', fields: ['title', 'description', 'image', 'functionId', 'orderNum'], published: PUBLISHED, language: 'language', sort: { field: 'orderNum', order: 'asc' } },
})

/** Achievements members earn in the app (SPEC §3): reached at the target value of their level. */
export const achievement = defineEntity({
  key: 'achievement',
  table: 'cntAchievement',
  path: '/content/achievement',
  permission: 'content:achievement',
  label: { en_US: 'Achievements', zh_CN: '成就管理' },
  singular: { en_US: 'achievement', zh_CN: '成就' },
  idField: 'achievementId',
  // Its required image is uploaded in the form: an Excel row cannot bring one, so nothing to import.
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  labelField: 'name',
  defaultSort: { field: 'level', order: 'asc' },
  scope: APP_CONTENT,
  storage: { indexes: [{ columns: ['name', 'level'], unique: true }] },
  fields: [
    idField('achievementId'),
    name,
    { name: 'description', kind: 'longText', label: { en_US: 'Description', zh_CN: '描述' }, max: 500, required: true },
    { name: 'defaultImage', kind: 'image', label: { en_US: 'Default image', zh_CN: '默认图片' }, required: true, help: { en_US: 'Shown until it is reached', zh_CN: '未达成时显示' } },
    { name: 'image', kind: 'image', label: { en_US: 'Image', zh_CN: '图片' }, required: true, help: { en_US: 'Shown once it is reached', zh_CN: '达成后显示' } },
    { name: 'level', kind: 'number', int: true, min: 1, max: 99, label: { en_US: 'Level', zh_CN: '等级' }, required: true, default: 1, search: 'eq', sort: true },
    { name: 'targetValue', kind: 'number', int: true, min: 1, max: 1_000_000_000, label: { en_US: 'Target value', zh_CN: '目标值' }, required: true, sort: true },
    shown,
    createTime,
  ],
  app: { path: 'achievements', fields: ['name', 'description', 'defaultImage', 'image', 'level', 'targetValue'], published: PUBLISHED, sort: { field: 'level', order: 'asc' } },
})

/** The home screen's carousel: an image with a link, in order, within its time window. */
export const banner = defineEntity({
  key: 'banner',
  table: 'cntBanner',
  path: '/content/banner',
  permission: 'content:banner',
  label: { en_US: 'Home banners', zh_CN: '首页轮播' },
  singular: { en_US: 'home banner', zh_CN: '轮播图' },
  idField: 'bannerId',
  // Its required image is uploaded in the form: an Excel row cannot bring one, so nothing to import.
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  labelField: 'title',
  defaultSort: { field: 'orderNum', order: 'asc' },
  scope: { country: 'countryId' },
  fields: [
    idField('bannerId'),
    title,
    { name: 'image', kind: 'image', label: { en_US: 'Image', zh_CN: '图片' }, required: true },
    url('linkUrl', { en_US: 'Link', zh_CN: '链接' }),
    orderNum,
    startTime,
    { ...endTime, help: { en_US: 'After the start time; empty: no end', zh_CN: '须晚于开始时间；留空表示不结束' } },
    language,
    country(),
    shown,
    createTime,
  ],
  app: {
    path: 'banners',
    fields: ['title', 'image', 'linkUrl', 'orderNum', 'startTime', 'endTime'],
    published: PUBLISHED,
    window: { start: 'startTime', end: 'endTime' },
    language: 'language',
    country: 'countryId',
    sort: { field: 'orderNum', order: 'asc' },
  },
})

/** Insurance and warranty terms the app shows, per country and language. */
export const policy = defineEntity({
  key: 'policy',
  table: 'cntPolicy',
  path: '/content/policy',
  permission: 'content:policy',
  label: { en_US: 'Insurance and warranty policy', zh_CN: '保险与质保政策' },
  singular: { en_US: 'policy', zh_CN: '政策' },
  idField: 'policyId',
  labelField: 'title',
  defaultSort: { field: 'createTime', order: 'desc' },
  scope: { country: 'countryId' },
  fields: [
    idField('policyId'),
    title,
    {
      name: 'type',
      kind: 'enum',
      label: { en_US: 'Type', zh_CN: '类型' },
      required: true,
      search: 'eq',
      options: [
        { value: 'insurance', label: { en_US: 'Insurance', zh_CN: '保险' }, color: 'blue' },
        { value: 'warranty', label: { en_US: 'Warranty', zh_CN: '质保' }, color: 'green' },
      ],
    },
    { name: 'content', kind: 'richText', label: { en_US: 'Content', zh_CN: '内容' }, required: true, list: false },
    { name: 'coverageMonths', kind: 'number', int: true, min: 0, max: 240, label: { en_US: 'Coverage (months)', zh_CN: '保障期（月）' } },
    url('linkUrl', { en_US: 'Link', zh_CN: '链接' }),
    language,
    country(),
    shown,
    createTime,
  ],
  app: { path: 'policies', fields: ['title', 'type', 'content', 'coverageMonths', 'linkUrl'], published: PUBLISHED, language: 'language', country: 'countryId', filters: ['type'] },
})

/** How-to videos and user manuals, per bike model and language (SPEC §3 User help). */
export const userHelp = defineEntity({
  key: 'userHelp',
  table: 'cntUserHelp',
  path: '/content/userHelp',
  permission: 'content:userHelp',
  label: { en_US: 'User help', zh_CN: '用户帮助' },
  singular: { en_US: 'help item', zh_CN: '帮助' },
  idField: 'helpId',
  labelField: 'title',
  defaultSort: { field: 'orderNum', order: 'asc' },
  scope: APP_CONTENT,
  fields: [
    idField('helpId'),
    title,
    {
      name: 'type',
      kind: 'enum',
      label: { en_US: 'Type', zh_CN: '类型' },
      required: true,
      search: 'eq',
      options: [
        { value: 'video', label: { en_US: 'Using video', zh_CN: '使用视频' }, color: 'magenta' },
        { value: 'manual', label: { en_US: 'User manual', zh_CN: '用户手册' }, color: 'blue' },
      ],
    },
    { name: 'modelId', kind: 'reference', entity: 'bikeModel', label: { en_US: 'Device model', zh_CN: '设备型号' }, search: 'eq' },
    language,
    { name: 'coverImage', kind: 'image', label: { en_US: 'Cover image', zh_CN: '封面图' } },
    { name: 'video', kind: 'file', accept: ['mp4', 'webm', 'mov'], maxBytes: 500 * 1024 * 1024, label: { en_US: 'Video', zh_CN: '视频' }, list: false, when: { field: 'type', is: ['video'] } },
    { name: 'videoDuration', kind: 'number', int: true, min: 1, max: 36000, duration: 's', label: { en_US: 'Video duration', zh_CN: '视频时长' }, when: { field: 'type', is: ['video'] } },
    { name: 'document', kind: 'file', accept: ['pdf'], maxBytes: 100 * 1024 * 1024, label: { en_US: 'Document', zh_CN: '文档' }, list: false, when: { field: 'type', is: ['manual'] } },
    url('linkUrl', { en_US: 'Link URL', zh_CN: '链接地址' }),
    orderNum,
    shown,
    createTime,
  ],
  app: {
    path: 'help',
    fields: ['title', 'type', 'modelId', 'coverImage', 'video', 'videoDuration', 'document', 'linkUrl', 'orderNum'],
    published: PUBLISHED,
    language: 'language',
    filters: ['type', 'modelId'],
    sort: { field: 'orderNum', order: 'asc' },
  },
})

/** Errors the app may show, with what the rider can do about them (SPEC §3 Error code). */
export const errorCode = defineEntity({
  key: 'errorCode',
  table: 'cntErrorCode',
  path: '/content/errorCode',
  permission: 'content:errorCode',
  label: { en_US: 'App error codes', zh_CN: 'App 错误码' },
  singular: { en_US: 'error code', zh_CN: '错误码' },
  idField: 'errorCodeId',
  labelField: 'code',
  defaultSort: { field: 'code', order: 'asc' },
  scope: APP_CONTENT,
  fields: [
    idField('errorCodeId'),
    {
      name: 'code',
      kind: 'text',
      label: { en_US: 'Error code', zh_CN: '错误码' },
      required: true,
      unique: true,
      max: 32,
      pattern: /^[A-Za-z0-9_.-]+$/,
      patternMessage: { en_US: 'Letters, digits, ., - and _', zh_CN: '只能使用字母、数字、.、- 和 _' },
      search: 'like',
      sort: true,
    },
    {
      name: 'level',
      kind: 'enum',
      label: { en_US: 'Error level', zh_CN: '错误级别' },
      required: true,
      search: 'eq',
      options: [
        { value: 'info', label: { en_US: 'Info', zh_CN: '提示' }, color: 'default' },
        { value: 'warning', label: { en_US: 'Warning', zh_CN: '警告' }, color: 'warning' },
        { value: 'error', label: { en_US: 'Error', zh_CN: '错误' }, color: 'error' },
        { value: 'critical', label: { en_US: 'Critical', zh_CN: '严重' }, color: 'red' },
      ],
    },
    { name: 'description', kind: 'longText', label: { en_US: 'Error description', zh_CN: '错误描述' }, required: true, max: 1000 },
    { name: 'solution', kind: 'longText', label: { en_US: 'Solution', zh_CN: '解决方案' }, required: true, max: 2000 },
    {
      name: 'errorType',
      kind: 'enum',
      label: { en_US: 'Error type', zh_CN: '错误类型' },
      required: true,
      search: 'eq',
      options: [
        { value: 'app', label: { en_US: 'App', zh_CN: 'App' }, color: 'blue' },
        { value: 'bike', label: { en_US: 'Bike', zh_CN: '车辆' }, color: 'orange' },
        { value: 'bluetooth', label: { en_US: 'Bluetooth', zh_CN: '蓝牙' }, color: 'geekblue' },
        { value: 'network', label: { en_US: 'Network', zh_CN: '网络' }, color: 'purple' },
        { value: 'account', label: { en_US: 'Account', zh_CN: '账号' }, color: 'cyan' },
      ],
    },
    shown,
    createTime,
  ],
  app: { path: 'errorCodes', fields: ['code', 'level', 'description', 'solution', 'errorType'], published: PUBLISHED, filters: ['errorType'] },
})

/** Shops and service points riders are sent to, found near a point by the app. */
export const serviceCentre = defineEntity({
  key: 'serviceCentre',
  table: 'cntServiceCentre',
  path: '/content/serviceCentre',
  permission: 'content:serviceCentre',
  label: { en_US: 'Store service centres', zh_CN: '门店服务中心' },
  singular: { en_US: 'service centre', zh_CN: '服务中心' },
  idField: 'centreId',
  labelField: 'name',
  defaultSort: { field: 'name', order: 'asc' },
  scope: { country: 'countryId' },
  // The app's "near me": a band of latitude read by the index, then the distance.
  storage: { indexes: [{ columns: ['latitude', 'longitude'] }] },
  fields: [
    idField('centreId'),
    name,
    { name: 'address', kind: 'text', label: { en_US: 'Address', zh_CN: '地址' }, required: true, max: 300, search: 'like' },
    country(true),
    { name: 'latitude', kind: 'number', min: -90, max: 90, label: { en_US: 'Latitude', zh_CN: '纬度' }, required: true },
    { name: 'longitude', kind: 'number', min: -180, max: 180, label: { en_US: 'Longitude', zh_CN: '经度' }, required: true },
    { name: 'phone', kind: 'phone', label: { en_US: 'Phone', zh_CN: '电话' } },
    { name: 'email', kind: 'email', label: { en_US: 'Email', zh_CN: '邮箱' }, list: false },
    { name: 'openingHours', kind: 'longText', max: 500, label: { en_US: 'Opening hours', zh_CN: '营业时间' }, list: false, help: { en_US: 'e.g. Mon–Fri 9:00–18:00, Sat 10:00–16:00', zh_CN: '例如 周一至周五 9:00–18:00，周六 10:00–16:00' } },
    { name: 'offersSales', kind: 'boolean', label: { en_US: 'Sales', zh_CN: '销售' }, default: true, search: 'eq' },
    { name: 'offersRepair', kind: 'boolean', label: { en_US: 'Repair', zh_CN: '维修' }, default: true, search: 'eq' },
    { name: 'offersTestRide', kind: 'boolean', label: { en_US: 'Test ride', zh_CN: '试骑' }, default: false, search: 'eq' },
    { name: 'offersWarranty', kind: 'boolean', label: { en_US: 'Warranty service', zh_CN: '质保服务' }, default: false, search: 'eq' },
    shown,
    createTime,
  ],
  app: {
    path: 'serviceCentres',
    fields: ['name', 'address', 'countryId', 'latitude', 'longitude', 'phone', 'email', 'openingHours', 'offersSales', 'offersRepair', 'offersTestRide', 'offersWarranty'],
    published: PUBLISHED,
    country: 'countryId',
  },
})

/**
 * Logs and crash reports the app uploads (Monitoring › App upload log): read by staff, downloaded,
 * and cleaned up; nobody adds or changes one here.
 */
export const appUploadLog = defineEntity({
  key: 'appUploadLog',
  table: 'monAppUploadLog',
  path: '/monitor/appUploadLog',
  permission: 'monitor:appUploadLog',
  label: { en_US: 'App upload log', zh_CN: 'App 上传日志' },
  singular: { en_US: 'app upload', zh_CN: 'App 上传日志' },
  idField: 'uploadId',
  labelField: 'originalName',
  defaultSort: { field: 'uploadTime', order: 'desc' },
  scope: { via: 'memberId' },
  rider: { by: { member: 'memberId' }, erase: 'delete' },
  operations: ['list', 'get', 'remove', 'export'],
  storage: { audited: false, indexes: [{ columns: ['uploadTime'] }, { columns: ['memberId', 'uploadTime'] }] },
  fields: [
    idField('uploadId'),
    { name: 'memberId', kind: 'reference', entity: 'member', label: { en_US: 'Member', zh_CN: '会员' }, readOnly: true, search: 'eq' },
    { name: 'deviceId', kind: 'text', label: { en_US: 'Device', zh_CN: '设备' }, max: 128, readOnly: true, search: 'like' },
    {
      name: 'logType',
      kind: 'enum',
      label: { en_US: 'Type', zh_CN: '类型' },
      required: true,
      readOnly: true,
      search: 'eq',
      options: [
        { value: 'log', label: { en_US: 'Log', zh_CN: '日志' }, color: 'default' },
        { value: 'crash', label: { en_US: 'Crash', zh_CN: '崩溃' }, color: 'error' },
      ],
    },
    {
      name: 'platform',
      kind: 'enum',
      label: { en_US: 'Platform', zh_CN: '平台' },
      required: true,
      readOnly: true,
      search: 'eq',
      options: [
        { value: 'ios', label: { en_US: 'iOS', zh_CN: 'iOS' }, color: 'default' },
        { value: 'android', label: { en_US: 'Android', zh_CN: 'Android' }, color: 'green' },
      ],
    },
    { name: 'appVersion', kind: 'version', label: { en_US: 'App version', zh_CN: 'App 版本' }, readOnly: true, search: 'eq', sort: true },
    { name: 'osVersion', kind: 'text', label: { en_US: 'OS', zh_CN: '操作系统' }, max: 64, readOnly: true },
    { name: 'file', kind: 'file', accept: ['log', 'txt', 'json', 'zip', 'gz'], maxBytes: 50 * 1024 * 1024, label: { en_US: 'File', zh_CN: '文件' }, readOnly: true, personal: 'content' },
    { name: 'originalName', kind: 'text', label: { en_US: 'File name', zh_CN: '文件名' }, max: 255, readOnly: true, search: 'like' },
    { name: 'fileSize', kind: 'number', int: true, min: 0, label: { en_US: 'Size (bytes)', zh_CN: '大小（字节）' }, readOnly: true, sort: true },
    { name: 'uploadTime', kind: 'datetime', label: { en_US: 'Uploaded', zh_CN: '上传时间' }, readOnly: true, required: true, search: 'range', sort: true },
  ],
  actions: [
    {
      name: 'cleanUp',
      label: { en_US: 'Clean up', zh_CN: '清理' },
      on: 'toolbar',
      mode: 'sync',
      permission: 'monitor:appUploadLog:remove',
      input: [{ name: 'olderThanDays', kind: 'number', int: true, min: 0, max: 3650, duration: 'd', label: { en_US: 'Older than', zh_CN: '早于' }, required: true, default: 30 }],
      confirm: { en_US: 'Delete the uploads older than this, with their files?', zh_CN: '确认删除早于此时间的上传记录及其文件？' },
      danger: true,
    },
  ],
})
