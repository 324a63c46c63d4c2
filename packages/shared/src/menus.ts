import { GENERATED_MODULES } from './entities/generated'
import type { ResolvedEntity } from './entity/define'
import type { GeneratedModule } from './entity/generated'
import { allEntities } from './entity/registry'
import type { Label } from './entity/types'
import { actionPermission, stepPermission } from './entity/workflow'
import { PERSONAL_DATA_BUTTONS } from './privacy'

/**
 * The menu catalogue seeded at first start: one directory per product area (SPEC §1) and one page
 * per module, each with the permissions of its buttons. Titles are i18n keys ('menu.system.dict')
 * translated by MENU_TITLES; menus added later by admins may use plain text instead.
 */
export interface MenuSeed {
  key: string
  /** Route path segment (an area's defaults to its key). */
  path: string
  icon: string
  /** Page component under web src/pages, without extension. */
  component?: string
  title: Label
  /** Permission prefix 'area:entity'; buttons list/query/add/edit/remove/export(/import) are seeded. */
  permission?: string
  /** Extra button permissions beyond the standard ones: a permission (titled by its last segment) or [permission, menu name]. */
  extra?: readonly (string | readonly [perms: string, name: string])[]
  /**
   * The page's buttons, each as [permission, menu name], in place of the standard set: for a page
   * that lists no rows anyone adds, modifies or exports (Monitoring › Jobs). Its own permission is
   * still `${permission}:list`.
   */
  buttons?: readonly (readonly [perms: string, name: string])[]
  /** The module imports from Excel. */
  imports?: boolean
  hidden?: boolean
  noCache?: boolean
  noClose?: boolean
  children?: MenuSeed[]
}

const page = (
  area: string,
  entity: string,
  icon: string,
  en: string,
  zh: string,
  more: Partial<MenuSeed> = {},
): MenuSeed => ({
  key: `${area}.${entity}`,
  path: entity,
  icon,
  component: `${area}/${entity}/index`,
  title: { en_US: en, zh_CN: zh },
  permission: `${area}:${entity}`,
  imports: true,
  ...more,
})

const area = (key: string, icon: string, en: string, zh: string, children: MenuSeed[], path = key): MenuSeed => ({
  key,
  path: `/${path}`,
  icon,
  title: { en_US: en, zh_CN: zh },
  children,
})

const PRODUCT_CATALOGUE: MenuSeed[] = [
  area('dashboard', 'dashboard', 'Dashboards', '数据看板', [
    page('dashboard', 'engagement', 'line-chart', 'User engagement', '用户活跃度', { imports: false }),
    page('dashboard', 'performance', 'thunderbolt', 'App performance', 'App 性能', { imports: false }),
    page('dashboard', 'satisfaction', 'smile', 'Satisfaction', '满意度', { imports: false }),
    page('dashboard', 'tracking', 'aim', 'Tracking configuration', '埋点配置'),
    page('dashboard', 'bikeStats', 'bar-chart', 'Registered bikes', '注册车辆统计', { imports: false }),
    // '/dashboard' itself is the home page (SPEC §2), so the dashboards live under /analytics.
  ], 'analytics'),
  area('member', 'team', 'Members', '会员管理', [
    // Who may see riders' personal data, by category, and reveal one record's (privacy.ts).
    page('member', 'member', 'user', 'Members', '会员列表', { extra: PERSONAL_DATA_BUTTONS }),
    page('member', 'feedback', 'message', 'Feedback', '意见反馈'),
    page('member', 'feedbackTag', 'tags', 'Feedback tags', '反馈标签'),
  ]),
  area('bike', 'car', 'Bikes', '车辆管理', [
    page('bike', 'bike', 'car', 'Bikes', '车辆列表', { extra: ['bike:bike:unbind'] }),
    page('bike', 'picture', 'picture', 'Bike pictures', '车辆图片'),
    page('bike', 'modelSpec', 'appstore', 'Model colours and sizes', '车型颜色尺寸'),
    page('bike', 'staticImage', 'file-image', 'Static images', '静态图片'),
    page('bike', 'record', 'profile', 'Vehicle records', '车辆档案'),
  ]),
  area('order', 'shopping', 'Orders', '订单管理', [
    page('order', 'deviceOrder', 'shopping-cart', 'Bike orders', '车辆订单', { extra: ['order:deviceOrder:generate'] }),
  ]),
  area('content', 'read', 'App content', '内容管理', [
    page('content', 'message', 'notification', 'System messages', '系统消息', { extra: ['content:message:push'] }),
    page('content', 'protocol', 'file-protect', 'Agreements', '协议管理'),
    page('content', 'appVersion', 'mobile', 'App versions', 'App 版本'),
    page('content', 'activity', 'calendar', 'Activities', '活动管理'),
    page('content', 'guide', 'compass', 'Feature guides', '功能引导'),
    page('content', 'achievement', 'trophy', 'Achievements', '成就管理'),
    page('content', 'banner', 'picture', 'Home banners', '首页轮播'),
    page('content', 'faq', 'question-circle', 'Help centre FAQ', '帮助中心'),
    page('content', 'policy', 'safety', 'Insurance and warranty policy', '保险与质保政策'),
    page('content', 'userHelp', 'video-camera', 'User help', '用户帮助'),
    page('content', 'errorCode', 'warning', 'App error codes', 'App 错误码'),
    page('content', 'serviceCentre', 'shop', 'Store service centres', '门店服务中心'),
  ]),
  area('iot', 'api', 'IoT', '物联网', [
    page('iot', 'device', 'cluster', 'IoT list', '设备列表', { extra: ['iot:device:command'] }),
    page('iot', 'model', 'block', 'IoT models', '设备型号'),
    page('iot', 'firmware', 'code', 'Firmware', '固件管理', { imports: false }),
    page('iot', 'config', 'control', 'IoT configuration', '设备配置', { extra: ['iot:config:push'] }),
    page('iot', 'messageConfig', 'setting', 'IoT message configuration', '消息配置'),
    page('iot', 'mqDebug', 'bug', 'Message-queue debugging', '消息队列调试', { imports: false, extra: ['iot:mqDebug:publish'] }),
    page('iot', 'commandTest', 'send', 'IoT command test', '指令测试', { imports: false, extra: ['iot:commandTest:send'] }),
    page('iot', 'function', 'function', 'IoT functions', '设备功能'),
    page('iot', 'audio', 'sound', 'IoT audio', '设备音频', { imports: false }),
    page('iot', 'upgrade', 'cloud-upload', 'IoT upgrade', '设备升级', { imports: false }),
    page('iot', 'sim', 'credit-card', 'SIM cards', 'SIM 卡'),
    page('iot', 'warning', 'alert', 'Warnings', '告警记录'),
    page('iot', 'collection', 'database', 'IoT collections', '数据采集'),
    // Devices' last positions; seeing them also needs the location right (docs/iot-fleet.md › Map).
    page('iot', 'map', 'global', 'Map', '设备地图', { imports: false, buttons: [] }),
    // Areas whose crossing raises the 'geofence' warning (docs/iot-fleet.md › Geofences).
    page('iot', 'geofence', 'aim', 'Geofences', '电子围栏'),
  ]),
  area('ota', 'cloud-sync', 'OTA parts', 'OTA 部件', [
    // Each part's page holds its suppliers, products, firmware and upgrades (SPEC §2 /ota/{part}/…), which share its rights.
    page('ota', 'iotpart', 'wifi', 'IoT module parts', '物联网模块'),
    page('ota', 'displaypart', 'desktop', 'Display parts', '仪表部件'),
    page('ota', 'bmspart', 'thunderbolt', 'Battery parts', '电池部件'),
    page('ota', 'ecupart', 'dashboard', 'Controller parts', '控制器部件'),
  ]),
  area('service', 'customer-service', 'Service', '售后服务', [
    page('service', 'repairOrder', 'tool', 'Repair service orders', '维修服务单', { extra: ['service:repairOrder:review'] }),
  ]),
  area('tool', 'tool', 'Tool system', '工具系统', [
    page('tool', 'iot', 'api', 'Tool-system IoT', '工具系统设备'),
    page('tool', 'user', 'user', 'Tool users', '工具用户'),
    page('tool', 'sql', 'console-sql', 'SQL execution', 'SQL 执行', { imports: false, extra: ['tool:sql:execute', 'tool:sql:write'] }),
    page('tool', 'gen', 'code', 'Code generation', '代码生成', { imports: false, extra: ['tool:gen:edit', 'tool:gen:import', 'tool:gen:preview', 'tool:gen:code'] }),
  ]),
  area('system', 'setting', 'System', '系统管理', [
    page('system', 'user', 'user', 'System users', '用户管理', { extra: ['system:user:resetPwd'] }),
    page('system', 'role', 'team', 'Roles', '角色管理', { imports: false }),
    page('system', 'menu', 'menu', 'Menus', '菜单管理', { imports: false }),
    page('system', 'dept', 'apartment', 'Departments', '部门管理', { imports: false }),
    page('system', 'i18n', 'translation', 'Internationalisation data', '国际化数据'),
    page('system', 'dict', 'book', 'Dictionaries', '字典管理'),
    page('system', 'config', 'edit', 'System configuration', '参数设置'),
    page('system', 'country', 'global', 'Countries', '国家地区'),
    page('system', 'ssoGroup', 'safety', 'Single sign-on groups', '单点登录组映射', { imports: false }),
  ]),
  area('monitor', 'monitor', 'Monitoring', '系统监控', [
    page('monitor', 'online', 'wifi', 'Online users', '在线用户', { imports: false, extra: ['monitor:online:forceLogout'] }),
    page('monitor', 'logininfor', 'login', 'Login log', '登录日志', { imports: false, extra: ['monitor:logininfor:unlock'] }),
    page('monitor', 'operlog', 'form', 'Operation log', '操作日志', { imports: false }),
    page('monitor', 'appUploadLog', 'upload', 'App upload log', 'App 上传日志', { imports: false }),
    page('monitor', 'outbox', 'mail', 'Mail outbox', '邮件发件箱', { imports: false }),
    // Everyone's background jobs; anyone follows and cancels their own from the top bar without it.
    page('monitor', 'job', 'calendar', 'Jobs', '后台任务', { imports: false, buttons: [['monitor:job:cancel', 'button.cancelJob']] }),
    // For administrators: database size and largest tables, scheduled backups and data retention (shared monitor/data.ts).
    page('monitor', 'data', 'database', 'Data and backups', '数据与备份', { imports: false, buttons: [['monitor:data:run', 'button.runNow']] }),
  ]),
]

/**
 * The catalogue with each generated module's page appended to its area (Tool system › Code
 * generation). A module naming an area the catalogue lacks, or a page its area already has, fails
 * here, when the server or the web app loads, rather than seeding a page nobody can reach.
 */
export function withGeneratedPages(catalogue: readonly MenuSeed[], modules: readonly GeneratedModule[]): MenuSeed[] {
  const areas = catalogue.map((a) => ({ ...a, children: [...(a.children ?? [])] }))
  for (const { entity, menu } of modules) {
    const home = areas.find((a) => a.key === menu.area)
    if (!home) {
      throw new Error(`generated module ${entity.key}: menu area '${menu.area}' is not an area of the menu catalogue (${areas.map((a) => a.key).join(', ')})`)
    }
    const key = `${menu.area}.${entity.key}`
    const component = `${menu.area}/${entity.key}/index`
    // The web app finds the generic list page of a component by the entity at its path (entityForComponent).
    if (entity.path !== `/${menu.area}/${entity.key}`) {
      throw new Error(`generated module ${entity.key}: its path must be /${menu.area}/${entity.key} (found ${entity.path}), the path its page ${component} is served at`)
    }
    if (home.children.some((c) => c.key === key || c.component === component)) throw new Error(`generated module ${entity.key}: area ${menu.area} already has a page ${key}`)
    home.children.push({ key, path: entity.key, icon: menu.icon, component, title: entity.label, permission: entity.permission, imports: false })
  }
  return areas
}

export const MENU_CATALOGUE: MenuSeed[] = withGeneratedPages(PRODUCT_CATALOGUE, GENERATED_MODULES)

/** Translations of every seeded menu title, by key 'menu.<area>' and 'menu.<area>.<entity>'. */
export const MENU_TITLES: Record<string, Label> = Object.fromEntries(
  MENU_CATALOGUE.flatMap((a) => [
    [`menu.${a.key}`, a.title],
    ...(a.children ?? []).map((c) => [`menu.${c.key}`, c.title] as const),
  ]),
)

/** The buttons seeded under each page. */
export const STANDARD_ACTIONS = ['list', 'query', 'add', 'edit', 'remove', 'export'] as const

/**
 * The permission buttons of a page served by a definition: its operations, then its steps and
 * actions, each as [permission, menu name]. A log (list and export only) gets no add or modify.
 */
export function definedButtons(e: ResolvedEntity): [perms: string, name: string][] {
  const op: Record<string, string> = { list: 'list', get: 'query', add: 'add', edit: 'edit', remove: 'remove', export: 'export', import: 'import' }
  const out = new Map<string, string>()
  for (const o of e.operations) out.set(`${e.permission}:${op[o]}`, `button.${op[o]}`)
  for (const step of e.transitions?.steps ?? []) {
    const perms = stepPermission(e, step)
    if (!out.has(perms)) out.set(perms, `button.${perms.split(':').at(-1)}`)
  }
  for (const action of e.actions ?? []) {
    const perms = actionPermission(e, action)
    if (!out.has(perms)) out.set(perms, `button.${perms.split(':').at(-1)}`)
  }
  return [...out]
}

/**
 * The buttons of a definition's page: its own (definedButtons), then those of the definitions that
 * share its permission and so live on the page — a model's colours and sizes, an order's frame
 * numbers with their Void and Replace — so that each right the page's rows offer can be granted.
 */
export function definedPageButtons(e: ResolvedEntity): [perms: string, name: string][] {
  const out = new Map(definedButtons(e))
  for (const other of allEntities()) {
    if (other === e || other.permission !== e.permission) continue
    for (const [perms, name] of definedButtons(other)) if (!out.has(perms)) out.set(perms, name)
  }
  return [...out]
}

const CATALOGUE_COMPONENTS = new Set(
  MENU_CATALOGUE.flatMap((a) => (a.children ?? []).map((c) => c.component).filter((c): c is string => !!c)),
)

/** Whether a page component belongs to the product's own menu (as opposed to a menu an admin added). */
export function isCataloguePage(component: string): boolean {
  return CATALOGUE_COMPONENTS.has(component.replace(/^\/+/, '').replace(/\.(tsx|vue)$/, ''))
}
