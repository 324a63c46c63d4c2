import { bikeEntities, iotEntities, memberEntities, personalDataRight, type ResolvedEntity, TRACE_MAX_DAYS, TRACE_MAX_POINTS, TRACE_RIDE_MARGIN_SECONDS, type Trace, trace as traceSchema, traceRequest } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { dynamicDb } from '../../../db/database'
import { BusinessType } from '../../../platform/audit/operation-log'
import { badRequest, forbidden, notFound } from '../../../platform/errors'
import { hasPermission } from '../../../platform/rbac/auth-context'
import type { RowScope } from '../../../platform/rbac/data-scope'
import { callerScope, entityScope } from '../../../platform/rbac/entity-scope'
import { caller } from '../../../platform/rbac/guard'
import { envelope } from '../../../platform/responses'
import type { Services } from '../../../platform/services'
import { DEFAULT_POSITION_RETENTION_DAYS, POSITION_RETENTION_KEY } from '../position-retention'
import { summarise, thinIndexes, type TrackPoint } from './track'

// A device's trace (issue 42 §2): its reported positions over a range, for a device, the bike it is
// fitted to or one ride of that bike, with the distance, the stops and the top speed. Positions are
// the rider's (docs/privacy.md): the device list's query right and member:pii:location, within the
// device list's scope, and every look is in the operation log (the request: who, which, when; never
// a position — the log keeps an answer's ids, counts and list lengths only).

const device = iotEntities.iotDevice
const bike: ResolvedEntity = bikeEntities.bike
const ride: ResolvedEntity = memberEntities.ride
export const TRACE_PERMISSION = `${device.permission}:query`
const LOCATION_RIGHT = personalDataRight('location')
const DAY_MS = 86_400_000
/** Reports read at most: a week of one report every 3 s. Past it the newest are left out (the range is the user's to narrow). */
const MAX_REPORTS = 200_000
/** ~1 m, as the map rounds. */
const round5 = (v: number) => Math.round(v * 1e5) / 1e5

const epoch = (v: unknown) => (v instanceof Date ? v.getTime() : Date.parse(String(v)))

/** Whether a row of `e` with this id is in the caller's scope (and exists). */
async function inScope(services: Services, e: ResolvedEntity, id: number, scope: RowScope) {
  const row = await dynamicDb(services.db).selectFrom(e.table).select(e.idField).where(e.idField, '=', id).where(entityScope(e, scope)).executeTakeFirst()
  return !!row
}

/** The device and the window a request names: a bike's device now, a ride's bike's device over the ride. */
async function resolveTarget(services: Services, body: { deviceId?: number; bikeId?: number; rideId?: number; from?: string; to?: string }, scope: RowScope) {
  const { db } = services
  let deviceId = body.deviceId
  let from = body.from ? Date.parse(body.from) : NaN
  let to = body.to ? Date.parse(body.to) : NaN
  let bikeId = body.bikeId
  if (body.rideId !== undefined) {
    if (!(await inScope(services, ride, body.rideId, scope))) throw notFound()
    const r = await db.selectFrom('memRide').select(['bikeId', 'uploadTime', 'duration']).where('rideId', '=', body.rideId).executeTakeFirstOrThrow()
    if (r.bikeId === null || r.bikeId === undefined) throw badRequest('iot.trace.rideWithoutBike')
    bikeId = Number(r.bikeId)
    // The app uploads a ride when it ends: its reports are the duration before that.
    const upload = epoch(r.uploadTime)
    to = upload + TRACE_RIDE_MARGIN_SECONDS * 1000
    from = upload - (Number(r.duration) + TRACE_RIDE_MARGIN_SECONDS) * 1000
  }
  if (bikeId !== undefined) {
    if (!(await inScope(services, bike, bikeId, scope))) throw notFound()
    // Bike records keep no fitting history: the device fitted now is the bike's.
    const b = await db.selectFrom('bikeBike').select('iotDeviceId').where('bikeId', '=', bikeId).executeTakeFirstOrThrow()
    if (b.iotDeviceId === null || b.iotDeviceId === undefined) throw badRequest('iot.trace.bikeWithoutDevice')
    deviceId = Number(b.iotDeviceId)
  }
  if (!(from < to)) throw badRequest('iot.telemetry.badRange')
  if (to - from > TRACE_MAX_DAYS * DAY_MS) throw badRequest('iot.telemetry.rangeTooLong', { days: TRACE_MAX_DAYS })
  // Out of the caller's scope is as if there were no such device.
  const found = await db.selectFrom('iotDevice').select(['deviceId', 'sn']).where('deviceId', '=', deviceId!).where(entityScope(device, scope)).executeTakeFirst()
  if (!found) throw notFound()
  return { deviceId: Number(found.deviceId), sn: found.sn, from, to }
}

/** How long a device may hold positions it could not send (no coverage, a tunnel) and still be believed about when it took them. */
const BUFFERED_MS = DAY_MS
/** A device clock this far ahead of the server's is wrong, not early. */
const CLOCK_AHEAD_MS = 5 * 60_000

/**
 * When a position was taken: the device's own time where it is believable (a bike out of coverage
 * sends its positions late, and the trace must put them where they were ridden), else the time the
 * server received it.
 */
export function takenAt(received: number, device: number | null): number {
  if (device === null || !Number.isFinite(device)) return received
  return device <= received + CLOCK_AHEAD_MS && device >= received - BUFFERED_MS ? device : received
}

/**
 * One device's positions between two instants, as columns with their summary. Rows are found by
 * the time they were received (the table's index); a position taken in the range but received after
 * it is left out, one received in it but taken before it too.
 */
export async function readTrace(services: Services, target: { deviceId: number; sn: string; from: number; to: number }, now = Date.now()): Promise<Trace> {
  const rows = await services.db
    .selectFrom('iotTelemetry')
    .select(['receivedAt', 'deviceTime', 'latitude', 'longitude', 'speed'])
    .where('deviceId', '=', target.deviceId)
    .where('receivedAt', '>=', new Date(target.from).toISOString())
    .where('receivedAt', '<', new Date(target.to).toISOString())
    .where('latitude', 'is not', null)
    .where('longitude', 'is not', null)
    .orderBy('receivedAt')
    .limit(MAX_REPORTS)
    .execute()
  const points: TrackPoint[] = rows
    .map((r) => ({
      time: takenAt(epoch(r.receivedAt), r.deviceTime === null || r.deviceTime === undefined ? null : epoch(r.deviceTime)),
      lat: Number(r.latitude),
      lng: Number(r.longitude),
      speed: r.speed === null || r.speed === undefined ? null : Number(r.speed),
    }))
    .filter((p) => p.time >= target.from && p.time < target.to)
    .sort((a, b) => a.time - b.time)
  const { summary, keep } = summarise(points)
  const drawn = thinIndexes(points.length, TRACE_MAX_POINTS, keep).map((i) => points[i]!)
  const days = await services.configValues.int(POSITION_RETENTION_KEY, DEFAULT_POSITION_RETENTION_DAYS)
  return {
    deviceId: target.deviceId,
    sn: target.sn,
    from: new Date(target.from).toISOString(),
    to: new Date(target.to).toISOString(),
    retainedFrom: new Date(now - days * DAY_MS).toISOString(),
    positionCount: points.length,
    times: drawn.map((p) => p.time),
    lat: drawn.map((p) => round5(p.lat)),
    lng: drawn.map((p) => round5(p.lng)),
    speed: drawn.map((p) => (p.speed === null ? null : Math.round(p.speed * 10) / 10)),
    summary,
    ...(services.config.mapStyleUrl ? { styleUrl: services.config.mapStyleUrl } : {}),
  }
}

export function registerIotTrace(app: FastifyInstance, services: Services) {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/iot/trace',
    {
      // A look at a rider's whereabouts: logged like a reveal of personal data, whatever it found.
      config: { permission: TRACE_PERMISSION, audit: { module: 'IoT trace', businessType: BusinessType.other } },
      schema: {
        tags: ['IoT map'],
        summary: `One device's trace (or the device of a bike, or of a ride over its time) as columns with distance, stops and top speed; at most ${TRACE_MAX_DAYS} days; needs ${LOCATION_RIGHT}; logged`,
        body: traceRequest,
        response: { 200: envelope(traceSchema) },
      },
    },
    async (req) => {
      const auth = caller(req)
      if (!hasPermission(auth, LOCATION_RIGHT)) throw forbidden('error.forbidden', { permission: LOCATION_RIGHT })
      const target = await resolveTarget(services, req.body, await callerScope(services, auth))
      return readTrace(services, target)
    },
  )
}
