import type { ValueType } from './entity/value-types'
import { PASSWORD_PATTERN } from './validation'

// The configuration keys the platform reads (rows of sys_config), with the type of their values:
// one list for the server, which checks every write of a row with one of these keys, and for the
// web, whose form offers the input of the type.

const BOOLEAN: ValueType = { type: 'boolean' }
/** A whole number between min and max, in a unit said in both languages. */
const int = (min: number, max: number, en_US?: string, zh_CN?: string): ValueType => ({ type: 'integer', min, max, ...(en_US ? { unit: { en_US, zh_CN: zh_CN! } } : {}) })
const days = (min: number, max: number) => int(min, max, 'days', '天')
const hours = (min: number, max: number) => int(min, max, 'hours', '小时')
const minutes = (min: number, max: number) => int(min, max, 'minutes', '分钟')
const seconds = (min: number, max: number) => int(min, max, 'seconds', '秒')
const percent = int(0, 100, '%', '%')

export const CONFIG_VALUE_TYPES: Readonly<Record<string, ValueType>> = {
  'sys.account.captchaEnabled': BOOLEAN,
  'sys.account.captchaType': {
    type: 'enum',
    options: [
      { value: 'math', label: { en_US: 'Arithmetic (math)', zh_CN: '算术（math）' } },
      { value: 'char', label: { en_US: 'Characters (char)', zh_CN: '字符（char）' } },
    ],
  },
  'sys.account.registerUser': BOOLEAN,
  'sys.account.forgetPassword': BOOLEAN,
  'sys.account.maxRetryCount': int(1, 100, 'attempts', '次'),
  'sys.account.lockTime': minutes(1, 1440),
  'sys.account.singleSignOn': BOOLEAN,
  'sys.account.secondFactorGraceDays': days(0, 365),
  'sys.user.initPassword': {
    type: 'text',
    pattern: PASSWORD_PATTERN,
    rule: { en_US: 'must be 6 to 20 letters, digits and special characters', zh_CN: '必须是 6 到 20 位字母、数字和特殊字符' },
  },
  'sys.seed.version': int(1, 9999),
  // Single sign-on: the department and role of an account made at its first sign-in. The role's code is checked
  // on write against the roles themselves (server modules/system/sso-groups.ts): no pattern to carry here.
  'sys.sso.newUserDeptId': int(0, 2147483647),
  'sys.sso.newUserRoleKey': { type: 'text' },
  'iot.heartbeat.seconds': seconds(10, 3600),
  'iot.command.timeoutSeconds': seconds(1, 600),
  'iot.command.expireMinutes': minutes(1, 10080),
  'iot.flow.warningPercent': percent,
  'iot.message.retentionDays': days(1, 3650),
  'iot.message.telemetrySeconds': seconds(0, 86400),
  'iot.telemetry.retentionDays': days(1, 3650),
  'iot.sim.carrierSyncMinutes': minutes(1, 10080),
  'iot.sim.simulatedCarrierDelaySeconds': seconds(0, 3600),
  'iot.warning.lowBatteryPercent': percent,
  'iot.warning.fallAngle': int(1, 180, 'degrees', '度'),
  'iot.warning.offlineHours': hours(1, 8760),
  // OTA upgrades (issue 18): a second person approves a campaign before it starts; the MQTT block size.
  'ota.approvalRequired': BOOLEAN,
  'ota.blockBytes': int(1024, 65536, 'bytes', '字节'),
  'service.repairOrder.reviewDays': int(0, 365, 'working days', '个工作日'),
  'service.repairOrder.repairDays': int(0, 365, 'working days', '个工作日'),
  'service.repairOrder.collectionDays': days(1, 365),
  // Tool system › SQL execution (issue 20): what one statement may take.
  'tool.sql.timeoutSeconds': seconds(1, 300),
  'tool.sql.maxRows': int(1, 100000, 'rows', '行'),
  'tool.sql.maxResultMb': int(1, 64, 'MB', 'MB'),
  // Monitoring › Data and backups: the maintenance schedules (0 hours turns one off) and what the logs keep.
  'monitor.backup.intervalHours': hours(0, 8760),
  'monitor.backup.keep': int(1, 365, 'backups', '份'),
  'monitor.retention.intervalHours': hours(0, 8760),
  'monitor.operlog.retentionDays': days(1, 3650),
  'monitor.logininfor.retentionDays': days(1, 3650),
  // Riders' personal data by category (docs/privacy.md › Retention), trimmed by the same retention job.
  'privacy.retention.positionDays': days(1, 3650),
  'privacy.retention.uploadedLogDays': days(1, 3650),
  'privacy.retention.inactiveMemberYears': int(1, 50, 'years', '年'),
  'privacy.retention.erasureNoticeDays': days(1, 365),
}

/** The type of a configuration key's value; none for keys of the admins' own (free text). */
export function configValueType(key: unknown): ValueType | undefined {
  return typeof key === 'string' && Object.hasOwn(CONFIG_VALUE_TYPES, key.trim()) ? CONFIG_VALUE_TYPES[key.trim()] : undefined
}

/** The tables a field's type can be read from (`typedBy.table`): a configuration value's by its key. */
export const VALUE_TYPE_TABLES = { config: configValueType } as const satisfies Record<string, (other: unknown) => ValueType | undefined>
export type ValueTypeTable = keyof typeof VALUE_TYPE_TABLES
