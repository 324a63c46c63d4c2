import type { Db } from '../db/database'

/** System configuration keys the platform reads (rows of sys_config, editable by admins). */
export const ConfigKey = {
  captchaEnabled: 'sys.account.captchaEnabled',
  captchaType: 'sys.account.captchaType',
  registerUser: 'sys.account.registerUser',
  forgetPassword: 'sys.account.forgetPassword',
  maxRetryCount: 'sys.account.maxRetryCount',
  lockMinutes: 'sys.account.lockTime',
  singleSignOn: 'sys.account.singleSignOn',
  secondFactorGraceDays: 'sys.account.secondFactorGraceDays',
  initPassword: 'sys.user.initPassword',
  // Single sign-on: the department and role of an account made at its first sign-in (platform/auth/sso).
  ssoNewUserDeptId: 'sys.sso.newUserDeptId',
  ssoNewUserRoleKey: 'sys.sso.newUserRoleKey',
} as const

/** Reads config values; each call goes to the database so an admin's change applies at once on every instance. */
export class ConfigValues {
  constructor(private readonly db: Db) {}

  async get(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('sysConfig').select('configValue').where('configKey', '=', key).executeTakeFirst()
    return row?.configValue
  }

  async bool(key: string, fallback: boolean): Promise<boolean> {
    const v = (await this.get(key))?.trim().toLowerCase()
    if (v === undefined || v === '') return fallback
    return v === 'true' || v === '1' || v === 'y' || v === 'yes' || v === 'on'
  }

  async int(key: string, fallback: number, min = 1): Promise<number> {
    const n = Number.parseInt((await this.get(key)) ?? '', 10)
    return Number.isFinite(n) && n >= min ? n : fallback
  }
}
