import { createHash, randomInt } from 'node:crypto'
import type { Db } from '../../../db/database'

/** Ten codes, as GitLab and GitHub give: enough for a lost phone, few enough to keep on paper. */
export const RECOVERY_CODE_COUNT = 10
// Lower-case letters and digits a reader cannot confuse (no 0/o, 1/l/i): 10 of them are 50 bits.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'

const newCode = () => {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)])
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`
}

/** As typed: spaces and dashes anywhere, any case. */
export const normalizeRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '')
export const looksLikeRecoveryCode = (code: string) => /^[a-z0-9]{10}$/.test(normalizeRecoveryCode(code))

// 50 random bits need no slow hash: a guess costs a sign-in attempt, not a hash. The user's id in
// the hash keeps one user's hashes useless against another's rows.
const hashOf = (userId: number, code: string) => createHash('sha256').update(`${userId}:${normalizeRecoveryCode(code)}`).digest('hex')

/** Replaces the user's codes with ten new ones; the codes themselves are answered once and kept nowhere. */
export async function issueRecoveryCodes(db: Db, userId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode)
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('sysUserRecoveryCode').where('userId', '=', userId).execute()
    await trx
      .insertInto('sysUserRecoveryCode')
      .values(codes.map((code) => ({ userId, codeHash: hashOf(userId, code), usedTime: null })))
      .execute()
  })
  return codes
}

/** Uses one code: true the first time it is given, in one statement, so two sign-ins cannot both use it. */
export async function useRecoveryCode(db: Db, userId: number, code: string): Promise<boolean> {
  if (!looksLikeRecoveryCode(code)) return false
  const used = await db
    .updateTable('sysUserRecoveryCode')
    .set({ usedTime: new Date().toISOString() })
    .where('userId', '=', userId)
    .where('codeHash', '=', hashOf(userId, code))
    .where('usedTime', 'is', null)
    .executeTakeFirst()
  return Number(used.numUpdatedRows) === 1
}

export async function recoveryCodesLeft(db: Db, userId: number): Promise<number> {
  const row = await db.selectFrom('sysUserRecoveryCode').select((eb) => eb.fn.countAll<number>().as('n')).where('userId', '=', userId).where('usedTime', 'is', null).executeTakeFirst()
  return Number(row?.n ?? 0)
}
