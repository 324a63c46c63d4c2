import { APP_CONTENT } from './owners'
import { APP_LANGUAGE_OPTIONS } from '../app-languages'
import { defineEntity } from '../entity/define'
import { DATA_PACKAGE_DAYS, SEE_ALL_PERSONAL_DATA } from '../privacy-requests'
import type { EnumOption } from '../entity/types'
import { createTime, idField, remark, status } from './common-fields'

// The members area (SPEC §3 Member, Feedback): the riders who sign up in the app, their rides, what
// they tell us and the tags feedback is sorted by. Members and their rides and feedback are written
// by the app; staff read them, correct a few member fields, disable an account, reply to feedback.

/** Whether a member has a bike bound (the bikes module keeps it). Not exported: the registry takes every export as an entity. */
const BIND_STATUS_OPTIONS: readonly EnumOption[] = [
  { value: 'unbound', label: { en_US: 'Unbound', zh_CN: '未绑定' }, color: 'default' },
  { value: 'bound', label: { en_US: 'Bound', zh_CN: '已绑定' }, color: 'success' },
]

export const member = defineEntity({
  key: 'member',
  table: 'memMember',
  path: '/member/member',
  permission: 'member:member',
  label: { en_US: 'Members', zh_CN: '会员列表' },
  singular: { en_US: 'member', zh_CN: '会员' },
  idField: 'memberId',
  labelField: 'email',
  defaultSort: { field: 'createTime', order: 'desc' },
  scope: { country: 'countryId' },
  // Their own row: anonymised on erasure (no identifying value left, the account disabled and never signed in again), so rides,
  // signatures and history that point at it still count in statistics but name nobody.
  rider: {
    by: { member: 'memberId' },
    erase: 'anonymise',
    set: { status: '1', passwordHash: null, remark: '', emailConfirmed: false, bindStatus: 'unbound', erasureNoticeTime: null },
    hold: { field: 'legalHold', reason: { en_US: 'a legal hold is set on {label}: {value}', zh_CN: '{label} 设有法律保留：{value}' } },
  },
  // Members sign up in the app: staff never add or import one, and an account is disabled, not
  // deleted (rides, feedback and bikes refer to it). Staff correct a few fields and export.
  operations: ['list', 'get', 'edit', 'export'],
  // The member's details: the bikes bound to them, and their rides with the distance per week.
  related: [
    // Unbound from here too, with the bike list's dialog and right.
    { entity: 'bike', by: 'memberId', label: { en_US: 'Bound bikes', zh_CN: '绑定车辆' }, columns: ['frameNumber', 'modelId', 'boundTime', 'rideCount', 'batteryHealth', 'cycleTimes'], actions: ['unbind'] },
    {
      entity: 'ride',
      by: 'memberId',
      columns: ['uploadTime', 'distance', 'duration', 'avgSpeed', 'maxSpeed', 'cadence', 'calories'],
      chart: { time: 'uploadTime', value: 'distance', by: 'week', weeks: 12 },
    },
  ],
  storage: {
    // The app's sign-in: written and checked by the app's API only. No field shows it, so no list,
    // get, export or answer schema of the console can carry it (docs/entity-engine.md › Every answer is declared).
    columns: [
      { name: 'passwordHash', kind: 'text', max: 255, nullable: true, secret: true },
      // When the app told a long-inactive member that their data will be erased (the retention job, docs/privacy.md › Retention).
      { name: 'erasureNoticeTime', kind: 'datetime', nullable: true },
    ],
    indexes: [
      // Newest first (the default order), alone or within one account status; by country.
      { columns: ['createTime'] },
      { columns: ['status', 'createTime'] },
      { columns: ['countryId'] },
      // A member's country without the wide row (the registered-bikes dashboard joins it per bike).
      { columns: ['memberId', 'countryId'] },
      // Active in a range of days (the home card and its list).
      { columns: ['lastActiveDay'] },
    ],
  },
  fields: [
    idField('memberId'),
    // The sign-in name in the app: changed only by the member (with a confirmation mail), never by staff.
    { name: 'email', kind: 'email', label: { en_US: 'Email', zh_CN: '邮箱' }, required: true, unique: true, readOnly: true, search: 'like', sort: true, personal: 'contact' },
    { name: 'firstName', kind: 'text', label: { en_US: 'First name', zh_CN: '名' }, max: 64, search: 'like', sort: true, personal: 'contact' },
    { name: 'lastName', kind: 'text', label: { en_US: 'Last name', zh_CN: '姓' }, max: 64, search: 'like', sort: true, personal: 'contact' },
    { name: 'avatar', kind: 'image', label: { en_US: 'Avatar', zh_CN: '头像' }, personal: 'content' },
    { name: 'phone', kind: 'phone', label: { en_US: 'Phone', zh_CN: '手机号码' }, search: 'like', personal: 'contact' },
    { name: 'birthday', kind: 'date', label: { en_US: 'Birthday', zh_CN: '生日' }, list: false, personal: 'body' },
    { name: 'height', kind: 'number', int: true, min: 50, max: 250, label: { en_US: 'Height (cm)', zh_CN: '身高(cm)' }, list: false, personal: 'body' },
    { name: 'weight', kind: 'number', min: 10, max: 300, label: { en_US: 'Weight (kg)', zh_CN: '体重(kg)' }, list: false, personal: 'body' },
    // The same three values as staff users' gender (male, female, unknown).
    { name: 'gender', kind: 'dict', dict: 'sys_user_sex', label: { en_US: 'Gender', zh_CN: '性别' }, default: '2', max: 1, search: 'eq' },
    { name: 'countryId', kind: 'reference', entity: 'country', label: { en_US: 'Country / region', zh_CN: '国家/地区' }, search: 'eq' },
    // Enabled or disabled by staff: a disabled member cannot sign in to the app.
    { ...status, label: { en_US: 'Account status', zh_CN: '账号状态' } },
    { name: 'emailConfirmed', kind: 'boolean', label: { en_US: 'Confirmed', zh_CN: '已验证' }, default: false, readOnly: true, search: 'eq' },
    { name: 'bindStatus', kind: 'enum', options: BIND_STATUS_OPTIONS, label: { en_US: 'Bind status', zh_CN: '绑定状态' }, default: 'unbound', readOnly: true, search: 'eq' },
    {
      name: 'privacyAgreement',
      kind: 'enum',
      options: [
        { value: 'agreed', label: { en_US: 'Agreed', zh_CN: '已同意' }, color: 'success' },
        { value: 'disagreed', label: { en_US: 'Disagreed', zh_CN: '未同意' }, color: 'warning' },
      ],
      label: { en_US: 'Privacy agreement', zh_CN: '隐私协议' },
      // Consent is never assumed: the app records it when the member agrees.
      default: 'disagreed',
      readOnly: true,
      search: 'eq',
    },
    {
      name: 'ridingMode',
      kind: 'enum',
      options: [
        { value: 'manual', label: { en_US: 'Manual', zh_CN: '手动' }, color: 'default' },
        { value: 'auto', label: { en_US: 'Auto', zh_CN: '自动' }, color: 'blue' },
      ],
      label: { en_US: 'Riding mode', zh_CN: '骑行模式' },
      default: 'manual',
      readOnly: true,
      list: false,
    },
    { name: 'bluetoothUnlock', kind: 'boolean', label: { en_US: 'Bluetooth unlocking', zh_CN: '蓝牙解锁' }, default: false, readOnly: true, list: false },
    { ...createTime, label: { en_US: 'Registration time', zh_CN: '注册时间' } },
    { name: 'lastLoginTime', kind: 'datetime', label: { en_US: 'Last login', zh_CN: '最后登录' }, readOnly: true, sort: true },
    // The last UTC day with a ride or an app event, kept by the dashboards' rollups (docs/dashboards.md):
    // the home card "Members active (7 days)" opens this list filtered on it, so both count the same rows.
    { name: 'lastActiveDay', kind: 'date', label: { en_US: 'Last active', zh_CN: '最近活跃' }, readOnly: true, search: 'range', sort: true, list: false },
    // Staff write why a rider's data must be kept (a dispute, an authority's request): while it is set,
    // erasure is refused with it (docs/privacy.md › Requests).
    { name: 'legalHold', kind: 'text', max: 200, label: { en_US: 'Legal hold', zh_CN: '法律保留' }, list: false, help: { en_US: 'While set, the member’s data cannot be erased: say why (a dispute, an authority’s request).', zh_CN: '填写期间不能删除该会员的数据：请说明原因（争议、主管机关要求等）。' } },
    // When their data was erased on their request (or after years without use): the row names nobody since.
    { name: 'erasedTime', kind: 'datetime', label: { en_US: 'Erased', zh_CN: '数据删除时间' }, readOnly: true, list: false, search: 'range' },
    remark,
  ],
  // A rider's requests under the GDPR (docs/privacy.md › Requests), each with its own right: a copy of
  // everything we hold on them (Art. 15, 20) and erasure (Art. 17). The app asks for both too.
  actions: [
    {
      name: 'dataPackage',
      label: { en_US: 'Data package', zh_CN: '数据副本' },
      on: 'row',
      mode: 'job',
      rare: true,
      whenEmpty: ['erasedTime'],
      // It holds every personal value unmasked: the permission alone would bypass the masks.
      alsoNeeds: SEE_ALL_PERSONAL_DATA,
      keepFileDays: DATA_PACKAGE_DAYS,
      confirm: {
        en_US: 'Put together every piece of data held on {label}: one zip with a file per kind of record, their files and a readable summary, downloadable for 7 days?',
        zh_CN: '生成 {label} 的全部数据副本：一个 zip 文件，每类记录一个文件，附其上传的文件和可读的摘要，可下载 7 天？',
      },
    },
    {
      name: 'erase',
      label: { en_US: 'Erase personal data', zh_CN: '删除个人数据' },
      on: 'row',
      mode: 'job',
      danger: true,
      rare: true,
      preview: true,
      whenEmpty: ['erasedTime'],
      input: [
        {
          name: 'request',
          kind: 'text',
          max: 200,
          required: true,
          label: { en_US: 'Request', zh_CN: '申请依据' },
          help: { en_US: 'Where the rider asked (the ticket or the letter), without their name: the operation log keeps it.', zh_CN: '骑行者在何处提出申请（工单或信件编号），请勿填写其姓名：操作日志会保存此内容。' },
        },
      ],
    },
  ],
})

/**
 * Rides the app uploads, shown in a member's details (no menu page of their own): read-only for
 * staff, under the members page's rights. The member drawer pages a member's rides newest first
 * over a table of millions: (member, upload time) serves that filter, order and count.
 */
export const ride = defineEntity({
  key: 'ride',
  table: 'memRide',
  path: '/member/ride',
  permission: 'member:member',
  label: { en_US: 'Rides', zh_CN: '骑行记录' },
  singular: { en_US: 'ride', zh_CN: '骑行记录' },
  idField: 'rideId',
  defaultSort: { field: 'uploadTime', order: 'desc' },
  scope: { via: 'memberId' },
  // Distances and times without a position: kept for the statistics, pointing at the anonymous member.
  rider: { by: { member: 'memberId' }, erase: 'keep' },
  operations: ['list', 'get', 'export'],
  storage: {
    audited: false,
    indexes: [
      { name: 'mem_ride_member_time', columns: ['memberId', 'uploadTime'] },
      { name: 'mem_ride_bike_time', columns: ['bikeId', 'uploadTime'] },
      { name: 'mem_ride_time', columns: ['uploadTime'] },
    ],
  },
  fields: [
    idField('rideId'),
    { name: 'memberId', kind: 'reference', entity: 'member', label: { en_US: 'Member', zh_CN: '会员' }, required: true, readOnly: true, search: 'eq' },
    { name: 'bikeId', kind: 'reference', entity: 'bike', label: { en_US: 'Bike', zh_CN: '车辆' }, readOnly: true, search: 'eq' },
    { name: 'uploadTime', kind: 'datetime', label: { en_US: 'Upload time', zh_CN: '上传时间' }, required: true, readOnly: true, search: 'range', sort: true },
    { name: 'distance', kind: 'number', min: 0, label: { en_US: 'Distance (km)', zh_CN: '里程(km)' }, default: 0, readOnly: true, sort: true, summable: true },
    { name: 'duration', kind: 'number', int: true, min: 0, duration: 's', label: { en_US: 'Duration', zh_CN: '时长' }, default: 0, readOnly: true, sort: true },
    { name: 'avgSpeed', kind: 'number', min: 0, label: { en_US: 'Average speed (km/h)', zh_CN: '平均速度(km/h)' }, default: 0, readOnly: true },
    { name: 'maxSpeed', kind: 'number', min: 0, label: { en_US: 'Max speed (km/h)', zh_CN: '最高速度(km/h)' }, default: 0, readOnly: true },
    // Not every bike has a cadence sensor: null when the ride has none.
    { name: 'cadence', kind: 'number', min: 0, label: { en_US: 'Cadence (rpm)', zh_CN: '踏频(rpm)' }, readOnly: true },
    { name: 'calories', kind: 'number', min: 0, label: { en_US: 'Calories (kcal)', zh_CN: '卡路里(kcal)' }, readOnly: true },
  ],
})

/** Tags feedback is sorted by; members pick them in the app. */
export const feedbackTag = defineEntity({
  key: 'feedbackTag',
  table: 'memFeedbackTag',
  path: '/member/feedbackTag',
  permission: 'member:feedbackTag',
  label: { en_US: 'Feedback tags', zh_CN: '反馈标签' },
  singular: { en_US: 'feedback tag', zh_CN: '反馈标签' },
  idField: 'tagId',
  labelField: 'name',
  defaultSort: { field: 'orderNum', order: 'asc' },
  scope: APP_CONTENT,
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  fields: [
    idField('tagId'),
    { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, required: true, unique: true, max: 50, search: 'like', sort: true },
    { name: 'orderNum', kind: 'number', int: true, min: 0, max: 99999, label: { en_US: 'Sort', zh_CN: '排序' }, required: true, default: 0, sort: true },
    { ...status, search: 'eq' },
    remark,
    createTime,
  ],
})

/** One of the feedback's pictures (literal names, so RowOf reads them). */
const picture = <N extends string>(name: N, n: number) =>
  ({ name, kind: 'image', label: { en_US: `Image ${n}`, zh_CN: `图片${n}` }, readOnly: true, list: n === 1, personal: 'content' }) as const

/**
 * What members tell us from the app, with their stars, images and tags; staff read it and reply
 * (the `reply` action: its handler writes the reply, who and when, and marks the feedback read).
 */
export const feedback = defineEntity({
  key: 'feedback',
  table: 'memFeedback',
  path: '/member/feedback',
  permission: 'member:feedback',
  label: { en_US: 'Feedback', zh_CN: '意见反馈' },
  singular: { en_US: 'feedback', zh_CN: '反馈' },
  idField: 'feedbackId',
  // Its number names it in a confirmation: the content may be long.
  labelField: 'feedbackId',
  defaultSort: { field: 'createTime', order: 'desc' },
  scope: { via: 'memberId' },
  // Stars stay in the satisfaction figures; the words and pictures go.
  rider: { by: { member: 'memberId' }, erase: 'anonymise' },
  // Written by the app; staff reply through the action, never modify it, and delete spam.
  operations: ['list', 'get', 'remove', 'export'],
  storage: {
    indexes: [
      { columns: ['createTime'] },
      { columns: ['readState', 'createTime'] },
      { columns: ['stars', 'createTime'] },
      { columns: ['memberId', 'createTime'] },
      // Unanswered feedback of a period: the list's Replied filter and the satisfaction dashboard's count.
      { columns: ['replied', 'createTime'] },
    ],
  },
  fields: [
    idField('feedbackId'),
    { name: 'memberId', kind: 'reference', entity: 'member', label: { en_US: 'Member', zh_CN: '会员' }, required: true, readOnly: true, search: 'eq' },
    { name: 'stars', kind: 'number', int: true, min: 1, max: 5, label: { en_US: 'Stars', zh_CN: '星级' }, required: true, readOnly: true, search: 'eq', sort: true },
    { name: 'content', kind: 'longText', max: 2000, label: { en_US: 'Content', zh_CN: '内容' }, required: true, readOnly: true, search: 'like', personal: 'content' },
    // The app language the member wrote in (POST /app/v1/feedback): staff reply in it. Empty for
    // feedback sent before it was kept. After the content: the search form shows its first fields, and
    // the content is the one searched most.
    { name: 'language', kind: 'enum', options: APP_LANGUAGE_OPTIONS, label: { en_US: 'Language', zh_CN: '语言' }, readOnly: true, search: 'eq' },
    // Up to four pictures from the app, one per field (the image kind holds one).
    picture('image1', 1),
    picture('image2', 2),
    picture('image3', 3),
    picture('image4', 4),
    {
      name: 'tagIds',
      kind: 'referenceMany',
      entity: 'feedbackTag',
      through: { table: 'memFeedbackTagLink', from: 'feedbackId', to: 'tagId' },
      label: { en_US: 'Tags', zh_CN: '标签' },
      readOnly: true,
      // Feedback with this tag (the join table gets an index on the tag for it).
      search: 'eq',
    },
    // Opening an unread one (GET {path}/{id}, not the list) marks it read by its first opener; so does a reply.
    {
      name: 'readState',
      kind: 'enum',
      options: [
        { value: 'unread', label: { en_US: 'Unread', zh_CN: '未读' }, color: 'warning' },
        { value: 'read', label: { en_US: 'Read', zh_CN: '已读' }, color: 'default' },
      ],
      label: { en_US: 'Read state', zh_CN: '阅读状态' },
      default: 'unread',
      readOnly: true,
      search: 'eq',
    },
    { name: 'readBy', kind: 'text', max: 64, label: { en_US: 'Read by', zh_CN: '阅读人' }, readOnly: true, list: false },
    { name: 'readTime', kind: 'datetime', label: { en_US: 'Read time', zh_CN: '阅读时间' }, readOnly: true, list: false },
    { name: 'reply', kind: 'longText', max: 2000, label: { en_US: 'Reply', zh_CN: '回复' }, readOnly: true },
    { name: 'replyBy', kind: 'text', max: 64, label: { en_US: 'Reply by', zh_CN: '回复人' }, readOnly: true },
    { name: 'replyTime', kind: 'datetime', label: { en_US: 'Reply time', zh_CN: '回复时间' }, readOnly: true, sort: true },
    // Set with the reply (the reply action): "unanswered" as a filter the list, its link from the
    // satisfaction dashboard and the dashboard's count share; a blank reply cannot be searched for.
    { name: 'replied', kind: 'boolean', label: { en_US: 'Replied', zh_CN: '已回复' }, default: false, readOnly: true, search: 'eq', list: false },
    { ...createTime, label: { en_US: 'Submitted', zh_CN: '提交时间' } },
  ],
  actions: [
    {
      name: 'reply',
      label: { en_US: 'Reply', zh_CN: '回复' },
      on: 'row',
      mode: 'sync',
      input: [{ name: 'reply', kind: 'longText', max: 2000, label: { en_US: 'Reply', zh_CN: '回复' }, required: true }],
      // What is being answered, beside the reply box.
      context: ['memberId', 'stars', 'language', 'tagIds', 'createTime', 'content', 'image1', 'image2', 'image3', 'image4'],
    },
  ],
})
