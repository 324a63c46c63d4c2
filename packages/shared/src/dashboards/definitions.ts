import type { Label } from '../entity/types'
import { DASHBOARD_FILTER_ENTITY, type DashboardDef, type DashboardKey, type FigureColumn } from './types'

// The five dashboards and the home page (issue 19). The server answers each figure's rows in the
// order of its columns (server modules/dashboard); the web draws them by kind.

const l = (en_US: string, zh_CN: string): Label => ({ en_US, zh_CN })
const col = (key: string, en: string, zh: string, unit: FigureColumn['unit'], more: Partial<FigureColumn> = {}): FigureColumn => ({ key, label: l(en, zh), unit, ...more })
const day = col('day', 'Day', '日期', 'day')
const week = col('week', 'Week', '周', 'week')
const month = col('month', 'Month', '月份', 'month')

/** Home (/dashboard): each card needs the right to open the list it links to. */
export const homeDashboard: DashboardDef = {
  key: 'home',
  title: l('Home', '首页'),
  permission: null,
  filters: [],
  figures: [
    {
      key: 'cards',
      title: l('Today', '今日概况'),
      kind: 'kpis',
      span: 2,
      columns: [
        col('bikesRegistered', 'Bikes registered', '已注册车辆', 'count', { permission: 'bike:bike:list', link: { path: '/bike/bike', query: { bindStatus: 'bound' } } }),
        col('membersActive7d', 'Members active (7 days)', '7 日活跃会员', 'count', {
          permission: 'member:member:list',
          // The members whose last active day is in the 7 days ending today: the rows the card counts.
          link: { path: '/member/member', query: { lastActiveDay: '{today-6},{today}' } },
        }),
        col('devicesOnline', 'Devices online now', '当前在线设备', 'count', { permission: 'iot:device:list', link: { path: '/iot/device', query: { state: 'online,activated' } } }),
        col('warningsCritical', 'Open warnings: critical', '未结告警：严重', 'count', { permission: 'iot:warning:list', link: { path: '/iot/warning', query: { severity: 'critical', state: 'activeUnack,activeAck' } } }),
        col('warningsMajor', 'Open warnings: major', '未结告警：重要', 'count', { permission: 'iot:warning:list', link: { path: '/iot/warning', query: { severity: 'major', state: 'activeUnack,activeAck' } } }),
        col('warningsMinor', 'Open warnings: minor', '未结告警：次要', 'count', { permission: 'iot:warning:list', link: { path: '/iot/warning', query: { severity: 'minor', state: 'activeUnack,activeAck' } } }),
        col('warningsWarning', 'Open warnings: warning', '未结告警：提示', 'count', { permission: 'iot:warning:list', link: { path: '/iot/warning', query: { severity: 'warning', state: 'activeUnack,activeAck' } } }),
        col('upgradesRunning', 'Upgrades running', '进行中的升级', 'count', { permission: 'iot:upgrade:list', link: { path: '/iot/upgrade', query: { status: 'running' } } }),
        col('serviceOverdue', 'Service orders overdue', '逾期服务单', 'count', { permission: 'service:repairOrder:list', link: { path: '/service/repairOrder', query: { overdue: 'true' } } }),
      ],
    },
    {
      key: 'registrations',
      title: l('Registrations', '注册趋势'),
      help: l('New members and bikes bound to a member, per day', '每日新增会员与绑定车辆'),
      kind: 'line',
      span: 2,
      columns: [
        day,
        col('members', 'New members', '新增会员', 'count', { permission: 'member:member:list' }),
        col('bikes', 'Bikes registered', '注册车辆', 'count', { permission: 'bike:bike:list' }),
      ],
    },
  ],
}

export const engagementDashboard: DashboardDef = {
  key: 'engagement',
  title: l('User engagement', '用户活跃度'),
  permission: 'dashboard:engagement',
  filters: ['countryId', 'platform'],
  figures: [
    {
      key: 'summary',
      title: l('In this range', '所选时段'),
      kind: 'kpis',
      span: 2,
      columns: [
        col('active', 'Active members', '活跃会员', 'count'),
        col('wau', 'Active in the last 7 days', '近 7 日活跃', 'count'),
        col('newMembers', 'New members', '新增会员', 'count'),
        col('stickiness', 'Stickiness (DAU / MAU)', '黏性（日活/月活）', 'percent'),
        col('ridesPerActive', 'Rides per active member', '人均骑行次数', 'ratio'),
      ],
    },
    {
      key: 'daily',
      title: l('Daily active members', '日活跃会员'),
      help: l('A member is active on a day with a ride or an app event', '当天有骑行或 App 事件的会员计为活跃'),
      kind: 'line',
      span: 2,
      // Sign-ups (tens a day) on an axis of their own: on the rides' axis (thousands) they would lie flat on zero.
      columns: [day, col('dau', 'Active members', '活跃会员', 'count'), col('newMembers', 'New members', '新增会员', 'count', { secondAxis: true }), col('rides', 'Rides', '骑行次数', 'count')],
    },
    { key: 'weekly', title: l('Weekly active members', '周活跃会员'), kind: 'bar', columns: [week, col('wau', 'Active members', '活跃会员', 'count')] },
    { key: 'monthly', title: l('Monthly active members', '月活跃会员'), kind: 'bar', columns: [month, col('mau', 'Active members', '活跃会员', 'count')] },
    {
      key: 'retention',
      title: l('Retention by sign-up week', '按注册周的留存'),
      help: l('Share of a week’s new members active 1, 7 and 30 days after signing up', '注册后第 1、7、30 天仍活跃的会员占比'),
      kind: 'heatmap',
      heatmapFrom: 2,
      span: 2,
      columns: [week, col('cohort', 'New members', '新增会员', 'count'), col('d1', 'Day 1', '次日', 'percent'), col('d7', 'Day 7', '第 7 日', 'percent'), col('d30', 'Day 30', '第 30 日', 'percent')],
    },
    {
      key: 'ridesPerActive',
      title: l('Rides per active member', '人均骑行次数'),
      kind: 'line',
      columns: [week, col('ridesPerActive', 'Rides per active member', '人均骑行次数', 'ratio')],
    },
  ],
}

export const performanceDashboard: DashboardDef = {
  key: 'performance',
  title: l('App performance', 'App 性能'),
  permission: 'dashboard:performance',
  filters: ['countryId', 'platform'],
  figures: [
    {
      key: 'summary',
      title: l('In this range', '所选时段'),
      kind: 'kpis',
      span: 2,
      columns: [
        col('sessions', 'Sessions', '会话数', 'count'),
        col('crashFreeSessions', 'Crash-free sessions', '无崩溃会话', 'percent'),
        col('crashFreeMembers', 'Crash-free members', '无崩溃会员', 'percent'),
        col('startP50', 'Cold start p50', '冷启动 p50', 'ms'),
        col('startP90', 'Cold start p90', '冷启动 p90', 'ms'),
      ],
    },
    {
      key: 'crashFree',
      title: l('Crash-free over time', '无崩溃率趋势'),
      help: l('Marks stand at app version releases', '标记为 App 版本发布日'),
      kind: 'line',
      span: 2,
      columns: [day, col('crashFreeSessions', 'Crash-free sessions', '无崩溃会话', 'percent'), col('crashFreeMembers', 'Crash-free members', '无崩溃会员', 'percent')],
    },
    {
      key: 'startTime',
      title: l('Cold start time', '冷启动耗时'),
      kind: 'line',
      span: 2,
      columns: [day, col('p50', 'p50', 'p50', 'ms'), col('p90', 'p90', 'p90', 'ms'), col('p99', 'p99', 'p99', 'ms')],
    },
    {
      key: 'byVersion',
      title: l('By app version and platform', '按 App 版本与平台'),
      kind: 'table',
      span: 2,
      columns: [
        col('appVersion', 'App version', 'App 版本', 'text'),
        col('platform', 'Platform', '平台', 'text'),
        col('released', 'Released', '发布日期', 'day'),
        col('sessions', 'Sessions', '会话数', 'count'),
        col('crashFreeSessions', 'Crash-free sessions', '无崩溃会话', 'percent'),
        col('crashFreeMembers', 'Crash-free members', '无崩溃会员', 'percent'),
        col('crashReports', 'Crash reports', '崩溃报告', 'count'),
        col('startP50', 'Start p50', '启动 p50', 'ms'),
        col('startP90', 'Start p90', '启动 p90', 'ms'),
        col('startP99', 'Start p99', '启动 p99', 'ms'),
      ],
    },
  ],
}

export const satisfactionDashboard: DashboardDef = {
  key: 'satisfaction',
  title: l('Satisfaction', '满意度'),
  permission: 'dashboard:satisfaction',
  filters: ['countryId'],
  figures: [
    {
      key: 'summary',
      title: l('In this range', '所选时段'),
      kind: 'kpis',
      span: 2,
      columns: [
        col('feedback', 'Feedback', '反馈数', 'count'),
        col('csat', 'CSAT (4–5 stars)', 'CSAT（4–5 星）', 'percent'),
        col('averageStars', 'Average stars', '平均星级', 'stars'),
        col('unanswered', 'Unanswered', '未回复', 'count', { permission: 'member:feedback:list', link: { path: '/member/feedback', query: { replied: 'false', createTime: '{from},{to}' } } }),
        col('medianResponseHours', 'Median time to reply', '回复耗时中位数', 'hours'),
      ],
    },
    { key: 'stars', title: l('Stars', '星级分布'), kind: 'bar', columns: [col('stars', 'Stars', '星级', 'text'), col('feedback', 'Feedback', '反馈数', 'count')] },
    { key: 'tags', title: l('Top tags', '热门标签'), kind: 'bar', columns: [col('tag', 'Tag', '标签', 'text'), col('feedback', 'Feedback', '反馈数', 'count'), col('csat', 'CSAT', 'CSAT', 'percent', { secondAxis: true })] },
    {
      key: 'csatTrend',
      title: l('CSAT over time', 'CSAT 趋势'),
      kind: 'line',
      span: 2,
      columns: [week, col('csat', 'CSAT', 'CSAT', 'percent', { secondAxis: true }), col('feedback', 'Feedback', '反馈数', 'count'), col('unanswered', 'Unanswered', '未回复', 'count')],
    },
    {
      key: 'responseTime',
      title: l('Time to reply', '回复耗时'),
      help: l('From the feedback to staff’s reply, for the feedback of each week', '每周反馈从提交到客服回复的时间'),
      kind: 'line',
      span: 2,
      columns: [week, col('medianHours', 'Median', '中位数', 'hours'), col('p90Hours', 'p90', 'p90', 'hours'), col('replied', 'Replied', '已回复', 'count', { secondAxis: true })],
    },
  ],
}

export const bikeStatsDashboard: DashboardDef = {
  key: 'bikeStats',
  title: l('Registered bikes', '注册车辆统计'),
  permission: 'dashboard:bikeStats',
  filters: ['countryId', 'modelId'],
  figures: [
    {
      key: 'summary',
      title: l('Now', '当前'),
      kind: 'kpis',
      span: 2,
      columns: [
        col('registered', 'Bikes registered', '已注册车辆', 'count'),
        col('registeredInRange', 'Registered in this range', '时段内注册', 'count'),
        col('boundShare', 'Bound share of sold frames', '已售车架绑定率', 'percent'),
        col('devicesOnline', 'Devices online now', '当前在线设备', 'count'),
        col('onlineRate', 'Online rate', '在线率', 'percent'),
      ],
    },
    { key: 'byMonth', title: l('Registrations per month', '每月注册'), kind: 'bar', span: 2, columns: [month, col('bikes', 'Bikes registered', '注册车辆', 'count')] },
    { key: 'byModel', title: l('By model', '按车型'), kind: 'pie', columns: [col('model', 'Model', '车型', 'text'), col('bikes', 'Bikes', '车辆', 'count')] },
    { key: 'byCountry', title: l('By country', '按国家/地区'), kind: 'bar', columns: [col('country', 'Country / region', '国家/地区', 'text'), col('bikes', 'Bikes', '车辆', 'count')] },
    {
      key: 'firmware',
      title: l('Firmware versions per part', '各部件固件版本分布'),
      kind: 'stackedBar',
      span: 2,
      columns: [col('part', 'Part', '部件', 'text'), col('version', 'Version', '版本', 'text'), col('devices', 'Devices', '设备', 'count')],
    },
    {
      key: 'online',
      title: l('Online rate by model', '各车型在线率'),
      kind: 'bar',
      columns: [col('model', 'Model', '车型', 'text'), col('devices', 'Devices', '设备', 'count'), col('online', 'Online', '在线', 'count'), col('onlineRate', 'Online rate', '在线率', 'percent', { secondAxis: true })],
    },
  ],
}

export const DASHBOARDS: Readonly<Record<DashboardKey, DashboardDef>> = {
  home: homeDashboard,
  engagement: engagementDashboard,
  performance: performanceDashboard,
  satisfaction: satisfactionDashboard,
  bikeStats: bikeStatsDashboard,
}

export const isDashboardKey = (key: string): key is DashboardKey => Object.hasOwn(DASHBOARDS, key)

/** The permissions of the dashboards whose filters pick rows of this entity (its options route lets them pick). */
export const dashboardPickerPermissions = (entityKey: string): string[] =>
  Object.values(DASHBOARDS).flatMap((d) => (d.permission && d.filters.some((f) => DASHBOARD_FILTER_ENTITY[f] === entityKey) ? [`${d.permission}:list`] : []))
