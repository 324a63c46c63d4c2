import type { ColumnInfo, ColumnsOf, contentEntities, iotEntities, serviceEntities, systemEntities } from '@velo/shared'
import type { Generated, Insertable, Selectable, Updateable } from 'kysely'

// Columns are snake_case in the database and camelCase here (Kysely's CamelCasePlugin maps them).
// A table with an entity definition takes its shape from it (TableOf; the rules are in
// shared/src/entity/row-types.ts): its fields, its `storage` columns and the audit columns. Only
// tables without a definition (sessions, cache, join tables, jobs, …) are written out here. The
// schema agreement test holds both to what the migrations made.

/** A defined entity's table as Kysely sees it: columns the database fills on insert are Generated. */
export type TableOf<E> = {
  [K in keyof ColumnsOf<E>]: ColumnsOf<E>[K] extends ColumnInfo<infer V, infer N, infer G>
    ? G extends true
      ? Generated<N extends true ? V | null : V>
      : N extends true
        ? V | null
        : V
    : never
}

export type DeptTable = TableOf<typeof systemEntities.dept>
export type UserTable = TableOf<typeof systemEntities.user>
export type RoleTable = TableOf<typeof systemEntities.role>
export type MenuTable = TableOf<typeof systemEntities.menu>

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

export type DictTypeTable = TableOf<typeof systemEntities.dictType>
export type DictDataTable = TableOf<typeof systemEntities.dictData>
export type ConfigTable = TableOf<typeof systemEntities.config>
export type LoginLogTable = TableOf<typeof systemEntities.loginLog>
export type OperLogTable = TableOf<typeof systemEntities.operLog>

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

/** A member's session in the riders' app API (migration 2026-11-24T14-member-sessions, modules/app). */
export interface MemberSessionTable {
  /** SHA-256 of the token, hex: the token itself is never stored. */
  tokenHash: string
  memberId: number
  created: string
  lastSeen: string
  expiresAt: string
  /** When the member signed out; null while the session stands. */
  ended: string | null
}

export interface CacheTable {
  cacheKey: string
  cacheValue: string
  expiresAt: string
}

export type MailOutboxTable = TableOf<typeof systemEntities.mailOutbox>
export type I18nTable = TableOf<typeof systemEntities.i18n>
export type CountryTable = TableOf<typeof systemEntities.country>
export type FaqTable = TableOf<typeof contentEntities.faq>
export type RepairOrderTable = TableOf<typeof serviceEntities.repairOrder>

// IoT. Boolean columns are written as 1/0 (SQLite binds no booleans; PostgreSQL casts the
// parameter) and read with Boolean(...) (SQLite answers 0/1).
export type IotModelTable = TableOf<typeof iotEntities.iotModel>
export type IotFunctionTable = TableOf<typeof iotEntities.iotFunction>

export interface IotFunctionModelTable {
  functionId: number
  modelId: number
}

export type IotDeviceTable = TableOf<typeof iotEntities.iotDevice>
export type IotCommandTable = TableOf<typeof iotEntities.iotCommand>
export type IotMessageTable = TableOf<typeof iotEntities.iotMessage>

/** One transition of a row of an entity with a status machine (platform/crud/transitions.ts). */
export interface TransitionLogTable {
  logId: Generated<number>
  entity: string
  rowId: number
  step: string
  fromState: string
  toState: string
  /** JSON of the step's input. */
  input: string
  userId: number
  userName: string
  operTime: string
}

/** One file uploaded through a `file` field (migration 2026-11-24T02-files, platform/files). */
export interface FileTable {
  fileId: Generated<number>
  /** Relative to STORAGE_DIR: file/<entity>/yyyy/mm/dd/<uuid>.<ext>. */
  fileName: string
  originalName: string
  size: number
  contentType: string
  sha256: string
  md5: string
  /** Two upper-case hex digits of the CRC-8 named by crc8Variant. */
  crc8: string
  crc8Variant: string
  /** The entity key and field name it was uploaded for. */
  entity: string
  field: string
  createBy: string
  createTime: string
}

/** The last serial taken of a frame-number prefix (migration 2026-11-24T11-bike-orders, modules/order/series.ts). */
export interface FrameSeriesTable {
  prefix: string
  lastSerial: number
}

/** A background job (migration 2026-11-24T01-jobs, platform/jobs). */
export interface JobTable {
  jobId: Generated<number>
  kind: string
  /** queued, running, succeeded, failed or cancelled (JobState in shared). */
  state: string
  progressDone: number
  progressTotal: number | null
  /** JSON text. */
  params: string
  /** JSON text of what the job answered. */
  result: string | null
  /** JSON text: {key, params} of a server message, or {text}. */
  error: string | null
  /** Stored name under STORAGE_DIR, and the name it downloads under. */
  resultFile: string | null
  resultFileName: string | null
  createById: number
  createBy: string
  deptId: number | null
  createTime: string
  startTime: string | null
  finishTime: string | null
  /** Written by the holder every few seconds; an old one means its instance died. */
  heartbeatTime: string | null
  cancelRequestedAt: string | null
  instanceId: string | null
  attempts: number
}

/** When a maintenance schedule runs next (migration 2026-11-25T05-job-schedules, platform/jobs/schedule.ts). */
export interface JobScheduleTable {
  scheduleKey: string
  nextRunTime: string
  lastJobId: number | null
  updateTime: string
}

/** A user's statement in SQL execution (modules/tool/sql). */
export interface SqlHistoryTable {
  historyId: Generated<number>
  userId: number
  sqlText: string
  mode: 'read' | 'write'
  outcome: 'ok' | 'error' | 'refused' | 'timeout'
  rowCount: number | null
  durationMs: number
  createTime: string
}
/** PostgreSQL: the password of a login role SQL execution connects as (a secret table). */
export interface SqlCredentialTable {
  roleName: string
  password: string
  createTime: string
}

export interface Database {
  sysFile: FileTable
  sysDept: DeptTable
  sysUser: UserTable
  sysRole: RoleTable
  sysMenu: MenuTable
  sysUserRole: UserRoleTable
  sysRoleMenu: RoleMenuTable
  sysRoleDept: RoleDeptTable
  /** A department's region (dept.countryIds): the countries its dashboards count. */
  sysDeptCountry: { deptId: number; countryId: number }
  sysDictType: DictTypeTable
  sysDictData: DictDataTable
  sysConfig: ConfigTable
  sysLoginLog: LoginLogTable
  sysOperLog: OperLogTable
  sysSession: SessionTable
  memSession: MemberSessionTable
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
  contentFaq: FaqTable
  serviceRepairOrder: RepairOrderTable
  sysJob: JobTable
  sysJobSchedule: JobScheduleTable
  sysTransitionLog: TransitionLogTable
  ordFrameSeries: FrameSeriesTable
  toolSqlHistory: SqlHistoryTable
  toolSqlCredential: SqlCredentialTable
}

export type User = Selectable<UserTable>
export type NewUser = Insertable<UserTable>
export type UserUpdate = Updateable<UserTable>
export type Menu = Selectable<MenuTable>
export type Role = Selectable<RoleTable>
export type Dept = Selectable<DeptTable>
