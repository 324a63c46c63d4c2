import { type ResolvedEntity, REVEAL_PERSONAL_DATA, REVEAL_REASON_MAX, REVEAL_REASON_MIN } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { BusinessType } from '../audit/operation-log'
import { ok } from '../envelope'
import { forbidden } from '../errors'
import { languageOf } from '../http'
import { hasPermission } from '../rbac/auth-context'
import { caller } from '../rbac/guard'
import type { RowScope } from '../rbac/data-scope'
import { envelope } from '../responses'
import type { EntityRepository } from '../crud/repository'
import { idParam } from '../crud/schemas'
import { hiddenFields, privacyViewOf } from './masking'

/**
 * POST {path}/:id/reveal: one record's personal values that the caller sees masked, for a reason
 * the operation log keeps with who asked and when (the log keeps the request, never the answer's
 * values). Needs the reveal right and the right to open the record, within the caller's data scope.
 */
export function registerRevealRoute(app: FastifyInstance, e: ResolvedEntity, repo: EntityRepository, scopeOf: (req: Parameters<typeof caller>[0]) => Promise<RowScope>) {
  if (!e.fields.some((f) => f.personal) || !e.operations.includes('get')) return
  const get = `${e.permission}:query`
  app.withTypeProvider<ZodTypeProvider>().post(
    `${e.path}/:id/reveal`,
    {
      config: { permission: REVEAL_PERSONAL_DATA, audit: { module: e.label.en_US, businessType: BusinessType.other } },
      schema: {
        tags: [e.label.en_US],
        summary: `Reveal one ${e.label.en_US} record's masked personal values, giving a reason (logged)`,
        params: idParam,
        body: z.object({ reason: z.string().trim().min(REVEAL_REASON_MIN).max(REVEAL_REASON_MAX) }),
        response: { 200: envelope(z.object({ values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).nullable()) })) },
      },
    },
    async (req) => {
      const auth = caller(req)
      if (!hasPermission(auth, get)) throw forbidden('error.forbidden', { permission: get })
      const row = await repo.get(req.params.id, await scopeOf(req), auth, languageOf(req))
      const values = Object.fromEntries(hiddenFields(e, privacyViewOf(auth)).map((f) => [f.name, (row[f.name] ?? null) as string | number | boolean | null]))
      return ok({ values }, 'privacy.revealed')
    },
  )
}
