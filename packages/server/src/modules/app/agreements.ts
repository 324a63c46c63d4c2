import { APP_LANGUAGES, contentEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ok } from '../../platform/envelope'
import { notFound } from '../../platform/errors'
import { MEMBER, PUBLIC } from '../../platform/rbac/guard'
import { envelope } from '../../platform/responses'
import { sanitizeRichTextForRead } from '../../platform/rich-text'
import type { Services } from '../../platform/services'
import { agreementStanding } from '../content/agreements'
import { signedInMember } from './members'
import { APP_TAGS, MEMBER_SECURITY } from './tables'
import type { Db } from '../../db/database'

const typeField = contentEntities.protocol.fields.find((f) => f.name === 'type')!
const PROTOCOL_TYPES = (typeField.kind === 'enum' ? typeField.options.map((o) => o.value) : []) as [string, ...string[]]

const agreementQuery = z.strictObject({ type: z.enum(PROTOCOL_TYPES), lang: z.enum(APP_LANGUAGES) })

const agreementAnswer = z.object({
  protocolId: z.number(),
  name: z.string(),
  type: z.string(),
  language: z.string(),
  versionCode: z.string(),
  isUpdate: z.boolean(),
  content: z.string(),
  publishTime: z.string().nullable(),
})

const standingAnswer = z.object({
  current: z.object({ protocolId: z.number(), versionCode: z.string() }).nullable(),
  signed: z.boolean(),
  signedVersion: z.string().nullable(),
})

/** Where the member stands with the agreement of a type and language: the version to show, and whether theirs counts. */
async function standingOf(db: Db, memberId: number, type: string, language: string): Promise<z.infer<typeof standingAnswer>> {
  const { current, signed, signedVersion } = await agreementStanding(db, memberId, type, language)
  return {
    current: current ? { protocolId: Number(current.protocolId), versionCode: String(current.versionCode) } : null,
    signed,
    signedVersion,
  }
}

/**
 * Agreements in the app (SPEC §3 App protocol): the published one of a type and language, the
 * member's standing with it, and signing or cancelling it. The counts on the agreement follow the
 * signatures in the same transaction: signCount is its signed rows, cancelCount its cancelled ones.
 */
export function registerAgreements(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db
  const protocolParams = z.object({ protocolId: z.coerce.number().int().positive() })

  api.get(
    '/agreements/current',
    {
      config: { permission: PUBLIC },
      schema: {
        tags: APP_TAGS,
        summary: 'The published agreement of a type (privacy, emailSubscription) in a language',
        security: [],
        querystring: agreementQuery,
        response: { 200: envelope(agreementAnswer) },
      },
    },
    async (req) => {
      const row = await db
        .selectFrom('cntProtocol')
        .select(['protocolId', 'name', 'type', 'language', 'versionCode', 'isUpdate', 'content', 'publishTime'])
        .where('type', '=', req.query.type)
        .where('language', '=', req.query.lang)
        .where('status', '=', 'published')
        .orderBy('publishTime', 'desc')
        .orderBy('protocolId', 'desc')
        .executeTakeFirst()
      if (!row) throw notFound('app.agreementNotFound')
      // Rich text as the app API sends it everywhere: sanitized by today's rules (platform/rich-text.ts).
      return { ...row, content: sanitizeRichTextForRead(row.content), protocolId: Number(row.protocolId), isUpdate: Boolean(row.isUpdate), publishTime: row.publishTime ?? null }
    },
  )

  api.get(
    '/agreements/standing',
    {
      config: { permission: MEMBER },
      schema: {
        tags: APP_TAGS,
        summary: "The signed-in member's standing with the agreement of a type and language: the current version, and whether they signed one that still counts",
        security: MEMBER_SECURITY,
        querystring: agreementQuery,
        response: { 200: envelope(standingAnswer) },
      },
    },
    async (req) => standingOf(db, signedInMember(req).memberId, req.query.type, req.query.lang),
  )

  api.post(
    '/agreements/:protocolId/sign',
    {
      config: { permission: MEMBER, audit: false },
      schema: {
        tags: APP_TAGS,
        summary: 'The signed-in member signs a published agreement (again after a cancellation); signing twice counts once. Answers their standing',
        security: MEMBER_SECURITY,
        params: protocolParams,
        response: { 200: envelope(standingAnswer) },
      },
    },
    async (req) => {
      const { memberId } = signedInMember(req)
      const protocol = await db.transaction().execute(async (tx) => {
        const p = await tx
          .selectFrom('cntProtocol')
          .select(['protocolId', 'type', 'language', 'versionCode'])
          .where('protocolId', '=', req.params.protocolId)
          .where('status', '=', 'published')
          .executeTakeFirst()
        // A draft is not shown yet and a retired version is no longer offered: neither is signed.
        if (!p) throw notFound('app.agreementNotFound')
        const now = new Date().toISOString()
        const added = await tx
          .insertInto('cntProtocolSignature')
          .values({ protocolId: p.protocolId, memberId, type: p.type, language: p.language, versionCode: p.versionCode, state: 'signed', signTime: now, cancelTime: null })
          .onConflict((oc) => oc.columns(['protocolId', 'memberId']).doNothing())
          .executeTakeFirst()
        if (Number(added.numInsertedOrUpdatedRows ?? 0) > 0) {
          await tx.updateTable('cntProtocol').set((eb) => ({ signCount: eb('signCount', '+', 1) })).where('protocolId', '=', p.protocolId).execute()
        } else {
          // Only from cancelled: signing what is signed changes nothing, and of two signs at once one counts.
          const resigned = await tx
            .updateTable('cntProtocolSignature')
            .set({ state: 'signed', signTime: now, cancelTime: null })
            .where('protocolId', '=', p.protocolId)
            .where('memberId', '=', memberId)
            .where('state', '=', 'cancelled')
            .executeTakeFirst()
          if (Number(resigned.numUpdatedRows) > 0) {
            await tx
              .updateTable('cntProtocol')
              .set((eb) => ({ signCount: eb('signCount', '+', 1), cancelCount: eb('cancelCount', '-', 1) }))
              .where('protocolId', '=', p.protocolId)
              .execute()
          }
        }
        if (p.type === 'privacy') await tx.updateTable('memMember').set({ privacyAgreement: 'agreed' }).where('memberId', '=', memberId).execute()
        return p
      })
      return ok(await standingOf(db, memberId, protocol.type, protocol.language), 'app.agreementSigned')
    },
  )

  api.post(
    '/agreements/:protocolId/cancel',
    {
      config: { permission: MEMBER, audit: false },
      schema: {
        tags: APP_TAGS,
        summary:
          "The signed-in member withdraws from an agreement: their signatures of its type and language (this version and any earlier one still counting) become cancelled; cancelling twice counts once. Answers their standing",
        security: MEMBER_SECURITY,
        params: protocolParams,
        response: { 200: envelope(standingAnswer) },
      },
    },
    async (req) => {
      const { memberId } = signedInMember(req)
      const protocol = await db.transaction().execute(async (tx) => {
        const p = await tx
          .selectFrom('cntProtocol')
          .select(['protocolId', 'type', 'language'])
          .where('protocolId', '=', req.params.protocolId)
          .where('status', 'in', ['published', 'retired'])
          .executeTakeFirst()
        if (!p) throw notFound('app.agreementNotFound')
        // Consent is withdrawn for the type and language, not for one version: a signature of an
        // earlier version that still counts would otherwise keep the member signed.
        const cancelled = await tx
          .updateTable('cntProtocolSignature')
          .set({ state: 'cancelled', cancelTime: new Date().toISOString() })
          .where('memberId', '=', memberId)
          .where('type', '=', p.type)
          .where('language', '=', p.language)
          .where('state', '=', 'signed')
          .returning('protocolId')
          .execute()
        for (const { protocolId } of cancelled) {
          await tx
            .updateTable('cntProtocol')
            .set((eb) => ({ signCount: eb('signCount', '-', 1), cancelCount: eb('cancelCount', '+', 1) }))
            .where('protocolId', '=', protocolId)
            .execute()
        }
        if (p.type === 'privacy') await tx.updateTable('memMember').set({ privacyAgreement: 'disagreed' }).where('memberId', '=', memberId).execute()
        return p
      })
      return ok(await standingOf(db, memberId, protocol.type, protocol.language), 'app.agreementCancelled')
    },
  )
}
