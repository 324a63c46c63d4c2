import { PASSWORD_PATTERN } from '@velo/shared'
import type { Db } from '../../db/database'
import { BusinessType } from '../../platform/audit/operation-log'
import { generatePassword, hashPassword } from '../../platform/auth/passwords'
import type { SessionStore } from '../../platform/auth/session-store'

/** The account `npm run admin:password` recovers: the built-in administrator the first start creates. */
export const ADMIN_USER_NAME = 'admin'

export class AdminPasswordRefused extends Error {
  override name = 'AdminPasswordRefused'
}

export interface AdminPasswordResult {
  /** The new password: the one given, or a generated one to print. */
  password: string
  generated: boolean
  userId: number
}

/**
 * Sets a new password for the administrator straight on the database, for when nobody can sign in
 * to set it (npm run admin:password, README "Lost the admin password?"): hashed as every password is
 * (argon2id), the lockout of failed sign-ins cleared, every session of the administrator ended (whoever
 * knew the old password is out; a running server sees it at the session's next request), and a row in
 * the operation log under `operator`.
 */
export async function resetAdminPassword(o: { db: Db; sessions: SessionStore; password?: string; operator?: string; now?: Date }): Promise<AdminPasswordResult> {
  const given = o.password
  if (given !== undefined && !PASSWORD_PATTERN.test(given)) throw new AdminPasswordRefused('The new password must be 6 to 20 letters, digits or special characters (ASCII, no spaces)')
  const password = given ?? generatePassword()
  const operator = o.operator ?? 'cli'
  const now = (o.now ?? new Date()).toISOString()
  const user = await o.db.selectFrom('sysUser').select(['userId']).where('userName', '=', ADMIN_USER_NAME).executeTakeFirst()
  if (!user) throw new AdminPasswordRefused(`This database has no user "${ADMIN_USER_NAME}": start the server once to create it (its first start prints the password)`)
  const userId = Number(user.userId)
  const hash = await hashPassword(password)
  await o.db.transaction().execute(async (tx) => {
    await tx.updateTable('sysUser').set({ password: hash, failedLogins: 0, lockedUntil: null, updateBy: operator, updateTime: now }).where('userId', '=', userId).execute()
    await tx
      .insertInto('sysOperLog')
      .values({
        title: 'Administrator password',
        businessType: BusinessType.update,
        method: 'npm run admin:password',
        requestMethod: 'CLI',
        operName: operator,
        deptName: '',
        operUrl: '',
        operIp: '',
        operParam: JSON.stringify({ userName: ADMIN_USER_NAME, password: '******', generated: given === undefined }),
        jsonResult: '',
        status: '0',
        errorMsg: '',
        operTime: now,
        costTime: 0,
        requestId: '',
      })
      .execute()
  })
  await o.sessions.revokeUser(userId)
  return { password, generated: given === undefined, userId }
}
