import { iotEntities, type IotGatewayStatus, PROTOCOL_VERSION } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { hasPermission } from '../../platform/rbac/auth-context'
import { assertIdsInScope, callerScope, entityScope } from '../../platform/rbac/entity-scope'
import { caller } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'
import { envelope, fileAnswer } from '../../platform/responses'
import { openEventStream } from '../../platform/sse'
import { maskRow, privacyViewOf } from '../../platform/privacy/masking'
import { gatewayStatusSchema } from './schemas'
import { repeat } from '../../platform/jobs/schedule'

/** How often an open stream reads again whether its user may still list warnings (a role changed). */
const ALARM_RIGHT_RECHECK_MS = 2_000
/** How often a scoped caller's stream reads again which devices are in their scope. */
const SCOPE_REREAD_MS = 60_000

/**
 * The console's live view of the fleet: device and command events as they happen, alarm events
 * besides for who may also list warnings, and the gateway's state.
 */
export function registerIotStream(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const tags = ['IoT gateway']

  api.get(
    '/iot/stream',
    {
      config: { permission: 'iot:device:list' },
      schema: {
        tags,
        summary:
          "Server-sent events: 'device' (state changes) and 'command' (status changes) of every device, with deviceId also that device's 'message' events; 'alarm' (raised, repeated, acknowledged, cleared) for who may also list warnings (iot:warning:list)",
        querystring: z.object({ deviceId: z.coerce.number().int().positive().optional() }),
        response: { 200: fileAnswer('text/event-stream', "Server-sent events 'device', 'command', (with deviceId) 'message' and (with iot:warning:list) 'alarm'") },
      },
    },
    async (req, reply) => {
      const { deviceId } = req.query
      let mayAlarms = hasPermission(caller(req), 'iot:warning:list')
      // A device's position is personal data (location): masked for who may not see it, as in the list.
      const view = privacyViewOf(caller(req))
      const scope = await callerScope(services, caller(req))
      if (deviceId !== undefined) await assertIdsInScope(services.db, iotEntities.iotDevice, scope, [deviceId])
      // A caller limited by a data scope hears only the devices in it, read again now and then as bikes change hands.
      let visible: Set<number> | null = null
      const readVisible = async () => {
        const rows = await services.db.selectFrom('iotDevice').select('deviceId').where(entityScope(iotEntities.iotDevice, scope)).execute()
        visible = new Set(rows.map((r) => Number(r.deviceId)))
      }
      if (!scope.all) await readVisible()
      const stream = openEventStream(req, reply)
      if (!scope.all) {
        stream.onClose(repeat(SCOPE_REREAD_MS, () => void readVisible().catch(() => undefined)))
      }
      // The stream itself ends when its route's right goes (platform/sse.ts); the alarms' right is read here.
      const stopRecheck = repeat(ALARM_RIGHT_RECHECK_MS, () => {
        if (!req.token) return
        services.authCache
          .signedIn(req.token)
          .then((s) => (mayAlarms = s.state === 'valid' && hasPermission(s.auth, 'iot:warning:list')))
          .catch(() => (mayAlarms = false))
      })
      stream.onClose(stopRecheck)
      const stop = app.iot.events.subscribe((event) => {
        if (event.type === 'alarm' && !mayAlarms) return
        if (visible && !visible.has(Number(event.data.deviceId))) return
        // The message log of the whole fleet is far too much for a browser: only the device being looked at.
        if (event.type === 'message' && (deviceId === undefined || event.data.deviceId !== deviceId)) return
        // A device's change and a device's message carry its position as that entity's rows do.
        const rowsOf = event.type === 'device' ? iotEntities.iotDevice : event.type === 'message' ? iotEntities.iotMessage : null
        stream.send(event.type, rowsOf ? maskRow(rowsOf, { ...event.data }, view) : event.data)
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
        ingest: (({ pending, cap, saturated, saturatedSeconds }) => ({ pending, cap, saturated, saturatedSeconds }))(gateway.gate.stats),
      }
    },
  )
}
