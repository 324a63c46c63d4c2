import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { type MqDebugger, publishPayloadSchema, topicFilterSchema, topicNameSchema } from '../../gateway/mq-debug'
import { BusinessType } from '../../platform/audit/operation-log'
import { ok } from '../../platform/envelope'
import { forbidden } from '../../platform/errors'
import { caller } from '../../platform/rbac/guard'
import { done, fileAnswer } from '../../platform/responses'
import { openEventStream } from '../../platform/sse'

const tags = ['IoT message-queue debugging']

/**
 * Raw broker access bypasses every device rule, so holding the menu's permissions is not enough:
 * the caller must be an administrator. Checked before the body is validated, so a refused caller
 * learns nothing from validation errors.
 */
async function administratorsOnly(req: FastifyRequest) {
  if (!caller(req).isAdmin) throw forbidden('iot.mqDebug.adminOnly')
}

/** The message-queue debugger (menu "Message-queue debugging"): watch a topic filter live, publish by hand. */
export function registerMqDebugRoutes(app: FastifyInstance, mqDebugger: () => MqDebugger) {
  const api = app.withTypeProvider<ZodTypeProvider>()

  api.get(
    '/iot/mqDebug/stream',
    {
      config: { permission: 'iot:mqDebug:list' },
      preValidation: administratorsOnly,
      schema: {
        tags,
        summary:
          "Server-sent events: 'ready' once subscribed, then 'message' {topic, payload (first 16 kB), size, truncated, qos, retain, time} for every message matching the filter, and 'dropped' {count, retained} when more than 200 live (or 200 replayed retained) a second arrive. '#' watches the whole broker.",
        querystring: z.object({ topic: topicFilterSchema }),
        response: { 200: fileAnswer('text/event-stream', "Server-sent events 'ready', 'message' and 'dropped'") },
      },
    },
    async (req, reply) => {
      const { topic } = req.query
      let stream: ReturnType<typeof openEventStream> | null = null
      const unwatch = await mqDebugger().watch(topic, {
        message: (m) => stream?.send('message', m),
        dropped: (count, retained) => stream?.send('dropped', { count, retained }),
      })
      // Gone while the subscription was made: nothing would ever close the stream.
      if (req.socket.destroyed) {
        await unwatch()
        return reply.hijack()
      }
      try {
        stream = openEventStream(req, reply)
      } catch (err) {
        // Refused (too many streams open): the watch made for it goes too.
        await unwatch()
        throw err
      }
      stream.onClose(() => {
        unwatch().catch((err) => req.log.warn({ err }, 'could not stop watching a topic'))
      })
      stream.send('ready', { topic })
    },
  )

  api.post(
    '/iot/mqDebug/publish',
    {
      config: { permission: 'iot:mqDebug:publish', audit: { module: 'Message-queue debugging', businessType: BusinessType.other } },
      preValidation: administratorsOnly,
      schema: {
        tags,
        summary: 'Publishes one message to any topic without wildcards (payload up to 64 kB); every publish is in the operation log',
        body: z.strictObject({
          topic: topicNameSchema,
          payload: publishPayloadSchema,
          qos: z.union([z.literal(0), z.literal(1)]).default(0),
          retain: z.boolean().default(false),
        }),
        response: { 200: done },
      },
    },
    async (req) => {
      const { topic, payload, qos, retain } = req.body
      await mqDebugger().publish(topic, payload, { qos, retain })
      return ok(null, 'iot.mqDebug.published')
    },
  )
}
