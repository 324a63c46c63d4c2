import { createHash, randomBytes } from 'node:crypto'
import { ADMIN_ROLE, USERNAME_PATTERN } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../../db/schema'
import { BusinessType } from '../../audit/operation-log'
import { ConfigKey } from '../../config-keys'
import type { Services } from '../../services'
import { newUserRow } from '../new-user'
import { hashPassword } from '../passwords'
import type { SsoIdentity } from './claims'
import { SsoError } from './identity-provider'

type Tx = Transaction<Database>

/** The console's account of a single sign-on, and what the sign-in changed on it. */
export interface SsoAccount {
  userId: number
  userName: string
  created: boolean
  /** Role codes its groups' mappings gave, and took back, at this sign-in. */
  rolesAdded: string[]
  rolesRemoved: string[]
}

/** Where the request came from, for the operation log's rows of what a sign-in changed. */
export interface SsoRequest {
  ip: string
  requestId: string
  log: FastifyBaseLogger
}

/** A user name of USERNAME_PATTERN (4 to 20 letters and digits) from the provider's user name or the e-mail. */
function userNameBase(identity: SsoIdentity): string {
  const from = (s: string) => s.split('@')[0]!.replace(/[^A-Za-z0-9]/g, '')
  const base = from(identity.preferredUsername) || from(identity.email)
  return (base.length >= 4 ? base : `user${base}`).slice(0, 20)
}

/** A free user name: the base, else the base with a number, in any case (user names are compared without case). */
async function freeUserName(tx: Tx, base: string): Promise<string> {
  const taken = async (name: string) =>
    !!(await tx
      .selectFrom('sysUser')
      .select('userId')
      .where((eb) => eb(eb.fn('lower', ['userName']), '=', name.toLowerCase()))
      .executeTakeFirst())
  if (!(await taken(base))) return base
  for (let n = 2; n < 1000; n++) {
    const name = `${base.slice(0, 20 - String(n).length)}${n}`
    if (!(await taken(name))) return name
  }
  // A thousand namesakes: a random tail rather than a longer search.
  return `${base.slice(0, 12)}${randomBytes(4).toString('hex')}`
}

/** The department and role new accounts get (System › Parameters); a value naming nothing usable is left out and said in the log. */
async function newAccountPlacement(services: Services, tx: Tx, log: FastifyBaseLogger): Promise<{ deptId: number | null; roleId: number | null }> {
  const deptSetting = await services.configValues.int(ConfigKey.ssoNewUserDeptId, 0, 0)
  let deptId: number | null = null
  if (deptSetting > 0) {
    const dept = await tx.selectFrom('sysDept').select('deptId').where('deptId', '=', deptSetting).where('delFlag', '=', '0').where('status', '=', '0').executeTakeFirst()
    if (dept) deptId = Number(dept.deptId)
    else log.warn({ deptId: deptSetting }, `single sign-on: ${ConfigKey.ssoNewUserDeptId} names no enabled department; the new account gets none`)
  }
  const roleKey = (await services.configValues.get(ConfigKey.ssoNewUserRoleKey))?.trim() ?? ''
  let roleId: number | null = null
  if (roleKey && roleKey !== '-') {
    const role = await tx.selectFrom('sysRole').select('roleId').where('roleKey', '=', roleKey).where('status', '=', '0').where('delFlag', '=', '0').executeTakeFirst()
    if (role) roleId = Number(role.roleId)
    else log.warn({ roleKey }, `single sign-on: ${ConfigKey.ssoNewUserRoleKey} names no enabled role; the new account gets none`)
  }
  return { deptId, roleId }
}

/** The one enabled account of this e-mail, or why there is none to sign in to; null: there is none at all. */
async function accountByEmail(tx: Kysely<Database>, email: string): Promise<{ userId: number; userName: string } | null> {
  const rows = await tx
    .selectFrom('sysUser')
    .select(['userId', 'userName', 'status', 'delFlag'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .execute()
  const live = rows.filter((r) => r.delFlag === '0')
  // Never a guess between two people's accounts.
  if (live.length > 1) throw new SsoError('ambiguous', `${live.length} accounts have the e-mail ${email}: ${live.map((r) => r.userName).join(', ')}`)
  const [user] = live
  if (user) {
    if (user.status !== '0') throw new SsoError('disabled', `account ${user.userName} is disabled`)
    return { userId: Number(user.userId), userName: user.userName }
  }
  // An account deleted on purpose is not made again by its owner signing in.
  if (rows.length) throw new SsoError('disabled', `the account of ${email} (${rows[0]!.userName}) is deleted`)
  return null
}

/**
 * The user's roles from their groups: roles their groups map to are added, and roles a mapping
 * gave them before (sys_user_sso_role) that no group maps to now are taken back. Roles granted by
 * hand are never taken; a role a mapping gives stays marked as the mapping's only if the mapping
 * added it. No groups claim at all leaves everything as it is (the provider may not send one).
 */
async function syncMappedRoles(tx: Tx, userId: number, groups: string[] | undefined): Promise<{ added: string[]; removed: string[] }> {
  if (groups === undefined) return { added: [], removed: [] }
  const mapped = new Map<number, string>()
  for (let i = 0; i < groups.length; i += 500) {
    const chunk = groups.slice(i, i + 500)
    if (!chunk.length) continue
    const rows = await tx
      .selectFrom('sysSsoGroupRole as m')
      .innerJoin('sysRole as r', 'r.roleId', 'm.roleId')
      .select(['r.roleId', 'r.roleKey'])
      .where('m.groupName', 'in', chunk)
      .where('r.status', '=', '0')
      .where('r.delFlag', '=', '0')
      .execute()
    for (const r of rows) mapped.set(Number(r.roleId), r.roleKey)
  }
  const current = new Set((await tx.selectFrom('sysUserRole').select('roleId').where('userId', '=', userId).execute()).map((r) => Number(r.roleId)))
  const marked = (await tx.selectFrom('sysUserSsoRole').select('roleId').where('userId', '=', userId).execute()).map((r) => Number(r.roleId))
  const toAdd = [...mapped.keys()].filter((id) => !current.has(id))
  const unmapped = marked.filter((id) => !mapped.has(id))
  const { userName } = await tx.selectFrom('sysUser').select('userName').where('userId', '=', userId).executeTakeFirstOrThrow()
  const builtInAdmin = userId === 1 || userName === 'admin'
  const keys = new Map((unmapped.length ? await tx.selectFrom('sysRole').select(['roleId', 'roleKey']).where('roleId', 'in', unmapped).execute() : []).map((r) => [Number(r.roleId), r.roleKey]))
  // The built-in administrator keeps the administrator role, whatever the groups say (as System › Users keeps it).
  const toRemove = unmapped.filter((id) => current.has(id) && !(builtInAdmin && keys.get(id) === ADMIN_ROLE))
  if (toAdd.length) {
    await tx.insertInto('sysUserRole').values(toAdd.map((roleId) => ({ userId, roleId }))).execute()
    await tx
      .insertInto('sysUserSsoRole')
      .values(toAdd.map((roleId) => ({ userId, roleId })))
      .onConflict((oc) => oc.columns(['userId', 'roleId']).doNothing())
      .execute()
  }
  if (unmapped.length) {
    if (toRemove.length) await tx.deleteFrom('sysUserRole').where('userId', '=', userId).where('roleId', 'in', toRemove).execute()
    await tx.deleteFrom('sysUserSsoRole').where('userId', '=', userId).where('roleId', 'in', unmapped).execute()
  }
  return { added: toAdd.map((id) => mapped.get(id)!), removed: toRemove.map((id) => keys.get(id) ?? String(id)) }
}

/**
 * The account a single sign-on signs in to: the one enabled user with the identity's e-mail (any
 * case), else a new one in the configured department and role; then its roles from the groups.
 * One transaction: a refused sign-in changes nothing.
 */
export async function accountForIdentity(services: Services, identity: SsoIdentity, request: SsoRequest): Promise<SsoAccount> {
  const { db } = services
  // Two first sign-ins of one person at once (two tabs) must not make two accounts of one e-mail.
  const lockKey = `sso-provision:${createHash('sha256').update(identity.email.toLowerCase()).digest('hex')}`
  if (!(await services.kv.setIfAbsent(lockKey, '1', 30))) throw new SsoError('expired', `another sign-in of ${identity.email} is under way`)
  try {
    // A password nobody knows, for a new account: hashed before the transaction, which would otherwise wait for it.
    const passwordHash = (await accountByEmail(db, identity.email)) ? '' : await hashPassword(randomBytes(32).toString('base64url'))
    const account = await db.transaction().execute(async (tx) => {
      const found = await accountByEmail(tx, identity.email)
      let user = found
      let defaultRole: string[] = []
      if (!user) {
        const { deptId, roleId } = await newAccountPlacement(services, tx, request.log)
        const userName = await freeUserName(tx, userNameBase(identity))
        if (!USERNAME_PATTERN.test(userName)) throw new SsoError('failed', `no user name could be made for ${identity.email}`)
        // The account signs in through the provider (or with a password an administrator sets).
        if (!passwordHash) throw new SsoError('expired', `the account of ${identity.email} went away during the sign-in`)
        const nickName = (identity.name || identity.preferredUsername || identity.email.split('@')[0]!).slice(0, 64)
        const row = newUserRow({ userName, passwordHash, createBy: 'sso', nickName, deptId, email: identity.email, remark: 'Created at the first single sign-on' })
        const { userId } = await tx.insertInto('sysUser').values(row).returning('userId').executeTakeFirstOrThrow()
        user = { userId: Number(userId), userName }
        if (roleId !== null) {
          await tx.insertInto('sysUserRole').values({ userId: user.userId, roleId }).execute()
          defaultRole = [(await tx.selectFrom('sysRole').select('roleKey').where('roleId', '=', roleId).executeTakeFirstOrThrow()).roleKey]
        }
      }
      const { added, removed } = await syncMappedRoles(tx, user.userId, identity.groups)
      return { ...user, created: !found, rolesAdded: [...defaultRole, ...added], rolesRemoved: removed }
    })
    if (account.created || account.rolesAdded.length || account.rolesRemoved.length) {
      // Whatever the account's sessions keep of its rights is stale, on every instance.
      if (!account.created) await services.authCache.changed({ users: [account.userId] })
      await recordChange(services, account, identity, request)
    }
    return account
  } finally {
    await services.kv.delete(lockKey)
  }
}

/** The operation log's row of an account made, or roles changed, by a sign-in: who gave a user a role is always on record. */
async function recordChange(services: Services, account: SsoAccount, identity: SsoIdentity, request: SsoRequest) {
  const params = { userName: account.userName, email: identity.email, groups: identity.groups ?? null, rolesAdded: account.rolesAdded, rolesRemoved: account.rolesRemoved }
  try {
    await services.db
      .insertInto('sysOperLog')
      .values({
        title: 'Single sign-on',
        businessType: account.created ? BusinessType.insert : BusinessType.grant,
        method: 'GET /auth/oidc/callback',
        requestMethod: 'GET',
        operName: account.userName,
        deptName: '',
        operUrl: '/auth/oidc/callback',
        operIp: request.ip,
        operParam: JSON.stringify(params).slice(0, 2000),
        jsonResult: JSON.stringify({ userId: account.userId, created: account.created }),
        status: '0',
        errorMsg: '',
        operTime: new Date().toISOString(),
        costTime: 0,
        requestId: request.requestId,
      })
      .execute()
  } catch (err) {
    request.log.error({ err }, 'single sign-on: could not write the operation log')
  }
}
