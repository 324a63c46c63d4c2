import { compareVersions, contentEntities, type Language, versionNumber } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { confirmRequired, conflict } from '../../platform/errors'
import { formatCount, t } from '../../platform/i18n'
import type { Services } from '../../platform/services'
import { isTrue, merged, optionLabel } from './fields'
import type { Db } from '../../db/database'

const { protocol, protocolSignature } = contentEntities

type Row = Record<string, unknown>

/** A version is one row per type, language and version code (a unique index). */
const KEY = ['type', 'language', 'versionCode'] as const
/** What a replaced version hands to the row that takes its place, so a published one stays published. */
const CARRIED = ['status', 'signCount', 'cancelCount', 'publishTime'] as const

const keyOf = (row: Row) => ({ type: String(row.type), language: String(row.language), versionCode: String(row.versionCode) })

/** The stored version with this type, language and version code, other than `exceptId`. */
async function versionWithKey(db: Db, row: Row, exceptId?: unknown): Promise<Row | undefined> {
  const k = keyOf(row)
  let q = db.selectFrom(protocol.table).selectAll().where('type', '=', k.type).where('language', '=', k.language).where('versionCode', '=', k.versionCode)
  if (exceptId !== undefined) q = q.where('protocolId', '<>', exceptId as number)
  return (await q.executeTakeFirst()) as Row | undefined
}

function overwriteQuestion(row: Row) {
  const type = optionLabel(protocol, 'type', row.type)
  const language = optionLabel(protocol, 'language', row.language)
  return confirmRequired('content.protocolExists', { typeEn: type.en_US, typeZh: type.zh_CN, languageEn: language.en_US, languageZh: language.zh_CN, version: String(row.versionCode) })
}

/**
 * The version `row` is about to take the place of (same type, language and version): asked about
 * first (409 confirm), then, confirmed, deleted in the write's transaction. Answers what the new
 * row carries on of it, or nothing when there is none.
 */
async function replaceVersion(tx: Db, row: Row, confirmed: boolean, context: Row, exceptId?: unknown): Promise<Row | undefined> {
  const existing = await versionWithKey(tx, row, exceptId)
  if (!existing) return undefined
  if (!confirmed) throw overwriteQuestion(row)
  await tx.deleteFrom(protocol.table).where('protocolId', '=', existing.protocolId as number).execute()
  context.replacedId = existing.protocolId
  return Object.fromEntries(CARRIED.map((c) => [c, existing[c] ?? null]))
}

/** The replaced version's signatures are the new row's: members who signed it have signed this. */
async function moveSignatures(tx: Db, context: Row, toId: unknown) {
  if (context.replacedId === undefined) return
  await tx.updateTable(protocolSignature.table).set({ protocolId: toId as number }).where('protocolId', '=', context.replacedId as number).execute()
}

/** The published version of a type and language (one at most), other than `exceptId`. */
async function publishedVersion(db: Db, type: string, language: string, exceptId?: unknown): Promise<Row | null> {
  let q = db.selectFrom(protocol.table).selectAll().where('type', '=', type).where('language', '=', language).where('status', '=', 'published')
  if (exceptId !== undefined) q = q.where('protocolId', '<>', exceptId as number)
  return ((await q.executeTakeFirst()) as Row | undefined) ?? null
}

/**
 * The version codes members signed of a type and language that are older than `version`, compared
 * as numbers (1.10.0 is newer than 1.9.0): a type and language has few versions, so they are read
 * and compared here, and the members counted or updated by them in one statement.
 */
async function signedVersionsBefore(db: Db, type: string, language: string, version: string): Promise<string[]> {
  const rows = await db
    .selectFrom(protocolSignature.table)
    .select('versionCode')
    .distinct()
    .where('type', '=', type)
    .where('language', '=', language)
    .where('state', '=', 'signed')
    .execute()
  return rows.map((r) => String(r.versionCode)).filter((v) => compareVersions(v, version) < 0)
}

/** Members with a signed signature of a type and language, of the given versions only when `versions` is given. */
async function signerCount(db: Db, type: string, language: string, versions?: string[]): Promise<number> {
  if (versions && versions.length === 0) return 0
  let q = db
    .selectFrom(protocolSignature.table)
    .select((eb) => eb.fn.count<number>('memberId').distinct().as('n'))
    .where('type', '=', type)
    .where('language', '=', language)
    .where('state', '=', 'signed')
  if (versions) q = q.where('versionCode', 'in', versions)
  return Number((await q.executeTakeFirstOrThrow()).n)
}

/** The re-sign warning of an update, with how many members it makes count as not signed. */
async function resignWarning(db: Db, row: Row, lang: Language): Promise<string> {
  const older = await signedVersionsBefore(db, String(row.type), String(row.language), String(row.versionCode))
  return t(lang, 'content.protocol.resign', { count: await signerCount(db, String(row.type), String(row.language), older) })
}

/**
 * A member's standing with the agreement of a type and language, for the app: `current` is the
 * published version; `signed` says whether they have signed a version at or above the re-sign
 * floor — the newest published or retired version marked as an update (none: any signed version
 * counts); `signedVersion` is the newest version they signed (null: none).
 */
export async function agreementStanding(
  db: Db,
  memberId: number,
  type: string,
  language: string,
): Promise<{ current: Row | null; signed: boolean; signedVersion: string | null }> {
  const current = await publishedVersion(db, type, language)
  if (current) current.isUpdate = isTrue(current.isUpdate)
  const updates = await db
    .selectFrom(protocol.table)
    .select('versionCode')
    .where('type', '=', type)
    .where('language', '=', language)
    .where('status', 'in', ['published', 'retired'])
    .where('isUpdate', '=', 1)
    .execute()
  const floor = Math.max(-1, ...updates.map((u) => versionNumber(String(u.versionCode))))
  const signatures = await db
    .selectFrom(protocolSignature.table)
    .select('versionCode')
    .where('memberId', '=', memberId)
    .where('type', '=', type)
    .where('language', '=', language)
    .where('state', '=', 'signed')
    .execute()
  const newest = signatures.map((s) => String(s.versionCode)).sort(compareVersions).at(-1) ?? null
  return { current, signed: newest !== null && versionNumber(newest) >= floor, signedVersion: newest }
}

/**
 * Content › Agreements: a version that exists is overwritten only after a question (its signatures
 * and state go to the row that replaces it); publishing one retires the previous version of its type
 * and language, and an update makes members who signed an older one count as not signed; a
 * published or retired version's text is fixed and it cannot be deleted.
 */
export function registerAgreements(app: FastifyInstance, services: Services) {
  registerEntityRoutes(app, services, protocol, {
    beforeCreate: async ({ tx, values, columns, confirmed, context }) => {
      const carried = await replaceVersion(tx, values, confirmed, context)
      if (carried) Object.assign(columns, carried)
    },
    afterCreate: async ({ tx, row, context }) => moveSignatures(tx, context, row.protocolId),
    // Published or superseded, only its name and remark change and it is not deleted: the definition's state rules.
    beforeUpdate: async ({ tx, before, values, confirmed, context }) => {
      const after = merged(before, values)
      if (KEY.every((k) => String(after[k]) === String(before[k]))) return
      const carried = await replaceVersion(tx, after, confirmed, context, before.protocolId)
      if (carried) Object.assign(values, carried)
    },
    afterUpdate: async ({ tx, after, context }) => moveSignatures(tx, context, after.protocolId),
    previews: {
      publish: async ({ tx, rows, lang }) => {
        const row = rows[0]!
        const type = String(row.type)
        const language = String(row.language)
        const current = await publishedVersion(tx, type, language, row.protocolId)
        const signers = await signerCount(tx, type, language)
        const facts = [
          { label: t(lang, 'content.protocol.preview.replaces'), value: current ? `${String(current.name)} ${String(current.versionCode)}` : t(lang, 'content.protocol.preview.none') },
          { label: t(lang, 'content.protocol.preview.signed'), value: formatCount(lang, signers) },
        ]
        if (!isTrue(row.isUpdate)) return { facts }
        const warning = await resignWarning(tx, row, lang)
        return { facts, warning, secondConfirm: warning }
      },
    },
    actions: {
      publish: async ({ tx, auth, rows }) => {
        const row = rows[0]!
        const type = String(row.type)
        const language = String(row.language)
        const now = new Date().toISOString()
        const published = await tx
          .updateTable(protocol.table)
          .set({ status: 'published', publishTime: now, updateBy: auth.userName, updateTime: now })
          .where('protocolId', '=', row.protocolId as number)
          .where('status', '=', 'draft')
          .executeTakeFirst()
        if (Number(published.numUpdatedRows) !== 1) throw conflict('content.protocol.notDraft', { name: String(row.name), version: String(row.versionCode) })
        const retired = await tx
          .updateTable(protocol.table)
          .set({ status: 'retired', updateBy: auth.userName, updateTime: now })
          .where('type', '=', type)
          .where('language', '=', language)
          .where('status', '=', 'published')
          .where('protocolId', '<>', row.protocolId as number)
          .executeTakeFirst()
        let resigned = 0
        if (isTrue(row.isUpdate) && type === 'privacy') {
          // The member's privacy flag says whether they agreed to the privacy agreement in force.
          const older = await signedVersionsBefore(tx, type, language, String(row.versionCode))
          if (older.length) {
            const updated = await tx
              .updateTable('memMember')
              .set({ privacyAgreement: 'disagreed' })
              .where('privacyAgreement', '<>', 'disagreed')
              .where('memberId', 'in', tx.selectFrom(protocolSignature.table).select('memberId').where('type', '=', type).where('language', '=', language).where('state', '=', 'signed').where('versionCode', 'in', older))
              .executeTakeFirst()
            resigned = Number(updated.numUpdatedRows)
          }
        }
        return { protocolId: Number(row.protocolId), status: 'published', publishTime: now, retired: Number(retired.numUpdatedRows), privacyReset: resigned }
      },
    },
  })
}
