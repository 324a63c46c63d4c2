import type { FactorSummary, ProofMethod } from '@velo/shared'
import type { Db } from '../../../db/database'
import type { KeyValueStore } from '../../kv-store'
import { type PasskeyAssertion, type PasskeyRegistration, Passkeys, type RelyingParty } from './passkeys'
import { issueRecoveryCodes, looksLikeRecoveryCode, recoveryCodesLeft, useRecoveryCode } from './recovery-codes'
import type { SecretBox } from './secret-box'
import { checkTotp, newTotpSecret, totpUri } from './totp'

/** What the issuer of a TOTP entry reads in an authenticator app. */
export const TOTP_ISSUER = 'Velo Admin'
/** An enrolment not confirmed within this long starts again. */
const ENROL_SECONDS = 10 * 60

export type { ProofMethod }

const sealContext = (userId: number) => `user:${userId}:totp`

/**
 * Staff users' second factors: enrolment of an authenticator app (TOTP) or a passkey, recovery
 * codes, and the check of a code or a passkey at sign-in or before a dangerous action. Seeds are kept
 * sealed (secret-box.ts); nothing here answers one except the enrolment that made it.
 */
export class SecondFactors {
  readonly passkeys: Passkeys

  constructor(
    private readonly db: Db,
    private readonly kv: KeyValueStore,
    private readonly box: SecretBox,
  ) {
    this.passkeys = new Passkeys(db, kv)
  }

  async list(userId: number): Promise<FactorSummary[]> {
    const rows = await this.db.selectFrom('sysUserFactor').select(['factorId', 'kind', 'name', 'createTime', 'lastUsedTime']).where('userId', '=', userId).orderBy('factorId').execute()
    return rows.map((r) => ({ ...r, factorId: Number(r.factorId), kind: r.kind as FactorSummary['kind'] }))
  }

  async has(userId: number): Promise<boolean> {
    return !!(await this.db.selectFrom('sysUserFactor').select('factorId').where('userId', '=', userId).executeTakeFirst())
  }

  /** How the user can prove themselves with a factor: their kinds of factor, and recovery codes; none without a factor. */
  async methodsOf(userId: number): Promise<ProofMethod[]> {
    const kinds = new Set((await this.db.selectFrom('sysUserFactor').select('kind').where('userId', '=', userId).execute()).map((r) => r.kind))
    if (!kinds.size) return []
    return [...(kinds.has('passkey') ? (['passkey'] as const) : []), ...(kinds.has('totp') ? (['totp'] as const) : []), 'recovery']
  }

  recoveryCodesLeft(userId: number) {
    return recoveryCodesLeft(this.db, userId)
  }

  /** Starts an enrolment: a fresh seed, kept sealed for ten minutes until a code from it confirms it. */
  async startTotp(userId: number, account: string): Promise<{ secret: string; uri: string }> {
    const secret = newTotpSecret()
    await this.kv.set(`totp-enrol:${userId}`, this.box.seal(secret, sealContext(userId)), ENROL_SECONDS)
    return { secret, uri: totpUri(secret, TOTP_ISSUER, account) }
  }

  /**
   * Confirms the enrolment with a code from the app: the factor is kept, and with the user's first
   * factor come ten recovery codes (answered once). Null when the code is wrong or the enrolment has
   * run out.
   */
  async confirmTotp(userId: number, code: string, name: string): Promise<{ factorId: number; recoveryCodes: string[] | null } | null> {
    const sealed = await this.kv.get(`totp-enrol:${userId}`)
    const secret = sealed ? this.box.open(sealed, sealContext(userId)) : null
    if (!secret) return null
    const step = checkTotp(secret, code.trim(), null)
    if (step === null) return null
    if ((await this.kv.take(`totp-enrol:${userId}`)) === null) return null
    const now = new Date().toISOString()
    return this.keep(userId, { kind: 'totp', name: name.trim() || 'Authenticator app', secret: this.box.seal(secret, sealContext(userId)), lastStep: step, lastUsedTime: now })
  }

  /** Starts adding a passkey: the options the browser creates it from. */
  startPasskey(user: { userId: number; userName: string; nickName?: string }, rp: RelyingParty) {
    return this.passkeys.registrationOptions(user, rp)
  }

  /** Keeps the browser's new passkey; with the user's first factor come ten recovery codes. Null when it does not verify. */
  async confirmPasskey(userId: number, response: PasskeyRegistration, name: string): Promise<{ factorId: number; recoveryCodes: string[] | null } | null> {
    const credential = await this.passkeys.verifyRegistration(userId, response)
    if (!credential) return null
    return this.keep(userId, { kind: 'passkey', name: name.trim() || 'Passkey', ...credential, lastUsedTime: null })
  }

  /** Checks a passkey's answer to the options kept under `key` for this user: 'passkey', or null. */
  async verifyPasskey(userId: number, key: string, response: PasskeyAssertion): Promise<ProofMethod | null> {
    const check = await this.passkeys.verifyAssertion(key, response)
    return check.ok && check.userId === userId ? 'passkey' : null
  }

  private async keep(
    userId: number,
    factor: { kind: 'totp' | 'passkey'; name: string; secret?: string; lastStep?: number; credentialId?: string; publicKey?: string; signCount?: number; transports?: string; lastUsedTime: string | null },
  ) {
    const first = !(await this.has(userId))
    const row = await this.db
      .insertInto('sysUserFactor')
      .values({ userId, ...factor, name: factor.name.slice(0, 64), createTime: new Date().toISOString() })
      .returning('factorId')
      .executeTakeFirstOrThrow()
    const recoveryCodes = first || (await this.recoveryCodesLeft(userId)) === 0 ? await issueRecoveryCodes(this.db, userId) : null
    return { factorId: Number(row.factorId), recoveryCodes }
  }

  /**
   * Checks a second proof: a code of one of the user's authenticator apps (each code once), or one
   * of their recovery codes (used up). The method that passed, or null.
   */
  async verify(userId: number, code: string): Promise<ProofMethod | null> {
    const given = code.trim()
    if (/^\d{6}$/.test(given)) {
      const factors = await this.db.selectFrom('sysUserFactor').select(['factorId', 'secret', 'lastStep']).where('userId', '=', userId).where('kind', '=', 'totp').execute()
      for (const f of factors) {
        const secret = this.box.open(f.secret, sealContext(userId))
        if (!secret) continue
        const lastStep = f.lastStep === null ? null : Number(f.lastStep)
        const step = checkTotp(secret, given, lastStep)
        if (step === null) continue
        // Taken only if no other sign-in took this step first: a code works once, even in a race.
        const taken = await this.db
          .updateTable('sysUserFactor')
          .set({ lastStep: step, lastUsedTime: new Date().toISOString() })
          .where('factorId', '=', f.factorId)
          .where((eb) => (lastStep === null ? eb('lastStep', 'is', null) : eb('lastStep', '=', lastStep)))
          .executeTakeFirst()
        if (Number(taken.numUpdatedRows) === 1) return 'totp'
      }
      return null
    }
    if (looksLikeRecoveryCode(given) && (await useRecoveryCode(this.db, userId, given))) return 'recovery'
    return null
  }

  /** New recovery codes, the old ones void. */
  newRecoveryCodes(userId: number) {
    return issueRecoveryCodes(this.db, userId)
  }

  /** Removes one of the user's factors; false when they have no such factor. With the last one go the recovery codes. */
  async remove(userId: number, factorId: number): Promise<boolean> {
    const gone = await this.db.deleteFrom('sysUserFactor').where('userId', '=', userId).where('factorId', '=', factorId).executeTakeFirst()
    if (Number(gone.numDeletedRows) !== 1) return false
    if (!(await this.has(userId))) await this.db.deleteFrom('sysUserRecoveryCode').where('userId', '=', userId).execute()
    return true
  }

  /** An administrator's reset: every factor and recovery code of the user gone. */
  async reset(userId: number, db: Db = this.db): Promise<number> {
    const gone = await db.deleteFrom('sysUserFactor').where('userId', '=', userId).executeTakeFirst()
    await db.deleteFrom('sysUserRecoveryCode').where('userId', '=', userId).execute()
    return Number(gone.numDeletedRows)
  }

  /** Drops an enrolment under way (after a reset: outside its transaction, the store may be the same database). */
  async forgetEnrolment(userId: number): Promise<void> {
    await this.kv.delete(`totp-enrol:${userId}`)
  }
}
