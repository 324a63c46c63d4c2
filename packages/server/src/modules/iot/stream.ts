import { type IotGatewayStatus, PROTOCOL_VERSION } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { Services } from '../../platform/services'
import { envelope, fileAnswer } from '../../platform/responses'
import { openEventStream } from '../../platform/sse'
import { gatewayStatusSchema } from './schemas'

/** The console's live view of the fleet: device and command events as they happen, and the gateway's state. */
export function registerIotStream(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const tags = ['IoT gateway']

  api.get(
    '/iot/stream',
    {
      config: { permission: 'iot:device:list' },
      schema: {
        tags,
        summary: "Server-sent events: 'device' (state changes) and 'command' (status changes) of every device; with deviceId also that device's 'message' events",
        querystring: z.object({ deviceId: z.coerce.number().int().positive().optional() }),
        response: { 200: fileAnswer('text/event-stream', "Server-sent events 'device', 'command' and (with deviceId) 'message'") },
      },
    },
    async (req, reply) => {
      const { deviceId } = req.query
      const stream = openEventStream(req, reply)
      const stop = app.iot.events.subscribe((event) => {
        // The message log of the whole fleet is far too much for a browser: only the device being looked at.
        if (event.type === 'message' && (deviceId === undefined || event.data.deviceId !== deviceId)) return
        stream.send(event.type, event.data)
      })
      stream.onClose(stop)
    },
  )

  api.get(
    '/iot/gateway',
    {
      config: { permission: 'iot:device:list' },
      schema: { tags, summary: 'The IoT gateway: protocol version, broker, connection and devices online', response: { 200: envelope(gatewayStatusSchema) } },
    },
    async (): Promise<IotGatewayStatus> => {
      const { broker, gateway } = app.iot
      const online = await services.db
        .selectFrom('iotDevice')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('online', '=', 1)
        .executeTakeFirstOrThrow()
      return {
        protocolVersion: PROTOCOL_VERSION,
        embedded: !!broker,
        ...(broker ? { port: broker.port } : {}),
        connected: gateway.connected,
        devicesOnline: Number(online.count),
      }
    },
  )
}
