import { ResultCode } from '@velo/shared'
import type { FastifyRequest } from 'fastify'
import { hashToken, newToken } from '../../platform/auth/session-store'
import { AppError, forbidden } from '../../platform/errors'
import { readToken } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'

/** The operator a TOOL route serves, as the tool API's hook found them. */
export interface ToolOperator {
  toolUserId: number
  email: string
  companyName: string
  userType: 'production' | 'test'
  tokenHash: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on TOOL routes of the tool API by its onRequest hook; null elsewhere. */
    toolOperator: ToolOperator | null
  }
}

/** A shift on the line: a token lasts this long after its last use. */
export const TOOL_SESSION_SECONDS = 12 * 3600

// Tool sessions live in the shared key-value store (Redis or the database) under their own prefix:
// no staff or member session is ever looked up there, and no tool token in theirs.
const sessionKey = (tokenHash: string) => `tool:session:${tokenHash}`

/** `generation`: the account's password count now; a token of an earlier one is refused. */
export async function openToolSession(services: Services, toolUserId: number, generation: number): Promise<{ token: string; expiresAt: string }> {
  const token = newToken()
  await services.kv.set(sessionKey(hashToken(token)), `${toolUserId}:${generation}`, TOOL_SESSION_SECONDS)
  return { token, expiresAt: new Date(Date.now() + TOOL_SESSION_SECONDS * 1000).toISOString() }
}

export async function endToolSession(services: Services, tokenHash: string) {
  await services.kv.delete(sessionKey(tokenHash))
}

const refusedToken = () => new AppError(401, 'auth.tokenIllegal', {}, ResultCode.ILLEGAL_TOKEN)

/**
 * Authenticates the tool token of a TOOL route: a live session of an account that is enabled now
 * (an account disabled or deleted in the console is refused at its next call). Each use renews the
 * session, so a line that works stays signed in.
 */
export function toolAuthenticator(services: Services) {
  const db = services.db
  return async (req: FastifyRequest) => {
    const token = readToken(req)
    if (!token) throw new AppError(401, 'auth.notLoggedIn', {}, ResultCode.ILLEGAL_TOKEN)
    const tokenHash = hashToken(token)
    const stored = await services.kv.get(sessionKey(tokenHash))
    if (!stored) throw refusedToken()
    const [id, generation] = stored.split(':')
    const user = await db
      .selectFrom('toolUser')
      .select(['toolUserId', 'email', 'companyName', 'userType', 'status', 'sessionGeneration'])
      .where('toolUserId', '=', Number(id))
      .executeTakeFirst()
    // Gone, or its password was set anew since this token was opened.
    if (!user || Number(user.sessionGeneration) !== Number(generation)) {
      await endToolSession(services, tokenHash)
      throw refusedToken()
    }
    if (user.status !== '0') throw forbidden('tool.userDisabled')
    await services.kv.set(sessionKey(tokenHash), stored, TOOL_SESSION_SECONDS)
    req.toolOperator = {
      toolUserId: Number(user.toolUserId),
      email: user.email,
      companyName: user.companyName,
      userType: user.userType === 'test' ? 'test' : 'production',
      tokenHash,
    }
  }
}

/** The operator of a TOOL route; its hook has made sure there is one. */
export function toolOperator(req: FastifyRequest): ToolOperator {
  if (!req.toolOperator) throw new AppError(401, 'auth.notLoggedIn', {}, ResultCode.ILLEGAL_TOKEN)
  return req.toolOperator
}
