import type { ValueType } from './entity/value-types'
import { PASSWORD_PATTERN } from './validation'

// The configuration keys the platform reads (rows of sys_config), with the type of their values:
// one list for the server, which checks every write of a row with one of these keys, and for the
// web, whose form offers the input of the type.

const BOOLEAN: ValueType = { type: 'boolean' }
const minutes = { en_US: 'minutes', zh_CN: '分钟' }
const seconds = { en_US: 'seconds', zh_CN: '秒' }

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
  'sys.account.maxRetryCount': { type: 'integer', min: 1, max: 100, unit: { en_US: 'attempts', zh_CN: '次' } },
  'sys.account.lockTime': { type: 'integer', min: 1, max: 1440, unit: minutes },
  'sys.account.singleSignOn': BOOLEAN,
  'sys.account.secondFactorGraceDays': { type: 'integer', min: 0, max: 365, unit: { en_US: 'days', zh_CN: '天' } },
  'sys.user.initPassword': {
    type: 'text',
    pattern: PASSWORD_PATTERN,
    rule: { en_US: 'must be 6 to 20 letters, digits and special characters', zh_CN: '必须是 6 到 20 位字母、数字和特殊字符' },
  },
  'sys.seed.version': { type: 'integer', min: 1, max: 9999 },
  // Single sign-on: the department and role of an account made at its first sign-in. The role's code is checked
  // on write against the roles themselves (server modules/system/sso-groups.ts): no pattern to carry here.
  'sys.sso.newUserDeptId': { type: 'integer', min: 0, max: 2147483647 },
  'sys.sso.newUserRoleKey': { type: 'text' },
  'iot.heartbeat.seconds': { type: 'integer', min: 10, max: 3600, unit: seconds },
  'iot.command.timeoutSeconds': { type: 'integer', min: 1, max: 600, unit: seconds },
  'iot.command.expireMinutes': { type: 'integer', min: 1, max: 10080, unit: minutes },
  'iot.flow.warningPercent': { type: 'integer', min: 0, max: 100, unit: { en_US: '%', zh_CN: '%' } },
  'iot.message.retentionDays': { type: 'integer', min: 1, max: 3650, unit: { en_US: 'days', zh_CN: '天' } },
  'iot.telemetry.retentionDays': { type: 'integer', min: 1, max: 3650, unit: { en_US: 'days', zh_CN: '天' } },
  'iot.sim.carrierSyncMinutes': { type: 'integer', min: 1, max: 10080, unit: minutes },
  'iot.sim.simulatedCarrierDelaySeconds': { type: 'integer', min: 0, max: 3600, unit: seconds },
  'iot.warning.lowBatteryPercent': { type: 'integer', min: 0, max: 100, unit: { en_US: '%', zh_CN: '%' } },
  'iot.warning.fallAngle': { type: 'integer', min: 1, max: 180, unit: { en_US: 'degrees', zh_CN: '度' } },
  'iot.warning.offlineHours': { type: 'integer', min: 1, max: 8760, unit: { en_US: 'hours', zh_CN: '小时' } },
  // OTA upgrades (issue 18): a second person approves a campaign before it starts; the MQTT block size.
  'ota.approvalRequired': BOOLEAN,
  'ota.blockBytes': { type: 'integer', min: 1024, max: 65536, unit: { en_US: 'bytes', zh_CN: '字节' } },
  'service.repairOrder.reviewDays': { type: 'integer', min: 0, max: 365, unit: { en_US: 'working days', zh_CN: '个工作日' } },
  'service.repairOrder.repairDays': { type: 'integer', min: 0, max: 365, unit: { en_US: 'working days', zh_CN: '个工作日' } },
  'service.repairOrder.collectionDays': { type: 'integer', min: 1, max: 365, unit: { en_US: 'days', zh_CN: '天' } },
  // Tool system › SQL execution (issue 20): what one statement may take.
  'tool.sql.timeoutSeconds': { type: 'integer', min: 1, max: 300, unit: seconds },
  'tool.sql.maxRows': { type: 'integer', min: 1, max: 100000, unit: { en_US: 'rows', zh_CN: '行' } },
  'tool.sql.maxResultMb': { type: 'integer', min: 1, max: 64, unit: { en_US: 'MB', zh_CN: 'MB' } },
  // Monitoring › Data and backups: the maintenance schedules (0 hours turns one off) and what the logs keep.
  'monitor.backup.intervalHours': { type: 'integer', min: 0, max: 8760, unit: { en_US: 'hours', zh_CN: '小时' } },
  'monitor.backup.keep': { type: 'integer', min: 1, max: 365, unit: { en_US: 'backups', zh_CN: '份' } },
  'monitor.retention.intervalHours': { type: 'integer', min: 0, max: 8760, unit: { en_US: 'hours', zh_CN: '小时' } },
  'monitor.operlog.retentionDays': { type: 'integer', min: 1, max: 3650, unit: { en_US: 'days', zh_CN: '天' } },
  'monitor.logininfor.retentionDays': { type: 'integer', min: 1, max: 3650, unit: { en_US: 'days', zh_CN: '天' } },
}

/** The type of a configuration key's value; none for keys of the admins' own (free text). */
export function configValueType(key: unknown): ValueType | undefined {
  return typeof key === 'string' && Object.hasOwn(CONFIG_VALUE_TYPES, key.trim()) ? CONFIG_VALUE_TYPES[key.trim()] : undefined
}
