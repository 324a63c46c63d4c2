import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../errors'

/** Sign-in attempts per account, whatever address they come from (a password guessed from many machines). */
export const LOGIN_PER_EMAIL = { max: 10, timeWindow: '15 minutes' } as const

/**
 * Counts a sign-in against its e-mail for one API (`scope` keeps the app's and the tool's counts
 * apart), for a route whose body has `email`, and refuses one past the limit (429 with
 * Retry-After). Keyed by a hash: the limiter's store (Redis, when there is one) never holds the addresses.
 */
export function loginAttemptsPerEmail(app: FastifyInstance, scope: string) {
  const attempts = app.createRateLimit({
    ...LOGIN_PER_EMAIL,
    keyGenerator: (req) => `${scope}-login-email:${createHash('sha256').update((req.body as { email: string }).email.toLowerCase()).digest('hex')}`,
  })
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const limit = await attempts(req)
    if (!limit.isAllowed && limit.isExceeded) {
      reply.header('retry-after', limit.ttlInSeconds)
      throw new AppError(429, 'error.rateLimited')
    }
  }
}
