import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { sameSecret } from '../../gateway/device-auth'
import { notFoundHandler } from '../../platform/http'
import { PUBLIC } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'

const field = z.string().max(256).default('')
const authBody = z.object({ clientid: field, username: field, password: field })
// EMQX 5 fills `retain` in when the hook's body names it (${retain}): "true"/"false", or a boolean.
const aclBody = z.object({
  clientid: field,
  username: field,
  topic: z.string().min(1).max(1024),
  action: z.enum(['publish', 'subscribe']),
  retain: z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).optional(),
})

// EMQX's answers (its HTTP authenticator and authorizer): no envelope. A refused hook token is a 403 deny.
const decision = z.enum(['allow', 'deny'])
const authAnswer = z.object({ result: decision, is_superuser: z.boolean() })
const aclAnswer = z.object({ result: decision })
const tokenRefused = z.object({ result: z.literal('deny') })

export const HOOK_TOKEN_HEADER = 'x-velo-hook-token'

/**
 * EMQX's HTTP authentication and authorization hooks, answered by the same authority as the embedded
 * broker. They speak EMQX's JSON, not the envelope, and exist only when MQTT_HOOK_TOKEN is set; EMQX
 * sends it in the x-velo-hook-token header. A body that does not fit is denied, not a 400, so EMQX
 * never falls through to a next authenticator for a malformed request.
 */
export function registerBrokerHooks(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const token = services.config.mqttHookToken
  const tags = ['IoT broker hooks']
  const config = { permission: PUBLIC, audit: false, envelope: false } as const

  /** False when the call may go on; true once the refusal is sent. */
  const refused = (req: FastifyRequest, reply: FastifyReply) => {
    if (!token) {
      void notFoundHandler(req, reply)
      return true
    }
    const given = req.headers[HOOK_TOKEN_HEADER]
    if (typeof given === 'string' && sameSecret(given, token)) return false
    void reply.status(403).send({ result: 'deny' })
    return true
  }

  api.post(
    '/iot/broker/auth',
    { config, schema: { tags, security: [], summary: 'EMQX HTTP authentication: {clientid, username, password} → {result, is_superuser}', response: { 200: authAnswer, 403: tokenRefused } } },
    async (req, reply): Promise<z.output<typeof authAnswer> | undefined> => {
      if (refused(req, reply)) return
      const body = authBody.safeParse(req.body ?? {})
      if (!body.success) return { result: 'deny', is_superuser: false }
      const { clientid, username, password } = body.data
      const identity = await app.iot.authority.authenticate(clientid, username, password)
      // The server's own client skips the ACL (and its hook calls) for its wildcard subscription.
      return identity ? { result: 'allow', is_superuser: identity.kind === 'internal' } : { result: 'deny', is_superuser: false }
    },
  )

  api.post(
    '/iot/broker/acl',
    { config, schema: { tags, security: [], summary: 'EMQX HTTP authorization: {clientid, username, topic, action} → {result}', response: { 200: aclAnswer, 403: tokenRefused } } },
    async (req, reply): Promise<z.output<typeof aclAnswer> | undefined> => {
      if (refused(req, reply)) return
      const body = aclBody.safeParse(req.body ?? {})
      if (!body.success) return { result: 'deny' }
      const { clientid, username, topic, action, retain } = body.data
      const identity = app.iot.authority.identityOf(clientid, username)
      const retained = retain === true || retain === 'true' || retain === '1'
      const allowed = identity && app.iot.authority.authorize(identity, action, topic) && (!retained || app.iot.authority.retainAllowed(identity, topic))
      return { result: allowed ? 'allow' : 'deny' }
    },
  )
}
