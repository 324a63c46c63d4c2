import { iotEntities, type MapDevices, personalDataRight } from '@velo/shared'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely'
import { z } from 'zod'
import type { Database } from '../../../db/schema'
import { forbidden } from '../../../platform/errors'
import { languageOf } from '../../../platform/http'
import { repeat } from '../../../platform/jobs/schedule'
import { type AuthContext, hasPermission } from '../../../platform/rbac/auth-context'
import { callerScope, entityScope } from '../../../platform/rbac/entity-scope'
import { caller } from '../../../platform/rbac/guard'
import type { RowScope } from '../../../platform/rbac/data-scope'
import { envelope, fileAnswer } from '../../../platform/responses'
import type { Services } from '../../../platform/services'
import { openEventStream } from '../../../platform/sse'

// IoT › Map (issue 42 §1): every device's last position, for a map of the whole fleet. The answer is
// columns, not rows (12,000 devices are ~0.4 MB of numbers instead of megabytes of objects), in the
// device list's data scope, and only for who may see positions: they are the riders' (docs/privacy.md).

const device = iotEntities.iotDevice
export const MAP_PERMISSION = 'iot:map:list'
const LOCATION_RIGHT = personalDataRight('location')
/** Live changes are gathered for this long, then read and sent together: a fleet reporting at once is one query a second per map. */
const FLUSH_MS = 1000
/** How often an open map reads again whether its user may still see positions (a role changed). */
const RIGHT_RECHECK_MS = 2000
/** ~1 m: more digits tell nothing a map shows, and cost bytes at 12,000 devices. */
const round = (v: number) => Math.round(v * 1e5) / 1e5

/** What a point's colour says: 0 offline, 1 online, 2 an active warning (whatever the connection), 3 reported stolen (whatever else). */
export const MAP_STATUS = { offline: 0, online: 1, alarm: 2, stolen: 3 } as const

const STATES = (device.fieldMap.get('state') as { options: readonly { value: string }[] }).options.map((o) => o.value)

/** The IoT list's filters, by the same names as its URL (modelId, state, firmwareVersion), and the owner's country. */
export const mapFilters = z.object({
  modelId: z.coerce.number().int().positive().optional(),
  countryId: z.coerce.number().int().positive().optional(),
  // Comma-separated, as the list's URL has it: state=online,activated.
  state: z
    .string()
    .max(200)
    .optional()
    .transform((v, ctx) => {
      const values = (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)
      const unknown = values.filter((s) => !STATES.includes(s))
      if (unknown.length) ctx.addIssue({ code: 'custom', message: `state: ${STATES.join(', ')}` })
      return values
    }),
  firmwareVersion: z.string().trim().max(32).optional(),
})
export type MapFilters = z.infer<typeof mapFilters>

/** Devices as columns (shared MapDevices): the i-th entry of each array is one device. */
export const mapDevicesSchema: z.ZodType<MapDevices> = z.object({
  ids: z.array(z.number()),
  sns: z.array(z.string()),
  lat: z.array(z.number()),
  lng: z.array(z.number()),
  /** MAP_STATUS per device. */
  status: z.array(z.number()),
  /** Devices the filters match that have reported no position yet (not on the map). */
  unlocated: z.number(),
})

const setupSchema = z.object({
  /** Whether the caller may see positions (member:pii:location); without it the page explains instead of a map. */
  positions: z.boolean(),
  /** MAP_STYLE_URL; absent: the world base map shipped with the console. */
  styleUrl: z.string().optional(),
  models: z.array(z.object({ value: z.number(), label: z.string() })),
  countries: z.array(z.object({ value: z.number(), label: z.string() })),
  firmwareVersions: z.array(z.string()),
})

const maySeePositions = (auth: AuthContext) => hasPermission(auth, LOCATION_RIGHT)

function requirePositions(req: FastifyRequest) {
  if (!maySeePositions(caller(req))) throw forbidden('iot.map.noPositions')
}

type Eb = ExpressionBuilder<Database, 'iotDevice'>

/** The filters and the caller's scope as one condition: every value bound, the scope the engine's own. */
function where(filters: MapFilters, scope: RowScope) {
  return (eb: Eb) => {
    // The engine's scope, as every list of devices has it.
    const parts: Expression<SqlBool>[] = [entityScope(device, scope)]
    if (filters.modelId !== undefined) parts.push(eb('iotDevice.modelId', '=', filters.modelId))
    if (filters.state.length) parts.push(eb('iotDevice.state', 'in', filters.state))
    if (filters.firmwareVersion) parts.push(eb('iotDevice.firmwareVersion', '=', filters.firmwareVersion))
    // A device is in the country of the member whose bike it is fitted to.
    if (filters.countryId !== undefined) {
      parts.push(
        eb.exists(
          eb
            .selectFrom('bikeBike')
            .innerJoin('memMember', 'memMember.memberId', 'bikeBike.memberId')
            .select(sql<number>`1`.as('one'))
            .whereRef('bikeBike.iotDeviceId', '=', 'iotDevice.deviceId')
            .where('memMember.countryId', '=', filters.countryId),
        ),
      )
    }
    return eb.and(parts)
  }
}

/** The devices the filters and scope hold, as columns; `ids` narrows to those (the live updates). */
export async function mapDevices(services: Services, filters: MapFilters, scope: RowScope, ids?: readonly number[]): Promise<MapDevices> {
  const { db } = services
  let query = db.selectFrom('iotDevice').select(['deviceId', 'sn', 'latitude', 'longitude', 'online', 'theft']).where(where(filters, scope))
  if (ids) query = query.where('deviceId', 'in', ids.length ? [...ids] : [0])
  const rows = await query.orderBy('deviceId').execute()
  // Devices with an active warning: the unique active_key index holds only those, so this reads few rows.
  const alarmed = new Set(
    (await db.selectFrom('iotAlarm').select('deviceId').distinct().where('activeKey', 'is not', null).$if(!!ids, (q) => q.where('deviceId', 'in', ids!.length ? [...ids!] : [0])).execute()).map((r) =>
      Number(r.deviceId),
    ),
  )
  const out: MapDevices = { ids: [], sns: [], lat: [], lng: [], status: [], unlocated: 0 }
  for (const r of rows) {
    if (r.latitude === null || r.longitude === null || r.latitude === undefined || r.longitude === undefined) {
      out.unlocated++
      continue
    }
    const id = Number(r.deviceId)
    out.ids.push(id)
    out.sns.push(r.sn)
    out.lat.push(round(Number(r.latitude)))
    out.lng.push(round(Number(r.longitude)))
    out.status.push(r.theft === 'stolen' ? MAP_STATUS.stolen : alarmed.has(id) ? MAP_STATUS.alarm : Number(r.online) ? MAP_STATUS.online : MAP_STATUS.offline)
  }
  return out
}

export function registerIotMap(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const { db, config } = services
  const tags = ['IoT map']

  api.get(
    '/iot/map/setup',
    {
      config: { permission: MAP_PERMISSION },
      schema: { tags, summary: "The map page's start: whether the caller may see positions, the base map's style and the filters' choices", response: { 200: envelope(setupSchema) } },
    },
    async (req) => {
      const zh = languageOf(req) === 'zh_CN'
      const [models, countries, firmwares] = await Promise.all([
        db.selectFrom('iotModel').select(['modelId', 'name']).orderBy('name').execute(),
        db.selectFrom('sysCountry').select(['countryId', 'name', 'nameEn']).where('status', '=', '0').orderBy('nameEn').execute(),
        db.selectFrom('iotDevice').select('firmwareVersion').distinct().where('firmwareVersion', '<>', '').orderBy('firmwareVersion').limit(500).execute(),
      ])
      return {
        positions: maySeePositions(caller(req)),
        ...(config.mapStyleUrl ? { styleUrl: config.mapStyleUrl } : {}),
        models: models.map((m) => ({ value: Number(m.modelId), label: m.name })),
        countries: countries.map((c) => ({ value: Number(c.countryId), label: zh ? c.name : c.nameEn })),
        firmwareVersions: firmwares.flatMap((f) => (f.firmwareVersion ? [f.firmwareVersion] : [])),
      }
    },
  )

  api.get(
    '/iot/map/devices',
    {
      config: { permission: MAP_PERMISSION },
      schema: {
        tags,
        summary: `Every device's last position in the caller's scope, as columns (ids, sns, lat, lng, status: 0 offline, 1 online, 2 warning, 3 reported stolen); needs ${LOCATION_RIGHT}`,
        querystring: mapFilters,
        response: { 200: envelope(mapDevicesSchema) },
      },
    },
    async (req) => {
      requirePositions(req)
      return mapDevices(services, req.query, await callerScope(services, caller(req)))
    },
  )

  api.get(
    '/iot/map/stream',
    {
      config: { permission: MAP_PERMISSION },
      schema: {
        tags,
        summary: `Server-sent events 'positions': the devices of the filters that changed (position, connection, warnings) in the last second, as /iot/map/devices answers them, and 'gone' ids that left the filters; needs ${LOCATION_RIGHT}`,
        querystring: mapFilters,
        response: { 200: fileAnswer('text/event-stream', "Server-sent events 'positions'") },
      },
    },
    async (req, reply) => {
      requirePositions(req)
      const filters = req.query
      const scope = await callerScope(services, caller(req))
      const stream = openEventStream(req, reply)
      let changed = new Set<number>()
      let reading = false
      stream.onClose(
        app.iot.events.subscribe((event) => {
          if (event.type === 'device' || event.type === 'alarm') changed.add(Number(event.data.deviceId))
        }),
      )
      stream.onClose(
        repeat(FLUSH_MS, () => {
          if (reading || changed.size === 0) return
          const ids = [...changed]
          changed = new Set()
          reading = true
          mapDevices(services, filters, scope, ids)
            .then((found) => {
              const present = new Set(found.ids)
              const gone = ids.filter((id) => !present.has(id))
              if (found.ids.length) stream.send('positions', found)
              if (gone.length) stream.send('gone', gone)
            })
            // A failed read is tried again with the next change; the page reloads all after a reconnect.
            .catch((err: unknown) => req.log.warn({ err }, 'map positions could not be read'))
            .finally(() => (reading = false))
        }),
      )
      // The stream ends when the map's right goes (platform/sse.ts); the location right is read here.
      stream.onClose(
        repeat(RIGHT_RECHECK_MS, () => {
          if (!req.token) return
          services.authCache
            .signedIn(req.token)
            .then((s) => {
              if (s.state !== 'valid' || !maySeePositions(s.auth)) reply.raw.end()
            })
            .catch(() => reply.raw.end())
        }),
      )
    },
  )
}
