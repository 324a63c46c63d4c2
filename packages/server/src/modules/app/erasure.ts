import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { dummyPasswordHash, verifyPassword } from '../../platform/auth/passwords'
import { ok } from '../../platform/envelope'
import { AppError } from '../../platform/errors'
import { languageOf } from '../../platform/http'
import { eraseRider } from '../../platform/privacy/erasure'
import { MEMBER } from '../../platform/rbac/guard'
import { envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { signedInMember } from './members'
import { APP_TAGS, MEMBER_SECURITY } from './tables'

const erasureBody = z.object({ password: z.string().min(1).max(128) })
const erasureAnswer = z.object({ erased: z.literal(true) })

/**
 * A rider erases their own data from the app (GDPR Art. 17; docs/app-api.md › Erasure): their password
 * again, so a phone left unlocked cannot do it; refused with the reason while something holds it (an
 * open service order, a legal hold). The token stops working with it: their sessions end.
 */
export function registerAppErasure(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  api.post(
    '/me/erasure',
    {
      // eraseRider writes the operation log's row itself (who erased whom, why): the app's routes log nothing else there.
      config: { permission: MEMBER, audit: false, rateLimit: { max: 5, timeWindow: '1 minute' } },
      schema: {
        tags: APP_TAGS,
        summary: 'The signed-in member erases their account and personal data (their password again); 409 with the reason while an open service order or a legal hold holds it',
        security: MEMBER_SECURITY,
        body: erasureBody,
        response: { 200: envelope(erasureAnswer) },
      },
    },
    async (req) => {
      const { memberId } = signedInMember(req)
      const lang = languageOf(req)
      const member = await services.db.selectFrom('memMember').select('passwordHash').where('memberId', '=', memberId).executeTakeFirstOrThrow()
      if (!(await verifyPassword(member.passwordHash || (await dummyPasswordHash()), req.body.password)) || !member.passwordHash) throw new AppError(400, 'privacy.erasure.password')
      await eraseRider(services, memberId, { by: 'app', request: 'the rider, in the app', lang })
      return ok({ erased: true as const })
    },
  )
}
