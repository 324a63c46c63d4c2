import type {
  bikeEntities,
  ColumnInfo,
  ColumnsOf,
  contentEntities,
  dashboardEntities,
  iotConfigEntities,
  iotEntities,
  iotGeofenceEntities,
  iotSimEntities,
  iotTelemetryEntities,
  iotWarningEntities,
  memberEntities,
  orderEntities,
  otaEntities,
  serviceEntities,
  ssoEntities,
  systemEntities,
  toolEntities,
} from '@velo/shared'
import type { Generated, Insertable, Selectable, Updateable } from 'kysely'

// Columns are snake_case in the database and camelCase here (Kysely's CamelCasePlugin maps them).
// A table with an entity definition takes its shape from it (TableOf; the rules are in
// shared/src/entity/row-types.ts): its fields, its `storage` columns and the audit columns. Tables
// without a definition (sessions, cache, join tables, jobs, …) and those whose definition TableOf
// cannot read (below) are written out here. Every table the code names is here: the code types its
// SQL against this one Database. The schema agreement test holds the definitions to the migrations.

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
export type SsoGroupRoleTable = TableOf<typeof ssoEntities.ssoGroup>
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
/** A role a single sign-on group mapping gave the user (migration 2026-11-30T14-sso-group-roles, platform/auth/sso). */
export interface UserSsoRoleTable {
  userId: number
  roleId: number
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

/** A staff user's second factor (migration 2026-11-30T06-second-factors, platform/auth/factors). */
export interface UserFactorTable {
  factorId: Generated<number>
  userId: number
  /** 'totp' (an authenticator app) or 'passkey'. */
  kind: string
  name: string
  /** A TOTP seed sealed with the identity key (factors/secret-box.ts); '' for a passkey. */
  secret: Generated<string>
  /** The time step a TOTP code last signed in with: a code works once. */
  lastStep: number | null
  credentialId: Generated<string>
  publicKey: Generated<string>
  signCount: Generated<number>
  transports: Generated<string>
  createTime: string
  lastUsedTime: string | null
}

/** A one-time recovery code, kept as its hash only. */
export interface UserRecoveryCodeTable {
  userId: number
  codeHash: string
  usedTime: string | null
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
export type IotTheftTable = TableOf<typeof iotEntities.iotTheft>

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
  /** A sweep's last run: how long it took, and its error (null when it went well, and for schedules). */
  lastDurationMs: number | null
  lastError: string | null
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

// Tables whose definition's type has lost its field names (the OTA parts' slices, built per part by
// functions typed EntityDef; definitions with fields from helpers typed FieldDef): TableOf cannot
// read their columns, so they are written out here from the migrations' snapshot
// (src/db/migrations/snapshot.json, which the schema agreement test holds to the definitions and to
// both databases). A change to such a definition changes its table here too.

/** The audit columns every definition's table has (platform/crud fills them), for the tables written out below. */
export interface AuditColumns {
  createTime: string
  createBy: Generated<string>
  updateBy: Generated<string>
  updateTime: string | null
  remark: Generated<string>
}
/** cnt_app_version (appVersion). */
export interface CntAppVersionTable extends AuditColumns {
  versionId: Generated<number>
  platform: string
  versionCode: string
  versionType: Generated<string>
  downloadUrl: string
  updateInterval: Generated<number>
  current: Generated<boolean | number>
  releaseTime: string
  notesEn: Generated<string>
  notesDe: Generated<string>
  notesNl: Generated<string>
  notesFr: Generated<string>
}
/** cnt_banner (banner). */
export interface CntBannerTable extends AuditColumns {
  bannerId: Generated<number>
  title: string
  image: string
  linkUrl: Generated<string>
  orderNum: Generated<number>
  startTime: string | null
  endTime: string | null
  language: Generated<string>
  countryId: number | null
  status: Generated<string>
}
/** cnt_message (message). */
export interface CntMessageTable extends AuditColumns {
  messageId: Generated<number>
  title: string
  content: string
  audience: Generated<string>
  countryId: number | null
  sendMode: Generated<string>
  sendTime: string | null
  status: Generated<string>
  sentCount: Generated<number>
  readCount: Generated<number>
  sentTime: string | null
}
/** cnt_policy (policy). */
export interface CntPolicyTable extends AuditColumns {
  policyId: Generated<number>
  title: string
  type: string
  content: string
  coverageMonths: number | null
  linkUrl: Generated<string>
  language: Generated<string>
  countryId: number | null
  status: Generated<string>
}
/** cnt_protocol (protocol). */
export interface CntProtocolTable extends AuditColumns {
  protocolId: Generated<number>
  name: string
  type: string
  content: string
  language: Generated<string>
  versionCode: string
  isUpdate: Generated<boolean | number>
  status: Generated<string>
  signCount: Generated<number>
  cancelCount: Generated<number>
  publishTime: string | null
}
/** cnt_user_help (userHelp). */
export interface CntUserHelpTable extends AuditColumns {
  helpId: Generated<number>
  title: string
  type: string
  modelId: number | null
  language: Generated<string>
  coverImage: string | null
  video: string | null
  videoDuration: number | null
  document: string | null
  linkUrl: Generated<string>
  orderNum: Generated<number>
  status: Generated<string>
}
/** iot_config (iotConfig). */
export interface IotConfigTable extends AuditColumns {
  configId: Generated<number>
  name: string
  protocolVersion: Generated<string>
  version: Generated<string>
  lowBatteryPercent: Generated<number>
  overSpeedKmh: Generated<number>
  alarmVolume: Generated<number>
  alarmSeconds: Generated<number>
  fallAngle: Generated<number>
  vibrationSensitivity: Generated<number>
  wakeUpMinutes: Generated<number>
  lowPowerMinutes: Generated<number>
  ultraLowPowerHours: Generated<number>
  transceiveSeconds: Generated<number>
  ridingSeconds: Generated<number>
  gpsReportSeconds: Generated<number>
  traceReportSeconds: Generated<number>
  traceReportMeters: Generated<number>
  status: Generated<string>
}
/** iot_message_config (iotMessageConfig). */
export interface IotMessageConfigTable extends AuditColumns {
  messageConfigId: Generated<number>
  eventType: string
  severity: Generated<string>
  enabled: Generated<boolean | number>
  notifyMember: Generated<boolean | number>
  notifyStaff: Generated<boolean | number>
  staffEmails: Generated<string>
  titleEn: string
  textEn: string
  titleZh: string
  textZh: string
  titleDe: Generated<string>
  textDe: Generated<string>
  titleNl: Generated<string>
  textNl: Generated<string>
  titleFr: Generated<string>
  textFr: Generated<string>
}
/** ord_device_order (deviceOrder). */
export interface OrdDeviceOrderTable extends AuditColumns {
  orderId: Generated<number>
  orderNo: string
  orderType: Generated<string>
  modelId: number
  quantity: number
  numbersGenerated: Generated<number>
  overrun: Generated<boolean | number>
  salesRegion: string
  deliveryDate: string
  purchasingEntity: string
  tpNumber: string
  frameSupplier: string
  brandCode: string
  manufacturerCode: string
  modelYear: number
  specCode: string
  repairCode: Generated<string>
  serialStart: number | null
  serialEnd: number | null
  serialDigits: Generated<number>
  checkCharacter: Generated<boolean | number>
  countGenerated: Generated<number>
  countPrinted: Generated<number>
  countBound: Generated<number>
  countVoided: Generated<number>
}
/** ota_supplier (bmsPartSupplier). */
export interface OtaSupplierTable extends AuditColumns {
  supplierId: Generated<number>
  name: string
  supplierCode: string
  iotCode: string
  contact: Generated<string>
  partKind: string
}
/** ota_product (bmsPartProduct). */
export interface OtaProductTable extends AuditColumns {
  productId: Generated<number>
  supplierId: number
  name: string
  productCode: string
  hardwareRevision: string
  partKind: string
}
/** ota_firmware (bmsFirmware). */
export interface OtaFirmwareTable extends AuditColumns {
  firmwareId: Generated<number>
  name: string
  code: string
  supplierId: number
  productId: number
  moduleType: Generated<string>
  hasBluetooth: Generated<boolean | number>
  originalVersion: Generated<string>
  customVersion: string
  protocolVersion: Generated<string>
  hardwareRevisions: Generated<string>
  file: string
  size: number | null
  sha256: Generated<string>
  crc8: Generated<string>
  crcVariant: Generated<string>
  bleVersion: Generated<string>
  bleFile: string | null
  gnssVersion: Generated<string>
  gnssFile: string | null
  downloadUrl: Generated<string>
  serialNumber: Generated<string>
  minAppVersion: string | null
  partKind: string
  versionNumber: Generated<number>
}
/** ota_campaign (bmsUpgrade). */
export interface OtaCampaignTable extends AuditColumns {
  campaignId: Generated<number>
  name: string
  status: Generated<string>
  firmwareId: number | null
  targetVersion: Generated<string>
  productId: number | null
  hardwareRevision: Generated<string>
  fromVersionMin: string | null
  fromVersionMax: string | null
  allowDowngrade: Generated<boolean | number>
  canaryPercent: Generated<number>
  canaryCount: number | null
  waveCount: Generated<number>
  successPercent: Generated<number>
  errorPercent: Generated<number>
  errorCount: number | null
  errorMinFinished: Generated<number>
  alarmRateFactor: Generated<number>
  alarmMinCount: Generated<number>
  alarmTypes: Generated<string>
  ratePerMinute: Generated<number>
  startAt: string | null
  windowStart: Generated<string>
  windowEnd: Generated<string>
  randomOrder: Generated<boolean | number>
  timeoutMinutes: Generated<number>
  commitSeconds: Generated<number>
  retries: Generated<number>
  retryBackoffSeconds: Generated<number>
  minBattery: Generated<number>
  holdLimitHours: Generated<number>
  skippedAs: Generated<string>
  currentWave: number | null
  totalDevices: number | null
  succeededCount: number | null
  failedCount: number | null
  rolledBackCount: Generated<number>
  skippedCount: Generated<number>
  pauseReason: Generated<string>
  approvedBy: Generated<string>
  approvedAt: string | null
  revision: Generated<number>
  imageSha256: Generated<string>
  imageSize: number | null
  startedAt: string | null
  finishedAt: string | null
  partKind: string
  baselineAlarmRate: number | null
  resumedAt: string | null
  payload: Generated<string>
  audioId: number | null
}
/** ota_campaign_device (bmsUpgradeDevice). */
export interface OtaCampaignDeviceTable {
  upgradeId: Generated<number>
  campaignId: number
  deviceId: number
  wave: number | null
  state: Generated<string>
  percent: number | null
  attempt: number | null
  fromVersion: Generated<string>
  toVersion: Generated<string>
  code: Generated<string>
  message: Generated<string>
  notifiedAt: string | null
  finishedAt: string | null
  updatedAt: string | null
  trialAt: string | null
  partKind: string
  position: Generated<number>
  nextAttemptAt: string | null
  heldSince: string | null
  heldOffers: Generated<number>
  timeZone: Generated<string>
}

/** A dashboard rollup's watermark (migration 2026-11-25T02-dashboard-rollups, modules/dashboard/rollups.ts). */
export interface DashRollupStateTable {
  name: string
  lastId: Generated<number>
  refreshedTime: string | null
}
/** A member's activity on a day. */
export interface DashMemberDayTable {
  day: string
  memberId: number
  countryId: number | null
  rides: Generated<number>
  distance: Generated<number>
  appEvents: Generated<number>
}
/** Active members and rides per day and country (0: none). */
export interface DashDayTable {
  day: string
  countryId: number
  dau: number
  rides: number
}
/** Who was active in a week ('w') or month ('m'), with any activity (platform '') or on a platform. */
export interface DashMemberPeriodTable {
  kind: string
  period: string
  platform: string
  memberId: number
  countryId: number | null
}
/** A member's app events per day, platform and app version. */
export interface DashAppDayTable {
  day: string
  memberId: number
  platform: string
  appVersion: string
  countryId: number | null
  events: Generated<number>
  sessions: Generated<number>
  crashedSessions: Generated<number>
  crashReports: Generated<number>
}
/** App start durations per day, platform, version and country (0: none), bucketed. */
export interface DashStartHistTable {
  day: string
  platform: string
  appVersion: string
  countryId: number
  bucket: number
  n: number
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
  sysUserFactor: UserFactorTable
  sysUserRecoveryCode: UserRecoveryCodeTable
  sysSsoGroupRole: SsoGroupRoleTable
  sysUserSsoRole: UserSsoRoleTable
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
  iotTheft: IotTheftTable
  contentFaq: FaqTable
  serviceRepairOrder: RepairOrderTable
  sysJob: JobTable
  sysJobSchedule: JobScheduleTable
  sysTransitionLog: TransitionLogTable
  ordFrameSeries: FrameSeriesTable
  toolSqlHistory: SqlHistoryTable
  toolSqlCredential: SqlCredentialTable
  dashRollupState: DashRollupStateTable
  dashMemberDay: DashMemberDayTable
  dashDay: DashDayTable
  dashMemberPeriod: DashMemberPeriodTable
  dashAppDay: DashAppDayTable
  dashStartHist: DashStartHistTable
  dashTrackingEvent: TableOf<typeof dashboardEntities.trackingEvent>
  dashTrackingNode: TableOf<typeof dashboardEntities.trackingNode>
  bikeBike: TableOf<typeof bikeEntities.bike>
  bikeModel: TableOf<typeof bikeEntities.bikeModel>
  bikeModelColour: TableOf<typeof bikeEntities.modelColour>
  bikeModelSize: TableOf<typeof bikeEntities.modelSize>
  bikePicture: TableOf<typeof bikeEntities.bikePicture>
  bikeRecord: TableOf<typeof bikeEntities.bikeRecord>
  bikeStaticImage: TableOf<typeof bikeEntities.staticImage>
  cntAchievement: TableOf<typeof contentEntities.achievement>
  cntActivity: TableOf<typeof contentEntities.activity>
  cntAppVersion: CntAppVersionTable
  cntBanner: CntBannerTable
  cntErrorCode: TableOf<typeof contentEntities.errorCode>
  cntGuide: TableOf<typeof contentEntities.guide>
  cntMessage: CntMessageTable
  cntMessageMember: { messageId: number; memberId: number }
  cntMessageRecipient: TableOf<typeof contentEntities.messageRecipient>
  cntPolicy: CntPolicyTable
  cntProtocol: CntProtocolTable
  cntProtocolSignature: TableOf<typeof contentEntities.protocolSignature>
  cntServiceCentre: TableOf<typeof contentEntities.serviceCentre>
  cntUserHelp: CntUserHelpTable
  monAppUploadLog: TableOf<typeof contentEntities.appUploadLog>
  iotAlarm: TableOf<typeof iotWarningEntities.iotAlarm>
  iotMessageConfig: IotMessageConfigTable
  iotMessageConfigRole: { messageConfigId: number; roleId: number }
  iotConfig: IotConfigTable
  iotConfigDrift: TableOf<typeof iotConfigEntities.iotConfigDrift>
  iotConfigPush: TableOf<typeof iotConfigEntities.iotConfigPush>
  iotConfigReport: TableOf<typeof iotConfigEntities.iotConfigReport>
  iotSim: TableOf<typeof iotSimEntities.iotSim>
  iotTelemetry: TableOf<typeof iotTelemetryEntities.iotTelemetry>
  iotGeofence: TableOf<typeof iotGeofenceEntities.iotGeofence>
  iotGeofenceModel: { geofenceId: number; modelId: number }
  iotGeofenceCountry: { geofenceId: number; countryId: number }
  iotGeofenceDevice: { geofenceId: number; deviceId: number }
  iotAudio: TableOf<typeof otaEntities.iotAudio>
  memMember: TableOf<typeof memberEntities.member>
  memFeedback: TableOf<typeof memberEntities.feedback>
  memFeedbackTag: TableOf<typeof memberEntities.feedbackTag>
  memFeedbackTagLink: { feedbackId: number; tagId: number }
  memRide: TableOf<typeof memberEntities.ride>
  ordDeviceOrder: OrdDeviceOrderTable
  ordFrameNumber: TableOf<typeof orderEntities.frameNumber>
  otaSupplier: OtaSupplierTable
  otaProduct: OtaProductTable
  otaProductBikeModel: { productId: number; modelId: number }
  otaFirmware: OtaFirmwareTable
  otaFirmwareFunction: { firmwareId: number; functionId: number }
  otaCampaign: OtaCampaignTable
  otaCampaignDevice: OtaCampaignDeviceTable
  otaCampaignModel: { campaignId: number; modelId: number }
  otaCampaignCountry: { campaignId: number; countryId: number }
  otaCampaignTarget: { campaignId: number; deviceId: number }
  toolUser: TableOf<typeof toolEntities.toolUser>
  toolDevice: TableOf<typeof toolEntities.toolDevice>
  toolGenTable: TableOf<typeof toolEntities.genTable>
}

export type User = Selectable<UserTable>
export type NewUser = Insertable<UserTable>
export type UserUpdate = Updateable<UserTable>
export type Menu = Selectable<MenuTable>
export type Role = Selectable<RoleTable>
export type Dept = Selectable<DeptTable>
