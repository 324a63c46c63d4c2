import type { Generated, Insertable, Selectable, Updateable } from 'kysely'

// Columns are snake_case in the database and camelCase here (Kysely's CamelCasePlugin maps them).
// Datetimes are ISO-8601 strings on both dialects; flags are '0'/'1' strings as RuoYi keeps them.

interface Audited {
  createBy: string
  createTime: string
  updateBy: string
  updateTime: string | null
  remark: string
}

export interface DeptTable extends Audited {
  deptId: Generated<number>
  parentId: number
  /** Comma-separated ids of all ancestors, root first: "0,100,101". */
  ancestors: string
  deptName: string
  orderNum: number
  leader: string
  phone: string
  email: string
  status: string
  delFlag: string
}

export interface UserTable extends Audited {
  userId: Generated<number>
  deptId: number | null
  userName: string
  nickName: string
  userType: string
  email: string
  phonenumber: string
  sex: string
  avatar: string
  password: string
  status: string
  delFlag: string
  loginIp: string | null
  loginDate: string | null
  failedLogins: number
  lockedUntil: string | null
}

export interface RoleTable extends Audited {
  roleId: Generated<number>
  roleName: string
  roleKey: string
  roleSort: number
  dataScope: string
  status: string
  delFlag: string
}

export interface MenuTable extends Audited {
  menuId: Generated<number>
  menuName: string
  parentId: number
  orderNum: number
  path: string
  component: string | null
  query: string | null
  isFrame: string
  isCache: string
  menuType: string
  visible: string
  status: string
  perms: string | null
  icon: string
  noClose: string
}

export interface UserRoleTable {
  userId: number
  roleId: number
}
export interface RoleMenuTable {
  roleId: number
  menuId: number
}
export interface RoleDeptTable {
  roleId: number
  deptId: number
}

export interface DictTypeTable extends Audited {
  dictId: Generated<number>
  dictName: string
  dictType: string
  status: string
}

export interface DictDataTable extends Audited {
  dictCode: Generated<number>
  dictSort: number
  dictLabel: string
  dictLabelZh: string
  dictValue: string
  dictType: string
  cssClass: string
  listClass: string
  isDefault: string
  status: string
}

export interface ConfigTable extends Audited {
  configId: Generated<number>
  configName: string
  configKey: string
  configValue: string
  configType: string
}

export interface LoginLogTable {
  infoId: Generated<number>
  userName: string
  ipaddr: string
  loginLocation: string
  browser: string
  os: string
  status: string
  msg: string
  loginTime: string
}

export interface OperLogTable {
  operId: Generated<number>
  title: string
  businessType: string
  method: string
  requestMethod: string
  operName: string
  deptName: string
  operUrl: string
  operIp: string
  operParam: string
  jsonResult: string
  status: string
  errorMsg: string
  operTime: string
  costTime: number
  requestId: string
}

export interface SessionTable {
  tokenHash: string
  userId: number
  userName: string
  ipaddr: string
  browser: string
  os: string
  loginTime: string
  lastSeen: string
  expiresAt: string
  /** '' while valid; 'revoked' or 'displaced' once ended (kept to answer 50008/50012 rightly). */
  endedReason: string
}

export interface CacheTable {
  cacheKey: string
  cacheValue: string
  expiresAt: string
}

export interface MailOutboxTable {
  mailId: Generated<number>
  mailTo: string
  subject: string
  body: string
  status: string
  error: string
  createTime: string
}

export interface I18nTable extends Audited {
  i18nId: Generated<number>
  name: string
  /** sys_i18n_type: app, web, server, iot, email, push. */
  type: string
  sourceKey: string
  /** sys_language: the language the source text was written in. */
  language: string
  valueEnUs: string
  valueZhCn: string
  valueDeDe: string
  valueNlNl: string
  valueFrFr: string
}

export interface CountryTable extends Audited {
  countryId: Generated<number>
  /** ISO 3166-1 alpha-2. */
  code: string
  name: string
  nameEn: string
  /** IANA time zone name. */
  timeZone: string
  status: string
}

// ---- IoT (migration 2026-11-22T00-iot). Boolean columns are written as 1/0 (SQLite binds no
// booleans; PostgreSQL casts the parameter) and read with Boolean(...) (SQLite answers 0/1).

export interface IotModelTable extends Audited {
  modelId: Generated<number>
  productId: string
  name: string
  provider: string
  tag: string
  productCode: string
  snPrefix: string
  supportsAudio: boolean | number
  bikeModels: string
  registrationKey: string
  status: string
}

export interface IotFunctionTable extends Audited {
  functionId: Generated<number>
  name: string
  command: string
  description: string
  firmwareVersions: string
  minAppVersion: string | null
  status: string
}

export interface IotFunctionModelTable {
  functionId: number
  modelId: number
}

export interface IotDeviceTable extends Audited {
  deviceId: Generated<number>
  sn: string
  uuid: string
  modelId: number
  secretHash: string | null
  state: string
  online: boolean | number
  activated: boolean | number
  lastSeenAt: string | null
  activatedAt: string | null
  firmwareVersion: string
  hardwareVersion: string
  configVersion: string
  thingModel: string
  flowState: string
  bindState: string
  simNumber: string
  simUsedMb: number | null
  simLimitMb: number | null
  remainingFlow: number | null
  transportMode: string
  battery: number | null
  signal: number | null
  latitude: number | null
  longitude: number | null
}

export interface IotCommandTable extends Audited {
  commandId: Generated<number>
  requestId: string
  deviceId: number
  command: string
  params: string
  status: string
  reply: string | null
  timeoutSeconds: number
  sentAt: string | null
  deliveredAt: string | null
  repliedAt: string | null
  deadlineAt: string | null
  expiresAt: string
  roundTripMs: number | null
}

export interface IotMessageTable {
  messageId: Generated<number>
  deviceId: number | null
  direction: string
  kind: string
  topic: string
  payload: string
  createTime: string
}

export interface Database {
  sysDept: DeptTable
  sysUser: UserTable
  sysRole: RoleTable
  sysMenu: MenuTable
  sysUserRole: UserRoleTable
  sysRoleMenu: RoleMenuTable
  sysRoleDept: RoleDeptTable
  sysDictType: DictTypeTable
  sysDictData: DictDataTable
  sysConfig: ConfigTable
  sysLoginLog: LoginLogTable
  sysOperLog: OperLogTable
  sysSession: SessionTable
  sysCache: CacheTable
  sysMailOutbox: MailOutboxTable
  sysI18n: I18nTable
  sysCountry: CountryTable
  iotModel: IotModelTable
  iotFunction: IotFunctionTable
  iotFunctionModel: IotFunctionModelTable
  iotDevice: IotDeviceTable
  iotCommand: IotCommandTable
  iotMessage: IotMessageTable
}

export type User = Selectable<UserTable>
export type NewUser = Insertable<UserTable>
export type UserUpdate = Updateable<UserTable>
export type Menu = Selectable<MenuTable>
export type Role = Selectable<RoleTable>
export type Dept = Selectable<DeptTable>
